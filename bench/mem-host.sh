#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mem-host.sh - memory of an idle capi-devd --source=kernel on this host.
# Usage: bench/mem-host.sh [path/to/capi-devd]
# Runs the daemon as root against a scratch --root (so it loads no
# module and touches no real /dev), lets it settle, and prints RSS, Pss
# and Private_Dirty from /proc/PID/smaps_rollup, in KiB.
set -eu
DEVD=${1:-./capi-devd}
[ "$(id -u)" = 0 ] || { echo "mem-host: run as root (netlink uevents)" >&2; exit 1; }
[ -x "$DEVD" ] || { echo "mem-host: $DEVD is not built (make first)" >&2; exit 1; }
W=$(mktemp -d /tmp/capi-devd-mem.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"' EXIT
mkdir -p "$W/dev" "$W/sys" "$W/proc"
"$DEVD" --source=kernel --root="$W" --group=0 --tty-major=240 -q &
pid=$!
sleep "${MEM_SETTLE:-1}"
# A page written to the page cache and not yet written back counts as
# dirty in smaps: a freshly linked binary would show its text as
# Private_Dirty.
sync
kill -0 "$pid" || { echo "mem-host: capi-devd exited" >&2; exit 1; }
awk -v bin="$DEVD" '
	/^Rss:/ { rss = $2 } /^Pss:/ { pss = $2 } /^Private_Dirty:/ { pd = $2 }
	END { printf "mem-host: %s rss_kib %d pss_kib %d private_dirty_kib %d\n", bin, rss, pss, pd }
' "/proc/$pid/smaps_rollup"
