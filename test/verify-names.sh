#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# capi-devd --verify judges names by the daemon's own grammar (policy.c):
# a name the daemon would never make is a deviation even when its number
# is a live unit's (capi20.7, capi/07).
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

cat >"$ROOT/spec.txt" <<'SPEC'
 68 char	CAPI 2.0 interface
		  0 = /dev/capi20	Control device
		  1 = /dev/capi20.00	First CAPI 2.0 application
		  2 = /dev/capi20.01	Second CAPI 2.0 application
		    ...
		 20 = /dev/capi20.19	19th CAPI 2.0 application

SPEC
verify() {
	"$CAPI_DEVD" --root="$ROOT" --group="$GID" --mode=0660 \
		--devices-txt="$ROOT/spec.txt" --verify >"$ROOT/out" 2>&1
}

sysdev capi capi20 68 0 capi20
sysdev tty 'capi!7' 240 7 capi/7
{ ev add capi20 68 0; ev add capi/7 240 7; } | devd --replay=-
check "the daemon's tree verifies" verify || diag <"$ROOT/out"

# nobodys NAME TARGET: a link at NAME, of tty 7 but not named as the
# daemon names it, is a deviation.
nobodys() {
	ln -s "$2" "$ROOT/dev/$1"
	verify
	local rc=$?
	if [ $rc = 1 ] && grep -q "^DEVIATION: $ROOT/dev/$1: exists, but is no name capi-devd(8) gives a tty" "$ROOT/out"; then
		pass "$1 of live tty 7 is a deviation"
	else fail "$1 of live tty 7 is a deviation (exit $rc)"; diag <"$ROOT/out"; fi
	rm "$ROOT/dev/$1"
}
# Tty 7 is live, but its name is capi20.07; in capi/ it is 7, not 07.
nobodys capi20.7 capi/7
nobodys capi/07 7

# Coldplug and verify agree: a start of the daemon sweeps no capi20.7
# (not our shape of name), and verify still reports it.
ln -s capi/7 "$ROOT/dev/capi20.7"
devd_bg --source=kernel --no-modprobe
wait_for 5 grep -q "start:" "$LOG"
kill -TERM "$pid"; wait "$pid"
check "coldplug leaves capi20.7 alone: not a name it makes" test -L "$ROOT/dev/capi20.7" || diag <"$LOG"
verify
check "verify reports what coldplug does not own" test $? = 1

# No cap on the number of ttys: 256 units (every minor of the driver) and
# 844 more sysfs entries of the same devices, 1100 in all, once stopped
# silently at 1024.
fresh_sys
sysdev capi capi20 68 0 capi20
for n in $(seq 0 255); do sysdev tty "capi!$n" 240 "$n" "capi/$n"; done
for i in $(seq 256 1099); do n=$((i % 256)); sysdev tty "capialias$i" 240 "$n" "capi/$n"; done
{ ev add capi20 68 0; for n in $(seq 0 255); do ev add "capi/$n" 240 "$n"; done; } | devd --replay=-
verify
rc=$?
if [ $rc = 0 ] && grep -q "^verify: OK: control device, 1100 tty(s)" "$ROOT/out"; then
	pass "1100 tty entries in sysfs: all checked"
else fail "1100 tty entries in sysfs: all checked (exit $rc)"; head -5 "$ROOT/out" | diag; fi

done_testing
