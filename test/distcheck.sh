#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-ci's sanitizer run, as one test that make schedules beside the
# others: make distcheck-sanitizers in the build directory (the test's
# working directory): the tarball made, unpacked, configured with
# --enable-sanitizers (ASan and UBSan, any report fails a test), built,
# its host tests run (capi_sanitizer_tests), installed, uninstalled, clean.
# On failure: the log of every host test that failed in the tarball's
# build, and the end of make's output.
set -u
# shellcheck source=test/tap.sh
. "${TESTDIR:-$(dirname "$0")}/tap.sh"
[ -f Makefile ] && grep -q '^distcheck-sanitizers:' Makefile ||
	{ fail "make distcheck-sanitizers: run from the build directory (make check-ci)"; done_testing; }
out=distcheck.out
jobs=${CAPI_DISTCHECK_JOBS:-$(nproc)}
# Not the outer make's flags: its TESTS, its -j and jobserver.
rc=0
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j"$jobs" distcheck-sanitizers >"$out" 2>&1 || rc=$?
summary=$(sed -n 's/^# \(PASS\|FAIL\|ERROR\|XPASS\): *\([0-9]*\)$/\1 \2/p' "$out" | tr '\n' ' ')
if [ "$rc" = 0 ] && grep -q 'archives ready for distribution' "$out"; then
	pass "make distcheck with ASan and UBSan: ${summary:-no test summary}"
	grep -A2 'archives ready for distribution' "$out" | diag
else
	fail "make distcheck with ASan and UBSan (exit $rc): ${summary:-no test summary}"
	find . -path './capi-devd-*' -name '*.trs' -print0 |
	xargs -0r grep -lE '^:test-result: (FAIL|ERROR|XPASS)' |
	while read -r trs; do
		diag "==== distcheck: ${trs%.trs}.log"
		diag <"${trs%.trs}.log"
	done
	tail -n 50 "$out" | diag
fi
done_testing
