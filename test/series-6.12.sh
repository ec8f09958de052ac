#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-debian13, make check-ci and make check-world:
# kernel/check-series.sh on Debian 13's linux-source-6.12, as a test of
# its own name (make check-ci runs it in one test list with the 6.1 run of
# kernel/check-series.sh).  CAPI_SERIES_612=last (make check-ci's, issue
# 41) builds the pristine tree and the last patch only; each (the
# default: make check-debian13, make check-world) builds every step.
case ${CAPI_SERIES_612:-each} in
last) set -- --build-last "$@" ;;
each) ;;
*) echo "test/series-6.12.sh: CAPI_SERIES_612 is 'each' or 'last', not '$CAPI_SERIES_612'" >&2; exit 99 ;;
esac
exec "$(dirname "$0")/../kernel/check-series.sh" --tree 6.12 "$@"
