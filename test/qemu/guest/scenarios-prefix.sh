#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM with the pre-fix fixture build of kernelcapi
# (control device "capi", ttys "capiN"): udevd, 50-capi.rules and
# capi-devd.  The scenarios: test/README.md.
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
boot "pre-fix names"

setup() {
	check "capi-devd.service is active" systemctl -q is-active capi-devd.service
	capisim_up
	settle
	check "the fixture kernel names its control device capi" test -e /sys/class/capi/capi
}

scenario_6() {
	scenario "6 pre-fix collision"
	check "/dev/capi is a directory" wait_for 5 test -d /dev/capi -a ! -L /dev/capi
	check "/dev/capi20 is char 68:0" test "$(stat -c '%F %Hr:%Lr' /dev/capi20 2>&1)" = "character special file 68:0"
	check "/dev/isdn/capi20 resolves to the control device" resolves_to /dev/isdn/capi20 68:0
	calls_up 3 -l
	settle
	ls -l /dev/capi/ /dev/capi20.* 2>&1 | diag
	for u in $(units); do
		check "/dev/capi/$u -> ../capi$u" test "$(readlink /dev/capi/$u)" = "../capi$u"
	done
	contract "3 calls"
	verify "3 calls"
	calls_down
	settle
	wait_for 5 none_match '/dev/capi20.*' '/dev/capi/*'
	names_gone "pre-fix hang-up"
	no_dangling "pre-fix hang-up"
}

scenario_9() {
	scenario "9 rules only (pre-fix)"
	systemctl stop capi-devd.service
	modprobe -r capisim kernelcapi
	rm -rf /dev/capi /dev/isdn /dev/capi20.*
	modprobe capisim $CAPISIM_PARAMS
	settle
	echo "/dev/capi is: $(stat -c %F /dev/capi 2>&1)" | diag
	out=$(capi-call -n 2 -w 2 2>&1)
	rc=$?
	echo "$out" | grep -v '^ok' | diag
	check "rules alone on a pre-fix kernel: the client exits $rc (documented: /dev/capi/N cannot exist while /dev/capi is a node)" \
		test -c /dev/capi -a "$rc" != 0
	out=$(capi-devd --verify --devices-txt="$SPEC" 2>&1)
	echo "$out" | diag
	check "the system is still well: no kernel warning" no_bad_dmesg

	scenario "6 pre-fix, capi-devd back"
	systemctl start capi-devd.service
	check "capi-devd resolves the collision at start: /dev/capi is a directory" wait_for 5 test -d /dev/capi -a ! -L /dev/capi
	calls_up 2 -l
	contract "2 calls"
	verify "2 calls"
	calls_down
}

run_scenarios 6 9
