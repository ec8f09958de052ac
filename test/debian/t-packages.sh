#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: the Debian packages.  Makes the release tarball (make dist,
# with the DKMS trees), checks their provenance against the archive,
# builds the source package and capi-devd and kernelcapi-dkms with
# dpkg-buildpackage from it (and the same source as the version before,
# for the upgrade), runs lintian on them, runs piuparts (install,
# remove, purge in a chroot; no module is built or loaded there), builds
# (or takes from the cache) the Debian 12 image of test/debian/mkimage.sh
# and runs debian/tests (DEP-8) in it under QEMU with test/debian/run.sh.
# Figures (seconds) are "# figure:" lines.
#
# Environment: CAPI_DEBIAN_SUITE (default bookworm), CAPI_DEVD_CACHE.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=test/tap.sh
. "$here/../tap.sh"
# shellcheck source=test/debian/dep8-lib.sh
. "$here/dep8-lib.sh"
suite=${CAPI_DEBIAN_SUITE:-bookworm}
dep8_start debs dpkg-buildpackage:dpkg-dev lintian:lintian piuparts:piuparts mmdebstrap:mmdebstrap \
	qemu-img:qemu-utils dh_dkms:dh-dkms

# ---------------------------------------------------------------- build
version=$(sed -n 's/^AC_INIT(\[capi-devd\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
t0=$(date +%s)
orig=$("$here/build-debs.sh" --make-orig "$work/dist" 2>"$work/dist.err")
check "make dist: the release tarball capi-devd-$version.tar.xz" test -f "$orig" || diag <"$work/dist.err"
[ -f "$orig" ] || done_testing
check "... carries the DKMS trees 6.1, 6.12 and 7, each with its PROVENANCE, and devices.txt" \
	test "$(tar -tJf "$orig" | grep -cE "^capi-devd-$version/kernel/dkms/src/(linux-(6\.1|6\.12|7)/PROVENANCE|devices\.txt)\$")" = 4
diag "figure: make dist: $(dep8_secs "$t0") s"
t0=$(date +%s)
"$here/build-debs.sh" --orig "$orig" "$work/new" >/dev/null 2>"$work/new.err" &
p_new=$!
"$here/build-debs.sh" --orig "$orig" --version "$version~prev1" "$work/old" >/dev/null 2>"$work/old.err"
r_old=$?
wait $p_new
r_new=$?
check "dpkg-buildpackage -us -uc (3.0 (quilt), from the tarball): capi-devd $version-1 and kernelcapi-dkms" \
	test $r_new = 0 -a -f "$work/new/capi-devd_$version-1_amd64.deb" -a -f "$work/new/kernelcapi-dkms_$version-1_all.deb" \
	-a -f "$work/new/capi-devd_$version-1.dsc" ||
	diag <"$work/new.err"
check "the same source as version $version~prev1-1 (for the upgrade)" test $r_old = 0 || diag <"$work/old.err"
diag "figure: both package builds, side by side: $(dep8_secs "$t0") s"
[ $r_new = 0 ] || done_testing

# ---------------------------------------------------------------- provenance
# The files the tarball's DKMS trees took from linux-source-6.1 and -6.12
# against the archive's current packages (fetched once a version into
# the cache): a change there (a point release, a security fix) fails
# here, naming the files; doc/debian.md says how to regenerate.
t0=$(date +%s)
mkdir -p "$work/prov"
tar -C "$work/prov" -xJf "$orig" --wildcards '*/kernel/dkms/src/*'
"$top/kernel/dkms/check-provenance.sh" "$work/prov" >"$work/prov.out" 2>&1
r=$?
check "kernel/dkms/check-provenance.sh: the tarball's kernel files are the archive's (exit $r)" test $r = 0
grep -v '^\[provenance\]' "$work/prov.out" | diag
diag "figure: provenance check: $(dep8_secs "$t0") s"

# ---------------------------------------------------------------- lintian
t0=$(date +%s)
# --fail-on none and the verdict from the tags: bookworm's lintian
# (2.116) with --show-overrides fails on overridden warnings too.
lintian -EvIL +pedantic --fail-on none --show-overrides \
	"$work/new/capi-devd_${version}-1_amd64.changes" >"$work/lintian.out" 2>&1
r=$?
check "lintian exits 0 (the .changes: the source package and both .debs)" test $r = 0
check "lintian: no error and no warning but those overridden, each with its reason" \
	not grep -qE '^[EW]:' "$work/lintian.out"
grep -E '^[EWIPXO]:' "$work/lintian.out" | diag
diag "figure: lintian: $(dep8_secs "$t0") s"

# ---------------------------------------------------------------- piuparts
t0=$(date +%s)
if "$here/piuparts.sh" "$work/new" >"$work/piuparts.out" 2>&1; then
	pass "piuparts: install, remove and purge of capi-devd and kernelcapi-dkms in a $suite chroot"
else
	fail "piuparts: install, remove and purge of capi-devd and kernelcapi-dkms in a $suite chroot"
	tail -n 40 "$work/piuparts.out" | diag
fi
grep -E 'PASS|FAIL|ERROR' "$work/piuparts.out" | tail -n 5 | diag
diag "figure: piuparts: $(dep8_secs "$t0") s"

# ---------------------------------------------------------------- image
dep8_image "$suite" "$work"

# ---------------------------------------------------------------- DEP-8
dep8_run "$work/new" "$work/old" "$work"
done_testing
