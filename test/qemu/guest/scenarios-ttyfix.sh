#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM: udevd with 50-capi.rules, capi-devd.service
# (--source=udev), the patched kernel.  The middleware ttys' receive path
# and lifetime (kernel patches 1 and 3-5): reopen after n_tty throttled, a minor
# reused while a hung-up tty is held, failed allocations during a stream.
# The scenarios: test/README.md.  guest/scenarios-udev.sh runs them in
# its boot (make check); this script boots them alone (scenario.sh ttyfix).
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
boot "middleware ttys: throttle, minor reuse, receive faults"

setup() {
	check "capi-devd.service is active" systemctl -q is-active capi-devd.service
	capisim_up
	settle
}

# pattern FILE BYTES ALPHABET: FILE holds BYTES bytes of ALPHABET, repeated
pattern() { yes "$3" | tr -d '\n' | head -c "$2" >"$1"; }
# The unit of the one held call.
unit0() { units | sed -n 1p; }
# holds PID PATH: process PID has PATH open as its stdin
holds() { [ "$(readlink "/proc/$1/fd/0")" = "$2" ]; }

# got_tail_then GOT A B: GOT is a tail of A (lower case), then all of B
# (upper case), nothing else; one line of diag says what it holds.
got_tail_then() {
	local got=$1 a=$2 b=$3 lo up n
	lo=$(tr -cd '[:lower:]' <"$got")
	up=$(tr -cd '[:upper:]' <"$got")
	n=${#lo}
	diag "read $(wc -c <"$got") bytes: $n of the first stream's $(wc -c <"$a"), ${#up} of the second's $(wc -c <"$b")"
	[ "$(cat "$got")" = "$lo$up" ] && [ "$up" = "$(cat "$b")" ] &&
		[ "$lo" = "$(tail -c "$n" "$a")" ]
}

scenario_30() {
	scenario "30 reopen after throttle"
	# n_tty throttles a tty that fills up unread.  Closed in that state and
	# opened again, the tty must take what is still queued (no
	# DATA_B3_RESP was sent for it) and what comes after: a stale throttle
	# kept it stalled for good (issue 15).
	local a=/tmp/throttle-a b=/tmp/throttle-b got=/tmp/throttle-got t
	pattern $a 24576 abcdefghijklmnopqrstuvw
	pattern $b 1024 ABCDEFGHIJKLMNOPQRSTUVWXYZ
	calls_up 1 -E
	settle
	t=/dev/capi/$(unit0)
	(
		exec 3<>"$t" || exit 1
		stty -F "$t" raw -echo
		timeout 10 cat $a >&3 || exit 1
		sleep 3		# the echo fills n_tty, which throttles
	)
	check "24 KiB written to $t and left unread" test $? = 0
	(
		exec 3<>"$t" || exit 1
		stty -F "$t" raw -echo
		cat $b >&3
		timeout 10 cat <&3 >$got
		exit 0
	)
	check "reopened: what was queued arrives, in order, then all of the new data" \
		got_tail_then $got $a $b
	calls_down
	settle
}

# reopens PATH: PATH can be opened for writing (and one byte written)
reopens() { (exec 3<>"$1" && printf x >&3) 2>/dev/null; }

scenario_31() {
	scenario "31 minor reuse"
	# A hung-up tty that a process still holds stays in the tty driver's
	# table.  Its minor must not go to a new call while it is held: an
	# open of /dev/capi/N would reopen the old tty, whose application is
	# freed (use after free, which KASAN reports on the debug kernel).
	# The new call gets the next minor; the old one is free again once
	# the holder closes it.  The holder's tty is reopened through
	# /proc/PID/fd/0, the way the old bug was reached.
	local u holder
	calls_up 1 -E
	settle
	u=$(unit0)
	sleep 600 <>"/dev/capi/$u" &
	holder=$!
	check "a process holds /dev/capi/$u open" wait_for 5 holds $holder "/dev/capi/$u"
	calls_down
	settle
	check "the call is gone, the holder keeps its hung-up tty" kill -0 $holder
	calls_up 1 -E
	settle
	check "the new call gets another minor than the held tty's ($u)" test "$(unit0)" != "$u"
	check "bytes written to /dev/capi/$(unit0) come back from the new call" \
		echo_through "/dev/capi/$(unit0)"
	check "the held hung-up tty cannot be opened again" not reopens /proc/$holder/fd/0
	calls_down
	kill $holder 2>/dev/null
	wait $holder 2>/dev/null
	settle
	calls_up 1 -E
	settle
	check "once the holder has closed it, minor $u goes to the next call" test "$(unit0)" = "$u"
	check "bytes written to /dev/capi/$u come back from that call" echo_through "/dev/capi/$u"
	calls_down
	check "the held tty, closed at last, leaves no kernel report" no_bad_dmesg ||
		dmesg | grep -A 30 -E 'BUG:|WARNING:' | head -n 60 | diag
	settle
}

# Fault injection, on the debug kernel: failslab fails GFP_ATOMIC
# allocations from kmalloc-2k, the size of a flip buffer chunk for a
# 512-byte block (2 x 512 + its header), and nothing else of the stream
# (the skbs of 512-byte blocks come from kmalloc-1k).  A cache takes part
# only when marked at boot (slub_debug=A,kmalloc-2k: scenario.sh gives it
# to the debug kernel); 6.1's sysfs failslab attribute is read-only.
FI=/sys/kernel/debug/failslab
SLAB_FI=/sys/kernel/slab/kmalloc-2k/failslab
arm_failslab() {
	[ "$(cat $SLAB_FI)" = 1 ] &&
		echo Y >"$FI/cache-filter" && echo Y >"$FI/ignore-gfp-wait" &&
		echo 0 >"$FI/verbose" && echo 30 >"$FI/probability" &&
		echo 1 >"$FI/interval" && echo 100000 >"$FI/times" && echo 0 >"$FI/space"
}
scenario_32() {
	scenario "32 receive faults"
	if [ ! -d $FI ] || [ ! -e $SLAB_FI ]; then
		skip "every byte arrives while flip buffer allocations fail" \
			"no failslab in this kernel (make check-debug has it)"
		return 0
	fi
	local a=/tmp/faults-a got=/tmp/faults-got t failed armed=0
	pattern $a 65536 abcdefghijklmnopqrstuvw
	calls_up 1 -E
	settle
	t=/dev/capi/$(unit0)
	check "failslab armed for kmalloc-2k (slub_debug=A,kmalloc-2k)" arm_failslab && armed=1
	(
		exec 3<>"$t" || exit 1
		stty -F "$t" raw -echo
		timeout 60 head -c 65536 <&3 >$got &
		dd if=$a bs=512 status=none >&3
		wait
	)
	echo 0 >$FI/probability
	if [ $armed = 1 ]; then
		failed=$((100000 - $(cat $FI/times)))
		check "failslab failed allocations during the stream ($failed)" test "$failed" -gt 0
	fi
	check "64 KiB in 512-byte blocks: every byte back, in order, while allocations failed" \
		cmp -s $a $got || diag "got $(wc -c <$got) bytes"
	calls_down
	settle
}

scenario_33() {
	scenario "33 line discipline change mid-stream"
	# Frames echoed under n_tty and left unread, then TIOCSETD N_HDLC:
	# what n_tty left in the flip buffer must not reach N_HDLC as one
	# merged frame; what was still queued arrives frame by frame.
	calls_up 1 -E
	settle
	client_run "n_tty to N_HDLC mid-stream: only whole frames, in order" \
		ldisc-switch "/dev/capi/$(unit0)"
	calls_down
	settle
}

run_scenarios 30 31 32 33
