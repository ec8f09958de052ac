#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: scenario group "ttyfix" in the VM; see test/qemu/scenario.sh.
exec "$(dirname "$0")/scenario.sh" ttyfix
