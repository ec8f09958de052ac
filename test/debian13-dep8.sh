#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian 13 (trixie, Linux 6.12) with the packages built there: debian/tests
# booted under QEMU (test/debian/dep8-release.sh).  make check-debian13.
exec "$(cd "$(dirname "$0")" && pwd)/debian/dep8-release.sh" trixie
