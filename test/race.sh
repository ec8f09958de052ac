#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A hostile dev root: an unprivileged user (nobody) who owns the root swaps
# names while capi-devd replays events into it.  Nothing outside the root
# may change (no mode, owner, link or file), and nothing that is not ours
# may be deleted or end up at one of our names.
# Bounded: each scenario replays a fixed number of events against a
# swapper that stops after at most SWAP_MS; the whole test takes seconds.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

: "${RACE_SWAP:?run through make check, or set RACE_SWAP to test/race-swap}"
need setpriv util-linux
# Debian's base-passwd makes both.
users() { id nobody >/dev/null 2>&1 && getent group nogroup >/dev/null; }
check "the user nobody and the group nogroup exist (base-passwd)" users || done_testing

# Each scenario races K names, PER at a time (a swapper flips each of a
# few names every few microseconds, so the daemon's window is hit often).
# CAPI_RACE_UNITS sets K (a multiple of PER): make check-quick takes 20,
# make check the full 100.
K=${CAPI_RACE_UNITS:-100}
PER=5
case "$K" in *[!0-9]*|"") K=100 ;; esac
[ $((K % PER)) = 0 ] && [ "$K" -gt 0 ] || K=100
SWAP_MS=5000		# upper bound of each swapper's run

chmod 0755 "$ROOT"
install -m 0755 "$RACE_SWAP" "$ROOT/race-swap"	# reachable for nobody

# scratch NAME: a root owned by nobody, and victims outside it, mode 0600.
scratch() {
	R=$ROOT/$1
	mkdir -p "$R/dev" "$R/sys" "$R/outside"
	chown nobody:nogroup "$R/dev"
	for n in $(seq 0 $((K - 1))); do
		echo "victim $n" >"$R/outside/v$n"
		chmod 0600 "$R/outside/v$n"
	done
	ln -s v0 "$R/outside/vlink"
	mkdir -m 0700 "$R/outside/vdir"
	outside >"$R/outside.before"
}
# A file the scenario needs, checked: a failed write (a full disk) must
# not pass for a file the daemon lost.  Runs where stdout is the events.
precious() {	# precious FILE UNIT
	printf 'precious %s\n' "$2" >"$1" && [ -s "$1" ] && return 0
	echo "race.sh: setup: cannot write $1" >&2
	df -h "$ROOT" >&2
	exit 1
}
# Everything about the victims: type, mode, owner, links, size, content.
outside() {
	(cd "$R/outside" && find . -printf '%y %m %U:%G %n %s %P -> %l\n' | sort &&
	 cat v[0-9]*)
}
swap_start() {	# swap_start DIR NAME:PARK[:BAIT]...
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$ROOT/race-swap" "$1" "$SWAP_MS" "${@:2}" >"$R/swaps" &
	spid=$!
	for _ in $(seq 500); do grep -q ready "$R/swaps" && break; sleep 0.01; done
}
# The swapper waits for this kill after its time is up (race-swap.c): its
# pid cannot have gone to another process yet.
swap_stop() { kill -TERM "$spid"; wait "$spid"; }
race_devd() {	# race_devd EVENTS [OPTIONS]: replay into $R
	"$CAPI_DEVD" --root="$R" --group="$GID" --mode=0660 --replay="$1" "${@:2}" 2>>"$R/log"
}
# rounds SETUP [OPTIONS]: for each round of PER units U, call SETUP U,
# which adds to pairs[] and writes the events for U to stdout; race those
# events, replayed REP times, against a swapper of those pairs.  Then,
# ARM - 1 times, with the swapper stopped, call SETUP_rearm to undo what
# the daemon did, and race again.  With ARM > 1, what the daemon did is
# counted into $made by SETUP_made before each undo and at the end, with
# the swapper stopped: nothing at these names changes under us, and the
# test shows that the daemon did something.
rounds() {
	local setup=$1 first u r a
	shift
	made=0
	for ((first = 0; first < K; first += PER)); do
		pairs=()
		for ((u = first; u < first + PER; u++)); do $setup "$u" >"$R/ev.$u"; done
		for ((r = 0; r < REP; r++)); do
			for ((u = first; u < first + PER; u++)); do cat "$R/ev.$u"; done
		done >"$R/ev"
		for ((a = 0; a < ${ARM:-1}; a++)); do
			if [ $a != 0 ]; then
				made=$((made + $("${setup}_made")))
				"${setup}_rearm"
			fi
			swap_start "$R/dev" "${pairs[@]}"
			race_devd "$R/ev" "$@"
			swap_stop
		done
	done
	[ "${ARM:-1}" = 1 ] || made=$((made + $("${setup}_made")))
}
outside_unchanged() {	# outside_unchanged WHAT
	local changed
	changed=$(outside | diff "$R/outside.before" - | grep -c '^>')
	if [ "$changed" = 0 ]; then
		pass "$1: nothing outside the root changed"
	else
		fail "$1: nothing outside the root changed ($changed entries differ)"
		outside | diff "$R/outside.before" - | head -20 | diag
	fi
}
# Every regular file the swapper raced is still somewhere in the root.
files_kept() {	# files_kept WHAT
	local kept
	kept=$(find "$R/dev" -type f -exec cat {} + | grep -c '^precious ')
	if [ "$kept" = "$K" ]; then
		pass "$1: all $K raced regular files are kept"
	else
		fail "$1: all $K raced regular files are kept (only $kept)"
		{ echo "what is left in the dev root, by type:"
		  find "$R/dev" -mindepth 1 -printf '%y\n' | sort | uniq -c
		  find "$R/dev" -mindepth 1 -printf '%y %s %P -> %l\n' | head -20
		  df -h "$R"
		  echo "the daemon's last warnings:"; tail -20 "$R/log"; } | diag
	fi
}

# Item 1: group and mode of an existing node (devtmpfs makes it 0600) are
# set while the swapper exchanges the node with a symlink to a file
# outside the root.
scratch perms
mkdir "$R/dev/capi" && chown nobody:nogroup "$R/dev/capi"
perms_unit() {
	mknod -m 0600 "$R/dev/capi/$1" c 240 "$1"
	ln -s "$R/outside/v$1" "$R/dev/capi/.p$1"
	pairs+=("capi/$1:capi/.p$1")
	ev add "capi/$1" 240 "$1"
}
perms_unit_made() { find "$R/dev/capi" -type c -perm 0660 -group "$GID" | wc -l; }
perms_unit_rearm() { find "$R/dev/capi" -type c -exec chmod 0600 {} +; }
REP=10 ARM=5 rounds perms_unit
outside_unchanged "chmod and chgrp of raced nodes"
check "chmod and chgrp of raced nodes: $made node(s) got group and mode" test "$made" -gt 0

# Item 1 again in a dev root that only root can write, where capi-devd
# goes straight at the names: capi/, which nobody owns, is checked on its
# own when it is opened, and takes the careful path.
scratch perms-rootdev
chown root:root "$R/dev"
mkdir "$R/dev/capi" && chown nobody:nogroup "$R/dev/capi"
REP=10 ARM=5 rounds perms_unit
outside_unchanged "dev only root writes, capi/ nobody's: chmod and chgrp"
check "dev only root writes, capi/ nobody's: $made node(s) got group and mode" test "$made" -gt 0

# Item 1, after mknod: nothing is at the name, then a symlink to a file
# outside comes and goes.  A mode with a special bit makes the daemon
# chmod after the mknod.
scratch mknod
mkdir "$R/dev/capi" && chown nobody:nogroup "$R/dev/capi"
mknod_unit() {
	ln -s "$R/outside/v$1" "$R/dev/capi/.p$1"
	pairs+=("capi/$1:capi/.p$1")
	ev add "capi/$1" 240 "$1"
}
mknod_unit_made() { find "$R/dev/capi" -type c -perm 2660 -group "$GID" | wc -l; }
mknod_unit_rearm() { find "$R/dev/capi" -type c -delete; }
REP=10 ARM=3 rounds mknod_unit --mode=02660
outside_unchanged "mknod, then chgrp and chmod"
check "mknod, then chgrp and chmod: $made node(s) made" test "$made" -gt 0 ||
	{ find "$R/dev/capi" -printf '%y %m %G %p %l\n' | head -20 | diag; tail -20 "$R/log" | diag; }

# The same in a dev root that only root can write, with a mode the direct
# path would make with mknod alone: capi/ is nobody's, so it is not taken.
scratch mknod-rootdev
chown root:root "$R/dev"
mkdir "$R/dev/capi" && chown nobody:nogroup "$R/dev/capi"
mknod_unit_made() { find "$R/dev/capi" -type c -perm 0660 -group "$GID" | wc -l; }
REP=10 ARM=3 rounds mknod_unit --mode=0660
outside_unchanged "dev only root writes, capi/ nobody's: mknod, then chgrp"
check "dev only root writes, capi/ nobody's: $made node(s) made" test "$made" -gt 0

# Item 4: a remove takes our link; the swapper exchanges it with a regular
# file, and puts the link back whenever it is gone.
scratch unlink
unlink_unit() {
	local nn
	nn=$(printf %02d "$1")
	ln -s "capi/$1" "$R/dev/capi20.$nn"
	precious "$R/dev/.f$nn" "$1"
	pairs+=("capi20.$nn:.f$nn:capi/$1")
	ev remove "capi/$1" 240 "$1"
}
REP=20 rounds unlink_unit
files_kept "remove of a link"
outside_unchanged "remove of a link"

# Item 4: an add replaces our old link (to another unit); the swapper
# exchanges it with a regular file.
scratch link
mkdir "$R/dev/capi"
link_unit() {
	local nn
	nn=$(printf %02d "$1")
	mknod -m 0660 "$R/dev/capi/$1" c 240 "$1"
	chgrp "$GID" "$R/dev/capi/$1"
	ln -s "capi/999$1" "$R/dev/capi20.$nn"
	precious "$R/dev/.f$nn" "$1"
	pairs+=("capi20.$nn:.f$nn")
	ev add "capi/$1" 240 "$1"
}
linked() { find "$R/dev" -maxdepth 1 -lname 'capi/[0-9]*' ! -lname 'capi/999*' "$@"; }
link_unit_made() { linked | wc -l; }
link_unit_rearm() { linked -exec ln -sfn capi/999 {} \;; }
REP=10 ARM=2 rounds link_unit
files_kept "replace of a link"
check "replace of a link: $made link(s) replaced" test "$made" -gt 0

# Item 4: the pre-fix move of /dev/capi (char 68:0) to /dev/capi20; the
# swapper exchanges capi with a symlink to a file outside.  A root of its
# own for each unit: the move happens once per root.
scratch move
chmod 0755 "$R"
ev add capi 68 0 >"$R/ev"
for ((first = 0; first < K; first += PER)); do
	pairs=()
	for ((u = first; u < first + PER; u++)); do
		mkdir -p "$R/r$u/dev" "$R/r$u/sys"
		chown nobody:nogroup "$R/r$u/dev"
		mknod -m 0600 "$R/r$u/dev/capi" c 68 0
		ln -s "$R/outside/v$u" "$R/r$u/dev/.pc"
		pairs+=("r$u/dev/capi:r$u/dev/.pc")
	done
	swap_start "$R" "${pairs[@]}"
	for ((u = first; u < first + PER; u++)); do
		"$CAPI_DEVD" --root="$R/r$u" --group="$GID" --mode=0660 --replay="$R/ev" 2>>"$R/log"
	done
	swap_stop
done
bad=$(find "$R" -path '*/dev/capi20' -type l | wc -l)
check "pre-fix move: no symlink ends up at capi20 ($bad of $K rounds did)" test "$bad" = 0
moved=$(find "$R" -path '*/dev/capi20' -type c | wc -l)
check "pre-fix move: $moved node(s) at capi20" test "$moved" -gt 0
outside_unchanged "pre-fix move"

done_testing
