#!/bin/bash
# test/qemu/t-kernel.sh - TAP: the test kernel in QEMU.
# Boots the kernel of kernel/build.sh with a systemd initramfs and runs
# test/qemu/guest/kernel-test.sh inside: static /dev/capi20, autoload of
# kernelcapi on open, capisim's controller, unload/reload without warnings.
# See test/qemu/README.md for the environment variables.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$here/vm-test.sh" "$here/guest/kernel-test.sh" "$@"
