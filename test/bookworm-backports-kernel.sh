#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian 12 with the packages, then apt-get install -t bookworm-backports
# linux-image-amd64 and a reboot into 6.12 (test/debian/dep8-path.sh).
# make check-world.
exec "$(cd "$(dirname "$0")" && pwd)/debian/dep8-path.sh" bookworm-backports
