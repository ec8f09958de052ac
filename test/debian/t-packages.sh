#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: the Debian packages.  Makes the release tarball (make dist,
# with the DKMS trees), checks their provenance against the archive,
# builds the source package and capi-devd and kernelcapi-dkms with
# dpkg-buildpackage from it (full; -B of the same source as the version
# before, for the upgrade; -A), checks the DKMS version and kernels and
# debian/copyright against the tarball (test/copyright.sh), runs lintian
# on the full build, runs piuparts (install,
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
"$here/build-debs.sh" --orig "$orig" --version "$version~prev1" --build any "$work/old" >/dev/null 2>"$work/old.err"
r_old=$?
wait $p_new
r_new=$?
check "dpkg-buildpackage -us -uc (3.0 (quilt), from the tarball): capi-devd $version-1 and kernelcapi-dkms" \
	test $r_new = 0 -a -f "$work/new/capi-devd_$version-1_amd64.deb" -a -f "$work/new/kernelcapi-dkms_$version-1_all.deb" \
	-a -f "$work/new/capi-devd_$version-1.dsc" ||
	diag <"$work/new.err"
# -B and -A: what the buildds build, each set alone (dh_missing and the
# -arch/-indep targets of debian/rules)
check "dpkg-buildpackage -B (an architecture's buildd) of the same source as $version~prev1-1 (the upgrade's version before): capi-devd only" \
	test $r_old = 0 -a -f "$work/old/capi-devd_$version~prev1-1_amd64.deb" -a ! -e "$work/old/kernelcapi-dkms_$version~prev1-1_all.deb" ||
	diag <"$work/old.err"
diag "figure: the full and the -B build, side by side: $(dep8_secs "$t0") s"
t0=$(date +%s)
"$here/build-debs.sh" --orig "$orig" --build all "$work/indep" >/dev/null 2>"$work/indep.err"
r=$?
check "dpkg-buildpackage -A (the arch-indep buildd): kernelcapi-dkms only" \
	test $r = 0 -a -f "$work/indep/kernelcapi-dkms_$version-1_all.deb" -a ! -e "$work/indep/capi-devd_$version-1_amd64.deb" ||
	diag <"$work/indep.err"
diag "figure: the -A build: $(dep8_secs "$t0") s"
[ $r_new = 0 ] || done_testing

# ---------------------------------------------------------------- DKMS version and kernels
# The DKMS package's version is the upstream version; its kernels are the
# trees' series, 7.x bounded to the series built and booted.  DKMS matches
# BUILD_EXCLUSIVE_KERNEL as a bash regular expression ([[ =~ ]]).
mkdir -p "$work/dkmsdeb"
dpkg-deb -x "$work/new/kernelcapi-dkms_$version-1_all.deb" "$work/dkmsdeb"
conf=$work/dkmsdeb/usr/src/capisim-$version/dkms.conf
check "kernelcapi-dkms has /usr/src/capisim-$version/dkms.conf, PACKAGE_VERSION=\"$version\"" \
	grep -qx "PACKAGE_VERSION=\"$version\"" "$conf"
kre=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$conf" 2>/dev/null)
kmatch() { [[ $1 =~ $kre ]]; }
for k in 6.1.0-44-amd64 6.12.57+deb13-amd64 6.12.118+deb13-amd64 7.2.13+deb14-amd64 7.3.4+deb13-amd64; do
	check "BUILD_EXCLUSIVE_KERNEL ($kre) takes $k" kmatch "$k"
done
for k in 7.0.12+deb14-amd64 7.1.3-amd64 7.4.1+deb14-amd64 7.12.1-amd64 6.13.5-amd64 6.10.1-amd64; do
	check "... and skips $k (no tree built and booted for it)" not kmatch "$k"
done
grep '^# Made by\|^# kernelcapi' "$conf" | diag

# ---------------------------------------------------------------- copyright
mkdir -p "$work/tarball"
tar -C "$work/tarball" -xJf "$orig"
if "$top/test/copyright.sh" "$work/tarball/capi-devd-$version" >"$work/copyright.out" 2>&1; then
	pass "test/copyright.sh on the release tarball: debian/copyright gives each file's SPDX license ($(grep -o '[0-9]* files' "$work/copyright.out" | head -n1))"
else
	fail "test/copyright.sh on the release tarball"
	grep -v '^ok' "$work/copyright.out" | diag
fi
rm -rf "$work/tarball"

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
