#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM (bench/vm-bench.sh boots it): the same workload
# against three namers, one after the other, in one boot:
#   udevd    systemd-udevd with 50-capi.rules (running from the boot)
#   capi-devd  capi-devd --source=kernel alone (udevd stopped), at the
#            nice of its unit (Nice=), as udevd runs as its unit has it
#   mdev     busybox mdev -d with bench/guest/mdev.conf (udevd stopped):
#            the same names, group and mode, capi20.NN a node, not a link
# then the storm once more with capi-devd-timed (capi-devd built with the
# marks of src/timing.h): where an event's time goes, joined by SEQNUM
# with the probe's readings; and with capi-devd at nice 0 (no idle part
# for these two).
# For each: a check of the names, group and mode with calls held; then the
# storm (ROUNDS rounds of CALLS calls placed and hung up, the client not
# waiting for capi20.NN), timed by capi-probe; the time to converge; the
# wake-ups over IDLE seconds of quiet; the memory.  Kernel command line:
# capi.bench=ROUNDS,CALLS,IDLE,NICE (default 100,32,60,0; NICE: the
# unit's).
# Results go out as TAP diagnostics the host parses:
#   # bench NAME key value ...
#   # cdf NAME FRACTION MICROSECONDS
#   # breakdown STAGE p50_us P50 p99_us P99 mean_us MEAN tail_us TAIL
#     (tail: the mean over the events at or above the p99 latency)
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
boot "vm-bench"
rounds=100 calls=32 idle=60 nice=0
for a in $(cat /proc/cmdline); do
	case $a in
	capi.bench=*) IFS=, read -r rounds calls idle nice <<<"${a#capi.bench=}" ;;
	esac
done
echo "# vm-bench: $rounds rounds x $calls calls, idle ${idle}s, capi-devd at nice ${nice:=0}, kernel $(uname -r)"
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
echo "# vm-bench: clock $clocksource"
check "the guest clocks from its TSC (readings to the ns, not 4 ms ticks)" test "$clocksource" = tsc

scenario setup
check "systemd-udevd runs (configuration udevd first)" systemctl -q is-active systemd-udevd.service
modprobe capisim nbchan="$calls"
check "capisim's controller is listed" wait_for 10 grep -q . /proc/capi/controller
settle

# Wake-ups of PID and its children: context switches (voluntary: each
# sleep that ends; nonvoluntary: preemptions), from /proc/PID/status, summed.
# (/proc/PID/schedstat needs CONFIG_SCHED_INFO, which the test kernel lacks.)
tasks() { echo "$1"; pgrep -P "$1"; }
wakeups() {
	local p
	for p in $(tasks "$1"); do cat "/proc/$p/status" 2>/dev/null; done |
		awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}
# CPU time of PID and its children (and of those they waited for), ms:
# /proc/PID/stat's utime, stime, cutime and cstime, in USER_HZ (100 on
# x86; the guest has no getconf).
cputime() {
	local p
	for p in $(tasks "$1"); do sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null; done |
		awk '{ s += $12 + $13 + $14 + $15 } END { printf "%d\n", s * 10 }'
}
# memory PID: over PID and its children, KiB.  The guest's files live in
# the initramfs (tmpfs), whose pages are always dirty: a library page only
# this process maps counts as Private_Dirty there, clean on a disk.
# Anonymous is the memory the process made itself, on any file system.
memory() {
	local p
	for p in $(tasks "$1"); do cat "/proc/$p/smaps_rollup" 2>/dev/null; done |
		awk '/^Rss:/ { r += $2 } /^Pss:/ { p += $2 } /^Private_Dirty:/ { d += $2 }
			/^Anonymous:/ { a += $2 }
			END { printf "rss_kib %d pss_kib %d private_dirty_kib %d anon_kib %d\n", r, p, d, a }'
}
# quiet SECONDS LIMIT: no capi20.NN for SECONDS in a row, within LIMIT.
quiet() {
	local end=$(( $(date +%s) + $2 )) since=""
	while [ "$(date +%s)" -lt $end ]; do
		if none_match '/dev/capi20.*'; then
			[ -z "$since" ] && since=$(date +%s)
			[ $(( $(date +%s) - since )) -ge "$1" ] && return 0
		else
			since=""
		fi
		sleep 0.2
	done
	return 1
}
held_named() {	# every held call's tty has its capi20.NN
	local u
	for u in $(units); do
		resolves_to "/dev/capi20.$(printf %02d "$u")" "$(tty_dev "$u")" || return 1
	done
}
quantiles() {	# quantiles NAME FILE: p50/p99 on stdout, the CDF as "# cdf" lines
	grep -v unnamed "$2" | sort -n | awk -v name="$1" '
		{ v[NR] = $1 }
		END {
			if (!NR) { print "p50_us - p99_us - max_us -"; exit }
			for (i = 1; i <= 200; i++) {
				k = int(i * NR / 200 + 0.999999); if (k < 1) k = 1
				printf "# cdf %s %.3f %d\n", name, i / 200, v[k] >"/dev/stderr"
			}
			k50 = int(0.5 * NR + 0.999999); k99 = int(0.99 * NR + 0.999999)
			printf "p50_us %d p99_us %d max_us %d\n", v[k50], v[k99], v[NR]
		}'
}

# breakdown NAME: the probe's "SEQNUM READ NAMED" (/tmp/seq.NAME) joined
# with capi-devd-timed's "SEQNUM WAKE RECV RECVD PARSED DONE"
# (/tmp/timing.NAME), nanoseconds of one clock, as "# breakdown" lines.
# The stages of one event add up to its latency (probe read to name seen):
#   asleep   read by the probe to capi-devd woken by poll() (0 when the
#            event came while it was busy): the kernel's wake-up, the CPU
#   queued   behind the earlier events of its batch
#   recv     the recvmmsg() that took it (about 0 when an earlier one did)
#   parse    the sender check and uevent_parse_kernel()
#   tree     the policy and the tree operations, to the name seen when
#            the probe (SCHED_FIFO) saw it before capi-devd was done
#   seen     the tree operations done to the probe's inotify read (0 when
#            the probe saw the name first)
breakdown() {
	awk 'NR == FNR { if ($1 !~ /^#/) t[$1] = $0; next }
		($1 in t) {
			split(t[$1], m, " ")
			p = $2; w = m[2]; start = w > p ? w : p
			d = m[6] < $3 ? m[6] : $3	# done, or the name seen first
			printf "total %d\n", ($3 - p) / 1000
			printf "asleep %d\n", (w > p ? w - p : 0) / 1000
			printf "queued %d\n", (m[3] - start) / 1000
			printf "recv %d\n", (m[4] - m[3]) / 1000
			printf "parse %d\n", (m[5] - m[4]) / 1000
			printf "tree %d\n", (d - m[5]) / 1000
			printf "seen %d\n", ($3 - d) / 1000
			printf "@ %d %d %d %d %d %d %d\n", ($3 - p) / 1000,
				(w > p ? w - p : 0) / 1000, (m[3] - start) / 1000,
				(m[4] - m[3]) / 1000, (m[5] - m[4]) / 1000,
				(d - m[5]) / 1000, ($3 - d) / 1000
		}' "/tmp/timing.$1" "/tmp/seq.$1" >/tmp/stages.$1
	# the tail: the events at or above the p99 of total
	grep '^@' /tmp/stages.$1 | sort -k2,2n | awk '
		{ r[NR] = $0 }
		END {
			k = int(0.99 * NR + 0.999999); if (k < 1) k = 1
			n = 0
			for (i = k; i <= NR; i++) {
				split(r[i], f, " "); n++
				for (j = 2; j <= 8; j++) s[j] += f[j]
			}
			split("total asleep queued recv parse tree seen", nm, " ")
			for (j = 2; j <= 8; j++) printf "%s %d\n", nm[j - 1], n ? s[j] / n : 0
		}' >/tmp/tail.$1
	grep -v '^@' /tmp/stages.$1 | sort -k1,1 -k2,2n | awk '
		function out() {
			if (!n) return
			k50 = int(0.5 * n + 0.999999); k99 = int(0.99 * n + 0.999999)
			print cur, v[k50], v[k99], sum / n
		}
		$1 != cur { out(); cur = $1; n = 0; sum = 0 }
		{ v[++n] = $2; sum += $2 }
		END { out() }' | while read -r st p50 p99 mean; do
		printf '# breakdown %s p50_us %d p99_us %d mean_us %d tail_us %d\n' \
			"$st" "$p50" "$p99" "${mean%.*}" "$(awk -v k="$st" '$1 == k { print $2 }' /tmp/tail.$1)"
	done
	echo "# breakdown events $(grep -c '^total' /tmp/stages.$1) of $(grep -vc '^#' "/tmp/timing.$1") timed"
}

bench() {	# bench NAME PID [IDLE]
	local name=$1 pid=$2 idle=${3:-$idle} probe t0 t1 w0 w1 c0 c1 fails=0 r line q u f lost dangling
	scenario "$name"
	check "$name runs (pid $pid)" kill -0 "$pid"
	wait_for 10 none_match '/dev/capi20.*'

	# The contract, with calls held: names, group, mode.
	calls_up 4 -l -w 30
	contract "names, group and mode"
	calls_down
	check "the names go with the calls" wait_for 60 none_match '/dev/capi20.*'

	# The storm, timed by the probe.
	capi-probe -s "/tmp/seq.$name" "/tmp/lat.$name" >"/tmp/probe.$name" 2>&1 &
	probe=$!
	wait_for 10 grep -q ready "/tmp/probe.$name"
	t0=$(date +%s%N)
	c0=$(cputime "$pid")
	for ((r = 1; r < rounds; r++)); do
		capi-call -n "$calls" -E -w 30 >/tmp/storm.out 2>&1 || fails=$((fails + 1))
	done
	check "storm: the client placed and hung up every call ($fails failed rounds)" test $fails = 0
	[ $fails = 0 ] || grep -v '^ok' /tmp/storm.out | tail -5 | diag
	# The last round holds its calls: once the namer has caught up, every
	# live tty has its name (else: lost) and no other capi20.NN is there
	# (else: dangling).
	calls_up "$calls" -E -w 30
	wait_for 120 held_named
	lost=0 dangling=0
	for u in $(units); do
		resolves_to "/dev/capi20.$(printf %02d "$u")" "$(tty_dev "$u")" || lost=$((lost + 1))
	done
	for f in /dev/capi20.*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		grep -qx "${f#/dev/capi20.}" <(units | xargs -r printf '%02d\n') ||
			{ dangling=$((dangling + 1)); echo "$f" | diag; }
	done
	check "storm: every held tty has its name (lost $lost)" test $lost = 0
	calls_down
	t1=$(date +%s%N)
	c1=$(cputime "$pid")
	# Converged: no capi20.NN for 3 s in a row (a namer that is behind
	# still makes names of ttys long gone).
	check "storm: converged (no capi20.NN for 3 s)" quiet 3 300
	kill -TERM $probe
	wait $probe
	# probe: adds A removes R named K unresolved U unnamed N dangling D ...
	line=$(sed -n 's/^probe: adds/adds/p' "/tmp/probe.$name")
	grep -v '^probe: \(ready\|adds\)' "/tmp/probe.$name" | head -5 | diag
	pv() { awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' <<<"$line"; }
	dangling=$((dangling + $(pv dangling)))
	check "storm: $(pv adds) tty adds seen (want $((rounds * calls)))" test "$(pv adds)" -ge $((rounds * calls))
	check "storm: no name dangling, with the calls held or after ($dangling)" test "$dangling" = 0
	q=$(quantiles "$name" "/tmp/lat.$name" 2>"/tmp/cdf.$name")
	cat "/tmp/cdf.$name"

	# Quiet: wake-ups of the namer (and its children) over IDLE seconds.
	sleep 2
	w0=$(wakeups "$pid")
	sleep "$idle"
	w1=$(wakeups "$pid")
	echo "# bench $name $q $line lost $lost dangling $dangling storm_ms $(((t1 - t0) / 1000000)) cpu_ms $((c1 - c0)) idle_s $idle wakeups $((w1 - w0)) $(memory "$pid") tasks $(tasks "$pid" | wc -l)"
}

# (a) udevd with 50-capi.rules, as booted.
udevd=$(systemctl show -P MainPID systemd-udevd.service)
bench udevd "$udevd"
systemctl stop systemd-udevd-control.socket systemd-udevd-kernel.socket systemd-udevd.service
check "udevd stopped" wait_for 10 test ! -e /run/udev/control

# (b) capi-devd --source=kernel alone.
nice -n "$nice" capi-devd --source=kernel --no-modprobe -q &
devd=$!
wait_for 10 test -L /dev/isdn/capi20
bench capi-devd "$devd"
kill -TERM "$devd"
wait "$devd"
check "capi-devd exits 0 on SIGTERM" test $? = 0

# (b') the same with the marks: where the time goes (no idle part).
CAPI_DEVD_TIMING=/tmp/timing.capi-devd-timed \
	nice -n "$nice" capi-devd-timed --source=kernel --no-modprobe -q &
devd=$!
wait_for 10 test -L /dev/isdn/capi20
bench capi-devd-timed "$devd" 0
kill -TERM "$devd"
wait "$devd"
check "capi-devd-timed exits 0 on SIGTERM" test $? = 0
check "capi-devd-timed wrote its marks" test -s /tmp/timing.capi-devd-timed
breakdown capi-devd-timed

# (b'') capi-devd at nice 0, for comparison (no idle part).
capi-devd --source=kernel --no-modprobe -q &
devd=$!
wait_for 10 test -L /dev/isdn/capi20
bench capi-devd-nice0 "$devd" 0
kill -TERM "$devd"
wait "$devd"

# (c) busybox mdev -d (-f: in the foreground, so its pid is ours).
# mdev -s first, as a system with mdev boots: the control device's names.
rm -f /dev/isdn/capi20
busybox mdev -df &
mdev=$!
busybox mdev -s
check "mdev -s: /dev/isdn/capi20" wait_for 10 resolves_to /dev/isdn/capi20 68:0
bench mdev "$mdev"
kill -TERM "$mdev"
wait "$mdev"

# The host compares it with its wall time: the guest's clock ran at the
# rate it was given.
echo "# vm-bench: uptime $(cut -d' ' -f1 /proc/uptime) s"
finish
