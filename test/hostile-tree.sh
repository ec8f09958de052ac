#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree as root may leave it (issue 28): a kept directory moved out of
# the dev root (break 2), a dev root that is not devtmpfs with a stale
# capi/N of ours (break 3), a node hard-linked elsewhere and one with a
# non-root owner (break 6).  The dev root here is root's, 0755: capi-devd
# takes its direct path and keeps capi/ open between events.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

gone() { ! kill -0 "$1" 2>/dev/null; }
chmod 0755 "$ROOT" "$ROOT/dev"
replay_fifo() {	# capi-devd replays $ROOT/fifo in the background; fd 3 feeds it
	rm -f "$ROOT/fifo"
	mkfifo "$ROOT/fifo"
	devd_bg --replay="$ROOT/fifo"
	exec 3>"$ROOT/fifo"
}
replay_end() {
	exec 3>&-
	wait_for 10 gone "$pid" || kill -KILL "$pid"
	wait "$pid"
}

# Break 2: capi/ renamed out of the dev root between two events.
replay_fifo
ev add capi/0 240 0 >&3
ev add capi/1 240 1 >&3
check "ttys 0 and 1: their nodes are made in capi/ (kept open since)" \
	wait_for 10 test -c "$ROOT/dev/capi/1"
mv "$ROOT/dev/capi" "$ROOT/moved"
ev add capi/2 240 2 >&3
check "tty 2 after capi/ moved: its node is in the dev root's capi/" \
	wait_for 10 test -c "$ROOT/dev/capi/2"
check "and not in the moved directory" test ! -e "$ROOT/moved/2"
ev remove capi/1 240 1 >&3
ev add capi/3 240 3 >&3
wait_for 10 test -c "$ROOT/dev/capi/3"
check "a remove of tty 1 leaves the moved directory's node alone" test -c "$ROOT/moved/1"
replay_end
rm -rf "$ROOT/moved"
fresh_dev
chmod 0755 "$ROOT/dev"

# Break 6: a node hard-linked elsewhere is not ours: no chgrp, no chmod.
mkdir -p "$ROOT/dev/capi"
mknod -m 0600 "$ROOT/dev/capi/4" c 240 4
ln "$ROOT/dev/capi/4" "$ROOT/elsewhere"
ev add capi/4 240 4 >"$ROOT/ev"
replay "$ROOT/ev"
check "a hard-linked node keeps its mode and group ($(stat -c '%a %g' "$ROOT/elsewhere"))" \
	test "$(stat -c '%a %g' "$ROOT/elsewhere")" = "600 0"
log_has "capi/4 is char 240:4 with 2 hard links, not ours: left alone" "the hard link is refused"
rm -f "$ROOT/elsewhere"
fresh_dev
chmod 0755 "$ROOT/dev"

# Break 6: a node of ours with a non-root owner gets root as owner.
mkdir -p "$ROOT/dev/capi"
mknod -m 0660 "$ROOT/dev/capi/5" c 240 5
chown 1000:"$GID" "$ROOT/dev/capi/5"
ev add capi/5 240 5 >"$ROOT/ev"
replay "$ROOT/ev"
check "a node owned by uid 1000 is root's now ($(stat -c %u "$ROOT/dev/capi/5"))" \
	test "$(stat -c %u "$ROOT/dev/capi/5")" = 0

# Break 3: a rescan on a dev root that is not devtmpfs sweeps a capi/N
# node of ours whose tty is gone; the unit back on another major then
# gets its node.  A node that is not ours (another group) stays.
fresh_sys
chmod 0755 "$ROOT/dev"
proc_devices 240 'capi!'
sysdev tty 'capi!7' 240 7 capi/7
devd_bg --source=kernel --no-modprobe
check "tty 7 on major 240: its node is made" wait_for 10 test -c "$ROOT/dev/capi/7"
mknod -m 0600 "$ROOT/dev/capi/8" c 240 8
rm -rf "$ROOT/sys/class/tty/capi!7"
kill -HUP "$pid"
check "SIGHUP after tty 7 went: the stale capi/7 is swept" \
	wait_for 10 test ! -e "$ROOT/dev/capi/7"
check "capi/8, not made by capi-devd (mode 0600), stays" test -c "$ROOT/dev/capi/8"
proc_devices 242 'capi!'	# the driver, reloaded, has another major
sysdev tty 'capi!7' 242 7 capi/7
kill -HUP "$pid"
# (a function: wait_for must read the node again on each try)
capi7_is_242_7() { test "$(stat -c '%t:%T' "$ROOT/dev/capi/7" 2>/dev/null)" = f2:7; }
check "tty 7 back on major 242: its node is char 242:7" wait_for 10 capi7_is_242_7
kill -TERM "$pid"
wait_for 10 gone "$pid" || kill -KILL "$pid"
wait "$pid"
log_has "removed stale node $ROOT/dev/capi/7 \(char 240:7\)" "the sweep is logged"

# Break 6: the dev root itself renamed away and a new one made at its
# name: the next rescan works on the new one, and says so.
fresh_sys
chmod 0755 "$ROOT/dev"
proc_devices 240 'capi!'
sysdev capi capi20 68 0 capi20
sysdev tty 'capi!1' 240 1 capi/1
devd_bg --source=kernel --no-modprobe
check "start: capi20.01 is made" wait_for 10 test -L "$ROOT/dev/capi20.01"
mv "$ROOT/dev" "$ROOT/dev.old"
mkdir -m 0755 "$ROOT/dev"
kill -HUP "$pid"
check "SIGHUP after the dev root was replaced: capi20.01 is in the new one" \
	wait_for 10 test -L "$ROOT/dev/capi20.01"
kill -TERM "$pid"
wait_for 10 gone "$pid" || kill -KILL "$pid"
wait "$pid"
log_has "$ROOT/dev is no longer the directory capi-devd opened" "the replacement is logged"
rm -rf "$ROOT/dev.old"
done_testing
