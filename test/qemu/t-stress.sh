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
exec "$here/vm-test.sh" "$here/guest/stress-test.sh" \
	--add "$CAPI_STRESS:/usr/bin/capi-stress" "$@"
