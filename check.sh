#!/bin/bash
# check.sh - install what is needed, build, and run every test: make check
# (QEMU scenarios included), make distcheck, make check once more with
# ASan and UBSan (build-san/, without the QEMU part), and the fuzzers
# (make fuzz, CAPI_FUZZ_SECONDS each, default 60).  Beside them, from the
# start, make check-debian13 in build-debian13/ (the series on Debian 13's
# linux-source-6.12, and debian/tests booted on Debian 13's own kernel and
# userspace); --no-debian13 leaves it out.  Run as root on Debian 12.
set -euo pipefail
cd "$(dirname "$0")"
debian13=1
case "${1:-}" in
'') ;;
--no-debian13) debian13=0 ;;
*) echo "usage: ./check.sh [--no-debian13]" >&2; exit 2 ;;
esac
./install-deps.sh

autoreconf -fi >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure --enable-werror
make -j"$(nproc)"

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
make -j"$(nproc)" check 2>&1 | tee check.out || status=$?
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
[ $status = 0 ] && { make distcheck >distcheck.out 2>&1 || { tail -50 distcheck.out; status=1; }; }
[ $status = 0 ] && grep -A3 'archives ready for distribution' distcheck.out | head -4

# The daemon and the unit tests with the sanitizers (any report fails).
san=ok
if [ $status = 0 ]; then
	mkdir -p ../build-san
	(cd ../build-san &&
	 { [ -f Makefile ] || ../configure --enable-werror --disable-qemu-tests --enable-sanitizers >/dev/null; } &&
	 make -j"$(nproc)" >/dev/null && make -j"$(nproc)" check >check.out 2>&1) || {
		san=FAILED; status=1
		find ../build-san -name '*.trs' -print0 | xargs -0r grep -lE '^:test-result: (FAIL|ERROR)' |
		while read -r trs; do echo "==== build-san: ${trs%.trs}.log"; cat "${trs%.trs}.log"; done
		tail -20 ../build-san/check.out 2>/dev/null
	}
	echo "check: sanitizers (ASan, UBSan): $san"
fi
# The fuzzers, each for CAPI_FUZZ_SECONDS.
if [ $status = 0 ]; then
	make fuzz FUZZ_SECONDS="${CAPI_FUZZ_SECONDS:-60}" || status=1
fi
echo "check: make check: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed"
echo "check: make check and the rest took $(( $(date +%s) - t_start )) s"

# make check-debian13: its summary, and the log of every test that failed.
if [ -n "$d13_pid" ]; then
	d13=0
	wait "$d13_pid" || d13=$?
	echo "check: make check-debian13 took $(cat ../build-debian13.took 2>/dev/null || echo '?') s (exit $d13)"
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
