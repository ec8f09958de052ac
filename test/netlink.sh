#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel source: uevents forged by a user-space sender are dropped,
# and a flood that overflows the receive buffer (ENOBUFS) makes the daemon
# count it, log it and rescan sysfs.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"
SEND=${SEND_UEVENT:?run through make check}

wait_log() { wait_for 5 grep -Eq -- "$1" "$LOG"; }	# wait_log REGEX: up to 5 s

mkdir -p "$ROOT/dev/capi"
mknod "$ROOT/dev/capi/9" c 240 9
devd_bg --source=kernel --no-modprobe --rcvbuf=4096 -v
check "the daemon starts" wait_log "start: 0 control device" || { diag <"$LOG"; done_testing; }

"$SEND" 1 9
if wait_log "dropped a uevent not sent by the kernel"; then pass "a forged uevent is dropped, and logged"
else fail "a forged uevent is dropped, and logged"; diag <"$LOG"; fi
absent capi20.09

# Stop the daemon, fill its 4 KiB buffer, let it go on.
mkdir -p "$ROOT/sys/class/tty/capi!9"
printf 'MAJOR=240\nMINOR=9\nDEVNAME=capi/9\n' >"$ROOT/sys/class/tty/capi!9/uevent"
kill -STOP $pid
"$SEND" 200 9
kill -CONT $pid
if wait_log "events were lost .*rescanning"; then pass "ENOBUFS: logged and counted"
else fail "ENOBUFS: logged and counted"; diag <"$LOG"; fi
if wait_log "rescan after overflow: 0 control device\(s\), 1 tty"; then pass "ENOBUFS: sysfs rescanned"
else fail "ENOBUFS: sysfs rescanned"; diag <"$LOG"; fi
# The rescan, not the forged events, made the name.
is_link capi20.09 capi/9
kill $pid
wait $pid
done_testing
