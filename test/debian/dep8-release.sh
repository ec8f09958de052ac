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
# test/debian13-dep8.sh (trixie, make check-debian13), test/sid-dep8.sh
# (sid, Linux 7.2 without CAPI, make check-world) and
# test/trixie-backports-dep8.sh (make check-world).  SUITE-backports is
# SUITE's system with the kernel a user takes from SUITE-backports
# (test/debian/mkimage.sh): the packages are SUITE's build, and DKMS
# builds for the backports kernel in the guest, in debian/tests.
set -u
suite=${1:?usage: test/debian/dep8-release.sh SUITE}
base=${suite%-backports}
: "${TESTDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
# shellcheck source=test/debian/dep8-lib.sh
. "$TESTDIR/debian/dep8-lib.sh"
dep8_start "dep8-$suite" mmdebstrap:mmdebstrap qemu-img:qemu-utils qemu-system-x86_64:qemu-system-x86

# ---------------------------------------------------------------- build
dep8_debs "$base" "$work" "@V@ and @V@~prev1"
o=$DEP8_DEBS

# ---------------------------------------------------------------- image
dep8_image "$suite" "$work"
kimg=$(sed -n 's/^kernelrelease=//p' "$DEP8_IMAGE/info")
if [ "$base" = "$suite" ]; then
	check "DKMS built both modules in the $suite chroot for the image's kernel ($kimg)" \
		grep -q "^capisim/.*, $kimg, .*: installed" "$o/dkms-status" || diag <"$o/dkms-status"
else
	# The chroot built for SUITE's own kernel; the guest's DKMS build for
	# the backports kernel is debian/tests' check, below.
	kver=$(awk -v p="linux-image-$kimg" '$1 == "ii" && $2 == p { print $3 }' "$DEP8_IMAGE/packages")
	check "the image boots $suite's kernel $kimg (linux-image-$kimg ${kver:-not installed}), installed with apt-get -t $suite" \
		test -n "$kver" -a "${kver#*~bpo}" != "$kver"
fi

# ---------------------------------------------------------------- DEP-8
dep8_run "$o/new" "$o/old" "$work"
diag "figure: test/debian/dep8-release.sh $suite: $(dep8_secs "$T0") s in all"
done_testing
