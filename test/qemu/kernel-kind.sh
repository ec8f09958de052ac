# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/kernel-kind.sh - sourced by vm-test.sh and vm.sh: which kernel
# the VM boots.  pick_kernel sets
#   kout       the result dir (bzImage, kernelrelease, staging/, info, ...)
#   kind_opts  the mkinitramfs.sh options that kernel needs
# and returns non-zero (the builder said why on stderr) when there is none.
#
#   CAPI_KERNEL_KIND=test (default)  our kernel: kernel/build.sh
#                                    (CAPI_KERNEL_DEBUG=1: --debug,
#                                    CAPI_KERNEL_DEBUG=kcsan: --kcsan)
#   CAPI_KERNEL_KIND=stock           Debian's own kernel: kernel/stock.sh;
#       it has what the VM boots on built in (8250 serial, devtmpfs, tmpfs,
#       unix sockets, debugfs), so the initramfs gets only the modules of
#       CAPI_VM_STOCK_MODULES and what they depend on (default: kernelcapi
#       and capisim, from updates/, Debian's own kernelcapi.ko, and
#       ppp_async and ppp_synctty)
#   CAPI_KERNEL_OUT                  use this result dir, build nothing
# shellcheck disable=SC2034 # kind_opts is for the caller
pick_kernel() {
	local top=$1 dbg=()
	kout=${CAPI_KERNEL_OUT:-}
	kind_opts=()
	case ${CAPI_KERNEL_KIND:-test} in
	test)
		case ${CAPI_KERNEL_DEBUG:-0} in
		0) ;;
		1) dbg=(--debug) ;;
		kcsan) dbg=(--kcsan) ;;
		*) echo "CAPI_KERNEL_DEBUG must be 0, 1 or kcsan, not '$CAPI_KERNEL_DEBUG'" >&2
			return 1 ;;
		esac
		[ -n "$kout" ] || kout=$("$top/kernel/build.sh" ${dbg[@]+"${dbg[@]}"} | tail -n1) || return 1 ;;
	stock)
		kind_opts=(--module-subset "${CAPI_VM_STOCK_MODULES:-kernelcapi capisim
			kernel/drivers/isdn/capi/kernelcapi.ko ppp_async ppp_synctty}")
		[ -n "$kout" ] || kout=$("$top/kernel/stock.sh" | tail -n1) || return 1 ;;
	*)
		echo "CAPI_KERNEL_KIND must be test or stock, not '$CAPI_KERNEL_KIND'" >&2
		return 1 ;;
	esac
	[ -f "$kout/bzImage" ] || { echo "no kernel in '$kout'" >&2; return 1; }
}
