#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian 13 (trixie) with Linux 7.3 from trixie-backports (CAPI removed),
# installed with apt-get install -t trixie-backports, and the packages built
# in trixie: debian/tests booted under QEMU (test/debian/dep8-release.sh).
# make check-world.
exec "$(cd "$(dirname "$0")" && pwd)/debian/dep8-release.sh" trixie-backports
