#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: scenario group "kernel" (capi-devd without udevd) in the VM; see test/qemu/scenario.sh.
exec "$(dirname "$0")/scenario.sh" kernel
