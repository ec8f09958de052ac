#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input: a clear log line for each, and no change on disk.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

T='DEVPATH=/devices/virtual/tty/capi!7'

check_bad() {	# check_bad WHY PROPS...
	local why=$1
	shift
	rec "$@" >"$ROOT/bad.ev"
	devd --replay="$ROOT/bad.ev"
	if [ -z "$(tree)" ] && grep -q "bad record: $why" "$LOG"; then
		pass "bad input ($why): logged, nothing made"
	else
		fail "bad input ($why): logged, nothing made"
		diag <"$LOG"; tree | diag
	fi
}

check_bad "no ACTION" "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/7
check_bad "no DEVPATH" ACTION=add SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/7
check_bad "no SUBSYSTEM" ACTION=add "$T" MAJOR=240 MINOR=7 DEVNAME=capi/7
check_bad "no DEVNAME" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7
check_bad "unknown ACTION" ACTION=explode "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/7
check_bad "unsafe DEVNAME" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/../../etc
check_bad "unsafe DEVNAME" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=/etc/capi7
check_bad "unsafe DEVNAME" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 'DEVNAME=capi/7$(id)'
check_bad "bad tty unit number" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/seven
check_bad "bad tty unit number" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/007
check_bad "bad tty unit number" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/4294967303
check_bad "bad MAJOR/MINOR" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=-7 DEVNAME=capi/7
check_bad "control device is not char 68:0" ACTION=add DEVPATH=/devices/virtual/capi/capi20 SUBSYSTEM=capi MAJOR=1 MINOR=3 DEVNAME=capi20
check_bad "over-long property value" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/7 "X=$(head -c 2000 /dev/zero | tr '\0' x)"
check_bad "over-long line" ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/7 "X=$(head -c 5000 /dev/zero | tr '\0' x)"

# The log line gives the file and line of the record.
rec ACTION=add SUBSYSTEM=tty >"$ROOT/bad.ev"
devd --replay="$ROOT/bad.ev"
log_has "^capi-devd: warning: $ROOT/bad.ev:1: bad record: no DEVPATH$" "the line names file and line"

# A good record after bad ones is still applied.
{
	rec ACTION=add "$T" SUBSYSTEM=tty DEVNAME=capi/7
	ev add capi/7 240 7
} | devd --replay=-
is_link capi20.07 capi/7
fresh_dev

# A flood of bad records is rate-limited.
for _ in $(seq 50); do rec ACTION=add "$T" SUBSYSTEM=tty MAJOR=240 MINOR=7 DEVNAME=capi/x; done >"$ROOT/flood.ev"
devd --replay="$ROOT/flood.ev"
n=$(grep -c "bad record" "$LOG")
if [ "$n" -le 10 ]; then pass "50 bad records give at most 10 lines ($n)"
else fail "50 bad records give at most 10 lines ($n)"; fi
log_has "50 bad" "the summary counts all 50"

# Mistakes in the command line: a clear message and exit status 2.
usage_err() {	# usage_err REGEX ARGS...
	local re=$1 rc
	shift
	"$CAPI_DEVD" "$@" >/dev/null 2>"$LOG"
	rc=$?
	if [ $rc = 2 ] && grep -Eq -- "$re" "$LOG"; then pass "usage: $* -> exit 2"
	else fail "usage: $* -> exit 2 (got $rc)"; diag <"$LOG"; fi
}
usage_err "--source must be udev or kernel" --source=netlink
usage_err "--mode must be an octal mode" --mode=rw
usage_err "--rcvbuf must be a size" --rcvbuf=lots
usage_err 'group "nosuchgroup-capi" does not exist' --root="$ROOT" --group=nosuchgroup-capi --replay=/dev/null
usage_err "cannot open $ROOT/nowhere/dev" --root="$ROOT/nowhere" --group=0 --replay=/dev/null
usage_err "separate jobs" --replay=- --verify
usage_err "unexpected argument" extra
"$CAPI_DEVD" --root="$ROOT" --group=0 --replay="$ROOT/missing.ev" 2>"$LOG"
rc=$?
if [ $rc = 1 ] && grep -q "cannot open $ROOT/missing.ev" "$LOG"; then pass "a missing replay file: exit 1 and says which"
else fail "a missing replay file: exit 1 and says which (got $rc)"; fi

done_testing
