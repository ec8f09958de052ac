#!/bin/bash
# Two instances on one dev root (a replay into the live /dev while the
# service runs) must not share a temporary name: each makes and removes
# links under .#capi-devd.PID.RANDOM.NAME of its own.  With one fixed
# name, one instance's symlinkat() or rename would meet the other's
# temporary link ("cannot make the symlink ...: File exists", "swapped
# in meanwhile").  Other errors can come of two writers (one removes an
# emptied isdn/ as the other links into it): they are not counted here.
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
run() { "$CAPI_DEVD" --root="$ROOT" --group="$GID" --mode=0660 --replay="$ROOT/events" 2>"$ROOT/log.$1"; }

run a & a=$!
run b & b=$!
wait $a; ra=$?
wait $b; rb=$?
if [ $ra = 0 ] && [ $rb = 0 ]; then pass "two replays at once: both exit 0"
else fail "two replays at once: both exit 0 (got $ra and $rb)"; fi
clash=$(grep -hE "temporary name|make the symlink .*: File exists|swapped in meanwhile|changed while" "$ROOT/log.a" "$ROOT/log.b")
if [ -z "$clash" ]; then pass "neither met the other's temporary names"
else fail "neither met the other's temporary names"; diag <<<"$clash"; fi
left=$(find "$ROOT/dev" -name '.#*')
if [ -z "$left" ]; then pass "no temporary name is left"
else fail "no temporary name is left"; diag <<<"$left"; fi

diag <<<"replayed $(grep -c '^ACTION' "$ROOT/events") events twice at once; $(cat "$ROOT/log.a" "$ROOT/log.b" | wc -l) log lines"

done_testing
