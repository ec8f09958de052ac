#!/bin/bash
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
suite=${CAPI_DEBIAN_SUITE:-bookworm}
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
for c in dpkg-buildpackage:dpkg-dev lintian:lintian piuparts:piuparts mmdebstrap:mmdebstrap \
	qemu-img:qemu-utils dh_dkms:dh-dkms; do
	need "${c%%:*}" "${c#*:}"
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/capi-debs.XXXXXX")
trap 'rm -rf "$work"' EXIT
secs() { echo $(( $(date +%s) - $1 )); }

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
diag "figure: both package builds, side by side: $(secs "$t0") s"
[ $r_new = 0 ] || done_testing

# ---------------------------------------------------------------- lintian
t0=$(date +%s)
lintian -EvIL +pedantic --fail-on error,warning --show-overrides \
	"$work/new/capi-devd_${version}_amd64.changes" >"$work/lintian.out" 2>&1
r=$?
check "lintian --fail-on error,warning (the .changes and both .debs)" test $r = 0
grep -E '^[EWIPXO]:' "$work/lintian.out" | diag
diag "figure: lintian: $(secs "$t0") s"

# ---------------------------------------------------------------- piuparts
t0=$(date +%s)
if "$here/piuparts.sh" "$work/new" >"$work/piuparts.out" 2>&1; then
	pass "piuparts: install, remove and purge of capi-devd and capisim-dkms in a $suite chroot"
else
	fail "piuparts: install, remove and purge of capi-devd and capisim-dkms in a $suite chroot"
	tail -n 40 "$work/piuparts.out" | diag
fi
grep -E 'PASS|FAIL|ERROR' "$work/piuparts.out" | tail -n 5 | diag
diag "figure: piuparts: $(secs "$t0") s"

# ---------------------------------------------------------------- image
t0=$(date +%s)
if image=$("$here/mkimage.sh" --suite "$suite" 2>"$work/image.err" | tail -n1) && [ -f "$image/.done" ]; then
	pass "a Debian $suite image made with mmdebstrap ($(sed -n 's/^kernelrelease=//p' "$image/info"))"
	diag "figure: image: $(secs "$t0") s now, $(sed -n 's/^build_seconds=//p' "$image/info") s when built"
else
	fail "a Debian $suite image made with mmdebstrap (test/debian/mkimage.sh)"
	diag <"$work/image.err"
	done_testing
fi

# ---------------------------------------------------------------- DEP-8
t0=$(date +%s)
mkdir -p "$cache/dep8"
out=$(mktemp -d "$cache/dep8/run.XXXXXX")
"$here/run.sh" --image "$image" --debs "$work/new" --debs-old "$work/old" --out "$out" >/dev/null 2>"$work/run.err"
r=$?
diag "figure: debian/tests in the VM: $(secs "$t0") s"
sed 's/^/figure: /' "$out/boots" 2>/dev/null | diag
check "the guest ran every test of debian/tests/control and powered off" test $r = 0 ||
	{ diag <"$work/run.err"; tail -n 60 "$out/console.log" | diag; }
for t in $(sed -n 's/^Tests:[[:space:]]*//p' "$top/debian/tests/control"); do
	TAP_PREFIX="$t"
	# the test's own TAP, renumbered into this stream
	while IFS= read -r line; do
		case "$line" in
		"ok "*) pass "${line#ok * - }" ;;
		"not ok "*) fail "${line#not ok * - }" ;;
		"# "*) [[ $line == "# figure:"* ]] && echo "$line" ;;
		esac
	done <"$out/$t.log" 2>/dev/null
	st=$(cat "$out/$t.status" 2>/dev/null || echo none)
	check "debian/tests/$t exits 0 (status $st)" test "$st" = 0 ||
		grep -v '^ok ' "$out/$t.log" 2>/dev/null | tail -n 60 | diag
done
TAP_PREFIX=""
# keep the three newest runs
ls -1dt "$cache/dep8"/run.*/ 2>/dev/null | tail -n +4 | while read -r d; do rm -rf "$d"; done
done_testing
