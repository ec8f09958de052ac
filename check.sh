#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh - install what is needed, build, and run every test: make check
# (QEMU scenarios included), make distcheck with ASan and UBSan (its
# make check is the sanitizer run, without the QEMU part), and the fuzzers
# (make fuzz, CAPI_FUZZ_SECONDS each, default 60).  Beside them, from the
# start, make check-debian13 in build-debian13/ (the series on Debian 13's
# linux-source-6.12, and debian/tests booted on Debian 13's own kernel and
# userspace); --no-debian13 leaves it out.  Run as root on Debian 12.
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
	local d f name info secs
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

# make check-debian13 in a build directory of its own (its logs and
# test-suite.log would collide with make check's in build/), configured
# now, before anything else runs, and left to run beside make check.
# Its own end time goes to build-debian13.took: the wait below returns
# only after make check and the rest.
d13_pid=""
t_start=$(date +%s)
if [ $debian13 = 1 ]; then
	mkdir -p ../build-debian13
	rm -f ../build-debian13.took
	( r=0
	  (cd ../build-debian13 &&
	   { [ -f Makefile ] || ../configure --enable-werror >/dev/null; } &&
	   make -j"$(nproc)" >/dev/null &&
	   make check-debian13) >../build-debian13.out 2>&1 || r=$?
	  echo $(( $(date +%s) - t_start )) >../build-debian13.took
	  exit $r ) &
	d13_pid=$!
	echo "check: make check-debian13 runs beside make check (build-debian13.out)"
fi

status=0
make_check() { make -j"$(nproc)" check 2>&1 | tee check.out; }
phase "make check (build/)" make_check || status=$?
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

# make check-debian13: its summary, and the log of every test that failed.
if [ -n "$d13_pid" ]; then
	d13=0
	wait "$d13_pid" || d13=$?
	echo "check: make check-debian13 took $(cat ../build-debian13.took 2>/dev/null || echo '?') s (exit $d13)"
	phases+=("$(printf '%-34s %6s s  %s' "Debian 13 (beside the above)" \
		"$(cat ../build-debian13.took 2>/dev/null || echo '?')" \
		"$([ $d13 = 0 ] && echo ok || echo "exit $d13")")")
	grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP|XFAIL): |^# [A-Z]+: ' ../build-debian13.out || tail -n 40 ../build-debian13.out
	if [ $d13 != 0 ]; then
		status=1
		find ../build-debian13 -name '*.trs' -print0 | xargs -0r grep -lE '^:test-result: (FAIL|ERROR|XPASS)' |
		sort | while read -r trs; do
			echo "==== build-debian13: ${trs%.trs}.log"
			cat "${trs%.trs}.log"
		done
	fi
fi
exit $status
