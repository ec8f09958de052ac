#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian unstable (sid, Linux 7.2: CAPI removed) with the packages built
# there: debian/tests booted under QEMU (test/debian/dep8-release.sh).
# make check-world.
exec "$(cd "$(dirname "$0")" && pwd)/debian/dep8-release.sh" sid
