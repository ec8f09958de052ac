# scenario-lib.sh - helpers for the scenario scripts that run INSIDE the
# test VM (installed as /capi-test/scenario-lib.sh).  TAP output; checks
# on the live /dev; the libcapi20 client and capi-devd --verify.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
SPEC=/usr/share/capi-devd/devices.txt
# capisim: one controller with enough B channels for 25+ calls.
CAPISIM_PARAMS=${CAPISIM_PARAMS:-"nbchan=32"}

n=0 failed=0
scenario=""
ok() { n=$((n + 1)); echo "ok $n - ${scenario:+$scenario: }$*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - ${scenario:+$scenario: }$*"; }
# pass/fail: the host's verbs (test/lib.sh); new scripts use these and check.
pass() { ok "$@"; }
fail() { not_ok "$@"; }
check() {	# check "description" command...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
diag() { sed 's/^/# /'; }
# At the end of every boot: the kernel reported nothing (WARN, BUG, and on
# the debug kernel lockdep and KASAN, which report through them), and on a
# kernel with kmemleak (make check-debug) nothing CAPI leaked.
kernel_clean() {
	local bad leaks kml=/sys/kernel/debug/kmemleak
	scenario="end of boot"
	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection|list_(add|del) corruption')
	if [ -z "$bad" ]; then ok "no kernel warning, BUG, lockdep or KASAN report"
	else not_ok "no kernel warning, BUG, lockdep or KASAN report"; dmesg | tail -n 80 | diag; fi
	[ -w $kml ] || return 0
	echo scan >$kml; sleep 6; echo scan >$kml
	# capi in the backtrace, or an address in module space (an unloaded
	# module's symbols no longer resolve)
	leaks=$(awk -v re='capi|\\] 0xffffffffa' '/^unreferenced object/ { if (blk ~ re) print blk; blk = "" } { blk = blk $0 "\n" } END { if (blk ~ re) print blk }' $kml)
	if [ -z "$leaks" ]; then ok "kmemleak: no leak with capi in its backtrace"
	else not_ok "kmemleak: no leak with capi in its backtrace"; printf '%b' "$leaks" | diag; fi
}
finish() {
	kernel_clean
	echo "1..$n"; echo "# $scenario_list: $((n - failed)) passed, $failed failed"; [ $failed = 0 ]; exit
}

# wait_for SECONDS command...: run the command every 0.1 s until it
# succeeds (0) or SECONDS pass (1).  The command is run anew each time, so
# a condition that must be re-evaluated is a function or a command, never
# an expanded "$(...)" (that would be evaluated once, before the wait).
# The host's test/lib.sh has the same wait_for.
wait_for() {
	local end=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge $end ] && return 1
		sleep 0.1
	done
}
# none_match GLOB...: no path matches any of the globs (checked at the call)
none_match() {
	local g
	for g; do
		compgen -G "$g" >/dev/null && return 1
	done
	return 0
}
settle() { udevadm settle -t 10 2>/dev/null || true; }

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
perms_ok() {	# perms_ok PATH: root, dialout, 0660
	[ "$(stat -L -c '%U %G %a' "$1" 2>/dev/null)" = "root dialout 660" ]
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
			not_ok "$calls call(s) placed through libcapi20, ttys named and echoed"
			grep -v '^ok' "$CALL_OUT" | diag
		else
			ok "$calls call(s) placed through libcapi20, ttys named and echoed ($(grep -c '^ok' "$CALL_OUT") client checks)"
		fi
	else
		not_ok "$calls call(s) placed: the client did not reach HOLDING"
		diag <"$CALL_OUT"
	fi
}
calls_down() {	# hang up the held calls
	[ -n "$call_pid" ] || return 0
	kill -TERM "$call_pid" 2>/dev/null
	wait "$call_pid"
	local rc=$?
	call_pid=""
	if [ $rc = 0 ]; then ok "the client hung up cleanly"
	else not_ok "the client hung up cleanly (exit $rc)"; tail -5 "$CALL_OUT" | diag; fi
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
	if [ -z "$bad" ]; then ok "$1: every name of the contract, with group and mode ($(units | wc -l) ttys)"
	else not_ok "$1: every name of the contract:$bad"; ls -l /dev/capi20* /dev/capi /dev/isdn 2>&1 | diag; fi
}
verify() {	# verify LABEL: capi-devd --verify passes
	local out
	out=$(capi-devd --verify --devices-txt="$SPEC" 2>&1)
	if [ $? = 0 ]; then ok "$1: capi-devd --verify: ${out##*$'\n'}"
	else not_ok "$1: capi-devd --verify"; echo "$out" | diag; fi
}
no_dangling() {
	local d
	d=$(find /dev -xtype l 2>/dev/null | grep -E 'capi|isdn')
	if [ -z "$d" ]; then ok "$1: no CAPI name dangles"
	else not_ok "$1: no CAPI name dangles:" $d; fi
}
names_gone() {	# names_gone LABEL: no capi20.NN and no capi/N left
	local left
	left=$(ls -d /dev/capi20.* /dev/capi/* 2>/dev/null)
	if [ -z "$left" ]; then ok "$1: every tty name is gone"
	else not_ok "$1: every tty name is gone; left:" $left; fi
}
echo_through() {	# echo_through PATH: bytes written come back
	local want="echo via $1 $$" got
	exec 9<>"$1" || return 1
	stty -F "$1" raw -echo 2>/dev/null
	printf '%s' "$want" >&9
	got=$(timeout 5 head -c ${#want} <&9)
	exec 9>&-
	[ "$got" = "$want" ]
}
