#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/t-fuzz.sh - TAP: capi-fuzz in QEMU, two CPUs (issue 38).
# Boots the kernel of kernel/build.sh and runs test/qemu/guest/fuzz-test.sh:
# capi-fuzz's random operations from several processes and threads, with
# the kernel's hung task detector at 10 s and hung_task_panic.  One test
# per boot; the guest's own TAP is shown indented below it.
#
# Environment:
#   CAPI_FUZZ_SEED     the seed (default 1: the same operations every
#                      time; "random": one from the clock)
#   CAPI_FUZZ_OPS      operations of each thread (default 300)
#   CAPI_FUZZ_SECONDS  the run's limit in the guest (default 150); the
#                      VM's (CAPI_QEMU_TIMEOUT) is at least 450 s more
#   CAPI_FUZZ_ARGS     more capi-fuzz options, e.g. "-p 4 -T 3"
#   CAPI_FUZZ_DIRECTED directed tests instead (capi-fuzz -D): boots,
#                      separated by spaces, each a list of hang, open-churn,
#                      reorder joined by + (test/qemu/t-findings.sh)
# and those of vm-test.sh (CAPI_KERNEL_DEBUG=1|kcsan for the debug kernels).
# A failure names the seed and the operations done; the same seed runs the
# same operations again:
#   CAPI_FUZZ_SEED=S make check TESTS=test/qemu/t-fuzz.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${CAPI_FUZZ:?set CAPI_FUZZ to the built test/qemu/capi-fuzz (make check does)}"
# shellcheck source=test/tap.sh
. "$here/../tap.sh"
export CAPI_QEMU_SMP=${CAPI_QEMU_SMP:-2}
seed=${CAPI_FUZZ_SEED:-1}
[ "$seed" != random ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
ops=${CAPI_FUZZ_OPS:-300}
secs=${CAPI_FUZZ_SECONDS:-150}
# The VM's limit (run.sh): at least the fuzzer's own plus 450 s for the
# boot, the last operations' bounds and the end-of-boot checks (a kmemleak
# scan on the --debug kernel), whatever CAPI_QEMU_TIMEOUT asks for: a
# limit below the fuzzer's would end every long run as a failure.
min_timeout=$((secs + 450))
[ "${CAPI_QEMU_TIMEOUT:-0}" -ge "$min_timeout" ] 2>/dev/null || CAPI_QEMU_TIMEOUT=$min_timeout
export CAPI_QEMU_TIMEOUT
extra=${CAPI_FUZZ_ARGS:-}
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
mkdir -p "$cache/qemu/runs"

# one boot, capi-fuzz ARGS (commas for spaces), one test DESC; the boot's
# logs stay in a run dir of their own
boot() {
	local name=$1 args=$2 desc=$3 rc=0 outdir
	outdir=$(mktemp -d "$cache/qemu/runs/fuzz-$name-$(date +%Y%m%d-%H%M%S).XXXX")
	CAPI_QEMU_OUTDIR=$outdir \
	CAPI_VM_APPEND="${CAPI_VM_APPEND:-} capi.fuzz=$args" \
		"$here/vm-test.sh" "$here/guest/fuzz-test.sh" \
		--add "$CAPI_FUZZ:/usr/bin/capi-fuzz" >"$outdir/tap" 2>"$outdir/stderr" || rc=$?
	sed 's/^/    /' "$outdir/tap"
	if [ $rc = 0 ]; then
		pass "$desc"
		return 0
	fi
	fail "$desc: status $rc (logs in $outdir)"
	# what the guest got to before it ended: capi-fuzz's last progress
	# line (also on the console, from /dev/kmsg) and what the kernel saw
	tr -d '\r' <"$outdir/console.log" 2>/dev/null |
		grep -E 'capi-fuzz: |blocked for more than|Kernel panic|WARNING:|BUG:|KASAN|KCSAN' |
		tail -n 12 | diag
	return 1
}

if [ -n "${CAPI_FUZZ_DIRECTED:-}" ]; then
	for d in $CAPI_FUZZ_DIRECTED; do
		boot "$d" "-D,$d,-s,$seed,-t,${CAPI_FUZZ_SECONDS:-60}" \
			"directed test $d (capi-fuzz -D $d)"
	done
	done_testing
fi
boot fuzz "-s,$seed,-n,$ops,-t,$secs${extra:+,${extra// /,}}" \
	"capi-fuzz seed $seed, $ops operations a thread, at most $secs s" ||
	diag "reproduce: CAPI_FUZZ_SEED=$seed CAPI_FUZZ_OPS=$ops CAPI_FUZZ_SECONDS=$secs${extra:+ CAPI_FUZZ_ARGS=\"$extra\"} make check TESTS=test/qemu/t-fuzz.sh"
done_testing
