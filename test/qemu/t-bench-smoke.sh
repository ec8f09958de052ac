#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: a small run of bench/vm-bench.sh (3 rounds of 8 calls, 2 s
# idle) so that the benchmark, its probe and its three namers cannot rot.
# The guest's checks (names, group and mode under each namer; nothing
# lost or dangling) are this test's, then: the table, the PNG and the
# summary line came out.  The figures of so short a run mean nothing.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=test/tap.sh
. "$here/../tap.sh"
: "${CAPI_DEVD:?run through make check}" "${CAPI_CALL:?}" "${CAPI_PROBE:?}" \
	"${CAPI_DEVD_TIMED:?}"
out=$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$out"' EXIT

BENCH_OUT=$out bash "$top/bench/vm-bench.sh" --smoke >"$out/stdout" 2>"$out/stderr"
rc=$?
# The guest's TAP, as tests of this one.
while IFS= read -r l; do
	case $l in
	"ok "*) pass "${l#ok * - }" ;;
	"not ok "*) fail "${l#not ok * - }" ;;
	"# cdf "*) ;;
	"#"*) echo "$l" ;;
	esac
done <"$out/report.tap"
png_written() {
	local f
	f=$(sed -n 's/^vm-bench: latency CDF: //p' "$out/stdout") &&
		[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}
check "vm-bench exits 0 (status $rc)" test $rc = 0
table_printed() {
	grep -q '^udevd ' "$out/stdout" && grep -q '^capi-devd ' "$out/stdout" &&
		grep -q '^mdev ' "$out/stdout"
}
check "vm-bench prints the table of the three namers" table_printed
check "vm-bench writes the latency CDF as a PNG" png_written
breakdown_printed() {	# every stage, and events joined
	local st
	for st in total asleep queued recv parse tree seen; do
		grep -Eq "^$st +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\$" "$out/stdout" || return 1
	done
	grep -Eq '^ [1-9][0-9]* of [0-9]+ timed events joined' "$out/stdout"
}
check "vm-bench prints where a capi-devd event's time goes" breakdown_printed
check "vm-bench ends with the summary line: $(tail -n1 "$out/stdout")" \
	grep -Eqx 'vm-bench: p99 capi-devd/udevd [0-9.]+, lost 0, private_dirty_kib [0-9]+, rss_kib [0-9]+' \
	<(tail -n1 "$out/stdout")
[ "$T_FAILED" = 0 ] || { diag <"$out/stdout"; tail -n 40 "$out/stderr" | diag; }
done_testing
