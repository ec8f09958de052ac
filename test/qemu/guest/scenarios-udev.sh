#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM: udevd with 50-capi.rules, capi-devd.service
# (--source=udev), the patched kernel.  The scenarios: test/README.md.
# The boots whose setup is this one's share it (issue 29): the middleware
# ttys' scenarios (scenarios-ttyfix.sh) and pppd's (scenarios-pppd.sh) run
# here too, each leaving the system as the setup left it.  Those scripts
# are sourced first, for their scenario_N (their setup is replaced below).
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
# shellcheck source=test/qemu/guest/scenarios-ttyfix.sh
DEFINE_ONLY=1 . /capi-test/scenarios-ttyfix.sh
# shellcheck source=test/qemu/guest/scenarios-pppd.sh
DEFINE_ONLY=1 . /capi-test/scenarios-pppd.sh
boot "udevd + rules + capi-devd"

setup() {
	check "capi-devd.service is active" systemctl -q is-active capi-devd.service
	# Type=notify: "running" only after READY=1; STATUS= as the daemon
	# sent it (src/notify.c, no libsystemd).
	check "READY=1 reached systemd (Type=notify, SubState running)" ready_notified
	systemctl status --no-pager capi-devd.service | diag
	check "STATUS= reached systemd: $(status_text)" \
		status_matches '^source udev: [0-9]+ control devices?, [0-9]+ ttys? named; last change [0-9:]{8}'
	check "capi-devd chose --source=udev" journal_has 'source udev'
	capisim_up
	settle
}

scenario_1() {
	scenario "1 udev storm"
	calls_up 25 -l
	settle
	contract "25 calls"
	verify "25 calls"
	calls_down
	settle
	wait_for 5 none_match '/dev/capi20.*'
	names_gone "after hang-up"
	no_dangling "after hang-up"
	verify "after hang-up"
}

scenario_10() {
	scenario "10 tty stream"
	# 4 calls at once, 64 KiB each streamed through /dev/capi/N under n_tty,
	# written and read at the same time: the flip buffer's flow control and the
	# per-tty receive lock (kernel patches 3 and 5) keep every byte, in order.
	client_run "4 calls x 64 KiB through /dev/capi/N: every byte back, in order" \
		capi-call -n 4 -B 65536
	settle
	wait_for 5 none_match '/dev/capi20.*'
	names_gone "after the stream"
}

scenario_4() {
	scenario "4 network hang-up"
	calls_up 2
	settle
	u0=$(units | sed -n 1p)
	u1=$(units | sed -n 2p)
	ncci=$(sed -n 's/^ok [0-9]* - call 0: B3 up, NCCI \(0x[0-9a-f]*\)$/\1/p' "$CALL_OUT")
	hangup=$(ls /sys/kernel/debug/capisim/*/hangup 2>/dev/null | head -1)
	if [ -n "$hangup" ] && [ -n "$ncci" ] && echo "$ncci" >"$hangup"; then
		pass "debugfs: network hangs up NCCI $ncci of tty $u0"
	else
		fail "debugfs: network hangs up NCCI $ncci of tty $u0 ($hangup)"
	fi
	settle
	check "tty $u0 is gone with its names" wait_for 5 test ! -e "/dev/capi/$u0" -a ! -L "/dev/capi20.$(printf %02d "$u0")"
	check "tty $u1 of the other call keeps its names" resolves_to "/dev/capi20.$(printf %02d "$u1")" "$(tty_dev "$u1")"
	calls_down
	settle
	names_gone "network hang-up"
}

scenario_5() {
	scenario "5 unload while applications hold capisim"
	# kernelcapi pins a controller's module for every registered application
	# (ctr->owner): capisim cannot go while a client is registered, calls up.
	calls_up 3
	settle
	out=$(modprobe -r capisim 2>&1)
	r=$?
	check "modprobe -r capisim is refused while the client holds it (status $r: $out)" test $r != 0
	check "capisim is still loaded" grep -q '^capisim ' /proc/modules
	contract "calls survive the refused unload"
	calls_down
	settle
	wait_for 5 none_match '/dev/capi20.*' '/dev/capi/*'
	out=$(modprobe -r capisim 2>&1)
	r=$?
	check "once the client is gone, capisim unloads (status $r${out:+: $out})" test $r = 0
	names_gone "after unload"
	no_dangling "after unload"
	check "no kernel warning" no_bad_dmesg || bad_dmesg | diag
	modprobe capisim $CAPISIM_PARAMS
	calls_up 2
	settle
	contract "after reload"
	calls_down
	settle
}

scenario_7() {
	scenario "7 on-demand loading"
	modprobe -r capisim kernelcapi
	check "kernelcapi is unloaded" test ! -d /sys/module/kernelcapi
	check "the static /dev/capi20 stays (char 68:0)" test "$(stat -c '%F %Hr:%Lr' /dev/capi20 2>&1)" = "character special file 68:0"
	# libcapi20 opens /dev/capi20; the open alone must load the driver.  With
	# no controller yet, libcapi20 then reports "not installed".
	capi-call -n 0 >/tmp/ondemand.out 2>&1
	check "kernelcapi was loaded by libcapi20's open of /dev/capi20" test -d /sys/module/kernelcapi
	check "libcapi20 says why it cannot go on: no controller yet" grep -q 'CAPI not installed' /tmp/ondemand.out
	modprobe capisim $CAPISIM_PARAMS
	calls_up 1
	contract "first call after on-demand loading"
	calls_down
}

scenario_9() {
	scenario "9 rules only (modern)"
	systemctl stop capi-devd.service
	settle
	calls_up 25
	settle
	out=$(capi-devd --verify --devices-txt="$SPEC" 2>&1)
	rc=$?
	echo "$out" | diag
	# What --verify finds is documented, not required; that it could judge
	# the tree (exit 0 or 1, not 2) is.
	check "rules alone, 25 calls: --verify exit $rc, $(echo "$out" | grep -c '^DEVIATION') deviation(s) (documented, not required)" \
		test "$rc" -le 1
	calls_down
	check "the system is still well: no kernel warning" no_bad_dmesg
	systemctl start capi-devd.service
}

scenario_13() {
	scenario "13 ENOBUFS storm"
	# capi-devd --rcvbuf=4096 (the smallest it takes; the kernel doubles it):
	# udevd's messages of a few hundred bytes each fill it after a handful.
	# To overflow for sure, not only when the VM happens to be slow, the
	# daemon is frozen (SIGSTOP) while 32 calls come up, and again while they
	# go down, and thawed once udevd has sent every event.  It must see
	# ENOBUFS, count and log it, rescan, and end with every name and no stale
	# one.  With udevd on this (modern) kernel the rules own every modern name
	# and the daemon's rescan only sweeps stale capi20.NN links (OWNERSHIP in
	# capi-devd(8)): after the calls came up, the rescan must leave the 32
	# ttys' names alone; after they went down, it must remove the 32 stale
	# links /dev/capi20.NN -> capi/N that are left while it is frozen (as an
	# earlier run or a lost remove would leave them).
	mkdir -p /run/systemd/system/capi-devd.service.d
	printf '[Service]\nExecStart=\nExecStart=/usr/sbin/capi-devd --no-modprobe --rcvbuf=4096\n' \
		>/run/systemd/system/capi-devd.service.d/rcvbuf.conf
	systemctl daemon-reload
	systemctl restart capi-devd.service
	check "capi-devd runs with --rcvbuf=4096" bash -c \
		"systemctl -q is-active capi-devd.service && tr '\\0' ' ' </proc/\$(systemctl show -P MainPID capi-devd.service)/cmdline | grep -q -- '--rcvbuf=4096'"
	status_above() { [ "$(status_count "$1")" -gt "$2" ] 2>/dev/null; }
	overflow_logged() {
		journal_has 'events were lost (receive buffer full' &&
			journal_has 'rescan after overflow: .*32 tty(s)'
	}
	tty_count() { ls -d /sys/class/tty/capi!* /sys/class/tty/capi[0-9]* 2>/dev/null | wc -l; }
	tty_count_is() { [ "$(tty_count)" = "$1" ]; }
	o0=$(status_count overflows) r0=$(status_count rescans)
	check "the counters have overflow and rescan counts ($o0, $r0)" test -n "$o0" -a -n "$r0"
	systemctl kill -s STOP capi-devd.service
	calls_up 32 -E
	settle
	check "32 ttys in sysfs" tty_count_is 32
	systemctl kill -s CONT capi-devd.service
	check "the daemon saw the overflow (counters: overflows > $o0)" wait_for 20 status_above overflows "$o0"
	check "and rescanned (counters: rescans > $r0)" wait_for 20 status_above rescans "$r0"
	status_text | diag
	check "the overflow and the rescan are logged" overflow_logged
	settle
	contract "32 calls, after the overflow"
	verify "32 calls, after the overflow"
	o1=$(status_count overflows) r1=$(status_count rescans)
	systemctl kill -s STOP capi-devd.service
	calls_down
	settle
	check "no tty left in sysfs" tty_count_is 0
	for u in $(units); do ln -sfn "capi/$u" "/dev/capi20.$(printf %02d "$u")"; done
	check "(frozen) 32 stale links /dev/capi20.NN -> capi/N are left" \
		test "$(find /dev -maxdepth 1 -name 'capi20.[0-9]*' -xtype l | wc -l)" = 32
	systemctl kill -s CONT capi-devd.service
	check "the daemon saw the second overflow (counters: overflows > $o1)" wait_for 20 status_above overflows "$o1"
	check "and rescanned (counters: rescans > $r1)" wait_for 20 status_above rescans "$r1"
	status_text | diag
	settle
	wait_for 10 none_match '/dev/capi20.*' '/dev/capi/*'
	names_gone "after the hang-up storm"
	check "the rescan removed the 32 stale links" journal_has 'rescan after overflow: .* 32 stale link(s) removed'
	no_dangling "after the hang-up storm"
	verify "after the hang-up storm"
	rm -f /run/systemd/system/capi-devd.service.d/rcvbuf.conf
	systemctl daemon-reload
}

scenario_18() {
	scenario "18 first open by a dialout user (rules)"
	# As at a boot with the rules installed and capi-devd.service not
	# enabled: kmod-static-nodes and tmpfiles make the static /dev/capi20
	# (root:root 0600, from modules.devname) before udevd starts; udevd
	# applies OPTIONS+="static_node=capi20" when it starts.
	systemctl stop capi-devd.service
	driver_out
	rm -f /dev/capi20
	systemctl restart kmod-static-nodes.service systemd-tmpfiles-setup-dev.service
	check "kmod-static-nodes made /dev/capi20 root:root 0600" static_is "root root 600" ||
		stat -c '%F %Hr:%Lr %U %G %a' /dev/capi20 2>&1 | diag
	systemctl restart systemd-udevd.service
	check "udevd's start gave it group dialout, mode 0660 (static_node=capi20)" \
		wait_for 10 static_is "root dialout 660" || stat -c '%U %G %a' /dev/capi20 2>&1 | diag
	dialout_opens "rules, no capi-devd"
	# ... and that user makes a call: the names of its tty are dialout's too.
	modprobe capisim $CAPISIM_PARAMS
	out=$(as_dialout capi-call -n 1 2>&1)
	r=$?
	check "the dialout user places a call through libcapi20 and echoes through its tty (exit $r)" test $r = 0 ||
		grep -v '^ok' <<<"$out" | diag
	settle
	systemctl start capi-devd.service
	check "capi-devd is back" systemctl -q is-active capi-devd.service
}

scenario_35() {
	scenario "35 one configuration (udevd)"
	# Scenario 34's change with udevd: a copy of 50-capi.rules in
	# /etc/udev/rules.d with group tty, mode 0640, udevd's rules and
	# capi-devd reloaded.  The control device (a change event), the ttys
	# of new calls and the static /dev/capi20 at udevd's start get them,
	# and every name of the contract leads to them; the copy removed,
	# dialout 0660 again.
	local rules=/etc/udev/rules.d/50-capi.rules
	reload_all() {
		udevadm control --reload
		systemctl reload capi-devd.service
		udevadm trigger --action=change --settle /sys/class/capi/capi20
	}
	sed -e 's/GROUP="dialout"/GROUP="tty"/' -e 's/MODE="0660"/MODE="0640"/' \
		/lib/udev/rules.d/50-capi.rules >"$rules"
	reload_all
	PERMS="root tty 640"
	calls_up 2
	settle
	contract "rules group tty, mode 0640, udevd and capi-devd reloaded, 2 new calls"
	check "capi-devd logged where they came from" \
		journal_has "group tty, mode 0640 now ($rules)"
	calls_down
	settle
	chown root:root /dev/capi20
	chmod 0600 /dev/capi20
	systemctl restart systemd-udevd.service
	check "udevd's start gave the static /dev/capi20 (root:root 0600) group tty, mode 0640" \
		wait_for 10 static_is "root tty 640" || stat -c '%U %G %a' /dev/capi20 2>&1 | diag
	rm "$rules"
	reload_all
	PERMS="root dialout 660"
	calls_up 1
	settle
	contract "the copy removed, reloaded, a new call: dialout 0660 again"
	calls_down
	settle
}

run_scenarios 1 10 4 5 7 9 13 18 35 30 31 32 33 15 16
