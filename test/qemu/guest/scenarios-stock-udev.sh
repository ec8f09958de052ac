#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM on Debian's stock kernel (kernel/stock.sh): udevd
# with 50-capi.rules, capi-devd.service (--source=udev).  kernelcapi is a
# module there: Debian's own in kernel/drivers/isdn/capi/, and the
# out-of-tree one (the series' drivers/isdn/capi, with the n_tty fix) with
# capisim in updates/, where DKMS puts them, so that modprobe takes those.
# The setup and scenario 1 are scenarios-udev.sh's; scenario 14 loads
# Debian's kernelcapi in its place.  The scenarios: test/README.md.
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
# shellcheck source=test/qemu/guest/scenarios-udev.sh
DEFINE_ONLY=1 . /capi-test/scenarios-udev.sh
# shellcheck source=test/qemu/guest/pppd-lib.sh
. /capi-test/pppd-lib.sh
boot "Debian's stock kernel: udevd + rules + capi-devd"
KREL=$(uname -r)

# Debian's kernelcapi is signed and in-tree: no taint, and no version.  The
# out-of-tree one taints the kernel O (out of tree) and E (unsigned) and has
# the DKMS package's version (kernel/dkms/mksrc.sh).
kernelcapi_taint() { cat /sys/module/kernelcapi/taint 2>/dev/null; }
kernelcapi_version() { cat /sys/module/kernelcapi/version 2>/dev/null; }
is_debian_kernelcapi() {
	[ -d /sys/module/kernelcapi ] && [ -z "$(kernelcapi_taint)" ] && [ -z "$(kernelcapi_version)" ]
}
is_fixed_kernelcapi() { [ "$(kernelcapi_taint)" = OE ] && [[ $(kernelcapi_version) == *-capi.* ]]; }
unload_capi() { modprobe -r capisim kernelcapi 2>/dev/null; [ ! -d /sys/module/kernelcapi ]; }
# ntty_echo LABEL: one call through capisim, whose B channel echoes; the
# client writes to its /dev/capi/N (raw mode, n_tty) and reads the bytes
# back.  Sets ntty_rc, the client's status.
ntty_echo() {
	local out
	out=$(capi-call -n 1 -w 10 2>&1)
	ntty_rc=$?
	grep -v '^ok' <<<"$out" | diag
	check "$1: the call is connected (B3 up) and its tty is named" \
		grep -qE '^ok [0-9]+ - call 0: B3 up' <<<"$out"
}

scenario_14() {
	scenario "14 n_tty on Debian's kernelcapi"
	check "Debian's kernelcapi.ko is in the image's module tree" \
		test -f "/usr/lib/modules/$KREL/kernel/drivers/isdn/capi/kernelcapi.ko"
	check "modprobe takes kernelcapi from updates/ (as after dkms install)" \
		bash -c "modprobe --show-depends kernelcapi | grep -q '/updates/kernelcapi.ko'"
	check "the out-of-tree kernelcapi and capisim of the setup unload" wait_for 10 unload_capi
	insmod "/usr/lib/modules/$KREL/kernel/drivers/isdn/capi/kernelcapi.ko"
	check "Debian's own kernelcapi.ko is loaded (signed, in-tree: no taint, no version)" is_debian_kernelcapi
	capisim_up
	settle
	calls_up 3 -E
	settle
	contract "3 calls on Debian's kernelcapi"
	verify "3 calls on Debian's kernelcapi"
	calls_down
	settle
	wait_for 5 none_match '/dev/capi20.*' '/dev/capi/*'
	names_gone "after hang-up"
	# The n_tty receive bug (kernel patch 6): the data of a DATA_B3_IND
	# stays queued while tty->receive_room is 0, where n_tty leaves it.
	ntty_echo "Debian's kernelcapi"
	todo "stock kernelcapi drops n_tty input"
	check "Debian's kernelcapi: bytes written to /dev/capi/N come back through it under n_tty" test "$ntty_rc" = 0
	check "Debian's kernelcapi is still the one loaded" is_debian_kernelcapi
	settle
	check "capisim and Debian's kernelcapi unload" wait_for 10 unload_capi

	modprobe capisim $CAPISIM_PARAMS
	check "modprobe capisim loads the out-of-tree kernelcapi (taint $(kernelcapi_taint), version $(kernelcapi_version))" is_fixed_kernelcapi
	check "capisim's controller is listed" wait_for 5 grep -q . /proc/capi/controller
	settle
	ntty_echo "fixed kernelcapi"
	check "fixed kernelcapi: bytes written to /dev/capi/N come back through it under n_tty" test "$ntty_rc" = 0
	out=$(capi-call -n 2 -B 16384 2>&1)
	r=$?
	check "fixed kernelcapi: 2 calls x 16 KiB streamed through /dev/capi/N: every byte back, in order (exit $r)" test $r = 0 ||
		grep -v '^ok' <<<"$out" | diag
	settle
	wait_for 5 none_match '/dev/capi20.*' '/dev/capi/*'
	names_gone "after the calls"
}

scenario_17() {
	scenario "17 pppd on Debian's kernelcapi"
	# N_SYNC_PPP sets its own receive_room, so the stock receive path
	# that starves n_tty (scenario 14) feeds pppd: no fix needed.
	check "the kernelcapi of the scenarios before unloads" wait_for 10 unload_capi
	insmod "/usr/lib/modules/$KREL/kernel/drivers/isdn/capi/kernelcapi.ko"
	check "Debian's own kernelcapi.ko is loaded" is_debian_kernelcapi
	capisim_up
	settle
	pppd_setup
	pppd_caller_hangs_up
	pppd_answerer_hangs_up
	check "Debian's kernelcapi is still the one loaded" is_debian_kernelcapi
}

run_scenarios 14 1 17
