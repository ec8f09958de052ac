#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the demo VM (udevd, 50-capi.rules, capi-devd.service):
# places a few calls through capisim with the libcapi20 client, shows the
# names that appeared and the --verify verdict, echoes data through a tty,
# hangs up and shows the names gone.  Then two pppd dial each other
# (guest/pppd-lib.sh), a ping crosses the link, the caller hangs up.
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
boot demo
show() {
	echo "\$ ls -l /dev/capi20 /dev/isdn /dev/capi /dev/capi20.*"
	ls -l /dev/capi20 /dev/isdn /dev/capi /dev/capi20.* 2>&1
}
echo "# kernel $(uname -r); capi-devd.service: $(systemctl is-active capi-devd.service)"
modprobe capisim $CAPISIM_PARAMS
echo "\$ cat /proc/capi/controller"
cat /proc/capi/controller
echo "\$ capi-call -n 3 -l -H    # three calls, echo through /dev/capi/N and /dev/capi20.NN"
calls_up 3 -l
settle
grep -E '^TTY|echoed' "$CALL_OUT"
show
echo "\$ capi-devd --verify"
capi-devd --verify --devices-txt="$SPEC"
echo "\$ capi-devd --list"
capi-devd --list
echo "\$ systemctl status capi-devd"
systemctl status --no-pager capi-devd.service | grep -E '^ *(Active|Status):'
u=$(units | sed -n 1p)
echo "\$ echo hello > /dev/capi20.$(printf %02d "$u"); read it back"
check "bytes echo through /dev/capi20.$(printf %02d "$u")" echo_through "/dev/capi20.$(printf %02d "$u")"
echo "\$ (hang up)"
calls_down
settle
wait_for 5 none_match '/dev/capi20.*'
show
echo "\$ capi-devd --verify"
capi-devd --verify --devices-txt="$SPEC"
names_gone "after hang-up"

echo
echo "# pppd over CAPI: two ends in two network namespaces, a call switched by capisim"
# shellcheck source=test/qemu/guest/pppd-lib.sh
. /capi-test/pppd-lib.sh
pppd_demo
finish
