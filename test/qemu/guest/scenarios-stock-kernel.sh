#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs INSIDE the test VM on Debian's stock kernel (kernel/stock.sh) with
# udevd masked: capi-devd alone (--source=kernel), on the out-of-tree
# kernelcapi that modprobe takes from updates/ (as after dkms install).
# The setup and the scenarios are scenarios-kernel.sh's: test/README.md.
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
# shellcheck source=test/qemu/guest/scenarios-kernel.sh
DEFINE_ONLY=1 . /capi-test/scenarios-kernel.sh
boot "Debian's stock kernel: capi-devd without udevd"

run_scenarios 2 3
