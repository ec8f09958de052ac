#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/t-kernel.sh - TAP: the test kernel in QEMU.
# Boots the kernel of kernel/build.sh with a systemd initramfs and runs
# test/qemu/guest/kernel-test.sh inside: static /dev/capi20, autoload of
# kernelcapi on open, capisim's controller and its own checks
# (capisim-smoke), how capisim offers calls and the limits one application
# must not use up for the others (capisim-listen), unload/reload without
# warnings, seed 003's tracepoints.
# See test/qemu/README.md for the environment variables.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${CAPISIM_SMOKE:?set CAPISIM_SMOKE to the built test/qemu/capisim-smoke (make check does)}"
: "${CAPISIM_LISTEN:?set CAPISIM_LISTEN to the built test/qemu/capisim-listen (make check does)}"
: "${CAPI_REGRESS:?set CAPI_REGRESS to the built test/qemu/capi-regress (make check does)}"
exec "$here/vm-test.sh" "$here/guest/kernel-test.sh" \
	--add "$CAPISIM_SMOKE:/usr/bin/capisim-smoke" \
	--add "$CAPISIM_LISTEN:/usr/bin/capisim-listen" \
	--add "$CAPI_REGRESS:/usr/bin/capi-regress" \
	--add "$here/guest/tracepoint-check:/capi-test/tracepoint-check" \
	--add "$here/guest/tracepoints.spec:/capi-test/tracepoints.spec" "$@"
