#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM: udevd with 50-capi.rules, capi-devd.service
# (--source=udev), the patched kernel.  pppd over CAPI, end to end: two
# pppd, one per end of a call that capisim switches (guest/pppd-lib.sh).
# The scenarios: test/README.md.  guest/scenarios-udev.sh runs them in
# its boot (make check); this script boots them alone (scenario.sh pppd).
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
# shellcheck source=test/qemu/guest/pppd-lib.sh
. /capi-test/pppd-lib.sh
boot "pppd over CAPI"

setup() {
	check "capi-devd.service is active" systemctl -q is-active capi-devd.service
	capisim_up
	settle
}

scenario_15() {
	scenario "15 pppd, the caller hangs up"
	pppd_setup
	pppd_caller_hangs_up
}

scenario_16() {
	scenario "16 pppd, the answerer hangs up"
	pppd_setup
	pppd_answerer_hangs_up
}

run_scenarios 15 16
