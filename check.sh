#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh - install what is needed, build, and run every test in one
# make -j (make check-ci, one test list that make schedules on the CPUs):
# make check's tests (QEMU scenarios included), make check-debian13's (the
# series on Debian 13's linux-source-6.12, and debian/tests booted on
# Debian 13's own kernel and userspace; --no-debian13 leaves them out),
# make distcheck with ASan and UBSan (test/distcheck.sh: its make check
# is the sanitizer run of the host tests, which run only there) and the
# six fuzzers (CAPI_FUZZ_SECONDS each, default 60).  Run as root on
# Debian 12.
# At the end (whatever the exit status, which the table does not change):
# where the time went: each phase's wall time and how busy the CPUs were
# (/proc/stat: the whole machine's), make check-ci's parts (distcheck,
# fuzz, Debian 13) from their tests' times and results, the CPUs' busy
# share minute by minute, each cached artefact (kernel, image, chroot
# build, download) built in this run with its build time or found in the
# cache, and the 15 slowest tests (test/timed-driver.sh's T.time files).
set -euo pipefail
cd "$(dirname "$0")"
top=$PWD
debian13=1
usage() {
	cat <<'USAGE'
usage: ./check.sh [--no-debian13]
  (none)         install what the tests need (./install-deps.sh), build,
                 and run every test CI runs (make check-ci), then print
                 where the time and the CPU went
  --no-debian13  leave Debian 13's tests out
  -h, --help     this text
Run as root on Debian 12.
USAGE
}
for arg in "$@"; do
	case $arg in
	--no-debian13) debian13=0 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "check.sh: unknown option '$arg' (see ./check.sh --help)" >&2; exit 2 ;;
	esac
done
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
t_run=$(date +%s)
# Artefacts whose .done is newer than this stamp were built by this run.
stamp=$(mktemp "${TMPDIR:-/tmp}/capi-check-stamp.XXXXXX")
phases=()
# cpu_jiffies: the machine's CPU time so far, "BUSY TOTAL" (/proc/stat's
# first line, in jiffies: busy is user, nice, system, irq, softirq and
# steal; idle and iowait are not).
cpu_jiffies() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6; exit }' /proc/stat
}
# busy_share "B0 T0" "B1 T1": the busy share between two cpu_jiffies, in %.
busy_share() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y); t = y[2] - x[2]
		printf "%d", (t > 0 ? 100 * (y[1] - x[1]) / t + 0.5 : 0) }'
}
# phase NAME CMD...: CMD, its wall time, status and CPU busy share noted
# for the table.
phase() {
	local name=$1 t0 c0 r=0
	shift
	t0=$(date +%s)
	c0=$(cpu_jiffies)
	"$@" || r=$?
	phases+=("$(printf '%-34s %6d s  %-8s cpu %3d%% busy' "$name" $(( $(date +%s) - t0 )) \
		"$([ $r = 0 ] && echo ok || echo "exit $r")" "$(busy_share "$c0" "$(cpu_jiffies)")")")
	return $r
}
# The CPUs' busy share each minute, for the table: do the tests keep all
# $(nproc) CPUs busy, and when not?  The sampler is killed by report.
cpu_log=$(mktemp "${TMPDIR:-/tmp}/capi-check-cpu.XXXXXX")
(
	prev=$(cpu_jiffies)
	while sleep 60; do
		cur=$(cpu_jiffies)
		busy_share "$prev" "$cur" >>"$cpu_log" && echo >>"$cpu_log"
		prev=$cur
	done
) >/dev/null 2>&1 &
sampler=$!
# part NAME TEST...: a row for tests that ran inside make check-ci (TEST:
# a test's log name without .log, a glob allowed): from the T.time files
# this run wrote, the wall time from the first start to the last end, the
# sum of the tests' times and of their CPU times, and their results
# (.trs), counted.
part() {
	local name=$1 p f times="" res=""
	shift
	for p in "$@"; do
		for f in $p.time; do
			[ "$f" -nt "$stamp" ] || continue
			times+=$(cat "$f")$'\n'
			res+=$(sed -n 's/^:test-result: //p' "${f%.time}.trs" 2>/dev/null)$'\n'
		done
	done
	if [ -z "$times" ]; then
		phases+=("$(printf '  %-32s %8s  %s' "$name" - 'did not run')")
		return
	fi
	res=$(echo "$res" | sed '/^$/d' | sort | uniq -c | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')
	phases+=("$(echo "$times" | awk -v n="$name" -v r="$res" '
		NF < 3 { next } !s || $1 < s { s = $1 } $2 > e { e = $2 } { sum += $3; cpu += $4 }
		END { printf "  %-32s %6d s  %s (tests: %d s in all, %d s CPU)", n, e - s, r, sum, cpu }')")
}
# artefacts: what the cache holds that a build made (a .done beside it).
artefacts() {
	local d f name info secs all new
	{ find "$cache" -mindepth 2 -maxdepth 4 -name .done 2>/dev/null | sed 's|/\.done$||'
	  find "$cache/debian-image" -maxdepth 1 -name 'base-*.tar.gz' 2>/dev/null
	  find "$cache/apt" -mindepth 2 -maxdepth 2 -name .updated 2>/dev/null; } | sort |
	while read -r d; do
		name=${d#"$cache"/}
		info=$d/info
		secs=$(sed -n 's/^build_seconds=//p' "$info" 2>/dev/null | head -n1)
		f=$d
		[ -d "$d" ] && f=$d/.done
		if [ "$f" -nt "$stamp" ]; then
			printf '  %-60s built%s\n' "$name" "${secs:+ in $secs s}"
		else
			printf '  %-60s in the cache before this run (reused if needed)\n' "$name"
		fi
	done
	# Each release's .deb archive (test/debian/suite-lib.sh suite_archive;
	# kernel/stock.sh too): what this run added, what it found there.
	for d in "$cache"/suite/*/archives; do
		[ -d "$d" ] || continue
		all=$(find "$d" -maxdepth 1 -name '*.deb' | wc -l)
		new=$(find "$d" -maxdepth 1 -name '*.deb' -cnewer "$stamp" | wc -l)
		printf '  %-60s %d .debs: %d fetched in this run, %d there before it\n' \
			"${d#"$cache"/}" "$all" "$new" $(( all - new ))
	done
}
# slowest [4]: the 15 slowest tests this run ran, in every build
# directory, by wall time (field 3 of the T.time files), or by CPU time
# (field 4: what the test and everything it waited for used, QEMU
# included), with both figures.
slowest() {
	local f
	find "$top"/build "$top"/build-debian13 -name '*.time' -newer "$stamp" 2>/dev/null |
	while read -r f; do
		awk -v k="${1:-3}" -v n="$(echo "${f%.time}" | sed "s|^$top/||")" \
			'{ printf "%8.1f %8.1f s  %6.1f s CPU  %s\n", $k, $3, $4, n }' "$f"
	done | sort -rn | head -n 15 | cut -c10-
}
report() {
	set +e
	kill "$sampler" 2>/dev/null
	echo "check: ==== where the time went ($(( $(date +%s) - t_run )) s in all)"
	echo "check: phase (wall time, status, the CPUs' busy share over it)"
	[ ${#phases[@]} = 0 ] || printf '  %s\n' "${phases[@]}"
	echo "check: the CPUs' busy share ($(nproc) CPUs, the whole machine), minute by minute (%)"
	fmt -w 76 <(tr '\n' ' ' <"$cpu_log"; echo) | sed 's/^/  /'
	rm -f "$cpu_log"
	echo "check: cached artefacts ($cache)"
	artefacts
	echo "check: the 15 slowest tests (wall time, and the CPU time of the test and what it waited for)"
	slowest
	echo "check: the 15 tests that took the most CPU time"
	slowest 4
	rm -f "$stamp"
}
trap report EXIT

phase "install-deps.sh (apt)" ./install-deps.sh

phase "autoreconf, configure, build" eval 'autoreconf -fi >/dev/null &&
	mkdir -p build && cd build && { [ -f Makefile ] || ../configure --enable-werror; } &&
	make -j"$(nproc)"'
cd "$top/build"

# Everything in one make (make check-ci: one test list, one -j, one
# test-suite.log; issue 29): make check's tests, check-debian13's, the
# sanitizer run (test/distcheck.sh) and the fuzzers; make plans the two
# cores.  CAPI_CHECK_JOBS tests at once (default CPUs + 1: the TCG guests
# are single-threaded and wait for their guests' I/O).
t_start=$(date +%s)
jobs=${CAPI_CHECK_JOBS:-$(( $(nproc) + 1 ))}
status=0
ci_args=(FUZZ_SECONDS="${CAPI_FUZZ_SECONDS:-60}")
if [ $debian13 = 1 ]; then
	check_name="make -j$jobs check-ci (all of CI)"
else
	check_name="make -j$jobs check-ci (no Debian 13)"
	ci_args+=(capi_ci_debian13_first= capi_ci_debian13=)
fi
make_check() { make -j"$jobs" check-ci "${ci_args[@]}" 2>&1 | tee check.out; }
phase "$check_name" make_check || status=$?
# Its parts, from their tests' own times and results (the table is no
# reason to stop: || true).
parts() {
	part "make distcheck (ASan, UBSan)" test/distcheck
	part "make fuzz (6 x ${CAPI_FUZZ_SECONDS:-60} s)" 'test/fuzz/*'
	[ $debian13 = 0 ] || part "Debian 13's tests" 'test/debian13-*' test/series-6.12
	part "the Debian 12 packages" test/debian/t-packages
	part "the series checks (6.1)" kernel/check-series test/kernel-export-debian
	part "the QEMU boots" 'test/qemu/t-*'
	part "the source tests (shellcheck, ...)" test/func-length test/shellcheck
}
parts || true
if [ $status != 0 ]; then
	# Show every test that did not pass (FAIL, ERROR, XPASS), with its own
	# log; a QEMU test's log carries the kernel build's last lines, the
	# distcheck test's the logs of the tarball's failed tests.
	find . -path './capi-devd-*' -prune -o -name '*.trs' -print0 |
	xargs -0r grep -lE '^:test-result: (FAIL|ERROR|XPASS)' |
	sort | while read -r trs; do
		echo "==== ${trs%.trs}.log ($(sed -n 's/^:global-test-result: //p' "$trs"))"
		cat "${trs%.trs}.log"
	done
fi
pass=$(sed -n 's/^# PASS: *\([0-9]*\)/\1/p' check.out | tail -1)
fail=$(sed -n 's/^# FAIL: *\([0-9]*\)/\1/p' check.out | tail -1)
err=$(sed -n 's/^# ERROR: *\([0-9]*\)/\1/p' check.out | tail -1)
grep -A3 'archives ready for distribution' distcheck.out 2>/dev/null | head -4
sed -n 's/^ok [0-9]* - \(fuzz-\)/\1/p' test/fuzz/*.log 2>/dev/null
echo "check: make check-ci: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed"
echo "check: make check-ci took $(( $(date +%s) - t_start )) s"

# Debian 13's tests: their results (their logs, when they failed, are
# among those above).
if [ $debian13 = 1 ]; then
	echo "check: Debian 13's tests (make check-ci)"
	grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|XFAIL): (test/debian13-|test/series-6\.12)' check.out || true
fi
exit $status
