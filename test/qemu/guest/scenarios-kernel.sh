#!/bin/bash
# Runs INSIDE the test VM with udevd masked: capi-devd alone
# (--source=kernel) owns every name.  Scenarios 2, 3 and 8.
. /capi-test/scenario-lib.sh
scenario_list="capi-devd without udevd"

scenario="setup"
check "systemd-udevd is not running" test ! -e /run/udev/control
check "capi-devd.service is active" systemctl -q is-active capi-devd.service
check "capi-devd chose --source=kernel" bash -c "journalctl -b -u capi-devd.service -o cat --no-pager | grep -q 'source kernel'"
modprobe capisim $CAPISIM_PARAMS
check "capisim's controller is listed" wait_for 5 grep -q . /proc/capi/controller

scenario="2 kernel storm"
calls_up 25 -l
contract "25 calls"
verify "25 calls"
calls_down
wait_for 5 none_match '/dev/capi20.*'
names_gone "after hang-up"
no_dangling "after hang-up"
verify "after hang-up"

scenario="3 coldplug"
systemctl stop capi-devd.service
ln -s capi/77 /dev/capi20.77		# a stale link of an earlier run
calls_up 3 -E				# no echo: no legacy names yet
u=$(units | sed -n 1p)
check "without capi-devd, /dev/capi20.$(printf %02d "$u") is missing" test ! -e "/dev/capi20.$(printf %02d "$u")"
systemctl start capi-devd.service
check "capi-devd is back" systemctl -q is-active capi-devd.service
contract "names made at start"
check "the stale /dev/capi20.77 is removed" test ! -L /dev/capi20.77
check "the start is logged with the stale link" bash -c "journalctl -b -u capi-devd.service -o cat --no-pager | grep -q 'removed stale link /dev/capi20.77'"
for x in $(units); do echo_through "/dev/capi20.$(printf %02d "$x")" || break; done
check "bytes echo through the names made at start" test $? = 0
calls_down
names_gone "coldplug hang-up"

scenario="8 restart under load"
restarts0=$(systemctl show -P NRestarts capi-devd.service)
(for i in 1 2 3 4 5 6; do capi-call -n 4 -w 8 >/tmp/burst.$i 2>&1; done) &
burst=$!
sleep 1
systemctl kill -s KILL capi-devd.service
check "systemd restarts capi-devd after SIGKILL" wait_for 15 bash -c \
	"[ \"\$(systemctl show -P NRestarts capi-devd.service)\" -gt $restarts0 ] && systemctl -q is-active capi-devd.service"
wait $burst
fails=$(grep -l '^not ok' /tmp/burst.* 2>/dev/null | wc -l)
ok "burst of 6 x 4 calls around the kill: $fails client run(s) with a failed check (names may lag during the restart)"
grep -h '^not ok' /tmp/burst.* 2>/dev/null | head -5 | diag
verify "after the restart"
no_dangling "after the restart"
calls_up 3 -l
contract "new calls after the restart"
calls_down

finish
