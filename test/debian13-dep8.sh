#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian 13 as its users get it: the stock kernel (linux-image-amd64, no
# kernelcapi), systemd 257, libcapi20-3t64, and the two packages built in
# Debian 13 (test/debian/chroot-debs.sh, the build of test/debian13-dkms.sh,
# with the version before for the upgrade).  debian/tests (DEP-8) run in a
# trixie image of test/debian/mkimage.sh booted under QEMU
# (test/debian/run.sh), as test/debian/t-packages.sh runs them on Debian 12;
# the results are TAP the same way (test/debian/dep8-lib.sh).  Nothing of
# trixie touches the host.  Run by make check-debian13.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
# shellcheck source=test/debian/dep8-lib.sh
. "$TESTDIR/debian/dep8-lib.sh"
for c in mmdebstrap:mmdebstrap qemu-img:qemu-utils qemu-system-x86_64:qemu-system-x86; do
	need "${c%%:*}" "${c#*:}"
done
T0=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/var/tmp}/capi-d13-dep8.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------- build
t0=$(date +%s)
o=$("$TESTDIR/debian/chroot-debs.sh" trixie 2>"$work/debs.err")
r=$?
o=${o##*$'\n'}
version=$(sed -n 's/^version=//p' "$o/info" 2>/dev/null)
if check "capi-devd and capisim-dkms $version and $version~prev1, built in Debian 13 (test/debian/chroot-debs.sh)" test $r = 0; then
	diag "figure: the Debian 13 builds: $(dep8_secs "$t0") s now, $(sed -n 's/^build_seconds=//p' "$o/info") s when built ($o)"
else
	{ cat "$work/debs.err"; tail -n 30 "$o/inside.log" "$o/mmdebstrap.log"; } 2>/dev/null | diag
	done_testing
fi

# ---------------------------------------------------------------- image
dep8_image trixie "$work"
kimg=$(sed -n 's/^kernelrelease=//p' "$DEP8_IMAGE/info")
check "the image's kernel is the one the debs' DKMS build was checked for ($(cat "$o/abi"))" \
	test "$kimg" = "$(cat "$o/abi")"

# ---------------------------------------------------------------- DEP-8
dep8_run "$o/new" "$o/old" "$work"
diag "figure: test/debian13-dep8.sh: $(dep8_secs "$T0") s in all"
done_testing
