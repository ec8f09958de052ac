#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/dep8-release.sh SUITE - a Debian release as its users get it:
# its stock kernel, systemd, libcapi20, ppp, and the two packages built in
# that release (test/debian/chroot-debs.sh SUITE, with the version before
# for the upgrade).  debian/tests (DEP-8) run in a SUITE image of
# test/debian/mkimage.sh booted under QEMU (test/debian/run.sh), as
# test/debian/t-packages.sh runs them on Debian 12; the results are TAP the
# same way (test/debian/dep8-lib.sh).  Nothing of SUITE touches the host.
# A release's test is a two-line script that names it:
# test/debian13-dep8.sh (trixie, make check-debian13) and test/sid-dep8.sh
# (sid, Linux 7.2 without CAPI, make check-world).
set -u
suite=${1:?usage: test/debian/dep8-release.sh SUITE}
: "${TESTDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
# shellcheck source=test/debian/dep8-lib.sh
. "$TESTDIR/debian/dep8-lib.sh"
for c in mmdebstrap:mmdebstrap qemu-img:qemu-utils qemu-system-x86_64:qemu-system-x86; do
	need "${c%%:*}" "${c#*:}"
done
T0=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/var/tmp}/capi-dep8-$suite.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------- build
t0=$(date +%s)
o=$("$TESTDIR/debian/chroot-debs.sh" "$suite" 2>"$work/debs.err")
r=$?
o=${o##*$'\n'}
version=$(sed -n 's/^version=//p' "$o/info" 2>/dev/null)
if check "capi-devd and capisim-dkms $version and $version~prev1, built in $suite (test/debian/chroot-debs.sh $suite)" test $r = 0; then
	diag "figure: the $suite builds: $(dep8_secs "$t0") s now, $(sed -n 's/^build_seconds=//p' "$o/info") s when built ($o)"
else
	{ cat "$work/debs.err"; tail -n 30 "$o/inside.log" "$o/mmdebstrap.log"; } 2>/dev/null | diag
	done_testing
fi

# ---------------------------------------------------------------- image
dep8_image "$suite" "$work"
kimg=$(sed -n 's/^kernelrelease=//p' "$DEP8_IMAGE/info")
check "DKMS built both modules in the $suite chroot for the image's kernel ($kimg)" \
	grep -q "^capisim/.*, $kimg, .*: installed" "$o/dkms-status" || diag <"$o/dkms-status"

# ---------------------------------------------------------------- DEP-8
dep8_run "$o/new" "$o/old" "$work"
diag "figure: test/debian/dep8-release.sh $suite: $(dep8_secs "$T0") s in all"
done_testing
