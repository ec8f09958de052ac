#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/t-stress.sh - TAP: the stress scenario in QEMU.
# Boots the kernel of kernel/build.sh with two CPUs and runs
# test/qemu/guest/stress-test.sh: capi-stress abuses the capi ttys from
# several processes while capisim floods and misbehaves; nothing may hang,
# the well-behaved echo must come back intact, memory must stay bounded.
# Bounded: about 40 s of abuse, under 3 min of guest time under TCG.
# See test/qemu/README.md for the environment variables.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${CAPI_STRESS:?set CAPI_STRESS to the built test/qemu/capi-stress (make check does)}"
export CAPI_QEMU_SMP=${CAPI_QEMU_SMP:-2}
# about 100 s of guest time, 140 s wall under TCG on an idle host, 240 s
# beside a kernel build: more than run.sh's default 300 s of room
export CAPI_QEMU_TIMEOUT=${CAPI_QEMU_TIMEOUT:-600}
# the guest checks that it brought up every CPU QEMU offers
export CAPI_VM_APPEND="${CAPI_VM_APPEND:-} capi.cpus=$CAPI_QEMU_SMP"

# On a debug kernel (make check-debug) the boot must also show that its
# detectors looked: on the --debug kernel the kmemleak check of the end of
# the boot ran and passed (two scans, no CAPI leak); on the --kcsan kernel
# KCSAN watched on every CPU.  A boot whose detector was off, or whose
# check was skipped, would otherwise pass as "0 reports".
need="" what=""
case ${CAPI_KERNEL_DEBUG:-0} in
1)	need='^ok [0-9]+ - end of boot: kmemleak: no leak'
	what="the --debug kernel's kmemleak scans ran and found no CAPI leak" ;;
kcsan)	need="^# KCSAN on $CAPI_QEMU_SMP CPU\\(s\\): enabled: 1 .*setup_watchpoints: [1-9]"
	what="KCSAN was enabled on all $CAPI_QEMU_SMP CPUs and set up watchpoints" ;;
esac
rc=0
out=$("$here/vm-test.sh" "$here/guest/stress-test.sh" \
	--add "$CAPI_STRESS:/usr/bin/capi-stress" "$@") || rc=$?
if [ -z "$need" ]; then
	printf '%s\n' "$out"
	exit $rc
fi
# the guest's TAP without its plan, this check after it, the plan last
n=$(printf '%s\n' "$out" | grep -cE '^(not )?ok [0-9]+')
printf '%s\n' "$out" | grep -vE '^1\.\.[0-9]+$'
n=$((n + 1))
if printf '%s\n' "$out" | grep -qE "$need"; then
	echo "ok $n - $what"
else
	echo "not ok $n - $what"
	rc=1
fi
echo "1..$n"
exit $rc
