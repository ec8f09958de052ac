#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh - install what is needed, build, and run every test: make check
# (QEMU scenarios included), make distcheck with ASan and UBSan (its
# make check is the sanitizer run, without the QEMU part), and the fuzzers
# (make fuzz, CAPI_FUZZ_SECONDS each, default 60).  make check-debian13's
# tests (the series on Debian 13's linux-source-6.12, and debian/tests
# booted on Debian 13's own kernel and userspace) are in the same test
# list (make check-ci, one make -j for both); --no-debian13 leaves them
# out.  Run as root on Debian 12.
# At the end (whatever the exit status, which the table does not change):
# where the time went: each phase's wall time, each cached artefact
# (kernel, image, chroot build, download) built in this run with its build
# time or found in the cache, and the 15 slowest tests
# (test/timed-driver.sh's T.time files).
set -euo pipefail
cd "$(dirname "$0")"
top=$PWD
debian13=1
case "${1:-}" in
'') ;;
--no-debian13) debian13=0 ;;
*) echo "usage: ./check.sh [--no-debian13]" >&2; exit 2 ;;
esac
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
t_run=$(date +%s)
# Artefacts whose .done is newer than this stamp were built by this run.
stamp=$(mktemp "${TMPDIR:-/tmp}/capi-check-stamp.XXXXXX")
phases=()
# phase NAME CMD...: CMD, its wall time and status noted for the table.
phase() {
	local name=$1 t0 r=0
	shift
	t0=$(date +%s)
	"$@" || r=$?
	phases+=("$(printf '%-34s %6d s  %s' "$name" $(( $(date +%s) - t0 )) \
		"$([ $r = 0 ] && echo ok || echo "exit $r")")")
	return $r
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
# slowest: the 15 slowest tests this run ran, in every build directory.
slowest() {
	local f
	find "$top"/build "$top"/build-debian13 -name '*.time' -newer "$stamp" 2>/dev/null |
	while read -r f; do
		printf '%8.1f s  %s\n' "$(cut -d' ' -f3 "$f")" "$(echo "${f%.time}" | sed "s|^$top/||")"
	done | sort -rn | head -n 15
}
report() {
	set +e
	echo "check: ==== where the time went ($(( $(date +%s) - t_run )) s in all)"
	echo "check: phase (wall time, status)"
	[ ${#phases[@]} = 0 ] || printf '  %s\n' "${phases[@]}"
	echo "check: cached artefacts ($cache)"
	artefacts
	echo "check: the 15 slowest tests"
	slowest
	rm -f "$stamp"
}
trap report EXIT

phase "install-deps.sh (apt)" ./install-deps.sh

phase "autoreconf, configure, build" eval 'autoreconf -fi >/dev/null &&
	mkdir -p build && cd build && { [ -f Makefile ] || ../configure --enable-werror; } &&
	make -j"$(nproc)"'
cd "$top/build"

# make check and make check-debian13's tests in one make (make check-ci:
# one test list, one -j, one test-suite.log; issue 29): make plans the
# two cores, instead of a second make beside.  CAPI_CHECK_JOBS tests at
# once (default CPUs + 1: the TCG guests are single-threaded and wait
# for their guests' I/O).  --no-debian13: make check alone.
t_start=$(date +%s)
jobs=${CAPI_CHECK_JOBS:-$(( $(nproc) + 1 ))}
status=0
if [ $debian13 = 1 ]; then
	check_target=check-ci
	check_name="make -j$jobs check-ci (check + Debian 13)"
else
	check_target=check
	check_name="make -j$jobs check (build/)"
fi
make_check() { make -j"$jobs" "$check_target" 2>&1 | tee check.out; }
phase "$check_name" make_check || status=$?
# Debian 13's share of it: its tests' own wall times (T.time), summed.
if [ $debian13 = 1 ]; then
	d13_secs=$(cat test/debian13-*.time test/series-6.12.time 2>/dev/null | awk '{ s += $3 } END { printf "%d", s }')
	phases+=("$(printf '  %-32s %6s s  %s' "of which Debian 13's tests" "${d13_secs:-?}" \
		"(sum of their T.time; they ran among the others)")")
fi
if [ $status != 0 ]; then
	# Show every test that did not pass (FAIL, ERROR, XPASS), with its own
	# log; a QEMU test's log carries the kernel build's last lines.
	find . -name '*.trs' -print0 | xargs -0r grep -lE '^:test-result: (FAIL|ERROR|XPASS)' |
	sort | while read -r trs; do
		echo "==== ${trs%.trs}.log ($(sed -n 's/^:global-test-result: //p' "$trs"))"
		cat "${trs%.trs}.log"
	done
fi
pass=$(sed -n 's/^# PASS: *\([0-9]*\)/\1/p' check.out | tail -1)
fail=$(sed -n 's/^# FAIL: *\([0-9]*\)/\1/p' check.out | tail -1)
err=$(sed -n 's/^# ERROR: *\([0-9]*\)/\1/p' check.out | tail -1)
# make distcheck is also the sanitizer run: the tarball's own build
# configured with --enable-sanitizers (ASan and UBSan; any report fails a
# test), its host tests run once there, not in a build of their own.
san=ok
distcheck() {
	make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-sanitizers \
		>distcheck.out 2>&1
}
if [ $status = 0 ]; then
	phase "make distcheck (ASan, UBSan)" distcheck || {
		san=FAILED; status=1
		find . -path './capi-devd-*' -name '*.trs' -print0 |
		xargs -0r grep -lE '^:test-result: (FAIL|ERROR|XPASS)' |
		while read -r trs; do echo "==== distcheck: ${trs%.trs}.log"; cat "${trs%.trs}.log"; done
		tail -50 distcheck.out
	}
	grep -A3 'archives ready for distribution' distcheck.out | head -4 || true
	echo "check: make distcheck with the sanitizers (ASan, UBSan): $san"
fi
# The fuzzers, each for CAPI_FUZZ_SECONDS.
if [ $status = 0 ]; then
	phase "make fuzz" make fuzz FUZZ_SECONDS="${CAPI_FUZZ_SECONDS:-60}" || status=1
fi
echo "check: make check: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed"
echo "check: make check and the rest took $(( $(date +%s) - t_start )) s"

# Debian 13's tests: their results (their logs, when they failed, are
# among those above).
if [ $debian13 = 1 ]; then
	echo "check: Debian 13's tests (make check-ci)"
	grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|XFAIL): (test/debian13-|test/series-6\.12)' check.out || true
fi
exit $status
