#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/timed-driver.sh - run automake's test driver (the arguments), and
# write the test's wall time beside its log: for --log-file DIR/T.log,
# DIR/T.time holds "START END SECONDS" (epoch seconds).  ./check.sh lists
# the slowest tests from these files.  The driver's exit status is kept.
log=""
prev=""
for a in "$@"; do
	[ "$prev" = --log-file ] && log=$a
	prev=$a
done
t0=$(date +%s.%N)
rc=0
"$@" || rc=$?
t1=$(date +%s.%N)
[ -z "$log" ] ||
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f %.1f %.1f\n", a, b, b - a }' >"${log%.log}.time" || true
exit $rc
