#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/t-fuzz.sh - TAP: capi-fuzz in QEMU, two CPUs (issue 38).
# Boots the kernel of kernel/build.sh and runs test/qemu/guest/fuzz-test.sh:
# capi-fuzz's random operations from several processes and threads, with
# the kernel's hung task detector at 10 s and hung_task_panic.
#
# Environment:
#   CAPI_FUZZ_SEED     the seed (default 1: make check runs the same
#                      operations every time; "random": one from the clock)
#   CAPI_FUZZ_OPS      operations of each thread (default 150)
#   CAPI_FUZZ_SECONDS  the run's limit in the guest (default 150)
#   CAPI_FUZZ_ARGS     more capi-fuzz options, e.g. "-p 4 -T 3"
#   CAPI_FUZZ_DIRECTED hang, open-churn or reorder: that directed test
#                      instead (several, separated by spaces: one boot each)
# and those of vm-test.sh (CAPI_KERNEL_DEBUG=1|kcsan for the debug kernels).
# A failure names the seed and the operations done; the same seed runs the
# same operations again:
#   CAPI_FUZZ_SEED=S make check TESTS=test/qemu/t-fuzz.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${CAPI_FUZZ:?set CAPI_FUZZ to the built test/qemu/capi-fuzz (make check does)}"
# shellcheck source=test/tap.sh
. "$here/../tap.sh"
export CAPI_QEMU_SMP=${CAPI_QEMU_SMP:-2}
export CAPI_QEMU_TIMEOUT=${CAPI_QEMU_TIMEOUT:-600}
seed=${CAPI_FUZZ_SEED:-1}
[ "$seed" != random ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
ops=${CAPI_FUZZ_OPS:-150}
secs=${CAPI_FUZZ_SECONDS:-150}
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}

# one boot: fuzz ARGS (commas for spaces); its TAP, indented when it is one
# of several; the boot's console kept in $outdir
boot() {
	local args=$1 rc=0
	outdir=$(mktemp -d "$cache/qemu/runs/fuzz-$(date +%Y%m%d-%H%M%S).XXXX")
	CAPI_QEMU_OUTDIR=$outdir \
	CAPI_VM_APPEND="${CAPI_VM_APPEND:-} capi.fuzz=$args" \
		"$here/vm-test.sh" "$here/guest/fuzz-test.sh" \
		--add "$CAPI_FUZZ:/usr/bin/capi-fuzz" >"$outdir/tap" || rc=$?
	return $rc
}
# what the guest got to before it ended: capi-fuzz's last progress line
# (also on the console, from /dev/kmsg) and the hung task the kernel saw
last_words() {
	tr -d '\r' <"$outdir/console.log" 2>/dev/null |
		grep -E 'capi-fuzz: seed|blocked for more than|Kernel panic|WARNING:|BUG:' | tail -n 8 | diag
}

mkdir -p "$cache/qemu/runs"
if [ -n "${CAPI_FUZZ_DIRECTED:-}" ]; then
	for d in $CAPI_FUZZ_DIRECTED; do
		rc=0
		boot "-D,$d,-s,$seed,-t,${CAPI_FUZZ_SECONDS:-60}" || rc=$?
		sed 's/^/    /' "$outdir/tap"
		if [ $rc = 0 ]; then
			pass "directed test $d (issue 38)"
		else
			fail "directed test $d (issue 38): run.sh/guest status $rc; logs in $outdir"
			last_words
		fi
	done
	done_testing
fi
rc=0
extra=${CAPI_FUZZ_ARGS:-}
boot "-s,$seed,-n,$ops,-t,$secs${extra:+,${extra// /,}}" || rc=$?
cat "$outdir/tap"
if [ $rc != 0 ]; then
	echo "# capi-fuzz failed: seed $seed; reproduce with CAPI_FUZZ_SEED=$seed CAPI_FUZZ_OPS=$ops CAPI_FUZZ_SECONDS=$secs${extra:+ CAPI_FUZZ_ARGS=\"$extra\"} (logs in $outdir)"
	last_words
fi
exit $rc
