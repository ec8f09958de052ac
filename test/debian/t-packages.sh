#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: the Debian packages.  Builds capi-devd and capisim-dkms with
# dpkg-buildpackage from this tree (and the same tree as the version
# before, for the upgrade), runs lintian on them, runs piuparts (install,
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
for c in dpkg-buildpackage:dpkg-dev lintian:lintian piuparts:piuparts mmdebstrap:mmdebstrap \
	qemu-img:qemu-utils dh_dkms:dh-dkms; do
	need "${c%%:*}" "${c#*:}"
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/capi-debs.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------- build
version=$(sed -n 's/^AC_INIT(\[capi-devd\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
t0=$(date +%s)
"$here/build-debs.sh" "$work/new" >/dev/null 2>"$work/new.err" &
p_new=$!
"$here/build-debs.sh" --version "$version~prev1" "$work/old" >/dev/null 2>"$work/old.err"
r_old=$?
wait $p_new
r_new=$?
check "dpkg-buildpackage -us -uc -b: capi-devd $version and capisim-dkms" \
	test $r_new = 0 -a -f "$work/new/capi-devd_${version}_amd64.deb" -a -f "$work/new/capisim-dkms_${version}_all.deb" ||
	diag <"$work/new.err"
check "the same tree as version $version~prev1 (for the upgrade)" test $r_old = 0 || diag <"$work/old.err"
diag "figure: both package builds, side by side: $(dep8_secs "$t0") s"
[ $r_new = 0 ] || done_testing

# ---------------------------------------------------------------- lintian
t0=$(date +%s)
lintian -EvIL +pedantic --fail-on error,warning --show-overrides \
	"$work/new/capi-devd_${version}_amd64.changes" >"$work/lintian.out" 2>&1
r=$?
check "lintian --fail-on error,warning (the .changes and both .debs)" test $r = 0
grep -E '^[EWIPXO]:' "$work/lintian.out" | diag
diag "figure: lintian: $(dep8_secs "$t0") s"

# ---------------------------------------------------------------- piuparts
t0=$(date +%s)
if "$here/piuparts.sh" "$work/new" >"$work/piuparts.out" 2>&1; then
	pass "piuparts: install, remove and purge of capi-devd and capisim-dkms in a $suite chroot"
else
	fail "piuparts: install, remove and purge of capi-devd and capisim-dkms in a $suite chroot"
	tail -n 40 "$work/piuparts.out" | diag
fi
grep -E 'PASS|FAIL|ERROR' "$work/piuparts.out" | tail -n 5 | diag
diag "figure: piuparts: $(dep8_secs "$t0") s"

# ---------------------------------------------------------------- image
dep8_image "$suite" "$work"

# ---------------------------------------------------------------- DEP-8
dep8_run "$work/new" "$work/old" "$work"
done_testing
