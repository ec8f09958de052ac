#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh - install what is needed, build, and run every test in one
# make -j (make check-ci, one test list that make schedules on the CPUs):
# make check's tests (QEMU scenarios included), make check-debian13's but
# its DEP-8 boot (the series on Debian 13's linux-source-6.12, its
# baseline, the packages built and installed in Debian 13; --no-debian13
# leaves them out; the boot is in make check-world),
# make distcheck with ASan and UBSan (test/distcheck.sh: its make check
# is the sanitizer run of the host tests, which run only there) and the
# six fuzzers (CAPI_FUZZ_SECONDS each, default 60).  Run as root on
# Debian 12.
# As it runs: each phase when it starts; every minute the phase, and in
# make check-ci the tests finished of all, those running and the failed;
# each kernel build (kernel/build.sh) when it starts and when it ends,
# with its time.
# At the end (whatever the exit status, which the table does not change):
# where the time went: each phase's wall time and how busy the CPUs were
# (/proc/stat: the whole machine's), make check-ci's parts (distcheck,
# fuzz, Debian 13) from their tests' times and results, the CPUs' busy
# share minute by minute, each cached artefact (kernel, image, chroot
# build, download) built in this run with its build time or found in the
# cache, the 15 slowest tests (test/timed-driver.sh's T.time files), and
# the run's CPU seconds, also in units of a CPU reference timed at its
# start (a fixed gcc compile), which compare between machines.
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
	echo "$t0 $name" >"$progress/phase"
	echo "check: $(date +%T) phase: $name"
	"$@" || r=$?
	phases+=("$(printf '%-34s %6d s  %-8s cpu %3d%% busy' "$name" $(( $(date +%s) - t0 )) \
		"$([ $r = 0 ] && echo ok || echo "exit $r")" "$(busy_share "$c0" "$(cpu_jiffies)")")")
	return $r
}
# Progress, on stdout while the run goes (the ticker below): the phase
# (phase writes it to $progress/phase), and in make check-ci the tests
# finished of all ($progress/tests: make print-ci-tests) from the .trs
# files automake writes when a test ends, newer than the stamp.
progress=$(mktemp -d "${TMPDIR:-/tmp}/capi-check-progress.XXXXXX")
: >"$progress/tests"
progress_line() {	# progress_line BUSY
	local t0 name t finished=0 failed=0 running=() all
	read -r t0 name <"$progress/phase" || return 0
	all=$(wc -w <"$progress/tests")
	for t in $(cat "$progress/tests"); do
		t=build/${t%.*}
		if [ "$t.trs" -nt "$stamp" ]; then
			finished=$((finished + 1))
			grep -qE '^:global-test-result: (FAIL|ERROR|XPASS)' "$t.trs" && failed=$((failed + 1))
		elif [ "$t.log" -nt "$stamp" ]; then
			running+=("${t#build/}")
		fi
	done
	printf 'check: %s %s, %d min' "$(date +%T)" "$name" $(( ($(date +%s) - t0) / 60 ))
	[ "$all" = 0 ] || printf ': %d of %d tests done, %d failed; running: %s' \
		$finished "$all" $failed "${running[*]:-none}"
	printf '; CPUs %d%% busy\n' "$1"
}
# kernel/build.sh keeps its log in the cache while it runs (and removes
# it when the kernel is built): a new log is a build that started, its
# end the build's end, with the time from the result's info.
kernel_builds() {
	local f name secs
	for f in "$cache"/kernel/log/*.log; do
		[ "$f" -nt "$stamp" ] && [ ! -e "$progress/k-${f##*/}" ] || continue
		date +%s >"$progress/k-${f##*/}"
		echo "check: $(date +%T) kernel build started: ${f##*/}"
	done
	for f in "$progress"/k-*.log; do
		[ -e "$f" ] || continue
		name=${f##*/k-}
		[ ! -e "$cache/kernel/log/$name" ] || continue
		name=${name%.log}
		secs=$(sed -n 's/^build_seconds=//p' "$cache/kernel/out/$name/info" 2>/dev/null || true)
		if [ -n "$secs" ]; then
			echo "check: $(date +%T) kernel build ended: $name, built in $secs s"
		else
			echo "check: $(date +%T) kernel build ended: $name after $(( $(date +%s) - $(cat "$f") )) s," \
				"no kernel (a source tree only, or it failed: its test's log says)"
		fi
		rm -f "$f"
	done
}
# The ticker: every 10 s the kernel builds, every minute the CPUs' busy
# share (for the table: do the tests keep all $(nproc) CPUs busy, and when
# not?) and the progress line.  report kills it.
cpu_log=$(mktemp "${TMPDIR:-/tmp}/capi-check-cpu.XXXXXX")
(
	# no set -e here: a failed look (a file gone between two reads) must
	# not end the ticker, which would leave the rest of the run silent
	set +e
	prev=$(cpu_jiffies)
	n=0
	while sleep 10; do
		kernel_builds
		n=$((n + 1))
		[ $((n % 6)) = 0 ] || continue
		cur=$(cpu_jiffies)
		busy=$(busy_share "$prev" "$cur")
		echo "$busy" >>"$cpu_log"
		prev=$cur
		progress_line "$busy"
	done
) 2>/dev/null &
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
# The CPU reference (issue 41): the CPU seconds (user + system) of one
# fixed workload, gcc -O2 -c of the same generated C file, the best of
# three, timed at the start of every run; the run's CPU seconds in units
# of it can be compared between a fast machine and a slow one.
cpu_ref=""
cpu_reference() {
	local src t
	src=$progress/reference.c
	awk 'BEGIN { for (i = 0; i < 300; i++) printf "unsigned f%d(const unsigned *a, unsigned n)\n" \
		"{\n\tunsigned s = %d;\n\tfor (unsigned i = 0; i < n; i++)\n" \
		"\t\ts = (s << 5) + s + a[i] * %d + (s >> %d);\n\treturn s;\n}\n", i, i, 2 * i + 1, i % 7 + 1 }' >"$src"
	for _ in 1 2 3; do
		t=$( { TIMEFORMAT='%U %S'; time gcc -O2 -c -o /dev/null "$src"; } 2>&1) || return 1
		t=$(echo "$t" | awk '{ printf "%.2f", $1 + $2 }')
		[ -n "$cpu_ref" ] && awk -v a="$cpu_ref" -v b="$t" 'BEGIN { exit !(a <= b) }' || cpu_ref=$t
	done
	echo "check: CPU reference: $cpu_ref s CPU"
}
# The run's CPU seconds: check.sh's own and those of everything it waited
# for (bash's times: user and system, of the shell and of its children).
# In this shell: a subshell's times would be its own.
run_cpu() {
	times >"$progress/times"
	cpu=$(awk 'function s(x) { split(x, a, "m"); return a[1] * 60 + a[2] }
		{ t += s($1) + s($2) } END { printf "%d", t + 0.5 }' "$progress/times")
}
report() {
	set +e
	kill "$sampler" 2>/dev/null
	local cpu
	run_cpu
	echo "check: ==== where the time went ($(( $(date +%s) - t_run )) s in all)"
	echo "check: phase (wall time, status, the CPUs' busy share over it)"
	[ ${#phases[@]} = 0 ] || printf '  %s\n' "${phases[@]}"
	echo "check: the CPUs' busy share ($(nproc) CPUs, the whole machine), minute by minute (%)"
	fmt -w 76 <(tr '\n' ' ' <"$cpu_log"; echo) | sed 's/^/  /'
	rm -f "$cpu_log"
	rm -rf "$progress"
	echo "check: cached artefacts ($cache)"
	artefacts
	echo "check: the 15 slowest tests (wall time, and the CPU time of the test and what it waited for)"
	slowest
	echo "check: the 15 tests that took the most CPU time"
	slowest 4
	echo "check: CPU: this run used $cpu s CPU (check.sh and all it ran, user + system)"
	if [ -n "$cpu_ref" ]; then
		echo "check: CPU reference: $cpu_ref s CPU (gcc $(gcc -dumpfullversion) -O2 -c of a fixed" \
			"generated file, best of 3, at the run's start; $(nproc) CPUs," \
			"$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1))"
		echo "check: this run: $(awk -v c="$cpu" -v r="$cpu_ref" 'BEGIN { printf "%d", c / r + 0.5 }') references" \
			"($cpu s / $cpu_ref s)"
	fi
	rm -f "$stamp"
}
trap report EXIT

phase "install-deps.sh (apt)" ./install-deps.sh
phase "CPU reference" cpu_reference

phase "autoreconf, configure, build" eval 'autoreconf -fi >/dev/null &&
	mkdir -p build && cd build && { [ -f Makefile ] || ../configure --enable-werror; } &&
	make -j"$(nproc)"'
cd "$top/build"

# Everything in one make (make check-ci: one test list, one -j, one
# test-suite.log; issue 29): make check's tests, check-debian13's (but
# its DEP-8 boot), the sanitizer run (test/distcheck.sh) and the fuzzers;
# make plans the two cores.  CAPI_CHECK_JOBS tests at once (default CPUs + 1: the TCG guests
# are single-threaded and wait for their guests' I/O).
t_start=$(date +%s)
jobs=${CAPI_CHECK_JOBS:-$(( $(nproc) + 1 ))}
status=0
ci_args=(FUZZ_SECONDS="${CAPI_FUZZ_SECONDS:-60}")
if [ $debian13 = 1 ]; then
	check_name="make -j$jobs check-ci (all of CI)"
else
	check_name="make -j$jobs check-ci (no Debian 13)"
	ci_args+=(capi_ci_debian13=)
fi
make -s print-ci-tests "${ci_args[@]}" | tail -n1 >"$progress/tests"
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
