#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The daemon: coldplug at start (missing names made, stale links of an
# earlier run removed), SIGHUP rescans, SIGTERM exits cleanly.
# Devices come from a fake sysfs under the root; the daemon listens on the
# kernel's uevent group (--source=kernel), which only receives here.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

# The datagrams socat appended, one a line (each ends in no newline).
notes() { tr '\n' ' ' <"$ROOT/notified" | sed 's/\(READY=1\|STATUS=\|RELOADING=1\)/\n\1/g'; }
notified() {	# notified: READY=1 and the first STATUS= reached the socket
	notes | grep -q "^READY=1" &&
		notes | grep -Eq "^STATUS=source kernel: 1 control device, 2 ttys named; last change [0-9]{2}:[0-9]{2}:[0-9]{2}"
}
# SIGHUP: RELOADING=1 with MONOTONIC_USEC (Type=notify-reload), then
# READY=1, then STATUS= with the names after the rescan: capi/0 and 42.
reloaded() {
	notes | grep -Eq "^RELOADING=1 MONOTONIC_USEC=[1-9][0-9]* *$" &&
		[ "$(notes | sed -n '/^RELOADING=1/,$p' | sed -n 2p)" = "READY=1" ] &&
		notes | sed -n '/^RELOADING=1/,$p' | grep -q "^STATUS=source kernel: 1 control device, 2 ttys named"
}
rescanned() { [ -L "$ROOT/dev/capi20.42" ] && [ ! -L "$ROOT/dev/capi20.03" ]; }
all_gone() { [ ! -L "$ROOT/dev/capi20.00" ] && [ ! -L "$ROOT/dev/capi20.42" ] && [ ! -L "$ROOT/dev/isdn/capi20" ]; }

sysdev capi capi20 68 0 capi20
sysdev tty 'capi!0' 240 0 capi/0
sysdev tty 'capi!3' 240 3 capi/3
sysdev tty ttyS0 4 64 ttyS0
mkdir -p "$ROOT/dev/capi" "$ROOT/dev/isdn"
mknod "$ROOT/dev/capi20" c 68 0
mknod "$ROOT/dev/capi/0" c 240 0
mknod "$ROOT/dev/capi/3" c 240 3
# Left by an earlier run: a stale link, a right one, a foreign one.
ln -s capi/5 "$ROOT/dev/capi20.05"
ln -s capi/0 "$ROOT/dev/capi20.00"
ln -s /somewhere "$ROOT/dev/capi20.09"

need socat socat
socat -u UNIX-RECV:"$ROOT/notify" OPEN:"$ROOT/notified",creat,append &
spid=$!
wait_for 5 test -S "$ROOT/notify"
NOTIFY_SOCKET="$ROOT/notify" devd_bg --source=kernel --no-modprobe
if wait_for 5 test -L "$ROOT/dev/capi20.03"; then pass "start: the missing capi20.03 is made"
else fail "start: the missing capi20.03 is made"; diag <"$LOG"; fi
is_link capi20.03 capi/3
is_link capi20.00 capi/0
absent capi20.05
is_link capi20.09 /somewhere
is_link isdn/capi20 ../capi20
is_node capi/3 240 3
is_node capi20 68 0
log_has "removed stale link $ROOT/dev/capi20.05" "the stale link is logged"
log_has "start: 1 control device\(s\), 2 tty\(s\), 1 stale link\(s\) removed" "the start summary counts"
if wait_for 5 notified; then
	pass "sd_notify: READY=1 and STATUS= after the first scan"
else fail "sd_notify: READY=1 and STATUS= after the first scan"; { cat "$ROOT/notified"; echo; } | diag; fi

# A device appears while nobody tells us: SIGHUP rescans.
sysdev tty 'capi!42' 240 42 capi/42
mknod "$ROOT/dev/capi/42" c 240 42
rm "$ROOT/sys/class/tty/capi!3" -r
kill -HUP $pid
if wait_for 5 rescanned; then
	pass "SIGHUP: capi20.42 made, capi20.03 of the vanished tty removed"
else fail "SIGHUP: capi20.42 made, capi20.03 of the vanished tty removed"; diag <"$LOG"; fi
check "SIGHUP: RELOADING=1 with MONOTONIC_USEC, READY=1, then STATUS= with the names" \
	wait_for 5 reloaded || notes | diag
log_has "counters: source kernel: [0-9]+ events, [0-9]+ bad, [0-9]+ forged, [0-9]+ overflows, [0-9]+ rescans" \
	"SIGHUP: the counters are logged"
n=$(grep -c 'counters: ' "$LOG")
kill -USR1 $pid
usr1_logged() { [ "$(grep -c 'counters: ' "$LOG")" -gt "$n" ]; }
check "SIGUSR1: the counters are logged once more" wait_for 5 usr1_logged
check "SIGUSR1: no rescan" test "$(grep -c 'SIGHUP rescan' "$LOG")" = 1

kill -TERM $pid
wait $pid
rc=$?
kill $spid
if [ $rc = 0 ]; then pass "SIGTERM: exit 0"; else fail "SIGTERM: exit 0 (got $rc)"; fi
log_has "signal 15: exiting" "SIGTERM is logged"

# Restart after the driver went away: every link of ours goes.
rm -rf "${ROOT:?}/sys/class/capi" "${ROOT:?}/sys/class/tty/capi!"*
devd_bg --source=kernel --no-modprobe
if wait_for 5 all_gone; then
	pass "restart without devices: capi20.00, capi20.42 and isdn/capi20 removed"
else fail "restart without devices: capi20.00, capi20.42 and isdn/capi20 removed"; tree | diag; fi
is_link capi20.09 /somewhere
kill -INT $pid
wait $pid
rc=$?
if [ $rc = 0 ]; then pass "SIGINT: exit 0"; else fail "SIGINT: exit 0 (got $rc)"; fi

# Pre-fix sysfs at start: the collision is resolved by the coldplug.
fresh_sys
sysdev capi capi 68 0 capi
sysdev tty capi2 241 2 capi2
mknod "$ROOT/dev/capi" c 68 0
mknod "$ROOT/dev/capi2" c 241 2
devd_bg --source=kernel --no-modprobe
if wait_for 5 test -L "$ROOT/dev/capi20.02"; then pass "pre-fix coldplug: names made"
else fail "pre-fix coldplug: names made"; diag <"$LOG"; fi
is_dir capi
is_link capi/2 ../capi2
is_node capi20 68 0
kill $pid; wait $pid

# With udevd (--source=udev) the modern names are the rules': a coldplug
# touches none of them, not even a missing one.
fresh_sys "$ROOT/dev/capi"
sysdev capi capi20 68 0 capi20
sysdev tty 'capi!1' 240 1 capi/1
mknod "$ROOT/dev/capi/1" c 240 1
mknod "$ROOT/dev/capi20" c 68 0
devd_bg --source=udev --no-modprobe
sleep 1
absent capi20.01
absent isdn/capi20
kill $pid; wait $pid

# Only names of our own shape are swept: in capi/ only unit numbers as we
# print them, and of the temporary names only symlinks of our shape whose
# process is gone.
fresh_sys "$ROOT/dev/capi"
ln -s ../capi3 "$ROOT/dev/capi/modem"
ln -s ../capi3 "$ROOT/dev/capi/03"
ln -s ../capi3 "$ROOT/dev/capi/3"			# ours, unit gone: swept
X=.#capi-devd.99999999.0123456789abcdef.		# no such process
ln -s capi/5 "$ROOT/dev/${X}capi20.05"		# swept
ln -s ../capi7 "$ROOT/dev/capi/${X}7"		# swept
ln -s /etc/passwd "$ROOT/dev/${X}capi20.06"		# not our shape: kept
echo precious >"$ROOT/dev/${X}capi20.08"		# not a symlink: kept
ln -s capi/9 "$ROOT/dev/.#capi-devd.1.0123456789abcdef.capi20.09"	# pid 1 runs: kept
swept() { [ ! -L "$ROOT/dev/capi/3" ]; }
devd_bg --source=kernel --no-modprobe
if wait_for 5 swept; then pass "start: the stale capi/3 is swept"
else fail "start: the stale capi/3 is swept"; diag <"$LOG"; fi
kill $pid; wait $pid
is_link capi/modem ../capi3
is_link capi/03 ../capi3
absent "${X}capi20.05"
absent "capi/${X}7"
is_link "${X}capi20.06" /etc/passwd
if [ "$(cat "$ROOT/dev/${X}capi20.08")" = precious ]; then pass "a file of temporary shape is kept"
else fail "a file of temporary shape is kept"; fi
is_link .#capi-devd.1.0123456789abcdef.capi20.09 capi/9
log_has "removed stale temporary link $ROOT/dev/capi/${X}7" "the swept temporary link is logged"

done_testing
