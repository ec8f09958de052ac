#!/bin/bash
# replay-bench.sh - events per second through capi-devd --replay on tmpfs.
# Usage: bench/replay-bench.sh [path/to/capi-devd] [events]
# Generates EVENTS (default 200000) uevents: a control device, then rounds
# of the driver's 256 ttys (minors 0-255, capi-devd refuses others) added
# and all of them removed again, and replays them into a tmpfs root twice:
#   devtmpfs-like: the nodes are there for the adds (capi-devd checks them
#     and makes the links) and gone for the removes (devtmpfs deletes a node
#     before its remove event; capi-devd removes the links); the adds and
#     the removes are two replays, timed together, with the nodes deleted
#     in between, untimed;
#   empty dev: one replay; capi-devd also makes and removes every node.
set -eu
DEVD=${1:-./capi-devd}
EVENTS=${2:-200000}
[ "$(id -u)" = 0 ] || { echo "replay-bench: run as root (mknod, mount)" >&2; exit 1; }
[ -x "$DEVD" ] || { echo "replay-bench: $DEVD is not built (make first)" >&2; exit 1; }

W=$(mktemp -d /tmp/capi-devd-bench.XXXXXX)
mount -t tmpfs -o size=512m,mode=0755 capi-bench "$W"
trap 'umount "$W"; rmdir "$W"' EXIT
UNITS=256
ROUNDS=$(( (EVENTS - 2) / (2 * UNITS) )); [ $ROUNDS -ge 1 ] || ROUNDS=1

gen() {	# gen ROUNDS: the control device, ROUNDS x (256 adds, 256 removes), its remove
	awk -v units="$UNITS" -v rounds="$1" 'BEGIN {
	printf "ACTION=add\nDEVPATH=/devices/virtual/capi/capi20\nSUBSYSTEM=capi\nMAJOR=68\nMINOR=0\nDEVNAME=capi20\n\n"
	for (r = 0; r < rounds; r++) {
	for (n = 0; n < units; n++)
		printf "ACTION=add\nDEVPATH=/devices/virtual/tty/capi!%d\nSUBSYSTEM=tty\nMAJOR=240\nMINOR=%d\nDEVNAME=capi/%d\n\n", n, n, n
	for (n = 0; n < units; n++)
		printf "ACTION=remove\nDEVPATH=/devices/virtual/tty/capi!%d\nSUBSYSTEM=tty\nMAJOR=240\nMINOR=%d\nDEVNAME=capi/%d\n\n", n, n, n
	}
	printf "ACTION=remove\nDEVPATH=/devices/virtual/capi/capi20\nSUBSYSTEM=capi\nMAJOR=68\nMINOR=0\nDEVNAME=capi20\n\n"
}'
}
gen 1 >"$W/events"
total=$((2 * UNITS + 2))

replay() {	# replay FILE: run capi-devd, add its nanoseconds to $ns
	local t0 t1
	t0=$(date +%s%N)
	"$DEVD" --root="$W/root" --group=0 --mode=0660 --tty-major=240 --replay="$1" 2>"$W/log"
	t1=$(date +%s%N)
	ns=$((ns + t1 - t0))
	grep -q "0 ignored, 0 bad" "$W/log" ||
		{ echo "replay-bench: not every event was applied:" >&2; cat "$W/log" >&2; exit 1; }
}
report() {	# report LABEL
	awk -v n="$total" -v ns=$ns -v label="$1" 'BEGIN {
		printf "%-30s %7d events in %6.3f s: %8.0f events/s\n", label, n, ns / 1e9, n / (ns / 1e9) }'
}

echo "capi-devd replay benchmark: $total events, tmpfs root, $(nproc) CPU(s), $(uname -r)"
head -n $((7 * (UNITS + 1))) "$W/events" >"$W/adds"
tail -n +$((7 * (UNITS + 1) + 1)) "$W/events" >"$W/removes"

# The nodes, as devtmpfs would have made them: an adds-only replay, then
# its links deleted.
rm -rf "$W/root" && mkdir -p "$W/root/dev"
"$DEVD" --root="$W/root" --group=0 --tty-major=240 --replay="$W/adds" 2>/dev/null
find "$W/root/dev" -type l -delete
ns=0
replay "$W/adds"
find "$W/root/dev/capi" -type c -delete
replay "$W/removes"
report "devtmpfs-like"

# Empty dev: all the rounds in one replay.
gen "$ROUNDS" >"$W/events"
total=$((2 * UNITS * ROUNDS + 2))
rm -rf "$W/root" && mkdir -p "$W/root/dev"
ns=0
replay "$W/events"
report "empty dev"
