# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pppd-lib.sh - pppd over CAPI, end to end (issue 8 section 3), for any
# kernel.  Runs INSIDE the test VM (installed as /capi-test/pppd-lib.sh),
# after /capi-test/scenario-lib.sh.
#
# Two network namespaces, one per end, so that every packet really crosses
# the CAPI link.  In each one the libcapi20 client capi-call holds one call
# and runs pppd on its tty: the answering end (capi-call -A) on the
# devices.txt name /dev/capi20.NN, the calling end on /dev/capi/N.  pppd
# runs with `sync`, so the ttys carry N_SYNC_PPP.
#
# What the caller provides: capisim loaded, its controller 1 switching
# calls between applications (kernel/patches 0005); something that makes
# the names (capi-devd or the rules); pppd, ip, ping, socat and capi-call
# in PATH; PPP_SYNC_TTY as a module (its use count shows the discipline),
# as in Debian's kernel.  test/qemu/scenario.sh (group pppd) adds these
# to the initramfs:
#   --add test/qemu/guest/pppd-lib.sh:/capi-test/pppd-lib.sh
#   --add "$CAPI_CALL:/usr/bin/capi-call" --pkg libcapi20-3
#   --add /usr/sbin/pppd --add /usr/bin/ip --add /usr/bin/ping
#   --add /usr/bin/socat
# and a guest script that does:
#   . /capi-test/scenario-lib.sh; . /capi-test/pppd-lib.sh
#   modprobe capisim; pppd_setup
#   scenario "pppd, the caller hangs up"; pppd_caller_hangs_up
#   scenario "pppd, the answerer hangs up"; pppd_answerer_hangs_up
#   finish
# (guest/scenarios-pppd.sh is that script, as scenarios 15 and 16; another
# boot takes them with DEFINE_ONLY=1 . /capi-test/scenarios-pppd.sh and
# 15 16 on its run_scenarios line, as guest/scenarios-udev.sh does: each
# scenario calls pppd_setup itself.)
#
#   pppd_setup               /etc/ppp/options, the two namespaces; the
#                            second and later calls of a boot do nothing
#   pppd_caller_hangs_up     a round with ping -c 100 and a 1 MiB transfer
#                            whose caller's client hangs up (CAPI), then a
#                            round whose caller's pppd ends it (LCP, then
#                            CAPI)
#   pppd_answerer_hangs_up   the same two ways from the answering end,
#                            with ping -c 5
#   pppd_round HOW [full]    one round (HOW: caller-client, answerer-client,
#                            caller-pppd, answerer-pppd: who ends the call)
#   pppd_demo                the short version for ./demo.sh
#
# TAP through tap.sh's pass/fail/check; figures as "# pppd: " diag lines.
PPP_NS_CALLER=capi-a PPP_NS_ANSWER=capi-b
PPP_IP_CALLER=10.64.0.1 PPP_IP_ANSWER=10.64.0.2
PPP_MSN=${PPP_MSN:-4711}
PPP_PORT=5555
PPP_DIR=/tmp/pppd
# pppd: sync HDLC framing, no modem lines, no authentication, no
# compression that could hide a corrupted byte, IPv4 only, no echo-requests
# of its own (the ping is the test); one unit per end, given below
PPP_OPTS="sync nodetach noauth local nocrtscts nodefaultroute noccp noipv6
	lcp-echo-interval 0 debug"

PPP_SETUP_DONE=0
pppd_setup() {	# once per boot: later calls return at once
	[ "$PPP_SETUP_DONE" = 0 ] || return 0
	PPP_SETUP_DONE=1
	mkdir -p /etc/ppp "$PPP_DIR"
	# Debian's options file asks for auth, lock, crtscts ...: empty it
	: >/etc/ppp/options
	[ -e /var/run ] || ln -s ../run /var/run
	# N_SYNC_PPP's module now, not in the first pppd's TIOCSETD: capi.c
	# holds a new tty's data for its opener's discipline for 500 ms at
	# most (kernel/patches 0013), and in this VM under TCG a TIOCSETD
	# that had to load the module took longer than that: the first
	# call's first frame went to n_tty, and the LCP check below failed.
	modprobe ppp_synctty
	ip netns add "$PPP_NS_CALLER" && ip netns add "$PPP_NS_ANSWER"
	check "two network namespaces for the two ends" \
		ip netns exec "$PPP_NS_ANSWER" ip link set lo up
	ip netns exec "$PPP_NS_CALLER" ip link set lo up
}

in_ns() {	# in_ns NS command...
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}
ppp_addr_up() {	# ppp_addr_up NS IFACE LOCAL PEER
	in_ns "$1" ip -4 addr show dev "$2" 2>/dev/null | grep -q "inet $3 peer $4/"
}
no_pppd() { ! pgrep -x pppd >/dev/null; }
iface_gone() { ! in_ns "$1" ip link show dev "$2" >/dev/null 2>&1; }
tty_unit() {	# tty_unit FILE: N of the client's "TTY 0 /dev/capi/N"
	sed -n 's|^TTY 0 /dev/capi/\([0-9]*\)$|\1|p' "$1"
}
run_pid() { sed -n 's/^RUNNING \([0-9]*\)$/\1/p' "$1"; }
exit_of() { sed -n 's/^EXIT //p' "$1"; }
modref() {	# modref MODULE: use count, 0 when not loaded
	cat "/sys/module/$1/refcnt" 2>/dev/null || echo 0
}
modref_is() { [ "$(modref "$1")" = "$2" ]; }
# reap PID SECONDS: its exit status; a client that hangs is killed (and
# reported as 124) so that one stuck round cannot eat the guest's time limit
# (an ended child stays a zombie until waited for: kill -0 would not do)
ended() { ! grep -qs '^State:[[:space:]]*[^Z]' "/proc/$1/status"; }
reap() {
	if wait_for "$2" ended "$1"; then
		wait "$1"
	else
		kill -KILL "$1" 2>/dev/null
		wait "$1"
		return 124
	fi
}
stat_of() { in_ns "$1" cat "/sys/class/net/$2/statistics/$3"; }
# tcp_stat NS FIELD: a counter of the Tcp: lines of NS's /proc/net/snmp
tcp_stat() {
	in_ns "$1" awk -v f="$2" '$1 == "Tcp:" && !h { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1; next }
		$1 == "Tcp:" && c { print $c }' /proc/net/snmp
}
# frames NS IFACE: "tx_packets rx_packets rx_errors rx_dropped" of IFACE
frames() {
	echo "$(stat_of "$1" "$2" tx_packets) $(stat_of "$1" "$2" rx_packets)" \
		"$(stat_of "$1" "$2" rx_errors) $(stat_of "$1" "$2" rx_dropped)"
}
# delta "A B ..." "A' B' ...": "A'-A B'-B ..."
delta() {
	local -a x y
	local i out=""
	read -ra x <<<"$1"
	read -ra y <<<"$2"
	for i in "${!x[@]}"; do out+="$((y[i] - x[i])) "; done
	echo "${out% }"
}

# lcp_once LOG: pppd sent LCP Configure-Requests, none twice with one id,
# and got the peer's
lcp_once() {
	grep -q 'sent \[LCP ConfReq id=' "$1" &&
		grep -q 'rcvd \[LCP ConfReq id=' "$1" &&
		[ -z "$(grep -o 'sent \[LCP ConfReq id=0x[0-9a-f]*' "$1" | sort | uniq -d)" ]
}

# Start both ends and wait for IPCP.  Sets ppp_a_pid ppp_b_pid (the clients).
ppp_a_pid="" ppp_b_pid=""
pppd_up() {	# pppd_up LABEL
	local a=$PPP_DIR/caller.out b=$PPP_DIR/answer.out ua ub t0 t1 tb3 f
	rm -f "$PPP_DIR"/*.out "$PPP_DIR"/*.log
	t0=$(date +%s.%N)
	# not in_ns: $! must be the client (ip netns exec execs it), not a
	# subshell running a function
	# shellcheck disable=SC2086
	ip netns exec "$PPP_NS_ANSWER" capi-call -A -m "$PPP_MSN" -E -t 60 -w 10 -- \
		pppd "{legacy}" $PPP_OPTS unit 1 logfile "$PPP_DIR/answer.log" \
		"$PPP_IP_ANSWER:$PPP_IP_CALLER" >"$b" 2>&1 &
	ppp_b_pid=$!
	if ! wait_for 30 grep -q '^LISTENING' "$b"; then
		fail "$1: the answering client listens"
		diag <"$b"
		return 1
	fi
	# shellcheck disable=SC2086
	ip netns exec "$PPP_NS_CALLER" capi-call -d "$PPP_MSN" -E -w 10 -- \
		pppd "{tty}" $PPP_OPTS unit 0 logfile "$PPP_DIR/caller.log" \
		"$PPP_IP_CALLER:$PPP_IP_ANSWER" >"$a" 2>&1 &
	ppp_a_pid=$!
	# Both ends' CONNECT_B3_ACTIVE: each client prints RUNNING when it has
	# started pppd, right after the indication (its TTY line).
	wait_for 60 grep -q '^RUNNING' "$a" && wait_for 10 grep -q '^RUNNING' "$b"
	tb3=$(date +%s.%N)
	if wait_for 60 ppp_addr_up "$PPP_NS_CALLER" ppp0 "$PPP_IP_CALLER" "$PPP_IP_ANSWER" &&
		wait_for 10 ppp_addr_up "$PPP_NS_ANSWER" ppp1 "$PPP_IP_ANSWER" "$PPP_IP_CALLER"; then
		t1=$(date +%s.%N)
		pass "$1: LCP and IPCP up: ppp0 $PPP_IP_CALLER in $PPP_NS_CALLER, ppp1 $PPP_IP_ANSWER in $PPP_NS_ANSWER ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s from dialling)"
		diag "pppd: CONNECT_B3_ACTIVE (both pppd started) to IPCP up: $(awk -v a="$tb3" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
	else
		fail "$1: LCP and IPCP up (ppp0 and ppp1 with their addresses)"
		for f in "$a" "$b" "$PPP_DIR"/*.log; do
			echo "== $f"; cat "$f"
		done 2>&1 | diag
		return 1
	fi
	# Issue 27, finding 7: a frame that came before pppd's TIOCSETD must
	# reach ppp.  Each end's first LCP Configure-Request must be taken
	# at once: when it is lost, LCP's restart timer (3 s) sends it again
	# with the same id ("sent [LCP ConfReq id=0x1" twice in the debug
	# log), and only then do the ends agree.  A retransmission with the
	# same id is that timer and nothing else; a Nak would bring a new id.
	for f in "$PPP_DIR/caller.log" "$PPP_DIR/answer.log"; do
		check "$1: LCP did not restart: no Configure-Request sent twice in ${f##*/} ($(grep -c 'sent \[LCP ConfReq' "$f") sent, $(grep -c 'rcvd \[LCP ConfReq' "$f") received)" \
			lcp_once "$f"
	done
	ua=$(tty_unit "$a") ub=$(tty_unit "$b")
	check "$1: the caller's pppd runs on /dev/capi/$ua" \
		grep -q "Connect: ppp0 <--> /dev/capi/$ua\$" "$PPP_DIR/caller.log"
	check "$1: the answerer's pppd runs on the devices.txt name /dev/capi20.$(printf %02d "$ub")" \
		grep -q "Connect: ppp1 <--> /dev/capi20.$(printf %02d "$ub")\$" "$PPP_DIR/answer.log"
	check "$1: two different ttys, two ends of one switched call" test -n "$ua" -a -n "$ub" -a "$ua" != "$ub"
	# N_SYNC_PPP (14): registered, and each of the two ttys holds a
	# reference on the module that provides it; N_PPP's is unused
	check "$1: N_SYNC_PPP is registered (/proc/tty/ldiscs: $(awk '$2 == 14' /proc/tty/ldiscs))" \
		bash -c "awk '\$2 == 14 { f = 1 } END { exit !f }' /proc/tty/ldiscs"
	# (the use count needs PPP_SYNC_TTY as a module, as Debian builds it)
	check "$1: both ttys carry N_SYNC_PPP (ppp_synctty use count $(modref ppp_synctty), ppp_async $(modref ppp_async))" \
		test -r /sys/module/ppp_synctty/refcnt -a "$(modref ppp_synctty)" = 2 -a "$(modref ppp_async)" = 0
	CALL_OUT=$PPP_DIR/ttys
	grep -h '^TTY' "$a" "$b" >"$CALL_OUT"
	contract "$1: both ends' ttys"
	verify "$1: both ends' ttys"
}

pppd_ping() {	# pppd_ping LABEL COUNT
	local out tx0 tx1 loss rtt
	tx0=$(stat_of "$PPP_NS_CALLER" ppp0 tx_packets)
	out=$(in_ns "$PPP_NS_CALLER" ping -n -q -c "$2" -i 0.05 -W 5 "$PPP_IP_ANSWER" 2>&1)
	tx1=$(stat_of "$PPP_NS_CALLER" ppp0 tx_packets)
	loss=$(sed -n 's/.* \([0-9.]*%\) packet loss.*/\1/p' <<<"$out")
	rtt=$(sed -n 's|^rtt min/avg/max/mdev = \(.*\)$|\1|p' <<<"$out")
	diag "pppd: ping -c $2 $PPP_IP_ANSWER from $PPP_NS_CALLER: $(grep 'packets transmitted' <<<"$out"); rtt min/avg/max/mdev $rtt"
	if grep -q "^$2 packets transmitted, $2 received, 0% packet loss" <<<"$out"; then
		pass "$1: ping -c $2 across the link: $loss loss, rtt min/avg/max/mdev $rtt"
	else
		fail "$1: ping -c $2 across the link loses no packet ($loss loss)"
		echo "$out" | diag
	fi
	check "$1: the pings went out through ppp0 (tx_packets $tx0 -> $tx1)" \
		test $((tx1 - tx0)) -ge "$2"
}

pppd_transfer() {	# pppd_transfer LABEL BYTES
	local src=$PPP_DIR/send dst=$PPP_DIR/recv lpid t0 t1 want got tx0 tx1 rx0 rx1
	local fa0 fb0 fa1 fb1 ra0 rb0 ra1 rb1
	head -c "$2" /dev/urandom >"$src"
	rm -f "$dst"
	want=$(sha256sum <"$src" | cut -c1-64)
	in_ns "$PPP_NS_ANSWER" timeout 120 socat -u \
		"TCP-LISTEN:$PPP_PORT,bind=$PPP_IP_ANSWER,reuseaddr" "CREATE:$dst" &
	lpid=$!
	tx0=$(stat_of "$PPP_NS_CALLER" ppp0 tx_bytes) rx0=$(stat_of "$PPP_NS_ANSWER" ppp1 rx_bytes)
	fa0=$(frames "$PPP_NS_CALLER" ppp0) fb0=$(frames "$PPP_NS_ANSWER" ppp1)
	ra0=$(tcp_stat "$PPP_NS_CALLER" RetransSegs) rb0=$(tcp_stat "$PPP_NS_ANSWER" RetransSegs)
	t0=$(date +%s.%N)
	in_ns "$PPP_NS_CALLER" timeout 120 socat -u "OPEN:$src" \
		"TCP:$PPP_IP_ANSWER:$PPP_PORT,retry=50,interval=0.2" 2>&1 | diag
	wait "$lpid"
	t1=$(date +%s.%N)
	tx1=$(stat_of "$PPP_NS_CALLER" ppp0 tx_bytes) rx1=$(stat_of "$PPP_NS_ANSWER" ppp1 rx_bytes)
	fa1=$(frames "$PPP_NS_CALLER" ppp0) fb1=$(frames "$PPP_NS_ANSWER" ppp1)
	ra1=$(tcp_stat "$PPP_NS_CALLER" RetransSegs) rb1=$(tcp_stat "$PPP_NS_ANSWER" RetransSegs)
	got=$(sha256sum <"$dst" 2>/dev/null | cut -c1-64)
	diag "pppd: $2 bytes over TCP from $PPP_NS_CALLER to $PPP_NS_ANSWER in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s; sent sha256 $want, received $(stat -c %s "$dst" 2>/dev/null) bytes sha256 $got"
	check "$1: $2 bytes arrive byte-identical (sha256 ${want:0:16}...)" \
		test -n "$got" -a "$got" = "$want" -a "$(stat -c %s "$dst" 2>/dev/null)" = "$2"
	check "$1: they crossed the link: ppp0 sent $((tx1 - tx0)), ppp1 received $((rx1 - rx0)) bytes" \
		test $((tx1 - tx0)) -ge "$2" -a $((rx1 - rx0)) -ge "$2"
	# Sync PPP takes one receive_buf() of the tty as one frame: frames
	# merged on the way lose all but the first, and TCP sends them again.
	# Each frame one end sent is one the other end received (nothing else
	# crosses the link meanwhile: no LCP echoes), none in error or dropped.
	local -a d
	read -ra d <<<"$(delta "$fa0" "$fa1") $(delta "$fb0" "$fb1")"
	diag "pppd: frames during the transfer: ppp0 tx ${d[0]} rx ${d[1]} rx_errors ${d[2]} rx_dropped ${d[3]}; ppp1 tx ${d[4]} rx ${d[5]} rx_errors ${d[6]} rx_dropped ${d[7]}; TCP RetransSegs $PPP_NS_CALLER +$((ra1 - ra0)), $PPP_NS_ANSWER +$((rb1 - rb0))"
	check "$1: each frame arrives whole: ppp0 sent ${d[0]}, ppp1 received ${d[5]}; ppp1 sent ${d[4]}, ppp0 received ${d[1]}; no rx errors or drops" \
		test "${d[0]}" = "${d[5]}" -a "${d[4]}" = "${d[1]}" -a "${d[2]}${d[3]}${d[6]}${d[7]}" = 0000
	# RetransSegs is only reported (above): under TCG a stalled guest can
	# make TCP retransmit once with no frame lost (seen on the stock kernel).
	rm -f "$src" "$dst"
}

# End the call the way HOW says, then check that everything went.
pppd_down() {	# pppd_down LABEL HOW
	local a=$PPP_DIR/caller.out b=$PPP_DIR/answer.out ua ub ra rb victim t0 t1
	ua=$(tty_unit "$a") ub=$(tty_unit "$b")
	case $2 in
	caller-client) victim=$ppp_a_pid ;;
	answerer-client) victim=$ppp_b_pid ;;
	caller-pppd) victim=$(run_pid "$a") ;;
	answerer-pppd) victim=$(run_pid "$b") ;;
	esac
	t0=$(date +%s.%N)
	kill -TERM "$victim"
	reap "$ppp_a_pid" 40; ra=$?
	reap "$ppp_b_pid" 40; rb=$?
	t1=$(date +%s.%N)
	diag "pppd: $2 hung up: both ends down in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; pppd exit status: caller $(exit_of "$a"), answerer $(exit_of "$b")"
	if [ $ra = 0 ] && [ $rb = 0 ]; then
		pass "$1: both clients hung up cleanly, their pppd ended (caller's pppd: EXIT $(exit_of "$a"), answerer's: EXIT $(exit_of "$b"))"
	else
		fail "$1: both clients hung up cleanly (caller exit $ra, answerer exit $rb)"
		for f in "$a" "$b" "$PPP_DIR"/*.log; do
			echo "== $f"; cat "$f"
		done 2>&1 | diag
	fi
	check "$1: both pppd ended" test -n "$(exit_of "$a")" -a -n "$(exit_of "$b")"
	check "$1: no pppd process is left" wait_for 5 no_pppd
	check "$1: ppp0 is gone from $PPP_NS_CALLER" wait_for 5 iface_gone "$PPP_NS_CALLER" ppp0
	check "$1: ppp1 is gone from $PPP_NS_ANSWER" wait_for 5 iface_gone "$PPP_NS_ANSWER" ppp1
	check "$1: no tty carries N_SYNC_PPP any more" wait_for 5 modref_is ppp_synctty 0
	settle
	check "$1: ttys $ua and $ub are gone from sysfs" wait_for 5 \
		test ! -e "/sys/class/tty/capi!$ua" -a ! -e "/sys/class/tty/capi!$ub" \
		-a ! -e "/sys/class/tty/capi$ua" -a ! -e "/sys/class/tty/capi$ub"
	wait_for 5 none_match '/dev/capi20.*' '/dev/capi/*'
	names_gone "$1"
	no_dangling "$1"
	verify "$1: after the hang-up"
}

pppd_round() {	# pppd_round HOW [full]
	# under a scenario "pppd, the caller hangs up": "its client: ..."
	local label="its ${1#*-}" t0 t1
	t0=$(date +%s.%N)
	if pppd_up "$label"; then
		if [ "${2:-}" = full ]; then
			pppd_ping "$label" 100
			pppd_transfer "$label" 1048576
		else
			pppd_ping "$label" 5
		fi
		pppd_down "$label" "$1"
	else	# clean up for the next round
		kill -TERM $ppp_a_pid $ppp_b_pid 2>/dev/null
		for p in $ppp_a_pid $ppp_b_pid; do reap "$p" 30; done
	fi
	t1=$(date +%s.%N)
	diag "pppd: round '$1'${2:+ ($2)} took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	ppp_a_pid="" ppp_b_pid=""
}

pppd_caller_hangs_up() {
	pppd_round caller-client full
	pppd_round caller-pppd
}
pppd_answerer_hangs_up() {
	pppd_round answerer-client
	pppd_round answerer-pppd
}

# The demo: two pppd ends dial each other through the names capi-devd
# made, a ping, a clean hang-up.
pppd_demo() {
	local out
	scenario pppd
	pppd_setup
	echo "\$ ip netns exec $PPP_NS_ANSWER capi-call -A -m $PPP_MSN -E -- pppd {legacy} sync ... $PPP_IP_ANSWER:$PPP_IP_CALLER &"
	echo "\$ ip netns exec $PPP_NS_CALLER capi-call -d $PPP_MSN -E -- pppd {tty} sync ... $PPP_IP_CALLER:$PPP_IP_ANSWER &"
	pppd_up "two pppd dial each other" || return 0
	grep -h -e '^Connect:' -e 'IP address' "$PPP_DIR/caller.log" "$PPP_DIR/answer.log"
	echo "\$ ls -l /dev/capi /dev/capi20.*"
	ls -l /dev/capi /dev/capi20.* 2>&1
	echo "\$ ip netns exec $PPP_NS_CALLER ping -c 5 $PPP_IP_ANSWER"
	out=$(in_ns "$PPP_NS_CALLER" ping -n -c 5 -i 0.2 -W 5 "$PPP_IP_ANSWER" 2>&1)
	echo "$out"
	check "ping across the link: no loss" grep -q ' 0% packet loss' <<<"$out"
	echo "\$ kill -TERM \$caller   # the caller hangs up"
	pppd_down "hang-up" caller-client
	echo "\$ ls -l /dev/capi /dev/capi20.*"
	ls -l /dev/capi /dev/capi20.* 2>&1
}
