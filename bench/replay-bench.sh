#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay-bench.sh - capi-devd --replay on tmpfs against the syscall floor,
# in the same run: events per second and system calls per event.
# Usage: bench/replay-bench.sh [path/to/capi-devd] [events]
#   REPLAY_FLOOR: the built bench/replay-floor (default: next to capi-devd)
#   COUNT_EVENTS: events of the runs whose system calls are counted
#     (default 20000)
# Generates uevents of the driver's 256 ttys (minors 0-255, capi-devd
# refuses others), rounds of all added then all removed, about EVENTS
# (default 200000) in all, and replays them into a tmpfs root that only
# root can write, in two workloads:
#   devtmpfs-like: the nodes are there for the adds (capi-devd checks them
#     and makes the links) and gone for the removes (devtmpfs deletes a node
#     before its remove event; capi-devd removes the links).  The events go
#     through a FIFO, a round at a time; between the halves of a round the
#     script deletes or copies back the nodes, as devtmpfs would, once
#     capi-devd has done the half.  Timed by capi-devd's own CPU time
#     (/proc/PID/schedstat, from the end of the first round to the end), so
#     the script's work and waits do not count;
#   static tree: one replay of all the rounds into an empty dev; capi-devd
#     also makes every node, sets its group (20, not root's: it must be
#     set) and removes it.  Timed by its CPU time (user + system, bash's
#     time).
# Each against bench/replay-floor, the same names with nothing else (its
# CPU time):
#   links (devtmpfs-like): per add a symlink at a temporary name and a
#     rename, per remove an unlink;
#   nodes (static tree): per add mknod, chgrp and symlink, per remove two
#     unlinks.
# ratio: capi-devd / floor, events/s; it moves with the machine's load.
# Before and after a change: BEFORE=path/to/old/capi-devd RUNS=5 times
# the static tree and its floor, the two binaries in turn in one run, and
# prints each one's median ratio and spread (min-max) and its
# system calls per event.
# syscalls/event: strace -c -f of capi-devd (start-up included) and of
# the floor, on about COUNT_EVENTS events of the same workload: a figure
# that does not move with the load.
set -eu
DEVD=${1:-./capi-devd}
EVENTS=${2:-200000}
COUNT_EVENTS=${COUNT_EVENTS:-20000}
FLOOR=${REPLAY_FLOOR:-$(dirname "$DEVD")/bench/replay-floor}
[ "$(id -u)" = 0 ] || { echo "replay-bench: run as root (mknod, mount)" >&2; exit 1; }
[ -x "$DEVD" ] || { echo "replay-bench: $DEVD is not built (make first)" >&2; exit 1; }
[ -x "$FLOOR" ] || { echo "replay-bench: $FLOOR is not built (make first)" >&2; exit 1; }
command -v strace >/dev/null ||
	{ echo "replay-bench: strace is missing: run ./install-deps.sh" >&2; exit 1; }

W=$(mktemp -d /tmp/capi-devd-bench.XXXXXX)
mount -t tmpfs -o size=512m,mode=0755 capi-bench "$W"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; exec 7>&- 2>/dev/null; wait 2>/dev/null; umount "$W"; rmdir "$W"' EXIT
UNITS=256
rounds_of() { local r=$(( ($1 - 2) / (2 * UNITS) )); echo $((r >= 1 ? r : 1)); }
ROUNDS=$(rounds_of "$EVENTS")
CROUNDS=$(rounds_of "$COUNT_EVENTS")
DEVD_OPTS=(--mode=0660 --tty-major=240)

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
ratio() {	# ratio WORKLOAD EVENTS NS FLOOR-EVENTS FLOOR-NS
	awk -v w="$1" -v a="$(rate "$2" "$3")" -v b="$(rate "$4" "$5")" \
		'BEGIN { printf "replay-bench: %s/floor ratio %.2f (%d / %d events/s)\n", w, a / b, a, b }'
}
cpu_ns() { local a; read -r a _ <"/proc/$1/schedstat"; echo "$a"; }
calls() { awk '$NF == "total" { print $4 }' "$1"; }	# calls STRACE-C-FILE
syscalls() {	# syscalls WORKLOAD CALLS EVENTS FLOOR-CALLS FLOOR-EVENTS
	awk -v w="$1" -v c="$2" -v n="$3" -v fc="$4" -v fn="$5" 'BEGIN {
		a = c / n; b = fc / fn
		printf "replay-bench: %s syscalls/event %.2f, floor %.2f: %.2f x the floor\n", w, a, b, a / b }'
}
applied() {	# applied: the replay's summary says every event was applied
	grep -q "0 ignored, 0 bad" "$W/log" ||
		{ echo "replay-bench: not every event was applied:" >&2; cat "$W/log" >&2; exit 1; }
}
wait_until() {	# wait_until TEST-ARGS...: poll, 1 ms apart, 10 s at most
	local i
	for ((i = 0; i < 10000; i++)); do
		test "$@" && return 0
		sleep 0.001
	done
	echo "replay-bench: capi-devd did not follow (test $*)" >&2
	exit 1
}
floor() {	# floor ROUNDS MODE [WRAPPER...]: "floor: EVENTS events cpu_ns NS ..."
	rm -rf "$W/root" && mkdir -p "$W/root/dev/capi"
	"${@:3}" "$FLOOR" "$W/root/dev" "$1" "$2"
}

# like ROUNDS [WRAPPER...]: the devtmpfs-like replay, through a FIFO; sets
# c0 and c1, capi-devd's CPU time after round 0 and at the end (without a
# wrapper).  The nodes as devtmpfs would have made them are kept aside to
# copy back for each round.
like() {
	local rounds=$1 last=$W/root/dev/capi20.$((UNITS - 1)) r
	rm -rf "$W/root" "$W/fifo" && mkdir -p "$W/root/dev"
	mknod "$W/root/dev/capi20" c 68 0
	mkfifo "$W/fifo"
	"${@:2}" "$DEVD" --root="$W/root" --group=0 "${DEVD_OPTS[@]}" \
		--replay="$W/fifo" 2>"$W/log" &
	pid=$!
	exec 7>"$W/fifo"
	ctl add >&7
	for ((r = 0; r <= rounds; r++)); do
		cp -a "$W/nodes/capi" "$W/root/dev/"
		cat "$W/adds" >&7
		wait_until -L "$last"
		rm -rf "$W/root/dev/capi"
		cat "$W/removes" >&7
		wait_until ! -L "$last"
		# Round 0 warms up (start-up, first allocation of everything).
		[ $# -gt 1 ] || [ $r != 0 ] || c0=$(cpu_ns $pid)
	done
	[ $# -gt 1 ] || c1=$(cpu_ns $pid)
	ctl remove >&7
	exec 7>&-
	wait $pid
	pid=
	applied
}

# static ROUNDS [WRAPPER...]: the static-tree replay; sets ns, its CPU time.
static() {
	local t
	{
		ctl add
		for ((r = 0; r < $1; r++)); do cat "$W/adds" "$W/removes"; done
		ctl remove
	} >"$W/events"
	rm -rf "$W/root" && mkdir -p "$W/root/dev"
	t=$( { TIMEFORMAT='%3U %3S'; time "${@:2}" "${BIN:-$DEVD}" --root="$W/root" \
		--group=20 "${DEVD_OPTS[@]}" --replay="$W/events" 2>"$W/log"; } 2>&1 )
	applied
	ns=$(awk -v u="${t% *}" -v s="${t#* }" 'BEGIN { printf "%.0f", (u + s) * 1e9 }')
}

echo "capi-devd replay benchmark: tmpfs root, $(nproc) CPU(s), $(uname -r)"
mkdir -p "$W/nodes/capi"
for ((n = 0; n < UNITS; n++)); do mknod -m 0660 "$W/nodes/capi/$n" c 240 $n; done
STRACE=(strace -c -f -o "$W/strace")

like "$ROUNDS"
n_like=$((2 * UNITS * ROUNDS))
ns_like=$((c1 - c0))
report "devtmpfs-like (cpu time)" $n_like $ns_like
read -r _ n_floor _ _ ns_floor _ < <(floor "$ROUNDS" links)
report "floor, links (cpu time)" "$n_floor" "$ns_floor"
ratio devtmpfs-like $n_like $ns_like "$n_floor" "$ns_floor"
like "$CROUNDS" "${STRACE[@]}"
c_like=$(calls "$W/strace")
floor "$CROUNDS" links "${STRACE[@]}" >/dev/null
syscalls devtmpfs-like "$c_like" $((2 * UNITS * (CROUNDS + 1) + 2)) \
	"$(calls "$W/strace")" $((2 * UNITS * CROUNDS))

static "$ROUNDS"
n_static=$((2 * UNITS * ROUNDS + 2))
ns_static=$ns
report "static tree (cpu time)" $n_static "$ns_static"
read -r _ n_floor _ _ ns_floor _ < <(floor "$ROUNDS" nodes)
report "floor, nodes (cpu time)" "$n_floor" "$ns_floor"
ratio static-tree $n_static "$ns_static" "$n_floor" "$ns_floor"
static "$CROUNDS" "${STRACE[@]}"
c_static=$(calls "$W/strace")
floor "$CROUNDS" nodes "${STRACE[@]}" >/dev/null
syscalls static-tree "$c_static" $((2 * UNITS * CROUNDS + 2)) \
	"$(calls "$W/strace")" $((2 * UNITS * CROUNDS))

# Before and after, in one run: RUNS rounds, each the static tree of
# every binary in turn, each against the floor measured right after it.
[ -n "${BEFORE:-}" ] || [ "${RUNS:-1}" -gt 1 ] || exit 0
[ -z "${BEFORE:-}" ] || [ -x "$BEFORE" ] ||
	{ echo "replay-bench: BEFORE=$BEFORE is not an executable" >&2; exit 1; }
declare -A ratios
bins=(${BEFORE:+"$BEFORE"} "$DEVD")
for ((run = 0; run < ${RUNS:-1}; run++)); do
	for BIN in "${bins[@]}"; do
		static "$ROUNDS"
		read -r _ n_floor _ _ ns_floor _ < <(floor "$ROUNDS" nodes)
		ratios[$BIN]+="$(awk -v a="$(rate $n_static "$ns")" -v b="$(rate "$n_floor" "$ns_floor")" \
			'BEGIN { printf "%.3f ", a / b }')"
	done
done
for BIN in "${bins[@]}"; do
	static "$CROUNDS" "${STRACE[@]}"
	# shellcheck disable=SC2086 # the ratios, one word each
	printf '%s\n' ${ratios[$BIN]} | sort -n | awk -v bin="$BIN" \
		-v c="$(calls "$W/strace")" -v n=$((2 * UNITS * CROUNDS + 2)) '
		{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "replay-bench: %s: static-tree/floor ratio median %.2f, spread %.2f-%.2f (%d runs); %.2f syscalls/event\n",
				bin, m, v[1], v[NR], NR, c / n }'
done
