# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/dep8-lib.sh - what the host's DEP-8 tests share
# (test/debian/t-packages.sh for Debian 12, test/debian13-dep8.sh for
# Debian 13): the image of test/debian/mkimage.sh, and debian/tests run in
# it by test/debian/run.sh with their results turned into TAP.  Sourced
# after test/tap.sh; figures (seconds) are "# figure:" lines.
#
#   dep8_start NAME CMD:PACKAGE...
#                             each CMD installed (tap.sh's need, naming
#                             its PACKAGE), T0 the start, and work a fresh
#                             directory (TMPDIR, default /var/tmp,
#                             capi-NAME.XXXXXX) removed when the test ends
#   dep8_debs SUITE WORK WHAT the two packages built in a SUITE chroot
#                             (test/debian/chroot-debs.sh, cached); one
#                             test naming WHAT was built; sets DEP8_DEBS
#                             (its new/, old/, info, dkms-status), else
#                             ends the test
#   dep8_image SUITE WORK     builds (or takes from the cache) the image;
#                             one test; sets DEP8_IMAGE, else ends the test
#   dep8_run NEW OLD WORK     boots DEP8_IMAGE with the .debs of NEW (and
#                             the version before, OLD; "" for none) in a
#                             local apt repository, runs debian/tests as
#                             autopkgtest does; one test that the testbed
#                             was set up, one that the guest ran them all, then each test's own TAP renumbered
#                             into this stream (TAP_PREFIX its name), its
#                             "# figure:" and "# pppd:" lines, and one test
#                             per test that it exited 0.  Sets DEP8_OUT.
#   dep8_run NEW OLD WORK CONTROL [ARG...]
#                             the same with the tests of CONTROL (a control
#                             file of the source tree, run.sh --control)
#                             and run.sh's ARGs (--archive SUITE=DIR)
# WORK is a directory for the error output of the steps.
DEP8_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEP8_TOP=$(cd "$DEP8_DIR/../.." && pwd)
DEP8_CACHE=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
DEP8_IMAGE="" DEP8_OUT=""

dep8_secs() { echo $(( $(date +%s) - $1 )); }

dep8_start() {	# dep8_start NAME CMD:PACKAGE...
	local name=$1 c
	shift
	for c in "$@"; do
		need "${c%%:*}" "${c#*:}"
	done
	# shellcheck disable=SC2034 # the caller's
	T0=$(date +%s)
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/capi-$name.XXXXXX")
	trap '[ "$BASHPID" != "$$" ] || rm -rf "$work"' EXIT
}

dep8_debs() {	# dep8_debs SUITE WORK WHAT
	local t0 r o version
	t0=$(date +%s)
	o=$("$DEP8_DIR/chroot-debs.sh" "$1" 2>"$2/debs.err")
	r=$?
	o=${o##*$'\n'}
	version=$(sed -n 's/^version=//p' "$o/info" 2>/dev/null)
	if check "capi-devd and kernelcapi-dkms ${3//@V@/$version}, built in $1 (test/debian/chroot-debs.sh $1)" test $r = 0; then
		diag "figure: the $1 builds: $(dep8_secs "$t0") s now, $(sed -n 's/^build_seconds=//p' "$o/info") s when built ($o)"
	else
		{ cat "$2/debs.err"; tail -n 30 "$o/inside.log" "$o/mmdebstrap.log"; } 2>/dev/null | diag
		done_testing
	fi
	# shellcheck disable=SC2034 # for the callers
	DEP8_DEBS=$o
}
dep8_image() {	# dep8_image SUITE WORK
	local t0 info
	t0=$(date +%s)
	if DEP8_IMAGE=$("$DEP8_DIR/mkimage.sh" --suite "$1" 2>"$2/image.err" | tail -n1) &&
		[ -f "$DEP8_IMAGE/.done" ]; then
		info=$DEP8_IMAGE/info
		pass "a Debian $1 image made with mmdebstrap ($(sed -n 's/^kernelrelease=//p' "$info"))"
		diag "figure: image: $(dep8_secs "$t0") s now, $(sed -n 's/^build_seconds=//p' "$info") s when built"
	else
		fail "a Debian $1 image made with mmdebstrap (test/debian/mkimage.sh)"
		diag <"$2/image.err"
		done_testing
	fi
}

# shellcheck disable=SC2034 # TAP_PREFIX is test/tap.sh's
dep8_run() {	# dep8_run NEW OLD WORK [CONTROL [ARG...]]
	local t0 r t line st new=$1 old=$2 work=$3 ctl=${4:-debian/tests/control}
	shift 3
	[ $# = 0 ] || shift
	t0=$(date +%s)
	mkdir -p "$DEP8_CACHE/dep8"
	DEP8_OUT=$(mktemp -d "$DEP8_CACHE/dep8/run.XXXXXX")
	"$DEP8_DIR/run.sh" --image "$DEP8_IMAGE" --debs "$new" ${old:+--debs-old "$old"} \
		--control "$ctl" "$@" --out "$DEP8_OUT" >/dev/null 2>"$work/run.err"
	r=$?
	diag "figure: debian/tests in the VM: $(dep8_secs "$t0") s (accel=$(sed -n 's/^accel=//p' "$DEP8_OUT/info" 2>/dev/null), -smp 1)"
	sed 's/^/figure: /' "$DEP8_OUT/boots" 2>/dev/null | diag
	grep '^# figure:' "$DEP8_OUT/testbed.log" 2>/dev/null
	check "the testbed: the .debs in a local apt repository, the image's headers purged" \
		test "$(cat "$DEP8_OUT/testbed" 2>/dev/null)" = 0 || tail -n 30 "$DEP8_OUT/testbed.log" 2>/dev/null | diag
	check "the guest ran every test of $ctl and powered off" test $r = 0 ||
		{ diag <"$work/run.err"; tail -n 60 "$DEP8_OUT/console.log" | diag; }
	for t in $(sed -n 's/^Tests:[[:space:]]*//p' "$DEP8_TOP/$ctl"); do
		TAP_PREFIX="$t"
		# the test's own TAP, renumbered into this stream
		while IFS= read -r line; do
			case "$line" in
			"ok "*) pass "${line#ok * - }" ;;
			"not ok "*) fail "${line#not ok * - }" ;;
			"# figure:"*|"# pppd:"*) echo "$line" ;;
			esac
		done <"$DEP8_OUT/$t.log" 2>/dev/null
		if [ -f "$DEP8_OUT/$t.skip" ]; then
			read -r st same <"$DEP8_OUT/$t.skip"
			check "$(dirname "$ctl")/$t where apt offers no headers: exit 77, skipped, no package changed (exit $st, $same)" \
				test "$st $same" = "77 same" || tail -n 20 "$DEP8_OUT/$t.probe.log" | diag
		fi
		st=$(cat "$DEP8_OUT/$t.status" 2>/dev/null || echo none)
		check "$(dirname "$ctl")/$t exits 0 (status $st)" test "$st" = 0 ||
			grep -v '^ok ' "$DEP8_OUT/$t.log" 2>/dev/null | tail -n 60 | diag
	done
	TAP_PREFIX=""
	# keep the three newest runs
	ls -1dt "$DEP8_CACHE/dep8"/run.*/ 2>/dev/null | tail -n +4 | while read -r t; do rm -rf "$t"; done
}
