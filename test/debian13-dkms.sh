#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian 13: the packages built in Debian 13, as its users would, and
# kernelcapi-dkms installed there: DKMS builds kernelcapi and capisim against
# Debian 13's own headers (linux-headers-amd64, gcc-14), from the 6.12
# tree of the series.  In a trixie chroot made with mmdebstrap from the
# archive the host's apt already uses (kernel/suite.sh's private
# sources.list); nothing of trixie touches the host: test/debian/chroot-debs.sh
# does it, and keeps the .debs it built in the cache, keyed by the tree.
# Run by make check-debian13.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
need mmdebstrap mmdebstrap
need git git
top=$(cd "$TESTDIR/.." && pwd)

# test/debian/chroot-debs.sh builds both (and the version before, for
# test/debian13-dep8.sh), in the cache keyed by the tree
err=$(mktemp "${TMPDIR:-/tmp}/capi-d13.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -f "$err"' EXIT
t0=$(date +%s)
o=$("$top/test/debian/chroot-debs.sh" trixie 2>"$err")
r=$?
o=${o##*$'\n'}
diag "figure: test/debian/chroot-debs.sh trixie: $(( $(date +%s) - t0 )) s now, $(sed -n 's/^build_seconds=//p' "$o/info" 2>/dev/null) s when built"
if ! check "mmdebstrap: a Debian 13 chroot with build-essential, dkms and linux-headers-amd64" test -s "$o/inside.log"; then
	diag <"$err"
	tail -n 30 "$o/mmdebstrap.log" 2>/dev/null | diag
	done_testing
fi
[ $r = 0 ] || diag "test/debian/chroot-debs.sh trixie: exit $r"
abi=$(cat "$o/abi")
diag "Debian 13 kernel $abi, the builds: $o"
diag "in the chroot: $(cat "$o/gcc" 2>/dev/null)"
debs_built() { ls "$o"/new/capi-devd_*.deb "$o"/new/kernelcapi-dkms_*.deb; }
if check "dpkg-buildpackage in Debian 13 builds capi-devd and kernelcapi-dkms" debs_built; then
	for f in "$o"/new/*.deb; do diag "$(basename "$f")"; done
else
	{ grep -E '(^|: )(error|E):' "$o/inside.log" | head -n 20; tail -n 20 "$o/inside.log"; } | diag
fi
# /usr/src/capisim-VERSION: VERSION is the upstream version; the trees
# are its linux-6.1, linux-6.12 and linux-7
version=$(sed -n 's/^version=//p' "$o/info")
check "kernelcapi-dkms built there is /usr/src/capisim-$version (the upstream version)" \
	grep -qx "capisim-$version" "$o/usr-src"
check "... and carries the 6.12 tree" grep -qx "/usr/src/capisim-$version/linux-6.12" "$o/usr-src"
diag "dkms status: $(cat "$o/dkms-status" 2>/dev/null)"
for m in kernelcapi capisim; do
	if ! check "DKMS built and installed $m.ko for $abi" grep -q "^/lib/modules/$abi/updates/dkms/$m\.ko" "$o/modinfo"; then
		grep -E 'dkms|DKMS|error|Error' "$o/inside.log" | tail -n 30 | diag
	fi
	check "$m.ko's vermagic is Debian 13's kernel ($abi)" \
		grep -q "/$m\.ko[^ ]* $abi " "$o/modinfo"
done
check "kernelcapi.ko's version is the 6.12 tree's (6.12.*-capi.*)" \
	grep -Eq '/kernelcapi\.ko[^ ]* .* 6\.12\.[0-9]+-capi\.' "$o/modinfo"
cat "$o/modinfo" | diag
# Debian 13's systemd (257) and udev read what the package installed:
# the unit as built there is Type=notify-reload without ExecReload=
# (rules/mkunit.sh, systemd 253 on), and both verify clean.  The reload
# itself runs booted, in debian/tests/lifecycle (test/debian13-dep8.sh,
# make check-world; Debian 12's Type=notify in make check-ci).
diag <"$o/unit"
check "the unit built in Debian 13 is Type=notify-reload, without ExecReload=" \
	test "$(grep -E '^(Type|ExecReload)=' "$o/unit")" = "Type=notify-reload"
check "Debian 13's systemd-analyze verify of the installed unit: exit 0, no warning" \
	test "$(cat "$o/verify-unit")" = "exit 0" || diag <"$o/verify-unit"
check "Debian 13's udevadm verify of the installed 50-capi.rules: exit 0" \
	test "$(tail -n1 "$o/verify-rules")" = "exit 0"
diag <"$o/verify-rules"
# A kernel after the 7.x series built and booted: DKMS skips it, and the
# kernel's install goes on (the hook that linux-image's postinst runs
# exits 0), saying so in one line.
check "a kernel of no tree (7.99.0-1-amd64): DKMS's kernel postinst hook exits 0" grep -qx 'exit 0' "$o/no-tree"
check "... and says that it skipped capisim (BUILD_EXCLUSIVE_KERNEL)" \
	grep -q 'skipped for module(s) capisim' "$o/no-tree"
diag <"$o/no-tree"
done_testing
