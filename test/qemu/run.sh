#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/run.sh - boot the capi-devd test VM in QEMU
#
# Usage: test/qemu/run.sh --kernel-dir OUT --initrd FILE [options] [-- QEMU-ARGS...]
#
#   Test mode (default): the initramfs was built with mkinitramfs.sh --test.
#   The guest's report (second serial port) is copied to stdout; the exit
#   status is the test script's. When the guest fails, its console (first
#   port) and its dmesg/journal dump (third port) go to stderr.
#     exit 124: timed out (host-side limit); 125: the guest ended without
#     reporting (crash, panic, early boot failure); 126: QEMU failed to start
#   VM mode (--vm, initramfs built with --vm): the console is this terminal
#   (Ctrl-a x quits QEMU, Ctrl-a c the monitor); `exit` or `poweroff` ends it.
#
# Options:
#   --kernel-dir OUT  kernel/build.sh result (OUT/bzImage)
#   --kernel FILE     a bzImage instead
#   --initrd FILE     initramfs from mkinitramfs.sh
#   --vm              interactive
#   --timeout S       host-side limit on a guest that makes no progress,
#                     seconds (default $CAPI_QEMU_TIMEOUT or 300; none in --vm
#                     mode): QEMU is stopped once its serial ports (console,
#                     report, diagnostics) stayed silent for S s, or after
#                     4 S in all; the guest test gets 4 S - 20.  A TCG
#                     guest's speed follows the host's load: a fixed
#                     wall-clock limit failed slow but healthy guests
#   --append ARGS     more kernel command line
#   --outdir DIR      keep console.log, report.log, diag.log there
#                     (default: a fresh dir under $CACHE/qemu/runs, last 10 kept)
#
# Environment:
#   CAPI_QEMU_ACCEL   kvm or tcg; default: probe KVM once (bounded boot of the
#                     kernel, result cached per QEMU/host kernel), else tcg
#   CAPI_QEMU_MEM     MiB (default 512)
#   CAPI_QEMU_SMP     CPUs (default 1), one per socket: the guest has no ACPI
#                     and finds its CPUs in SeaBIOS's MP table, which lists
#                     one CPU per package (QEMU's plain -smp N makes N cores
#                     of one socket, of which the guest would see one)
#   CAPI_QEMU_TIMEOUT default for --timeout
#   CAPI_QEMU_APPEND  more kernel command line
#   CAPI_QEMU_TSC_KHZ the host's TSC rate in kHz: the guest clocks from its
#                     TSC at that rate (else from its timer ticks, 4 ms)
#   CAPI_QEMU_OUTDIR  default for --outdir (a long run is then not among the
#                     last 10 that other runs rotate away)
#   CAPI_QEMU_QUIET=1 no progress lines on stderr
#   CAPI_DEVD_CACHE   cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd)
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
die() { echo "run.sh: error: $*" >&2; exit 126; }
say() { [ "${CAPI_QEMU_QUIET:-0}" = 1 ] || echo "[qemu] $*" >&2; }

kernel="" initrd="" vm=0 timeout=${CAPI_QEMU_TIMEOUT:-300} append=${CAPI_QEMU_APPEND:-} outdir=${CAPI_QEMU_OUTDIR:-}
extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel-dir) kernel="$2/bzImage"; shift ;;
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--vm) vm=1 ;;
	--timeout) timeout=$2; shift ;;
	--append) append="$append $2"; shift ;;
	--outdir) outdir=$2; shift ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (try --help)" ;;
	esac
	shift
done
[ -f "$kernel" ] || die "no kernel (--kernel-dir OUT or --kernel bzImage)"
[ -f "$initrd" ] || die "no initramfs (--initrd FILE from test/qemu/mkinitramfs.sh)"
qemu=$(command -v qemu-system-x86_64 || true)
[ -n "$qemu" ] || die "qemu-system-x86_64 not found. Fix: apt-get install qemu-system-x86"

cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
qc="$cache/qemu"
mkdir -p "$qc/runs"

# ---------------------------------------------------------------- accelerator
# /dev/kvm may exist and still hang guests: boot the kernel itself without
# an initramfs under KVM, bounded; it must reach its "no init" panic and
# reboot (panic=-1, -no-reboot) in time. Cached per QEMU version and host
# kernel.
probe_kvm() {
	local key f log rc=0
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo tcg; return; }
	key=$( { "$qemu" --version | head -n1; uname -r; } | sha256sum | cut -c1-16)
	f="$qc/kvm-probe-$key"
	if [ -f "$f" ]; then cat "$f"; return; fi
	log=$(mktemp "$qc/kvm-probe.XXXXXX")
	timeout -k 2 15 "$qemu" -accel kvm -cpu host -m 128 -nodefaults -no-user-config \
		-display none -monitor none -no-reboot -serial "file:$log" \
		-kernel "$kernel" -append "console=ttyS0 panic=-1 rdinit=/nonexistent" \
		>/dev/null 2>&1 || rc=$?
	if [ $rc = 0 ] && grep -q "Kernel panic" "$log"; then
		echo kvm >"$f"
	else
		echo tcg >"$f"
		echo "# KVM probe failed (rc=$rc); $(grep -c . "$log" || true) console lines" >>"$f.log"
	fi
	rm -f "$log"
	cat "$f"
}
accel=${CAPI_QEMU_ACCEL:-}
if [ -z "$accel" ]; then
	accel=$(probe_kvm)
fi
case "$accel" in
kvm) cpu=host ;;
tcg) cpu=max ;;
*) die "CAPI_QEMU_ACCEL must be kvm or tcg, not '$accel'" ;;
esac

# ---------------------------------------------------------------- run
if [ -z "$outdir" ]; then
	outdir=$(mktemp -d "$qc/runs/$(date +%Y%m%d-%H%M%S).XXXX")
	ls -1dt "$qc"/runs/*/ 2>/dev/null | tail -n +11 | while read -r d; do rm -rf "$d"; done
fi
mkdir -p "$outdir"
console="$outdir/console.log" report="$outdir/report.log" diag="$outdir/diag.log"
rm -f "$console" "$report" "$diag"
: >"$report"
: >"$diag"

mem=${CAPI_QEMU_MEM:-512}
smp=${CAPI_QEMU_SMP:-1}
# no_timer_check: the kernel's check that the IO-APIC timer ticks waits a
# fixed number of loops; a TCG guest on a loaded host can miss it and
# panics ("IO-APIC + timer doesn't work!", seen beside two busy loops).
# tsc=unstable: the guest's clock from its timer ticks on every boot.  The
# TSC's calibration against the PIT fails on a quiet host (TSC marked
# unstable, refined-jiffies), but on a loaded one it can succeed with a
# wrong rate: the guest's clock then ran 30 times too fast (uptime
# 14977 s at the test unit), and every wait_for ended early.
# CAPI_QEMU_TSC_KHZ (a benchmark's fine clock): the guest is told the
# TSC's rate instead (under TCG its TSC counts at the host's rate), so no
# calibration can go wrong, and clocks from it: readings to the
# nanosecond, where the timer ticks give multiples of 4 ms.
clock="tsc=unstable"
[ -z "${CAPI_QEMU_TSC_KHZ:-}" ] ||
	clock="tsc_early_khz=$CAPI_QEMU_TSC_KHZ tsc=reliable clocksource=tsc"
cmdline="console=ttyS0,115200 panic=-1 no_timer_check $clock systemd.show_status=1 systemd.log_color=0"
if [ "$vm" = 1 ]; then
	serial0=(-serial mon:stdio)
else
	cap=$((timeout * 4))
	gt=$((cap > 60 ? cap - 20 : cap * 2 / 3))
	cmdline="$cmdline capi.timeout=$gt"
	serial0=(-serial "file:$console")
fi
[ -z "$append" ] || cmdline="$cmdline $append"

qargs=(-accel "$accel" -cpu "$cpu" -m "$mem" -smp "$smp,sockets=$smp,cores=1,threads=1"
	-nodefaults -no-user-config -display none -no-reboot
	"${serial0[@]}" -serial "file:$report" -serial "file:$diag"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	${extra[@]+"${extra[@]}"})
echo "$qemu ${qargs[*]}" >"$outdir/qemu.cmd"

if [ "$vm" = 1 ]; then
	say "accel=$accel; Ctrl-a x quits; logs: $outdir"
	exec "$qemu" "${qargs[@]}" -monitor none
fi

say "booting ($accel, ${mem}M, ${smp} CPU, limit ${timeout}s without output, $((timeout * 4))s in all; logs: $outdir)"
t0=$(date +%s.%N)
rc=0
# QEMU in the background; stopped (status 124, as timeout(1)) when its
# serial ports stay silent for $timeout s, or after 4 x $timeout s.
"$qemu" "${qargs[@]}" -monitor none </dev/null >"$outdir/qemu.out" 2>&1 &
qpid=$!
stop_qemu() { kill -TERM "$qpid" 2>/dev/null; sleep 10; kill -KILL "$qpid" 2>/dev/null; }
ports_size() { cat "$console" "$report" "$diag" 2>/dev/null | wc -c; }
start=$SECONDS last=$SECONDS size=-1 why=""
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	now=$(ports_size)
	[ "$now" = "$size" ] || { size=$now; last=$SECONDS; }
	if [ $((SECONDS - last)) -ge "$timeout" ]; then why="no output for ${timeout}s"
	elif [ $((SECONDS - start)) -ge $((timeout * 4)) ]; then why="$((timeout * 4))s in all"
	else continue; fi
	stop_qemu
	break
done
wait "$qpid" || rc=$?
[ -z "$why" ] || rc=124
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')

tr -d '\r' <"$report" >"$report.txt"
status=$(sed -n 's/^CAPI-TEST-EXIT: \([0-9]*\)$/\1/p' "$report.txt" | tail -n1)
grep -v '^CAPI-TEST-EXIT: ' "$report.txt" || true
echo "$secs" >"$outdir/seconds"

show_logs() {
	echo "---- guest console (last 60 lines of $console)" >&2
	tr -d '\r' <"$console" | tail -n 60 >&2
	if [ -s "$diag" ]; then
		echo "---- guest dmesg + journal ($diag)" >&2
		tr -d '\r' <"$diag" >&2
	fi
	[ -s "$outdir/qemu.out" ] && { echo "---- qemu output" >&2; cat "$outdir/qemu.out" >&2; }
	return 0
}
if [ -z "$status" ]; then
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "run.sh: the VM did not finish: ${why:-stopped} ($accel)" >&2
		show_logs
		exit 124
	fi
	echo "run.sh: the guest ended (qemu status $rc) without reporting a test result" >&2
	show_logs
	exit 125
fi
# What the test's log must say whatever it tests: the accelerator, the
# CPUs the guest brought up and its boot time (kernel start to the test
# unit, from the guest's own uptime; the wall time includes the firmware).
boot=$(sed -n 's/^# guest: test unit starts at \([0-9.]*\)s after kernel start, \([0-9]*\) CPU.*/\1 \2/p' "$report.txt" | head -n1)
[ -n "$boot" ] || boot="? ?"
echo "[qemu] accel=$accel guest_cpus=${boot#* } (of -smp $smp) boot=${boot%% *}s (kernel start to the test unit) wall=${secs}s" >&2
say "guest test status $status, ${secs}s wall ($accel)"
if [ "$status" != 0 ]; then
	show_logs
fi
exit "$status"
