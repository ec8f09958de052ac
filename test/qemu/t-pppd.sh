#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: pppd over CAPI in the VM (issue 8 section 3); see test/qemu/scenario.sh.
exec "$(dirname "$0")/scenario.sh" pppd
