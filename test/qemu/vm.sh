#!/bin/bash
# test/qemu/vm.sh - interactive shell in the test VM (serial console here)
#
# Usage: test/qemu/vm.sh [mkinitramfs.sh options...]
#   e.g. test/qemu/vm.sh --add src/capi-devd:/usr/sbin/capi-devd \
#                        --test test/qemu/guest/kernel-test.sh
#   (a --test script is not run, it waits at /capi-test/run)
#   Ctrl-a x quits QEMU; `exit` or `poweroff` in the guest ends the VM too.
# Environment: as vm-test.sh (CAPI_KERNEL_OUT, CAPI_KERNEL_DEBUG,
# CAPI_VM_MODULES, CAPI_VM_APPEND) and run.sh (CAPI_QEMU_*).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${CAPI_KERNEL_OUT:-}
if [ -z "$out" ]; then
	dbg=()
	[ "${CAPI_KERNEL_DEBUG:-0}" = 1 ] && dbg=(--debug)
	out=$("$top/kernel/build.sh" ${dbg[@]+"${dbg[@]}"} | tail -n1)
fi
initrd=$("$here/mkinitramfs.sh" --kernel-dir "$out" --modules "${CAPI_VM_MODULES:-staging}" --vm "$@" | tail -n1)
exec "$here/run.sh" --vm --kernel-dir "$out" --initrd "$initrd" --append "${CAPI_VM_APPEND:-}"
