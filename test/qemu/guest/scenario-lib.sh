# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scenario-lib.sh - helpers for the scripts that run INSIDE the test VM
# (installed as /capi-test/scenario-lib.sh): the TAP verbs of test/tap.sh
# (the same file, /capi-test/tap.sh), scenarios picked by number, checks
# on the live /dev, the libcapi20 client, capi-devd --verify and the
# kernel's own reports.  test/README.md lists the scenarios.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck source=test/tap.sh
. /capi-test/tap.sh
SPEC=/usr/share/capi-devd/devices.txt
# capisim: one controller with enough B channels for 25+ calls.
CAPISIM_PARAMS=${CAPISIM_PARAMS:-"nbchan=32"}

BOOT=""
boot() { BOOT=$1; }			# boot LABEL: what this boot is, for the summary
scenario() { TAP_PREFIX=$1; }		# scenario LABEL: the prefix of the next tests
# run_scenarios N...: the function setup, then scenario_N for each N in
# order, then finish.  capi.scenarios=N,N... on the kernel command line
# (CAPI_SCENARIOS on the host) picks some of them.  With DEFINE_ONLY=1 it
# does nothing: another script sources a scenarios-*.sh for its functions.
run_scenarios() {
	local a want="" n
	[ "${DEFINE_ONLY:-0}" = 0 ] || return 0
	for a in $(cat /proc/cmdline); do
		case $a in capi.scenarios=*) want=",${a#*=}," ;; esac
	done
	[ -z "$want" ] || diag "capi.scenarios: only${want//,/ }"
	scenario setup
	setup
	for n; do
		[ -z "$want" ] || [[ $want == *",$n,"* ]] || continue
		"scenario_$n"
	done
	finish
}

# The kernel's own reports: WARN, BUG, and on the debug kernels lockdep,
# KASAN and KCSAN, which report through them.  KCSAN (kernel/kcsan.config)
# reports every data race it sees, most of them in the rest of the kernel:
# a report counts only when CAPI code takes part in it (one of its frames
# is a capi* function or in the module kernelcapi or capisim; not the
# kernel release, 6.1.192-capi, of its CPU: line); kcsan_others lists
# the rest.
kcsan_split() {	# kcsan_split ours|others: the KCSAN reports of that kind
	dmesg | awk -v want="$1" '
		/BUG: KCSAN: / { blk = $0 "\n"; inblk = 1; next }
		inblk && /=====/ {
			inblk = 0
			ours = blk ~ /\[(kernelcapi|capisim)\]|[a-z0-9_]*capi[a-z0-9_]*\+0x/
			if (ours == (want == "ours")) printf "%s", blk
			next
		}
		inblk { blk = blk $0 "\n"; next }
		want == "ours" { print }'
}
bad_dmesg() { kcsan_split ours | grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection|list_(add|del) corruption'; }
kcsan_others() { kcsan_split others | grep 'BUG: KCSAN: '; }
no_bad_dmesg() { ! bad_dmesg >/dev/null; }
# dstate_tasks: "PID COMM WCHAN" of every task in D state (uninterruptible,
# in the kernel), one a line; none when nothing is stuck.
dstate_tasks() {
	local s pid rest st
	for s in /proc/[0-9]*/stat; do
		read -r pid rest <"$s" 2>/dev/null || continue
		st=${rest##*) }
		[ "${st%% *}" = D ] && echo "$pid $(cat "/proc/$pid/comm" 2>/dev/null) $(cat "/proc/$pid/wchan" 2>/dev/null)"
	done
	return 0
}
# kmemleak, on a debug kernel (make check-debug) only: after two scans, no
# leak with capi in its backtrace or an address in module space (an
# unloaded module's symbols no longer resolve).
KMEMLEAK=/sys/kernel/debug/kmemleak
have_kmemleak() { [ -w $KMEMLEAK ]; }
no_capi_leak() {
	local leaks
	# kmemleak refuses the write (EPERM) once it turned itself off (out
	# of memory for its metadata, say); its list is then empty: a pass
	# that looked at nothing
	if ! { echo scan >$KMEMLEAK && sleep 6 && echo scan >$KMEMLEAK; } 2>/dev/null; then
		fail "kmemleak: no leak with capi in its backtrace (the scan was refused: $(dmesg | grep -m1 -i 'kmemleak.*disabled'))"
		return 1
	fi
	leaks=$(awk -v re='capi|\\] 0xffffffffa' '/^unreferenced object/ { if (blk ~ re) print blk; blk = "" } { blk = blk $0 "\n" } END { if (blk ~ re) print blk }' $KMEMLEAK)
	check "kmemleak: no leak with capi in its backtrace" test -z "$leaks" || printf '%b' "$leaks" | diag
}
# At the end of every boot: the kernel reported nothing, and (kmemleak)
# nothing CAPI leaked.
kernel_clean() {
	scenario "end of boot"
	check "no kernel warning, BUG, lockdep, KASAN or KCSAN report" no_bad_dmesg || kcsan_split ours | tail -n 80 | diag
	! have_kmemleak || no_capi_leak
	! have_kcsan || kcsan_summary
}
# On the KCSAN kernel: that it watched, on how many CPUs, and the races it
# found outside CAPI code (not failures: the rest of the kernel's).
have_kcsan() { [ -r /sys/kernel/debug/kcsan ]; }
kcsan_summary() {
	diag "KCSAN on $(nproc) CPU(s): $(tr '\n' ' ' </sys/kernel/debug/kcsan | sed 's/ \{1,\}/ /g' | cut -c1-400)"
	diag "KCSAN reports outside CAPI code: $(kcsan_others | wc -l)"
	kcsan_others | sed 's/^\[[^]]*\] //' | sort | uniq -c | diag
}
finish() {
	kernel_clean
	TAP_PREFIX=""
	diag "$BOOT: $((T_N - T_FAILED)) passed, $T_FAILED failed"
	done_testing
}

# none_match GLOB...: no path matches any of the globs (checked at the call)
none_match() {
	local g
	for g; do
		compgen -G "$g" >/dev/null && return 1
	done
	return 0
}
# capisim_up: load capisim with $CAPISIM_PARAMS; one test that its
# controller shows in /proc/capi/controller.
capisim_up() {
	modprobe capisim $CAPISIM_PARAMS
	check "capisim is loaded and its controller listed" \
		wait_for 5 grep -q . /proc/capi/controller
}
settle() { udevadm settle -t 10 2>/dev/null || true; }
# capi-devd's journal of this boot has a line that matches REGEX (grep's).
journal_has() { journalctl -b -u capi-devd.service -o cat --no-pager | grep -q -- "$1"; }
# capi-devd's STATUS= line (the source, what is named, the last change).
status_text() { systemctl show -P StatusText capi-devd.service; }
# One of capi-devd's counters: status_count WORD gives N of "... N WORD,
# ..." in the counters line it logs on SIGUSR1 (asked for here, waited for).
counters_logged() { journalctl -b -u capi-devd.service -o cat --no-pager | grep -c 'counters: '; }
counters_more() { [ "$(counters_logged)" -gt "$1" ]; }
status_count() {
	local n
	n=$(counters_logged)
	systemctl kill -s USR1 capi-devd.service
	wait_for 10 counters_more "$n" || return 1
	journalctl -b -u capi-devd.service -o cat --no-pager | grep 'counters: ' | tail -n1 |
		sed -n "s/.* \([0-9][0-9]*\) $1,.*/\1/p"
}
ready_notified() {	# the Type=notify unit got READY=1: SubState running
	[ "$(systemctl show -P Type capi-devd.service)" = notify ] &&
		[ "$(systemctl show -P SubState capi-devd.service)" = running ]
}
status_matches() { status_text | grep -Eq -- "$1"; }	# status_matches ERE

# The device number of a live tty unit, from sysfs.
tty_dev() {	# tty_dev N -> "MAJ:MIN"
	local d
	for d in "/sys/class/tty/capi!$1" "/sys/class/tty/capi$1"; do
		[ -r "$d/dev" ] && { cat "$d/dev"; return 0; }
	done
	return 1
}
resolves_to() {	# resolves_to PATH MAJ:MIN
	[ "$(stat -L -c '%F %Hr:%Lr' "$1" 2>/dev/null)" = "character special file $2" ]
}
# perms_ok PATH: owner, group and mode as PERMS says (the shipped
# configuration's root, dialout, 0660 unless a scenario changed it)
PERMS="root dialout 660"
perms_ok() { [ "$(stat -L -c '%U %G %a' "$1" 2>/dev/null)" = "$PERMS" ]; }

# client_run DESC CMD...: one test for a test client's own TAP (capi-call,
# capisim-smoke, ...): it passes when CMD exits 0, with the count of the
# client's checks; the client's lines other than "ok" go to diag.  The
# whole output is left in $CLIENT_OUT; the status is CMD's.
CLIENT_OUT=""
client_run() {
	local desc=$1 r
	shift
	CLIENT_OUT=$("$@" 2>&1)
	r=$?
	if [ $r = 0 ]; then
		pass "$desc ($(grep -c '^ok' <<<"$CLIENT_OUT") client checks)"
	else
		fail "$desc (exit $r)"
	fi
	grep -v '^ok' <<<"$CLIENT_OUT" | diag
	return $r
}

# Start the client holding CALLS calls; its output goes to $CALL_OUT.
CALL_OUT=/tmp/capi-call.out
call_pid=""
calls_up() {	# calls_up CALLS [client options]
	local calls=$1
	shift
	capi-call -n "$calls" -H "$@" >"$CALL_OUT" 2>&1 &
	call_pid=$!
	if wait_for 60 grep -q '^HOLDING' "$CALL_OUT"; then
		if grep -q '^not ok' "$CALL_OUT"; then
			fail "$calls call(s) placed through libcapi20, ttys named and echoed"
			grep -v '^ok' "$CALL_OUT" | diag
		else
			pass "$calls call(s) placed through libcapi20, ttys named and echoed ($(grep -c '^ok' "$CALL_OUT") client checks)"
		fi
	else
		fail "$calls call(s) placed: the client did not reach HOLDING"
		diag <"$CALL_OUT"
	fi
}
calls_down() {	# hang up the held calls
	[ -n "$call_pid" ] || return 0
	kill -TERM "$call_pid" 2>/dev/null
	wait "$call_pid"
	local rc=$?
	call_pid=""
	if [ $rc = 0 ]; then pass "the client hung up cleanly"
	else fail "the client hung up cleanly (exit $rc)"; tail -5 "$CALL_OUT" | diag; fi
}
# Units of the held calls, from the client's "TTY i /dev/capi/N" lines.
units() { sed -n 's|^TTY [0-9]* /dev/capi/\([0-9]*\)$|\1|p' "$CALL_OUT"; }

# The whole contract for every live unit.
contract() {	# contract LABEL
	local u dev bad="" legacy
	[ "$(stat -c '%F %Hr:%Lr' /dev/capi20 2>/dev/null)" = "character special file 68:0" ] || bad="$bad /dev/capi20:not-68:0"
	perms_ok /dev/capi20 || bad="$bad /dev/capi20:$(stat -c %U:%G:%a /dev/capi20 2>&1)"
	resolves_to /dev/isdn/capi20 68:0 || bad="$bad /dev/isdn/capi20"
	for u in $(units); do
		dev=$(tty_dev "$u") || { bad="$bad tty$u:not-in-sysfs"; continue; }
		legacy=/dev/capi20.$(printf %02d "$u")
		resolves_to "/dev/capi/$u" "$dev" || bad="$bad /dev/capi/$u"
		perms_ok "/dev/capi/$u" || bad="$bad /dev/capi/$u:$(stat -L -c %U:%G:%a /dev/capi/$u 2>&1)"
		resolves_to "$legacy" "$dev" || bad="$bad $legacy"
	done
	if [ -z "$bad" ]; then pass "$1: every name of the contract, with group and mode ($(units | wc -l) ttys)"
	else fail "$1: every name of the contract:$bad"; ls -l /dev/capi20* /dev/capi /dev/isdn 2>&1 | diag; fi
}
verify() {	# verify LABEL: capi-devd --verify passes
	local out
	out=$(capi-devd --verify --devices-txt="$SPEC" 2>&1)
	if [ $? = 0 ]; then pass "$1: capi-devd --verify: ${out##*$'\n'}"
	else fail "$1: capi-devd --verify"; echo "$out" | diag; fi
}
no_dangling() {
	local d
	d=$(find /dev -xtype l 2>/dev/null | grep -E 'capi|isdn')
	if [ -z "$d" ]; then pass "$1: no CAPI name dangles"
	else fail "$1: no CAPI name dangles:" $d; fi
}
names_gone() {	# names_gone LABEL: no capi20.NN and no capi/N left
	local left
	left=$(ls -d /dev/capi20.* /dev/capi/* 2>/dev/null)
	if [ -z "$left" ]; then pass "$1: every tty name is gone"
	else fail "$1: every tty name is gone; left:" $left; fi
}
echo_through() {	# echo_through PATH: bytes written come back
	local want="echo via $1 $$" got
	# <> creates what is missing: a regular file in /dev would then
	# stand where capi-devd must make the name.
	[ -c "$1" ] || return 1
	exec 9<>"$1" || return 1
	stty -F "$1" raw -echo 2>/dev/null
	printf '%s' "$want" >&9
	got=$(timeout 5 head -c ${#want} <&9)
	exec 9>&-
	[ "$got" = "$want" ]
}
# The static /dev/capi20 whose first open loads kernelcapi (issue 15 section 3).
static_is() {	# static_is "OWNER GROUP MODE": char 68:0 with them
	[ "$(stat -c '%F %Hr:%Lr %U %G %a' /dev/capi20 2>&1)" = "character special file 68:0 $1" ]
}
# As a member of dialout who is not root (nobody, group dialout added):
# open /dev/capi20 read-write, as libcapi20 does.
as_dialout() { setpriv --reuid=65534 --regid=65534 --groups=dialout "$@"; }
dialout_opens() {	# dialout_opens LABEL: the open succeeds, kernelcapi loads
	local out r
	out=$(as_dialout bash -c 'exec 3<>/dev/capi20' 2>&1)
	r=$?
	check "$1: a dialout user (uid 65534) opens /dev/capi20 (exit $r${out:+: $out})" test $r = 0
	check "$1: that open loaded kernelcapi" test -d /sys/module/kernelcapi
}
# Unload the driver: the static node stays, with what it had.
driver_out() {
	local m
	for m in capisim kernelcapi; do
		! grep -q "^$m " /proc/modules || modprobe -r "$m"
	done
	check "kernelcapi is unloaded" test ! -d /sys/module/kernelcapi
}
