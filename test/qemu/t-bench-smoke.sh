#!/bin/bash
# make check: a small run of bench/vm-bench.sh (3 rounds of 8 calls, 2 s
# idle) so that the benchmark, its probe and its three namers cannot rot.
# The guest's checks (names, group and mode under each namer; nothing
# lost or dangling) are this test's, then: the table, the PNG and the
# summary line came out.  The figures of so short a run mean nothing.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${CAPI_DEVD:?run through make check}" "${CAPI_CALL:?}" "${CAPI_PROBE:?}"
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
out=$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX")
trap 'rm -rf "$out"' EXIT

BENCH_OUT=$out bash "$top/bench/vm-bench.sh" --smoke >"$out/stdout" 2>"$out/stderr"
rc=$?
n=0 failed=0
# The guest's TAP, renumbered after our own plan.
while IFS= read -r l; do
	case $l in
	"ok "*|"not ok "*)
		n=$((n + 1))
		[ "${l#not ok}" != "$l" ] && failed=$((failed + 1))
		echo "$l" | sed -E "s/^(not )?ok [0-9]+/\\1ok $n/" ;;
	"#"*) case $l in "# cdf "*) ;; *) echo "$l" ;; esac ;;
	esac
done <"$out/report.tap"
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; failed=$((failed + 1)); fi
}
check "vm-bench exits 0 (status $rc)" '[ $rc = 0 ]'
check "vm-bench prints the table of the three namers" \
	'grep -q "^udevd " "$out/stdout" && grep -q "^capi-devd " "$out/stdout" && grep -q "^mdev " "$out/stdout"'
check "vm-bench writes the latency CDF as a PNG" \
	'f=$(sed -n "s/^vm-bench: latency CDF: //p" "$out/stdout") && [ "$(head -c 8 "$f" | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a ]'
check "vm-bench ends with the summary line: $(tail -n1 "$out/stdout")" \
	'tail -n1 "$out/stdout" | grep -Eq "^vm-bench: p99 capi-devd/udevd [0-9.]+, lost 0, private_dirty_kib [0-9]+, rss_kib [0-9]+$"'
if [ $failed != 0 ]; then
	sed 's/^/# /' "$out/stdout"
	sed 's/^/# /' "$out/stderr" | tail -n 40
fi
echo "1..$n"
[ $failed = 0 ]
