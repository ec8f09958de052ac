#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile input (issue 10, items 2, 7-11): a tty record makes only a node
# of the CAPI tty driver; replay lines are bounded while read; a NUL in a
# value is refused; a FIFO in the root's sysfs cannot hang the start;
# logged strings are escaped and the rate limiter's summary comes out at
# exit; SIGHUP, SIGTERM and SIGINT during --replay are defined.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"
need /usr/bin/time time

fresh() { fresh_sys; proc_devices 240 'capi!' 241 capi; }
empty_tree() {	# empty_tree DESCRIPTION: nothing made, and nothing outside dev
	local out
	out=$(cd "$ROOT" && find . -mindepth 1 ! -path ./dev ! -path ./sys ! -path ./proc ! -path ./proc/devices ! -path ./log ! -path './*.ev' ! -path ./fifo)
	if [ -z "$(tree)" ] && [ -z "$out" ]; then pass "$1"
	else fail "$1"; { tree; echo "$out"; } | diag; fi
}

# --- 2. a tty record makes only a node of the CAPI tty driver ---------
refused() {	# refused WHY DESCRIPTION: the replay of $ROOT/in.ev
	devd --replay="$ROOT/in.ev"
	if [ -z "$(tree)" ] && grep -qF "bad record: $1" "$LOG"; then pass "$2"
	else fail "$2"; diag <"$LOG"; tree | diag; fi
}
ev add capi/1 1 1 >"$ROOT/in.ev"
refused "tty major is not the CAPI tty driver's" "capi/1 as char 1:1 (/dev/mem) is refused"
ev add capi8 8 0 >"$ROOT/in.ev"
refused "tty minor is not its unit number" "pre-fix capi8 as char 8:0 is refused"
ev add capi8 8 8 >"$ROOT/in.ev"
refused "tty major is not the CAPI tty driver's" "pre-fix capi8 as char 8:8 is refused"
ev add capi/0 68 0 >"$ROOT/in.ev"
refused "tty with the control device's major 68" "a 68:0 node at a tty name is refused"
ev add capi0 68 0 >"$ROOT/in.ev"
refused "tty with the control device's major 68" "a 68:0 node at a pre-fix tty name is refused"
ev add capi/300 240 300 >"$ROOT/in.ev"
refused "tty minor out of the CAPI tty driver's range" "minor 300 is out of the driver's range"
ev add capi/5 241 5 >"$ROOT/in.ev"
refused "tty major is not the CAPI tty driver's" "a modern name with the pre-fix driver's major is refused"

# A scratch root without /proc/devices: the tty driver's major is not
# known, only that the kernel gives it a dynamic one.  A recording's tty
# (major 240) is made; a fixed major (1:1 is /dev/mem, 8:0 is sda) is not.
rm "$ROOT/proc/devices"
{ ev add capi20 68 0; ev add capi/7 240 7; ev add capi/8 1 8; ev add capi/9 8 9; } >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
is_node capi20 68 0
is_node capi/7 240 7
is_link capi20.07 capi/7
absent capi/8
absent capi/9
log_has "bad record: tty major is no dynamic char major" "without /proc/devices a fixed major is refused, and the log says why"
fresh_dev
devd --replay="$ROOT/in.ev" --tty-major=240
is_node capi/7 240 7
is_link capi20.07 capi/7
absent capi/8
devd --replay="$ROOT/in.ev" --tty-major=239
log_has "tty major is not the CAPI tty driver's \(--tty-major\)" "--tty-major=239 refuses a 240 tty"
"$CAPI_DEVD" --tty-major=68 --help >/dev/null 2>"$LOG"
[ $? = 2 ] && pass "--tty-major=68: exit 2" || fail "--tty-major=68: exit 2"
fresh

# --- 7. a replay line is bounded while it is read ---------------------
{ head -c 268435456 /dev/zero | tr '\0' x; echo; ev add capi20 68 0; } |
	/usr/bin/time -f %M -o "$ROOT/rss" "$CAPI_DEVD" --root="$ROOT" --group="$GID" --replay=- 2>"$LOG"
rc=$?
rss=$(tail -n 1 "$ROOT/rss"); rm -f "$ROOT/rss"
if [ "$rc" = 1 ] && [ "${rss:-999999}" -lt 65536 ] && grep -q "a line of more than 1048576 bytes: not a uevent recording" "$LOG"; then
	pass "a 256 MiB line: exit 1 with a clear error, peak RSS ${rss} KiB"
else fail "a 256 MiB line: exit 1 with a clear error, peak RSS < 64 MiB (exit $rc, ${rss} KiB)"; diag <"$LOG"; fi
empty_tree "a 256 MiB line: nothing made"
# Without ASan (which needs a large address space), cap the address space
# so that a reader that grows cannot eat the machine.
limit=
ldd "$CAPI_DEVD" | grep -q libasan || limit="ulimit -v 1048576;"
bash -c "$limit exec timeout -s KILL 30 \"\$@\"" _ "$CAPI_DEVD" --root="$ROOT" --group="$GID" --replay=/dev/zero 2>"$LOG"
rc=$?
if [ "$rc" = 1 ] && grep -q "/dev/zero:1: a line of more than 1048576 bytes" "$LOG" && grep -q "cannot read /dev/zero" "$LOG"; then
	pass "--replay=/dev/zero: exit 1 with a clear error"
else fail "--replay=/dev/zero: exit 1 with a clear error (exit $rc)"; diag <"$LOG"; fi
# A long line below the abort limit spoils only its record.
{ rec ACTION=add 'DEVPATH=/devices/virtual/tty/capi!7' SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/7 "X=$(head -c 100000 /dev/zero | tr '\0' x)"; ev add capi/8 240 8; } >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
absent capi20.07
is_link capi20.08 capi/8
log_has "in.ev:1: bad record: over-long line" "a 100 kB line: its record is bad, the next one applied"
fresh

# --- 8. a NUL inside a value ------------------------------------------
printf 'ACTION=add\nDEVPATH=/devices/virtual/tty/capi!7\nSUBSYSTEM=tty\nMAJOR=240\nMINOR=7\nDEVNAME=capi/7\0/../../../x\n\n' >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
empty_tree "DEVNAME=capi/7\\0/../../../x: nothing made"
log_has "bad record: NUL byte in a property" "DEVNAME=capi/7\\0/../../../x: refused, and says why"
printf 'ACTION=add\0junk\nDEVPATH=/devices/virtual/capi/capi20\nSUBSYSTEM=capi\nMAJOR=68\nMINOR=0\nDEVNAME=capi20\n\n' >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
empty_tree "ACTION=add\\0junk: nothing made"
log_has "bad record: NUL byte in a property" "ACTION=add\\0junk: refused, and says why"
fresh

# --- 9. a FIFO in the root's sysfs ------------------------------------
mkdir -p "$ROOT/sys/class/tty/capi0" "$ROOT/sys/class/capi/capi20"
mkfifo "$ROOT/sys/class/tty/capi0/uevent"
printf 'MAJOR=68\nMINOR=0\nDEVNAME=capi20\n' >"$ROOT/sys/class/capi/capi20/uevent"
devd_bg --source=kernel --no-modprobe
if wait_for 5 grep -q "start: 1 control device" "$LOG"; then pass "a FIFO as a uevent file: the start does not hang"
else fail "a FIFO as a uevent file: the start does not hang"; diag <"$LOG"; fi
log_has "sysfs class/tty/capi0: uevent is not a regular file" "the FIFO is named in the log"
is_node capi20 68 0
kill -TERM $pid
if wait_for 5 bash -c "! kill -0 $pid 2>/dev/null"; then pass "SIGTERM ends it"
else fail "SIGTERM ends it"; kill -KILL $pid; fi
wait $pid
fresh

# --- 10. log injection and the rate limiter's summary -----------------
ln -s "$(printf 'capi/x\ncapi-devd: error: forged')" "$ROOT/dev/capi20.07"
ev add capi/7 240 7 | devd --replay=-
if grep -q '^capi-devd: error: forged' "$LOG"; then fail "a newline in a symlink target forges no log line"; diag <"$LOG"
else pass "a newline in a symlink target forges no log line"; fi
log_has 'a symlink to "capi/x\\ncapi-devd: error: forged", not ours' "the target is logged escaped"
fresh
name=$(printf 'capi\033[2J\n1')
mkdir -p "$ROOT/sys/class/tty/$name"
printf 'MAJOR=240\nMINOR=1\nDEVNAME=capi/x\n' >"$ROOT/sys/class/tty/$name/uevent"
devd_bg --source=kernel --no-modprobe
wait_for 5 grep -q "start:" "$LOG"
kill -TERM $pid; wait $pid
log_has '^capi-devd: warning: sysfs class/tty/capi\\x1b\[2J\\n1: bad tty unit number: the scan is not complete$' "a sysfs name with control characters is escaped"
if [ "$(grep -c . "$LOG")" = "$(grep -c '^capi-devd: ' "$LOG")" ]; then pass "every log line is one message"
else fail "every log line is one message"; diag <"$LOG"; fi
fresh
for _ in $(seq 50); do rec ACTION=add 'DEVPATH=/devices/virtual/tty/capi!7' SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/x; done >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
log_has "warning: 40 more rate-limited message\(s\) suppressed \(at most 10 per 5 s\)" "the rate limiter's summary is flushed at exit"

# --- 11. signals during --replay --------------------------------------
mkfifo "$ROOT/fifo"
trap '' PIPE	# a replay that died must fail the checks, not kill this script
replay_fifo() {	# replay_fifo: capi-devd replays $ROOT/fifo in the background; fd 3 feeds it
	devd_bg --replay="$ROOT/fifo"
	exec 3>"$ROOT/fifo"
}
replay_fifo
{ ev add capi20 68 0; ev add capi/1 240 1; } >&3
wait_for 5 test -L "$ROOT/dev/capi20.01"
kill -HUP $pid
sleep 0.2
ev add capi/2 240 2 >&3
exec 3>&-
wait $pid
rc=$?
if [ $rc = 0 ]; then pass "SIGHUP during --replay is ignored: exit 0"; else fail "SIGHUP during --replay is ignored: exit 0 (got $rc)"; fi
is_link capi20.02 capi/2
fresh
replay_fifo
{ ev add capi20 68 0; ev add capi/1 240 1; } >&3
wait_for 5 test -L "$ROOT/dev/capi20.01"
kill -TERM $pid
wait $pid
rc=$?
exec 3>&-
if [ $rc = 1 ]; then pass "SIGTERM during --replay: exit 1"; else fail "SIGTERM during --replay: exit 1 (got $rc)"; fi
log_has "signal 15: replay stopped after 2 event\(s\)" "SIGTERM during --replay: logged with the count"
is_link capi20.01 capi/1
if [ -z "$(find "$ROOT/dev" -name '.#*')" ]; then pass "SIGTERM during --replay: no temporary name left"
else fail "SIGTERM during --replay: no temporary name left"; fi
no_dangling

done_testing
