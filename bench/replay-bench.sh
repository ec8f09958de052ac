#!/bin/bash
# replay-bench.sh - events per second through capi-devd --replay on tmpfs,
# against the syscall floor, in the same run.
# Usage: bench/replay-bench.sh [path/to/capi-devd] [events]
#   REPLAY_FLOOR: the built bench/replay-floor (default: next to capi-devd)
# Generates uevents of the driver's 256 ttys (minors 0-255, capi-devd
# refuses others), rounds of all added then all removed, about EVENTS
# (default 200000) in all, and replays them into a tmpfs root:
#   devtmpfs-like: the nodes are there for the adds (capi-devd checks them
#     and makes the links) and gone for the removes (devtmpfs deletes a node
#     before its remove event; capi-devd removes the links).  The events go
#     through a FIFO, a round at a time; between the halves of a round the
#     script deletes or copies back the nodes, as devtmpfs would, once
#     capi-devd has done the half.  Timed by capi-devd's own CPU time
#     (/proc/PID/schedstat, from the end of the first round to the end), so
#     the script's work and waits do not count;
#   floor: bench/replay-floor, the same names with nothing else: per add a
#     symlink at a temporary name and a rename, per remove an unlink
#     (its CPU time);
#   ratio: devtmpfs-like / floor, events/s;
#   empty dev: one replay of all the rounds, capi-devd also makes and
#     removes every node (wall time).
set -eu
DEVD=${1:-./capi-devd}
EVENTS=${2:-200000}
FLOOR=${REPLAY_FLOOR:-$(dirname "$DEVD")/bench/replay-floor}
[ "$(id -u)" = 0 ] || { echo "replay-bench: run as root (mknod, mount)" >&2; exit 1; }
[ -x "$DEVD" ] || { echo "replay-bench: $DEVD is not built (make first)" >&2; exit 1; }
[ -x "$FLOOR" ] || { echo "replay-bench: $FLOOR is not built (make first)" >&2; exit 1; }

W=$(mktemp -d /tmp/capi-devd-bench.XXXXXX)
mount -t tmpfs -o size=512m,mode=0755 capi-bench "$W"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; exec 7>&- 2>/dev/null; wait 2>/dev/null; umount "$W"; rmdir "$W"' EXIT
UNITS=256
ROUNDS=$(( (EVENTS - 2) / (2 * UNITS) )); [ $ROUNDS -ge 1 ] || ROUNDS=1

ev() {	# ev ACTION: the records of all 256 ttys
	awk -v units="$UNITS" -v action="$1" 'BEGIN {
	for (n = 0; n < units; n++)
		printf "ACTION=%s\nDEVPATH=/devices/virtual/tty/capi!%d\nSUBSYSTEM=tty\nMAJOR=240\nMINOR=%d\nDEVNAME=capi/%d\n\n", action, n, n, n
}'
}
ctl() {	# ctl ACTION: the control device's record
	printf "ACTION=%s\nDEVPATH=/devices/virtual/capi/capi20\nSUBSYSTEM=capi\nMAJOR=68\nMINOR=0\nDEVNAME=capi20\n\n" "$1"
}
ev add >"$W/adds"
ev remove >"$W/removes"
report() {	# report LABEL EVENTS NS
	awk -v n="$2" -v ns="$3" -v label="$1" 'BEGIN {
		printf "%-30s %7d events in %6.3f s: %8.0f events/s\n", label, n, ns / 1e9, n / (ns / 1e9) }'
}
rate() { awk -v n="$1" -v ns="$2" 'BEGIN { printf "%.0f", n / (ns / 1e9) }'; }
cpu_ns() { local a; read -r a _ <"/proc/$1/schedstat"; echo "$a"; }
wait_until() {	# wait_until TEST-ARGS...: poll, 1 ms apart, 10 s at most
	local i
	for ((i = 0; i < 10000; i++)); do
		test "$@" && return 0
		sleep 0.001
	done
	echo "replay-bench: capi-devd did not follow (test $*)" >&2
	exit 1
}

echo "capi-devd replay benchmark: tmpfs root, $(nproc) CPU(s), $(uname -r)"

# devtmpfs-like, through a FIFO.  The nodes as devtmpfs would have made
# them, kept aside to copy back for each round.
mkdir -p "$W/nodes/capi" "$W/root/dev"
for ((n = 0; n < UNITS; n++)); do mknod -m 0660 "$W/nodes/capi/$n" c 240 $n; done
mknod "$W/root/dev/capi20" c 68 0
mkfifo "$W/fifo"
"$DEVD" --root="$W/root" --group=0 --mode=0660 --tty-major=240 --replay="$W/fifo" 2>"$W/log" &
pid=$!
exec 7>"$W/fifo"
ctl add >&7
last=$W/root/dev/capi20.$((UNITS - 1))
for ((r = 0; r <= ROUNDS; r++)); do
	cp -a "$W/nodes/capi" "$W/root/dev/"
	cat "$W/adds" >&7
	wait_until -L "$last"
	rm -rf "$W/root/dev/capi"
	cat "$W/removes" >&7
	wait_until ! -L "$last"
	# Round 0 warms up (start-up, first allocation of everything).
	[ $r = 0 ] && c0=$(cpu_ns $pid)
done
c1=$(cpu_ns $pid)
ctl remove >&7
exec 7>&-
wait $pid
pid=
grep -q "0 ignored, 0 bad" "$W/log" ||
	{ echo "replay-bench: not every event was applied:" >&2; cat "$W/log" >&2; exit 1; }
n_like=$((2 * UNITS * ROUNDS))
ns_like=$((c1 - c0))
report "devtmpfs-like (cpu time)" $n_like $ns_like

# The floor, on the same kind of tree.
rm -rf "$W/root" && mkdir -p "$W/root/dev/capi"
read -r _ n_floor _ _ ns_floor _ < <("$FLOOR" "$W/root/dev" "$ROUNDS")
report "floor (cpu time)" "$n_floor" "$ns_floor"
awk -v a="$(rate $n_like $ns_like)" -v b="$(rate "$n_floor" "$ns_floor")" \
	'BEGIN { printf "replay-bench: devtmpfs-like/floor ratio %.2f (%d / %d events/s)\n", a / b, a, b }'

# Empty dev: all the rounds in one replay.
{
	ctl add
	for ((r = 0; r < ROUNDS; r++)); do cat "$W/adds" "$W/removes"; done
	ctl remove
} >"$W/events"
rm -rf "$W/root" && mkdir -p "$W/root/dev"
t0=$(date +%s%N)
"$DEVD" --root="$W/root" --group=0 --mode=0660 --tty-major=240 --replay="$W/events" 2>"$W/log"
t1=$(date +%s%N)
grep -q "0 ignored, 0 bad" "$W/log" ||
	{ echo "replay-bench: not every event was applied:" >&2; cat "$W/log" >&2; exit 1; }
report "empty dev (wall time)" $((2 * UNITS * ROUNDS + 2)) $((t1 - t0))
