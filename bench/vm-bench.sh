#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vm-bench.sh - udevd + rules, capi-devd and busybox mdev side by side,
# in one boot of the test VM (test/qemu), on the same workload.
#
# Usage: bench/vm-bench.sh [--smoke]        (or: make bench-vm)
#        bench/vm-bench.sh --report FILE     table, PNG and summary of the
#                                            guest report of an earlier run
#
# The guest (bench/guest/vm-bench.sh) runs, for each namer, a check of the
# names, group and mode, then a storm of ROUNDS rounds of CALLS calls up
# and down through capisim, timed by bench/capi-probe (uevent read to
# /dev/capi20.NN appearing), then IDLE seconds of quiet; then the storm
# once more with bench/capi-devd-timed, whose marks say where a capi-devd
# event's time goes.  The guest clocks from its TSC, given the host's
# rate (CAPI_QEMU_TSC_KHZ of test/qemu/run.sh): times to the microsecond.
# This prints a table, the breakdown, writes the latency CDF as a PNG (its
# path is printed) and ends with the line
#
#   vm-bench: p99 capi-devd/udevd RATIO, lost LOST, private_dirty_kib N, rss_kib M
#
# LOST counts the names lost and left dangling in all three namers: the
# storm's last round holds its calls until the namer has caught up, then
# every held tty must have its name and no other name may be there, and
# none may be left once they hang up;
# N and M are capi-devd's.  Exit status: the guest's (1 when one of its
# checks failed, the figures are printed all the same).
#
# Environment:
#   BENCH_ROUNDS (100), BENCH_CALLS (32), BENCH_IDLE (60 s); --smoke
#     sets 3, 8 and 2.
#   BENCH_OUT   where the report, the data and the PNG go
#               (default $CAPI_DEVD_CACHE/bench, the test VM's cache)
#   CAPI_DEVD, CAPI_DEVD_TIMED, CAPI_CALL, CAPI_PROBE: the built binaries (make bench
#     and make check set them); without them the tree is configured and
#     built under $BENCH_OUT/build.
#   and those of test/qemu/vm-test.sh (CAPI_QEMU_TIMEOUT, ...).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
rounds=${BENCH_ROUNDS:-100} calls=${BENCH_CALLS:-32} idle=${BENCH_IDLE:-60}
reuse=""
case ${1:-} in
--smoke) rounds=${BENCH_ROUNDS:-3} calls=${BENCH_CALLS:-8} idle=${BENCH_IDLE:-2} ;;
--report) reuse=${2:?--report FILE} ;;
esac
out=${BENCH_OUT:-$cache/bench}
mkdir -p "$out"
for tool in gnuplot busybox; do
	command -v $tool >/dev/null ||
		{ echo "vm-bench: $tool is missing: run ./install-deps.sh" >&2; exit 1; }
done

if [ -n "$reuse" ]; then
	:
elif [ -z "${CAPI_DEVD:-}" ]; then
	b=$out/build
	mkdir -p "$b"
	[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi)
	[ -f "$b/Makefile" ] || (cd "$b" && "$top/configure" -q)
	make -s -C "$b" -j2 capi-devd test/client/capi-call bench/capi-probe \
		bench/capi-devd-timed >&2
	CAPI_DEVD=$b/capi-devd CAPI_CALL=$b/test/client/capi-call
	CAPI_PROBE=$b/bench/capi-probe CAPI_DEVD_TIMED=$b/bench/capi-devd-timed
fi
run_vm() {	# boot the VM, the guest report into $report
	: "${CAPI_CALL:?set CAPI_CALL to the built test/client/capi-call}"
	: "${CAPI_PROBE:?set CAPI_PROBE to the built bench/capi-probe}"
	: "${CAPI_DEVD_TIMED:?set CAPI_DEVD_TIMED to the built bench/capi-devd-timed}"

	# Under TCG a round of 32 calls takes about a second; a namer that falls
	# behind takes longer.  Generous, the guest ends itself when done.
	timeout=$((300 + 3 * (rounds * calls * 6 / 32 + idle + 60)))
	# The test kernel has no ACPI, so no HPET or PM timer to calibrate the TSC
	# against: it clocks from its timer ticks, and every clock reading in the
	# guest would be a multiple of 4 ms.  Under TCG the guest's TSC runs at
	# the host's rate: give the kernel that rate (the processor's, which is
	# the TSC's where the TSC is constant; the guest's uptime is checked
	# against the wall time below).
	khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
	# capi-devd runs at its unit's Nice=, as udevd runs as its unit has it.
	nice=$(sed -n 's/^Nice=//p' "$top/rules/capi-devd.service.in")
	echo "vm-bench: booting the test VM: $rounds rounds x $calls calls, idle ${idle}s (limit ${timeout}s)" >&2
	# Its own log dir: other runs would rotate a long one away.
	rm -rf "$out/vm"
	CAPI_QEMU_OUTDIR=$out/vm CAPI_QEMU_TIMEOUT=${CAPI_QEMU_TIMEOUT:-$timeout} \
	CAPI_QEMU_TSC_KHZ=$khz \
	CAPI_VM_APPEND="${CAPI_VM_APPEND:-} capi.bench=$rounds,$calls,$idle,${nice:-0}" \
	"$top/test/qemu/vm-test.sh" "$here/guest/vm-bench.sh" \
		--add "$top/test/qemu/guest/scenario-lib.sh:/capi-test/scenario-lib.sh" \
		--add "$CAPI_DEVD:/usr/sbin/capi-devd" \
		--add "$CAPI_DEVD_TIMED:/usr/sbin/capi-devd-timed" \
		--add "$CAPI_CALL:/usr/bin/capi-call" \
		--add "$CAPI_PROBE:/usr/bin/capi-probe" \
		--add "$(command -v busybox):/usr/bin/busybox" \
		--add "$here/guest/mdev.conf:/etc/mdev.conf" \
		--add /usr/bin/pgrep \
		--add "$top/rules/50-capi.rules:/lib/udev/rules.d/50-capi.rules" \
		--pkg libcapi20-3 >"$report" || rc=$?
}
report=$out/report.tap
rc=0
if [ -n "$reuse" ]; then
	[ "$reuse" -ef "$report" ] || cp "$reuse" "$report"
	read -r rounds calls idle < <(sed -n 's/^# vm-bench: \([0-9]*\) rounds x \([0-9]*\) calls, idle \([0-9]*\)s.*/\1 \2 \3/p' "$report")
	grep -q '^not ok\|^Bail out' "$report" && rc=1
else
	run_vm
fi
grep -E '^(not ok|Bail out)' "$report" >&2 || true

# "# bench NAME key value key value ..." -> $out/NAME.fig (key value lines)
names="udevd capi-devd mdev"
for n in $names capi-devd-timed capi-devd-nice0; do
	sed -n "s/^# bench $n //p" "$report" | tr ' ' '\n' | paste -d' ' - - >"$out/$n.fig"
	sed -n "s/^# cdf $n //p" "$report" | awk '{ print $2 / 1000, $1 }' >"$out/cdf-$n.dat"
done
fig() { awk -v k="$2" '$1 == k { v = $2 } END { print v }' "$out/$1.fig"; }
for n in $names; do
	[ -s "$out/$n.fig" ] || { echo "vm-bench: no figures for $n (report: $report)" >&2; cat "$report" >&2; exit 1; }
done

ms() { awk -v us="$1" 'BEGIN { if (us == "-") print "-"; else printf "%.2f", us / 1000 }'; }
{
	f='%-10s %7s %7s %8s %5s %5s %5s %5s %5s %7s %7s %6s %6s %6s %6s %6s %6s\n'
	# shellcheck disable=SC2059
	printf "$f" namer p50_ms p99_ms max_ms adds unres unnam lost dangl conv_ms storm_s cpu_s \
		"wakeup" rss pss pdirty anon
	for n in $names; do
		# shellcheck disable=SC2059
		printf "$f" "$n" \
			"$(ms "$(fig $n p50_us)")" "$(ms "$(fig $n p99_us)")" "$(ms "$(fig $n max_us)")" \
			"$(fig $n adds)" "$(fig $n unresolved)" "$(fig $n unnamed)" \
			"$(fig $n lost)" "$(fig $n dangling)" \
			"$(fig $n converge_ms)" \
			"$(awk -v ms="$(fig $n storm_ms)" 'BEGIN { printf "%.1f", ms / 1000 }')" \
			"$(awk -v ms="$(fig $n cpu_ms)" 'BEGIN { printf "%.1f", ms / 1000 }')" \
			"$(fig $n wakeups)" "$(fig $n rss_kib)" "$(fig $n pss_kib)" \
			"$(fig $n private_dirty_kib)" "$(fig $n anon_kib)"
	done
	echo "(unres: names made after their tty had gone; unnam: adds no name answered (the tty may"
	echo " have gone first); lost: held ttys without their name once caught up; dangl: names of no"
	echo " live tty, calls held or after; conv_ms: last uevent to last name change; cpu_s: the"
	echo " namer's CPU time in the storm (timer ticks: a sample);"
	echo " wakeup: context switches in ${idle} s idle; memory in KiB, over the namer and its children)"
} | tee "$out/table.txt"

# capi-devd at nice 0, beside the table's, which runs at its unit's nice.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }'; }
echo "capi-devd at nice 0 (its unit has Nice=$(sed -n 's/^# vm-bench: .*capi-devd at nice \(-*[0-9]*\),.*/\1/p' "$report")): p50 $(ms "$(fig capi-devd-nice0 p50_us)") ms, p99 $(ms "$(fig capi-devd-nice0 p99_us)") ms, p99 /udevd $(ratio "$(fig capi-devd-nice0 p99_us)" "$(fig udevd p99_us)")" |
	tee -a "$out/table.txt"

# Where a capi-devd storm event's time goes: the guest's "# breakdown" lines.
us_ms() { awk -v us="$1" 'BEGIN { printf "%.3f", us / 1000 }'; }
{
	echo "capi-devd storm events, where the time goes (capi-devd-timed: p50 $(us_ms "$(fig capi-devd-timed p50_us)") ms, p99 $(us_ms "$(fig capi-devd-timed p99_us)") ms;"
	echo " $(sed -n 's/^# breakdown events //p' "$report") events joined by SEQNUM with the probe's readings):"
	printf '%-8s %8s %8s %8s %8s\n' stage p50_ms p99_ms mean_ms tail_ms
	for st in total asleep queued recv parse tree seen; do
		sed -n "s/^# breakdown $st p50_us \([0-9]*\) p99_us \([0-9]*\) mean_us \([0-9]*\) tail_us \([0-9]*\)\$/\1 \2 \3 \4/p" "$report" |
			while read -r a b c d; do
				printf '%-8s %8s %8s %8s %8s\n' "$st" "$(us_ms "$a")" "$(us_ms "$b")" "$(us_ms "$c")" "$(us_ms "$d")"
			done
	done
	echo "(total: probe read to name seen = asleep: to capi-devd woken by poll(), 0 if it was"
	echo " busy + queued: behind earlier events of its batch + recv: the recvmmsg() that took it"
	echo " (0 when an earlier one did) + parse: sender"
	echo " check, uevent parser + tree: policy, tree operations + seen: to the probe's inotify"
	echo " read; tail: the mean over the events at or above total's p99)"
} | tee "$out/breakdown.txt"

# The guest's clock ran at the rate it was given: its uptime at the end
# against the wall time of the whole run (which adds QEMU's start and the
# firmware).
uptime=$(sed -n 's/^# vm-bench: uptime \([0-9.]*\) s$/\1/p' "$report")
wall=$(cat "$out/vm/seconds" 2>/dev/null || echo 0)
clock=$(sed -n 's/^# vm-bench: clock //p' "$report")
if [ -n "$reuse" ]; then
	echo "vm-bench: guest clock $clock, uptime ${uptime:-?} s (an earlier run's: not checked)"
elif awk -v u="${uptime:-0}" -v w="$wall" 'BEGIN { exit !(u > 0.8 * w && u < 1.01 * w) }'; then
	echo "vm-bench: guest clock $clock, uptime ${uptime} s in ${wall} s of wall time"
else
	echo "vm-bench: the guest's clock is off: uptime ${uptime:-?} s in ${wall} s of wall time (clock $clock)" >&2
	rc=1
fi

png=$out/vm-bench-cdf.png
gnuplot <<EOF
set terminal pngcairo size 800,500 font ",10"
set output "$png"
set title "uevent of a CAPI tty to /dev/capi20.NN: $rounds x $calls calls, QEMU TCG"
set xlabel "latency (ms, log scale)"
set ylabel "fraction of tty adds"
set logscale x
set key top left
set grid
plot "$out/cdf-udevd.dat" using 1:2 with steps lw 2 title "systemd-udevd + 50-capi.rules", \
     "$out/cdf-capi-devd.dat" using 1:2 with steps lw 2 title "capi-devd --source=kernel", \
     "$out/cdf-mdev.dat" using 1:2 with steps lw 2 title "busybox mdev -d"
EOF
echo "vm-bench: latency CDF: $png"

lost=0
for n in $names; do
	lost=$((lost + $(fig $n lost) + $(fig $n dangling)))
done
ratio=$(ratio "$(fig capi-devd p99_us)" "$(fig udevd p99_us)")
echo "vm-bench: p99 capi-devd/udevd $ratio, lost $lost, private_dirty_kib $(fig capi-devd private_dirty_kib), rss_kib $(fig capi-devd rss_kib)"
exit $rc
