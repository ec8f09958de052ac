#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM with udevd masked: capi-devd alone
# (--source=kernel) owns every name.  The scenarios: test/README.md.
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
boot "capi-devd without udevd"

setup() {
	check "systemd-udevd is not running" test ! -e /run/udev/control
	check "capi-devd.service is active" systemctl -q is-active capi-devd.service
	# Type=notify: "running" only after READY=1; STATUS= as the daemon
	# sent it (src/notify.c, no libsystemd).
	check "READY=1 reached systemd (Type=notify, SubState running)" ready_notified
	systemctl status --no-pager capi-devd.service | diag
	check "STATUS= reached systemd: $(status_text)" \
		status_matches '^source kernel: [0-9]+ control devices?, [0-9]+ ttys? named; last change [0-9:]{8}'
	check "capi-devd chose --source=kernel" journal_has 'source kernel'
	# A remove read late must not delete the node of a unit made again.
	check "capi-devd leaves the nodes of devtmpfs to the kernel" \
		journal_has 'devtmpfs: nodes are the kernel'
	# ExecStartPre=--load-driver: libkmod.so.2 dlopen()ed (src/modload.c);
	# nothing else loads kernelcapi before it in this boot.
	check "--load-driver loaded kernelcapi through the dlopen()ed libkmod" \
		journal_has 'loaded the CAPI driver kernelcapi'
	capisim_up
}

scenario_2() {
	scenario "2 kernel storm"
	calls_up 25 -l
	contract "25 calls"
	verify "25 calls"
	calls_down
	wait_for 5 none_match '/dev/capi20.*'
	names_gone "after hang-up"
	no_dangling "after hang-up"
	verify "after hang-up"
}

scenario_3() {
	scenario "3 coldplug"
	systemctl stop capi-devd.service
	ln -s capi/77 /dev/capi20.77		# a stale link of an earlier run
	calls_up 3 -E				# no echo: no legacy names yet
	u=$(units | sed -n 1p)
	check "without capi-devd, /dev/capi20.$(printf %02d "$u") is missing" test ! -e "/dev/capi20.$(printf %02d "$u")"
	systemctl start capi-devd.service
	check "capi-devd is back" systemctl -q is-active capi-devd.service
	contract "names made at start"
	check "the stale /dev/capi20.77 is removed" test ! -L /dev/capi20.77
	check "the start is logged with the stale link" journal_has 'removed stale link /dev/capi20.77'
	for x in $(units); do echo_through "/dev/capi20.$(printf %02d "$x")" || break; done
	check "bytes echo through the names made at start" test $? = 0
	calls_down
	names_gone "coldplug hang-up"
}

scenario_8() {
	scenario "8 restart under load"
	restarts0=$(systemctl show -P NRestarts capi-devd.service)
	(for i in 1 2 3 4 5 6; do capi-call -n 4 -w 8 >/tmp/burst.$i 2>&1; done) &
	burst=$!
	sleep 1
	systemctl kill -s KILL capi-devd.service
	check "systemd restarts capi-devd after SIGKILL" wait_for 15 bash -c \
		"[ \"\$(systemctl show -P NRestarts capi-devd.service)\" -gt $restarts0 ] && systemctl -q is-active capi-devd.service"
	wait $burst
	fails=$(grep -l '^not ok' /tmp/burst.* 2>/dev/null | wc -l)
	# Names may lag during the restart: a client's failed check is counted,
	# not failed; every run must come to its end (its plan line).
	ended=$(grep -l '^1\.\.' /tmp/burst.* 2>/dev/null | wc -l)
	check "burst of 6 x 4 calls around the kill: $fails client run(s) with a failed check (names may lag during the restart)" \
		test "$ended" = 6
	grep -h '^not ok' /tmp/burst.* 2>/dev/null | head -5 | diag
	verify "after the restart"
	no_dangling "after the restart"
	calls_up 3 -l
	contract "new calls after the restart"
	calls_down
}

scenario_11() {
	scenario "11 forged uevents"
	# send-uevent forges "add" of tty N (MAJOR=240, DEVNAME=capi/N) to the
	# uevent group.  capi-devd takes only datagrams from the kernel (port 0,
	# uid 0); it counts the rest as "forged" in its counters (SIGUSR1).  The kernel
	# itself refuses a send to the group without CAP_NET_ADMIN (EPERM), and a
	# send from another network namespace reaches only that namespace.  The
	# sends from root, last, must raise the count by exactly their number:
	# so the earlier senders reached the daemon with nothing.
	forged_is() { [ "$(status_count forged)" = "$1" ]; }
	no_forged_name() {	# no_forged_name UNIT...
		local u
		for u; do
			[ -e "/dev/capi/$u" ] || [ -L "/dev/capi/$u" ] || [ -L "/dev/capi20.$u" ] && return 1
		done
		return 0
	}
	f0=$(status_count forged)
	check "the counters have a forged count ($f0)" test -n "$f0"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups send-uevent 5 57 2>&1)
	r=$?
	refused() { [ "$r" = 1 ] && grep -q 'sendto: Operation not permitted' <<<"$out"; }
	check "as nobody, the kernel refuses the send: EPERM (status $r: $out)" refused
	if out=$(unshare -U -r -n true 2>&1); then
		out=$(unshare -U -r -n send-uevent 5 58 2>&1)
		r=$?
		check "in a user namespace (root there, own netns), the send goes to that namespace only (status $r${out:+: $out})" test $r = 0
	else
		# This kernel is built without CONFIG_USER_NS: no user namespace to
		# send from.  If it gets them, the branch above runs instead.
		check "a user namespace cannot be made on this kernel (no CONFIG_USER_NS): $out" \
			grep -q 'Invalid argument' <<<"$out"
	fi
	out=$(unshare -n send-uevent 5 59 2>&1)
	r=$?
	check "as root in another network namespace, the send goes to that namespace only (status $r${out:+: $out})" test $r = 0
	out=$(send-uevent 5 60 2>&1)
	r=$?
	check "as root, a forged datagram (port id not 0) is sent (status $r${out:+: $out})" test $r = 0
	check "the counters count exactly the 5 forged datagrams from root: forged $f0 -> $((f0 + 5))" \
		wait_for 10 forged_is $((f0 + 5))
	status_text | diag
	check "the daemon logs the drop" journal_has 'dropped a uevent not sent by the kernel (port [1-9]'
	check "no name from any forged uevent (capi/57..60, capi20.57..60)" no_forged_name 57 58 59 60
	verify "after the forged uevents"
	no_dangling "after the forged uevents"
}

scenario_12() {
	scenario "12 SIGKILL storm"
	# 20 rounds: calls go up and down (a client that holds 3 calls, and two
	# runs of 4 calls up and down), and capi-devd gets SIGKILL at a random
	# point, 0-1.9 s in.  After systemd restarted it (reset-failed first: 20
	# restarts would hit the start limit), once the clients are done and the
	# held calls are up: --verify exits 0 and no name dangles, within 15 s.
	converged() {
		capi-devd --verify --devices-txt="$SPEC" >/tmp/ks-verify.out 2>&1 &&
			[ -z "$(find /dev -xtype l 2>/dev/null | grep -E 'capi|isdn')" ]
	}
	restarted() {	# restarted OLDPID
		local p
		p=$(systemctl show -P MainPID capi-devd.service)
		[ "$p" != 0 ] && [ "$p" != "$1" ] && systemctl -q is-active capi-devd.service
	}
	restarts=0 bad=""
	ks_start=$(date +%s)
	for round in $(seq 1 20); do
		capi-call -n 3 -E -H >/tmp/ks-hold.out 2>&1 &
		hold=$!
		(for i in 1 2; do capi-call -n 4 -E -w 3 >/dev/null 2>&1; done) &
		churn=$!
		d=$((RANDOM % 20))
		sleep "$((d / 10)).$((d % 10))"
		systemctl reset-failed capi-devd.service
		pid=$(systemctl show -P MainPID capi-devd.service)
		systemctl kill -s KILL capi-devd.service
		if wait_for 20 restarted "$pid"; then
			restarts=$((restarts + 1))
		else
			bad="$bad $round:no-restart"
		fi
		wait $churn
		wait_for 30 grep -q '^HOLDING' /tmp/ks-hold.out || bad="$bad $round:client-not-holding"
		if ! wait_for 15 converged; then
			bad="$bad $round:not-converged"
			{ echo "round $round (kill at ${d}00 ms):"; cat /tmp/ks-verify.out
			  find /dev -xtype l | grep -E 'capi|isdn'; } | diag
		fi
		kill -TERM $hold 2>/dev/null
		wait $hold
	done
	check "20 SIGKILLs at random points of the storm, 20 restarts ($restarts, $(( $(date +%s) - ks_start )) s)" test "$restarts" = 20
	check "after each restart the tree converged: --verify exit 0, no dangling name${bad:+; failed rounds:$bad}" test -z "$bad"
	settle
	wait_for 5 none_match '/dev/capi20.*'
	names_gone "after the SIGKILL storm"
	verify "after the SIGKILL storm"
}

scenario_19() {
	scenario "19 first open by a dialout user (capi-devd)"
	# Without udevd, no rule gives the static /dev/capi20 its group: at
	# start-up capi-devd does, and makes the node from modules.devname if
	# nothing did.  It runs outside capi-devd.service here: the unit's
	# ExecStartPre loads the driver, and this start must find it absent.
	local how pid
	systemctl stop capi-devd.service
	for how in "kmod-static-nodes made it root:root 0600" "it is missing"; do
		driver_out
		case $how in
		kmod*) chown root:root /dev/capi20; chmod 0600 /dev/capi20 ;;
		*) rm -f /dev/capi20 ;;
		esac
		capi-devd --no-modprobe 2>/tmp/static.log &
		pid=$!
		check "$how: capi-devd starts (no driver loaded)" wait_for 15 grep -q 'start: ' /tmp/static.log ||
			diag </tmp/static.log
		check "$how: /dev/capi20 is char 68:0, root dialout 0660" static_is "root dialout 660" ||
			{ stat -c '%F %Hr:%Lr %U %G %a' /dev/capi20 2>&1; cat /tmp/static.log; } | diag
		dialout_opens "$how"
		kill -TERM $pid
		wait $pid
	done
	check "capi-devd logged the node it made" grep -q 'made the static node /dev/capi20' /tmp/static.log
	modprobe capisim $CAPISIM_PARAMS
	systemctl start capi-devd.service
	check "capi-devd.service is back" systemctl -q is-active capi-devd.service
}

scenario_34() {
	scenario "34 one configuration (capi-devd)"
	# The group and mode of every node are the permissions line of
	# 50-capi.rules, for capi-devd too: a copy in /etc/udev/rules.d with
	# group tty and mode 0640, then a reload, and every node follows; the
	# static /dev/capi20 at a start without the driver as well.
	local pid
	nodes_are() {	# nodes_are "GROUP MODE": /dev/capi20 and each /dev/capi/N
		local n
		for n in /dev/capi20 /dev/capi/*; do
			[ -e "$n" ] || continue
			[ "$(stat -c '%G %a' "$n" 2>&1)" = "$1" ] || return 1
		done
	}
	calls_up 2
	settle
	sed -e 's/GROUP="dialout"/GROUP="tty"/' -e 's/MODE="0660"/MODE="0640"/' \
		/lib/udev/rules.d/50-capi.rules >/etc/udev/rules.d/50-capi.rules
	systemctl reload capi-devd.service
	check "rules group tty, mode 0640, reload: /dev/capi20 and the 2 /dev/capi/N follow" \
		wait_for 10 nodes_are "tty 640" || ls -l /dev/capi20 /dev/capi/ 2>&1 | diag
	check "the daemon logged where they came from" \
		journal_has 'group tty, mode 0640 now (/etc/udev/rules.d/50-capi.rules)'
	calls_down
	settle
	systemctl stop capi-devd.service
	driver_out
	chown root:root /dev/capi20
	chmod 0600 /dev/capi20
	capi-devd --no-modprobe 2>/tmp/conf.log &
	pid=$!
	check "a start without the driver" wait_for 15 grep -q 'start: ' /tmp/conf.log || diag </tmp/conf.log
	check "the static /dev/capi20 (root:root 0600) is root tty 0640" static_is "root tty 640" ||
		{ stat -c '%F %Hr:%Lr %U %G %a' /dev/capi20 2>&1; cat /tmp/conf.log; } | diag
	kill -TERM $pid
	wait $pid
	rm /etc/udev/rules.d/50-capi.rules
	modprobe capisim $CAPISIM_PARAMS
	systemctl start capi-devd.service
	check "the rules file removed: dialout 0660 again" wait_for 10 nodes_are "dialout 660"
}

run_scenarios 2 3 8 11 12 19 34
