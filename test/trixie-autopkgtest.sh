#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian 13's build of the packages, debian/tests run by Debian's own
# autopkgtest with its QEMU virt server (test/debian/autopkgtest.sh).
# make check-world.
exec "$(cd "$(dirname "$0")" && pwd)/debian/autopkgtest.sh" trixie
