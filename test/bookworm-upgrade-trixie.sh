#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian 12 with the packages, upgraded in place to Debian 13 as the
# release notes give it (apt-get upgrade --without-new-pkgs, apt-get
# full-upgrade), and a reboot into 6.12 (test/debian/dep8-path.sh).
# make check-world.
exec "$(cd "$(dirname "$0")" && pwd)/debian/dep8-path.sh" bookworm-to-trixie
