#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Safety that costs little: where only root can write the dev root, an
# event costs at most 4.5 system calls (issue 42; the floor: per add
# mknod, chgrp and symlink, per remove two unlinks, 2.5 per event), the
# fixes of issue 42 included: what a node is born with is checked once per
# directory, not per event.  Counted by
# strace -c, a figure that does not move with the machine's load; the
# start-up's calls count too.  The careful path is kept where someone
# else can write (test/race.sh).
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

need strace strace
UNITS=128 ROUNDS=8
for ((r = 0; r < ROUNDS; r++)); do
	for ((n = 0; n < UNITS; n++)); do ev add "capi/$n" 240 "$n"; done
	for ((n = 0; n < UNITS; n++)); do ev remove "capi/$n" 240 "$n"; done
done >"$ROOT/events"
events=$((2 * UNITS * ROUNDS))

# A static tree that only root can write: capi-devd makes every node.
chmod 0755 "$ROOT/dev"
strace -c -f -o "$ROOT/strace" "${DEVD[@]}" --replay="$ROOT/events" 2>"$LOG"
log_has "replayed $events event\(s\): 0 ignored, 0 bad" "all $events events applied"
left=$(find "$ROOT/dev" -mindepth 1)
check "every node and link made was removed again" test -z "$left" || diag <<<"$left"
calls=$(awk '$NF == "total" { print $4 }' "$ROOT/strace")
per=$(awk -v c="$calls" -v n="$events" 'BEGIN { printf "%.2f", c / n }')
check "root-only static tree: $per system calls per event, at most 4.5" \
	awk -v c="$calls" -v n="$events" 'BEGIN { exit !(c <= 4.5 * n) }' ||
	sort -k4 -n -r "$ROOT/strace" | head -12 | diag

done_testing
