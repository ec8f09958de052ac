#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A careless administrator (issue 16, breaks 7 and 8, and the sloppy
# points): options that would be cut or wrap are refused with exit 2; a
# replay says where it writes, counts what failed, and exits 1 then; a
# dry run counts what it would change.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

usage_err() {	# usage_err REGEX ARGS...: exit 2, the message, nothing made
	local re=$1 rc desc
	shift
	desc="$*"
	[ ${#desc} -le 100 ] || desc="${desc:0:60}...${desc: -30}"
	"$CAPI_DEVD" "$@" >/dev/null 2>"$LOG"
	rc=$?
	if [ $rc = 2 ] && grep -Eq -- "$re" "$LOG"; then pass "usage: $desc -> exit 2"
	else fail "usage: $desc -> exit 2 (got $rc)"; diag <"$LOG"; fi
}
ev add capi20 68 0 >"$ROOT/in.ev"

# --- 7. an over-long --root is refused, not cut -----------------------
# 4094 bytes of ROOT/./././...: cut, ROOT/dev would be ROOT itself.
long=$ROOT
while [ ${#long} -lt 4094 ]; do long=$long/.; done
[ ${#long} = 4094 ] || long=${long%/./.}//./.
usage_err "--root is too long" --root="$long" --group=0 --replay="$ROOT/in.ev"
check "a 4094-byte --root: nothing made in ROOT" test ! -e "$ROOT/capi20" || ls "$ROOT" | diag
diag "the long root was ${#long} bytes"
# Longer, with ..: cut, it would name another directory (ROOT/x, not
# ROOT; never one outside ROOT, should an old capi-devd run this).
long=$ROOT
while [ ${#long} -lt 4200 ]; do long=$long/x/..; done
mkdir -p "$ROOT/x/dev"
usage_err "--root is too long" --root="$long" --group=0 --replay="$ROOT/in.ev"
check "a 4200-byte --root: nothing made in ROOT/x/dev" test -z "$(ls -A "$ROOT/x/dev")"
rm -r "$ROOT/x"
# Empty: not the real /dev (--dry-run: an old capi-devd changes nothing).
usage_err "--root needs a directory" --root= --group=0 --dry-run --replay="$ROOT/in.ev"

# --- 8. a numeric --group out of range, --rcvbuf that would wrap -------
for g in 4294967296 4294967297 4294967295 -1 +5 18446744073709551616; do
	usage_err "a group ID is a number from 0 to 4294967294" \
		--root="$ROOT" --group="$g" --replay="$ROOT/in.ev"
	if grep -q groupadd "$LOG"; then fail "--group=$g: no groupadd advice"; else pass "--group=$g: no groupadd advice"; fi
done
check "nothing made with a bad --group" test -z "$(tree)"
usage_err "--rcvbuf must be a size" --root="$ROOT" --group=0 --rcvbuf=17592186044424M --replay="$ROOT/in.ev"
usage_err "--rcvbuf must be a size" --root="$ROOT" --group=0 --rcvbuf=4194304K --replay="$ROOT/in.ev"
usage_err "--rcvbuf must be a size" --root="$ROOT" --group=0 --rcvbuf=-8M --replay="$ROOT/in.ev"
usage_err "--tty-major must be a major the CAPI tty driver can have" --root="$ROOT" --dry-run --tty-major=8 --replay="$ROOT/in.ev"
devd --group=4294967294 --replay="$ROOT/in.ev"
check "--group=4294967294, the largest: accepted" test "$(stat -c %g "$ROOT/dev/capi20")" = 4294967294
fresh_dev

# --- any --root is a root: / and // are the real one, without modprobe -
usage_err "--load-driver works on the running kernel; it cannot be combined with --root" --root=/ --load-driver --dry-run
usage_err "cannot be combined with --root" --root=// --load-driver --dry-run

# The daemon with --root and without --no-modprobe loads nothing.
devd_bg --source=kernel -v
wait_for 5 grep -q "start:" "$LOG"
kill -TERM $pid
wait $pid
log_has "not loading the CAPI driver \(--root\)" "--root implies --no-modprobe"

# --- a replay says where it writes, and what it is ---------------------
devd --replay="$ROOT/in.ev"
log_has "replaying $ROOT/in.ev into $ROOT/dev \(not devtmpfs: nodes are made and removed here, told by its (mount ID|device number)" "a replay logs its dev directory and its file system"
log_has "replayed 1 event\(s\): 0 ignored, 0 bad, [1-9][0-9]* change\(s\), 0 name\(s\) left alone, 0 failed operation\(s\)$" "the summary counts failures: none"
fresh_dev

# --- a replay in which every operation fails: exit 1, counted -----------
need setpriv util-linux
{ ev add capi20 68 0; ev add capi/1 240 1; } >"$ROOT/in.ev"
chmod 0755 "$ROOT" && chmod 0644 "$ROOT/in.ev"
setpriv --reuid=nobody --regid=nogroup --clear-groups "${DEVD[@]}" --replay="$ROOT/in.ev" 2>"$LOG"
rc=$?
check "a replay as nobody, every operation failing: exit 1" test $rc = 1 || diag "exit $rc"
log_has "replayed 2 event\(s\): 0 ignored, 0 bad, 0 change\(s\), 0 name\(s\) left alone, 2 failed operation\(s\)$" "the summary counts the failures"
check "as nobody: nothing made" test -z "$(tree)"

# --- a dry run counts the changes it printed ---------------------------
ev add capi20 68 0 >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev" --dry-run >"$ROOT/out"
check "the dry run printed its changes" test -s "$ROOT/out"
log_has "replayed 1 event\(s\): 0 ignored, 0 bad, [1-9][0-9]* change\(s\) to make \(dry run\)" "the dry run's summary counts them"
check "the dry run made nothing" test -z "$(tree)"

# --- 6. NOTIFY_SOCKET whose peer does not read --------------------------
# socat binds the socket and is stopped: its queue fills (READY=1 and
# STATUS= at start, three more per SIGHUP).  SIGTERM must still end the
# daemon, and a SIGHUP rescan still happen.
need socat socat
socat -u UNIX-RECV:"$ROOT/notify" OPEN:/dev/null &
spid=$!
wait_for 5 test -S "$ROOT/notify"
kill -STOP $spid
NOTIFY_SOCKET="$ROOT/notify" devd_bg --source=kernel --no-modprobe
wait_for 5 grep -q "start:" "$LOG"
for _ in 1 2 3 4 5 6; do kill -HUP $pid; sleep 0.2; done
rescans() { [ "$(grep -c 'SIGHUP rescan:' "$LOG")" = 6 ]; }
check "a deaf notify peer: every SIGHUP rescans" wait_for 5 rescans
kill -TERM $pid
if wait_for 5 bash -c "! kill -0 $pid 2>/dev/null"; then pass "a deaf notify peer: SIGTERM ends the daemon"
else fail "a deaf notify peer: SIGTERM ends the daemon"; kill -KILL $pid; fi
wait $pid
kill -KILL $spid
wait $spid 2>/dev/null

done_testing
