#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/vm-test.sh - run one guest test script in the test VM, print its TAP
#
# Usage: test/qemu/vm-test.sh GUEST-SCRIPT [mkinitramfs.sh options...]
#
#   Builds (or reuses) the kernel (kernel/build.sh) and an initramfs with
#   GUEST-SCRIPT as the test (mkinitramfs.sh --test), boots it (run.sh) and
#   copies the guest's TAP to stdout. Exit status: the guest script's, or
#   non-zero with a TAP failure when the kernel, the initramfs or the boot
#   failed. On failure the guest console, dmesg and journal go to stderr.
#
# Environment (besides those of run.sh and kernel/build.sh):
#   CAPI_KERNEL_OUT     use this kernel/build.sh result, do not build
#   CAPI_KERNEL_DEBUG=1 build/use the --debug kernel (kernel/debug.config)
#   CAPI_KERNEL_DEBUG=kcsan  the --kcsan kernel (kernel/kcsan.config)
#   CAPI_VM_MODULES     staging (default) or staging-prefix (pre-fix names fixture)
#   CAPI_VM_APPEND      more kernel command line
#   CAPI_KERNEL_KIND    test (default) or stock: Debian's own kernel
#                       (see kernel-kind.sh)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)

# shellcheck source=test/tap.sh
. "$here/../tap.sh"
bail() { fail "$*"; done_testing; }	# no TAP from the guest: one failed test
[ $# -ge 1 ] || { echo "usage: $0 GUEST-SCRIPT [mkinitramfs options]" >&2; exit 2; }
guest=$1
shift
[ -f "$guest" ] || bail "guest script $guest not found"

# shellcheck source=test/qemu/kernel-kind.sh
. "$here/kernel-kind.sh"
pick_kernel "$top" || bail "no kernel: $(
	[ "${CAPI_KERNEL_KIND:-test}" = stock ] && echo "Debian's stock kernel (kernel/stock.sh)" || echo "kernel/build.sh") failed"
out=$kout

initrd=$("$here/mkinitramfs.sh" --kernel-dir "$out" --modules "${CAPI_VM_MODULES:-staging}" \
	${kind_opts[@]+"${kind_opts[@]}"} --test "$guest" "$@" | tail -n1) || bail "initramfs (test/qemu/mkinitramfs.sh) failed"

# what the guest may take for granted: everything, once the build skipped
# no option of the fragment and needed no pristine fallback
expect=partial
if [ "${CAPI_KERNEL_KIND:-test}" = stock ]; then
	expect=stock
elif grep -qx 'skipped=' "$out/info" && grep -qx 'pristine_capi_fallback=0' "$out/info"; then
	expect=full
fi

rep=$(mktemp)
trap '[ "$BASHPID" != "$$" ] || rm -f "$rep"' EXIT
rc=0
"$here/run.sh" --kernel-dir "$out" --initrd "$initrd" \
	--append "capi.expect=$expect ${CAPI_VM_APPEND:-}" >"$rep" || rc=$?
cat "$rep"
grep -qE '^1\.\.[0-9]+' "$rep" ||
	bail "VM run of $(basename "$guest") (run.sh status $rc: no TAP from the guest)"
if [ $rc -ge 124 ]; then
	echo "Bail out! the VM did not finish (run.sh status $rc)"
	exit 1
fi
exit $rc
