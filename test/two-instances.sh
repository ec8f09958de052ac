#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two instances on one dev root (a replay into the live /dev while the
# service runs) must not share a temporary name: each makes and removes
# links under .#capi-devd.PID.RANDOM.NAME of its own.  With one fixed
# name, one instance's symlinkat() or rename would meet the other's
# temporary link ("cannot make the symlink ...: File exists", "swapped
# in meanwhile").  Other errors can come of two writers (one removes an
# emptied isdn/ as the other links into it): they are not counted here.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

ROUNDS=40
events() {	# add and remove the control device and ttys 0-9, ROUNDS times
	local n
	for _ in $(seq $ROUNDS); do
		ev add capi20 68 0
		for n in $(seq 0 9); do ev add "capi/$n" 240 "$n"; done
		for n in $(seq 0 9); do ev remove "capi/$n" 240 "$n"; done
		ev remove capi20 68 0
	done
}
events >"$ROOT/events"
run() { "${DEVD[@]}" --replay="$ROOT/events" 2>"$ROOT/log.$1"; }

run a & a=$!
run b & b=$!
wait $a; ra=$?
wait $b; rb=$?
# Exit 1 only for failed operations, which the summary counts.
ended() {	# ended RC LOG: the replay ran to its summary
	grep -q "replayed 880 event(s): .* [0-9]* failed operation(s)$" "$2" &&
		{ [ "$1" = 0 ] || { [ "$1" = 1 ] && ! grep -q " 0 failed operation(s)$" "$2"; }; }
}
check "two replays at once: both ran to the end" ended "$ra" "$ROOT/log.a" || diag "exit $ra"
check "and the other one too" ended "$rb" "$ROOT/log.b" || diag "exit $rb"
clash=$(grep -hE "temporary name|make the symlink .*: File exists|swapped in meanwhile|changed while" "$ROOT/log.a" "$ROOT/log.b")
check "neither met the other's temporary names" test -z "$clash" || diag <<<"$clash"
left=$(find "$ROOT/dev" -name '.#*')
check "no temporary name is left" test -z "$left" || diag <<<"$left"

diag "replayed $(grep -c '^ACTION' "$ROOT/events") events twice at once; $(cat "$ROOT/log.a" "$ROOT/log.b" | wc -l) log lines"

done_testing
