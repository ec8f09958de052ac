#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
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
# shellcheck source=test/qemu/kernel-kind.sh
. "$here/kernel-kind.sh"
pick_kernel "$top"
out=$kout
initrd=$("$here/mkinitramfs.sh" --kernel-dir "$out" --modules "${CAPI_VM_MODULES:-staging}" \
	${kind_opts[@]+"${kind_opts[@]}"} --vm "$@" | tail -n1)
exec "$here/run.sh" --vm --kernel-dir "$out" --initrd "$initrd" --append "${CAPI_VM_APPEND:-}"
