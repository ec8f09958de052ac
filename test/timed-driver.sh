#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# test/timed-driver.sh - run automake's test driver (the arguments), and
# write the test's wall time and CPU time beside its log: for --log-file
# DIR/T.log, DIR/T.time holds "START END SECONDS CPU" (epoch seconds; CPU:
# the user and system seconds of every process the test waited for, QEMU
# and chroot builds included, from the shell's times).  ./check.sh lists
# the slowest tests and the ones that took the most CPU from these files.
# The driver's exit status is kept.
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
# times (in this shell: a command substitution's would be its own): the
# shell's user and system time, then its children's ("0m1.5s 0m0.2s"); a
# child's time includes what it waited for, down the tree.
[ -z "$log" ] || {
	times >"${log%.log}.time" &&
	awk -v a="$t0" -v b="$t1" 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); c += t[1] * 60 + t[2] } }
		END { printf "%.1f %.1f %.1f %.1f\n", a, b, b - a, c }' "${log%.log}.time" >"${log%.log}.time.new" &&
	mv "${log%.log}.time.new" "${log%.log}.time"
} || true
exit $rc
