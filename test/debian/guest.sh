#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/guest.sh - runs INSIDE the Debian image (test/debian/mkimage.sh),
# started by its capi-dep8.service from the 9p share /run/dep8 that
# test/debian/run.sh fills:
#   /run/dep8/src/      the source tree (debian/tests/control, the tests)
#   /run/dep8/repo/     a flat apt repository (Packages made by run.sh):
#                       the packages under test, the version before, and
#                       the headers of the image's kernel
#   /run/dep8/out/      results: NAME.log, NAME.status, NAME.skip,
#                       boots, done
#   /run/dep8/state     the test running and its reboot mark, across reboots
#   /run/dep8/control   (run.sh --control) the control file to run, a path
#                       in src/; its tests are in its directory
#   /run/dep8/boot/     (made here) the kernel a reboot boots, see below
# It acts as autopkgtest does on one testbed.  Once, before the first
# test: the image's apt sources (the archive, out of reach without a
# network) give way to that repository, dpkg and man-db get autopkgtest's
# testbed settings (force-unsafe-io, no man-db index), and the image is
# checked to have no kernel headers (test/debian/mkimage.sh purges them
# natively), as on a testbed that has none: installing
# kernelcapi-dkms then builds nothing until a test installs
# linux-headers-$(uname -r) from the repository.  Then, for each test of
# debian/tests/control in order: its Depends installed with apt-get
# (@: the binary packages of debian/control), a skippable test run once
# where apt offers nothing (it must exit 77 and change no package:
# NAME.skip), the test run with cwd the
# source tree, AUTOPKGTEST_TMP, AUTOPKGTEST_ARTIFACTS, and the reboot
# protocol (a test calls /tmp/autopkgtest-reboot MARK; it is run again
# after the reboot with AUTOPKGTEST_REBOOT_MARK=MARK, its Depends not
# installed again).  A reboot boots the newest kernel of /boot, as
# GRUB's first entry does: when that is not the running kernel, it and its
# initrd go to /run/dep8/boot/ and the guest powers off; run.sh then boots
# them on the same disk.  Then it powers the machine off.
set -uo pipefail
share=/run/dep8
out=$share/out
mkdir -p "$out"
echo "boot $(cut -d' ' -f1 /proc/uptime) s to the runner, $(uname -r), $(nproc) CPU(s) up, $(dmesg | grep -o 'tsc: Refined TSC clocksource calibration: .*\|tsc: Detected .* MHz TSC\|tsc: Detected .* MHz processor' | tail -n1 | sed 's/^tsc: //')" >>"$out/boots"

# The control file and the directory of its tests (debian/tests by default).
rel=debian/tests/control
[ ! -f "$share/control" ] || rel=$(cat "$share/control")
ctl=$share/src/$rel
tdir=$(dirname "$rel")
# The names of the tests, in order.
tests=$(sed -n 's/^Tests:[[:space:]]*//p' "$ctl" | tr ' ,' '\n\n' | sed '/^$/d')

cat >/tmp/autopkgtest-reboot <<'EOF'
#!/bin/sh
# autopkgtest's reboot protocol: remember the mark, reboot, run the test again.
[ -n "$1" ] || { echo "usage: autopkgtest-reboot MARK" >&2; exit 2; }
echo "$1" >/run/dep8/mark
new=$(ls /boot/vmlinuz-* 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -V | tail -n1)
if [ -n "$new" ] && [ "$new" != "$(uname -r)" ] && [ -f "/boot/initrd.img-$new" ]; then
	# the boot loader's choice, the newest kernel: run.sh boots it
	mkdir -p /run/dep8/boot.tmp &&
		cp "/boot/vmlinuz-$new" /run/dep8/boot.tmp/vmlinuz &&
		cp "/boot/initrd.img-$new" /run/dep8/boot.tmp/initrd.img &&
		mv /run/dep8/boot.tmp /run/dep8/boot || exit 1
	sync
	systemctl poweroff
else
	sync
	systemctl reboot
fi
sleep 600
EOF
chmod 755 /tmp/autopkgtest-reboot

export DEBIAN_FRONTEND=noninteractive

# The testbed, once per run.
if [ ! -f "$out/testbed" ]; then
	(
		set -e
		echo "=== testbed at $(date -u +%T)"
		# What autopkgtest's setup-testbed sets on every testbed: dpkg
		# unpacks without an fsync per file (force-unsafe-io: a testbed
		# is thrown away, not recovered after a crash), and man-db
		# rebuilds no index on each install.  Under TCG the fsyncs cost:
		# each is an ext4 journal commit emulated instruction by
		# instruction, thousands per headers package.
		echo force-unsafe-io >/etc/dpkg/dpkg.cfg.d/autopkgtest
		echo "man-db man-db/auto-update boolean false" | debconf-set-selections
		mkdir -p /etc/apt/sources.list.d/off
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
			if [ -f "$f" ]; then mv "$f" /etc/apt/sources.list.d/off/; fi
		done
		echo "deb [trusted=yes] file:$share/repo ./" >/etc/apt/sources.list.d/capi-dep8.list
		apt-get update -q
		# A testbed has no kernel headers: test/debian/mkimage.sh purges
		# them in its build (natively, not here under TCG); checked.
		# (dpkg-query -W exits 1 when nothing matches: not an error here.)
		h=$( { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'linux-headers-*' 'linux-kbuild-*' 2>/dev/null || :; } |
			awk '$1 == "ii" { print $2 }')
		if [ -n "$h" ]; then
			echo "testbed: the image has kernel headers:" $h "(test/debian/mkimage.sh purges them)"
			exit 1
		fi
		echo "# figure: testbed: no kernel headers in the image"
	) >>"$out/testbed.log" 2>&1
	r=$?
	echo "$r" >"$out/testbed"
fi

# field TEST NAME: field NAME (lower case) of TEST's stanza in the
# control file, continuation lines joined
field() {
	awk -v t="$1" -v want="$2" '
		/^#/ { next }
		/^[^[:space:]#]/ { f = $0; sub(/:.*/, "", f); f = tolower(f) }
		/^$/ { if (hit) exit; tests = ""; val = "" }
		f == "tests" { v = $0; sub(/^[Tt]ests:/, "", v); tests = tests " " v }
		f == want { v = $0; sub(/^[^:]*:/, "", v); val = val " " v }
		{ if (index(" " tests " ", " " t " ")) hit = 1 }
		END { if (hit) print val }' "$ctl"
}
# deps TEST: the Depends of TEST, @ replaced by the binary packages of
# debian/control
deps() {
	local bins
	bins=$(sed -n 's/^Package:[[:space:]]*//p' "$share/src/debian/control" | tr '\n' ' ')
	field "$1" depends |
		tr ',' '\n' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//; /^$/d' |
		while read -r d; do
			if [ "$d" = @ ]; then echo "$bins"; else echo "$d"; fi
		done | tr '\n' ' '
}
# skip_probe TEST: a skippable TEST run first as on a testbed whose apt
# offers nothing (an APT_CONFIG with no sources: no kernel headers to be
# had); OUT/TEST.skip gets its exit status and whether the installed
# packages stayed as they were ("same" or "changed")
skip_probe() {
	local a=/tmp/apt-offers-nothing before after rc
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	printf '%s\n' 'Dir::Etc::sourcelist "/dev/null";' \
		"Dir::Etc::sourceparts \"$a/none\";" "Dir::State::lists \"$a/lists/\";" \
		"Dir::Cache \"$a/cache/\";" >"$a/apt.conf"
	before=$(dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' 2>/dev/null)
	echo "=== $1 where apt offers nothing (APT_CONFIG=$a/apt.conf) at $(date -u +%T)" >>"$out/$1.probe.log"
	(cd "$share/src" && APT_CONFIG=$a/apt.conf AUTOPKGTEST_TMP=$tmp ADTTMP=$tmp \
		AUTOPKGTEST_ARTIFACTS="$out/$1.artifacts" bash "$tdir/$1") >>"$out/$1.probe.log" 2>&1
	rc=$?
	after=$(dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' 2>/dev/null)
	echo "$rc $([ "$before" = "$after" ] && echo same || echo changed)" >"$out/$1.skip"
	rm -rf "$a"
}
for t in $tests; do
	[ -f "$out/$t.status" ] && continue
	if [ "$(cat "$out/testbed")" != 0 ]; then
		echo "=== $t: the testbed could not be set up (testbed.log)" >>"$out/$t.log"
		echo testbed >"$out/$t.status"
		continue
	fi
	mark=""
	if [ -f "$share/state" ] && [ "$(cat "$share/state")" = "$t" ] && [ -f "$share/mark" ]; then
		mark=$(cat "$share/mark")
	fi
	rm -f "$share/mark"
	echo "$t" >"$share/state"
	tmp=$(mktemp -d /var/tmp/autopkgtest.XXXXXX)
	mkdir -p "$out/$t.artifacts"
	if [ -z "$mark" ]; then
		d=$(deps "$t")
		echo "=== $t: apt-get install $d at $(date -u +%T)" >>"$out/$t.log"
		# shellcheck disable=SC2086 # a list of package names
		if ! apt-get install -y -q $d >>"$out/$t.log" 2>&1; then
			echo "=== $t: its Depends do not install" >>"$out/$t.log"
			echo deps >"$out/$t.status"
			continue
		fi
		case " $(field "$t" restrictions | tr ',' ' ') " in
		*" skippable "*) skip_probe "$t" ;;
		esac
	fi
	echo "=== $t${mark:+ (after reboot, mark $mark)} at $(date -u +%T)" >>"$out/$t.log"
	(cd "$share/src" && AUTOPKGTEST_TMP=$tmp ADTTMP=$tmp \
		AUTOPKGTEST_ARTIFACTS="$out/$t.artifacts" AUTOPKGTEST_REBOOT_MARK=$mark \
		bash "$tdir/$t") >>"$out/$t.log" 2>&1
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
