#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM (as /capi-test/run), driven by test/qemu/t-fuzz.sh.
# Prints TAP.  Issue 38: capi-fuzz (test/qemu/capi-fuzz.c) with the
# arguments of capi.fuzz= on the kernel command line, commas for spaces
# (capi.fuzz=-s,7,-n,300: a random run with seed 7; capi.fuzz=-D,hang: a
# directed test).  Its lines are shown as they come (# lines), so that a
# run that ends in a panic still shows how far it got.
#
# The watchdog is the kernel's: a task in D state for 10 s
# (hung_task_timeout_secs) panics the kernel (hung_task_panic), which ends
# the VM; capi-fuzz interrupts its own operations only after 40 s.  At the
# end, any WARNING, BUG, lockdep, KASAN or KCSAN report in dmesg fails the
# boot (kernel_clean, scenario-lib.sh).
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
HUNG_TIMEOUT=10

args=""
for a in $(cat /proc/cmdline); do
	case "$a" in
	capi.fuzz=*) args=${a#*=} ;;
	esac
done
args=${args//,/ }
check "nproc = $(nproc)" test "$(nproc)" -ge 1
check "the kernel has the hung task detector" test -w /proc/sys/kernel/hung_task_timeout_secs
echo $HUNG_TIMEOUT >/proc/sys/kernel/hung_task_timeout_secs
echo 1 >/proc/sys/kernel/hung_task_panic
check "hung_task_timeout_secs $HUNG_TIMEOUT, hung_task_panic 1" \
	test "$(cat /proc/sys/kernel/hung_task_timeout_secs) $(cat /proc/sys/kernel/hung_task_panic)" = "$HUNG_TIMEOUT 1"
for m in kernelcapi ppp_async; do
	check "modprobe $m" modprobe "$m"
done
check "modprobe capisim nbchan=24" modprobe capisim nbchan=24
check "debugfs of capisim" test -d /sys/kernel/debug/capisim/ctr1

t0=$(date +%s)
# shellcheck disable=SC2086 # the arguments, split
capi-fuzz $args 2>&1 | tee /tmp/capi-fuzz.out | diag
rc=${PIPESTATUS[0]}
t1=$(date +%s)
check "capi-fuzz $args: exit $rc in $((t1 - t0)) s, $(grep -c '^ok' /tmp/capi-fuzz.out) of its checks passed" test "$rc" = 0
# no task left in D state (uninterruptible, in the kernel)
dstate=$(dstate_tasks)
check "no task in D state at the end" test -z "$dstate" || diag "$dstate"
kernel_clean
done_testing
