#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/fuzz/run.sh DIR/NAME.fuzz - one libFuzzer harness as a TAP test
# (make fuzz, make check-ci): DIR/NAME.fuzz (a link to DIR/fuzz-NAME) runs
# FUZZ_SECONDS (60) on a scratch corpus, DIR/run-NAME, seeded from
# test/fuzz/corpus/NAME.  One test: ok when the harness ran its time
# without a finding, with its executions and corpus size; else its
# output's end (a finding's input: DIR/NAME-crash-*, and so on).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/tap.sh
. "$here/../tap.sh"
bin=$1
name=$(basename "$bin" .fuzz)
dir=$(dirname "$bin")
secs=${FUZZ_SECONDS:-60}
work=$dir/run-$name
log=$dir/fuzz-$name.out
rm -rf "$work" && mkdir -p "$work" || exit 99
rc=0
"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -rss_limit_mb=1024 \
	-artifact_prefix="$dir/$name-" "$work" "$here/corpus/$name" >"$log" 2>&1 || rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
inputs=$(find "$work" -type f | wc -l)
if [ "$rc" = 0 ] && [ -n "$execs" ]; then
	pass "fuzz-$name: $secs s, $execs executions, $inputs corpus inputs, no findings"
else
	fail "fuzz-$name: $secs s without a finding (exit $rc)"
	tail -n 60 "$log" | diag
fi
done_testing
