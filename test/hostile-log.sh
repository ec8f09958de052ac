#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A daemon survives its log reader (issue 28, break 4): with stderr a
# pipe whose reader has gone, the next log line fails with EPIPE and is
# dropped; SIGPIPE (status 141) must not kill capi-devd.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

gone() { ! kill -0 "$1" 2>/dev/null; }
mkfifo "$ROOT/pipe"
cat "$ROOT/pipe" >"$LOG" & reader=$!
"${DEVD[@]}" --source=kernel 2>"$ROOT/pipe" & pid=$!
check "capi-devd starts, logging into a pipe" wait_for 10 grep -q 'start: ' "$LOG" ||
	diag <"$LOG"
kill "$reader"
wait "$reader" 2>/dev/null
# A rescan logs a line: into the pipe that nobody reads any more.
kill -HUP "$pid"
sleep 0.5
kill -HUP "$pid"
sleep 0.5
check "capi-devd lives on after the log reader is gone" kill -0 "$pid"
kill -TERM "$pid" 2>/dev/null
wait_for 5 gone "$pid" || kill -KILL "$pid"
wait "$pid"
status=$?
check "SIGTERM stops it with status 0 (got $status)" test "$status" = 0

# The same for a replay: its summary goes to a closed pipe.
ev add capi20 68 0 >"$ROOT/ev"
( "${DEVD[@]}" --replay="$ROOT/ev" 2>&1; echo "status $?" >"$ROOT/status" ) | true
check "a replay logging into a closed pipe exits 0 ($(cat "$ROOT/status"))" \
	test "$(cat "$ROOT/status")" = "status 0"
is_node capi20 68 0
done_testing
