#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-debian13 and make check-ci: kernel/check-series.sh on Debian
# 13's linux-source-6.12, as a test of its own name (make check-ci runs it
# in one test list with the 6.1 run of kernel/check-series.sh).
exec "$(dirname "$0")/../kernel/check-series.sh" --tree 6.12 "$@"
