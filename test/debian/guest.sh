#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/guest.sh - runs INSIDE the Debian image (test/debian/mkimage.sh),
# started by its capi-dep8.service from the 9p share /run/dep8 that
# test/debian/run.sh fills:
#   /run/dep8/src/      the source tree (debian/tests/control, the tests)
#   /run/dep8/debs/     the packages under test; debs-old/: the version before
#   /run/dep8/out/      results: NAME.log, NAME.status, boots, done
#   /run/dep8/state     the test running and its reboot mark, across reboots
# It runs the tests of debian/tests/control in order, the way autopkgtest
# does on one testbed: cwd the source tree, AUTOPKGTEST_TMP,
# AUTOPKGTEST_ARTIFACTS, and the reboot protocol (a test calls
# /tmp/autopkgtest-reboot MARK; it is run again after the reboot with
# AUTOPKGTEST_REBOOT_MARK=MARK).  Then it powers the machine off.
set -uo pipefail
share=/run/dep8
out=$share/out
mkdir -p "$out"
echo "boot $(cut -d' ' -f1 /proc/uptime) s to the runner, $(uname -r), $(nproc) CPU(s) up" >>"$out/boots"

# The names of the tests, in order.
tests=$(sed -n 's/^Tests:[[:space:]]*//p' "$share/src/debian/tests/control" | tr ' ,' '\n\n' | sed '/^$/d')

cat >/tmp/autopkgtest-reboot <<'EOF'
#!/bin/sh
# autopkgtest's reboot protocol: remember the mark, reboot, run the test again.
[ -n "$1" ] || { echo "usage: autopkgtest-reboot MARK" >&2; exit 2; }
echo "$1" >/run/dep8/mark
sync
systemctl reboot
sleep 600
EOF
chmod 755 /tmp/autopkgtest-reboot

export CAPI_DEBS=$share/debs CAPI_DEBS_OLD=$share/debs-old
export DEBIAN_FRONTEND=noninteractive
for t in $tests; do
	[ -f "$out/$t.status" ] && continue
	mark=""
	if [ -f "$share/state" ] && [ "$(cat "$share/state")" = "$t" ] && [ -f "$share/mark" ]; then
		mark=$(cat "$share/mark")
	fi
	rm -f "$share/mark"
	echo "$t" >"$share/state"
	tmp=$(mktemp -d /var/tmp/autopkgtest.XXXXXX)
	mkdir -p "$out/$t.artifacts"
	echo "=== $t${mark:+ (after reboot, mark $mark)} at $(date -u +%T)" >>"$out/$t.log"
	(cd "$share/src" && AUTOPKGTEST_TMP=$tmp ADTTMP=$tmp \
		AUTOPKGTEST_ARTIFACTS="$out/$t.artifacts" AUTOPKGTEST_REBOOT_MARK=$mark \
		bash "debian/tests/$t") >>"$out/$t.log" 2>&1
	rc=$?
	if [ -f "$share/mark" ]; then
		# the test asked for a reboot; systemctl reboot is under way
		sleep 600
	fi
	echo "$rc" >"$out/$t.status"
	rm -rf "$tmp"
done
touch "$out/done"
sync
systemctl poweroff
