#!/bin/bash
# replay-bench.sh - events per second through capi-devd --replay on tmpfs.
# Usage: bench/replay-bench.sh [path/to/capi-devd] [events]
# Generates EVENTS (default 200000) uevents: a control device, then
# EVENTS/2 - 1 ttys added and all of them removed again, and replays them
# into a tmpfs root twice: once with the tty nodes already there (as
# devtmpfs leaves them: capi-devd makes the link, and checks the node),
# once into an empty dev (capi-devd also makes and removes each node).
set -eu
DEVD=${1:-./capi-devd}
EVENTS=${2:-200000}
[ "$(id -u)" = 0 ] || { echo "replay-bench: run as root (mknod, mount)" >&2; exit 1; }
[ -x "$DEVD" ] || { echo "replay-bench: $DEVD is not built (make first)" >&2; exit 1; }

W=$(mktemp -d /tmp/capi-devd-bench.XXXXXX)
mount -t tmpfs -o size=512m,mode=0755 capi-bench "$W"
trap 'umount "$W"; rmdir "$W"' EXIT
UNITS=$((EVENTS / 2 - 1))

awk -v units="$UNITS" 'BEGIN {
	printf "ACTION=add\nDEVPATH=/devices/virtual/capi/capi20\nSUBSYSTEM=capi\nMAJOR=68\nMINOR=0\nDEVNAME=capi20\n\n"
	for (n = 0; n < units; n++)
		printf "ACTION=add\nDEVPATH=/devices/virtual/tty/capi!%d\nSUBSYSTEM=tty\nMAJOR=240\nMINOR=%d\nDEVNAME=capi/%d\n\n", n, n, n
	for (n = 0; n < units; n++)
		printf "ACTION=remove\nDEVPATH=/devices/virtual/tty/capi!%d\nSUBSYSTEM=tty\nMAJOR=240\nMINOR=%d\nDEVNAME=capi/%d\n\n", n, n, n
	printf "ACTION=remove\nDEVPATH=/devices/virtual/capi/capi20\nSUBSYSTEM=capi\nMAJOR=68\nMINOR=0\nDEVNAME=capi20\n\n"
}' >"$W/events"
total=$((2 * UNITS + 2))

run() {	# run LABEL
	local t0 t1
	t0=$(date +%s%N)
	"$DEVD" --root="$W/root" --group=0 --mode=0660 --replay="$W/events" 2>"$W/log"
	t1=$(date +%s%N)
	awk -v n="$total" -v ns=$((t1 - t0)) -v label="$1" 'BEGIN {
		printf "%-40s %7d events in %6.3f s: %8.0f events/s\n", label, n, ns / 1e9, n / (ns / 1e9) }'
	grep -q "replayed $total event(s): 0 ignored, 0 bad" "$W/log" ||
		{ echo "replay-bench: not every event was applied:" >&2; cat "$W/log" >&2; exit 1; }
}

echo "capi-devd replay benchmark: $total events, tmpfs root, $(nproc) CPU(s), $(uname -r)"
rm -rf "$W/root" && mkdir -p "$W/root/dev/capi"
# Nodes as devtmpfs would leave them: made by an adds-only replay, links
# then deleted.
rm -rf "$W/root" && mkdir -p "$W/root/dev"
head -n $((7 * (UNITS + 1))) "$W/events" | "$DEVD" --root="$W/root" --group=0 --replay=- 2>/dev/null
find "$W/root/dev" -type l -delete
run "nodes present (devtmpfs-like)"
rm -rf "$W/root" && mkdir -p "$W/root/dev"
run "empty dev (capi-devd makes the nodes)"
