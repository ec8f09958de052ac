#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# modules.devname is input like any other (issue 28, break 1): capi-devd
# reads ROOT/lib/modules/$(uname -r)/modules.devname for its static node
# without blocking, without following a link out of the root, only from
# a regular file and only so much.  On anything else it logs one line
# and starts without the static node.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

REL="lib/modules/$(uname -r)"
DEVNAME="$ROOT/$REL/modules.devname"
mkdir -p "$ROOT/$REL"
# Start the daemon; it must log its first scan in 5 s; stop it (SIGKILL
# after 5 s more: a daemon that hangs must not hang the test).
start_stop() {	# start_stop LABEL
	devd_bg --source=kernel
	check "$1: capi-devd starts (its first scan is logged)" \
		wait_for 5 grep -q 'start: ' "$LOG" || diag <"$LOG"
	kill -TERM "$pid"
	check "$1: SIGTERM stops it" wait_for 5 gone "$pid" ||
		kill -KILL "$pid"
	wait "$pid" 2>/dev/null
}
gone() { ! kill -0 "$1" 2>/dev/null; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

mkfifo "$DEVNAME"
start_stop "a FIFO at modules.devname"
absent capi20
log_has "no static node: .*modules.devname: not a regular file" "the FIFO is logged"

# An endless file: a symlink to /dev/zero.  Resolved in the root, it
# reaches ROOT/dev/zero: one there is refused as a device, and a link
# that leaves the root is never followed to the host's.
rm "$DEVNAME"
ln -s /dev/zero "$DEVNAME"
mknod "$ROOT/dev/zero" c 1 5
devd_bg --source=kernel
check "a link to /dev/zero: capi-devd starts" wait_for 5 grep -q 'start: ' "$LOG" ||
	diag <"$LOG"
rss=$(rss_kib "$pid" 2>/dev/null || echo 999999)
check "it reads no more than it needs (RSS ${rss} KiB < 16 MiB)" test "${rss:-999999}" -lt 16384
kill -TERM "$pid"
wait_for 5 gone "$pid" || kill -KILL "$pid"
wait "$pid" 2>/dev/null
log_has "no static node: .*modules.devname: " "the link is logged"
absent capi20
rm "$ROOT/dev/zero"

# A regular file outside the root, through a link in lib/: never read.
rm "$DEVNAME"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/capi-devd-out.XXXXXX")
printf 'kernelcapi capi20 c68:0\n' >"$OUT/modules.devname"
ln -s "$OUT/modules.devname" "$DEVNAME"
start_stop "a link to a modules.devname outside the root"
absent capi20
rm -rf "$OUT" "$DEVNAME"

# Too large: a regular file of 64 KiB whose capi20 line comes last.
{ head -c 65536 /dev/zero | tr '\0' '#'; printf '\nkernelcapi capi20 c68:0\n'; } >"$DEVNAME"
start_stop "a modules.devname of 64 KiB"
absent capi20
log_has "no static node: .*modules.devname: larger than 8 KiB" "the size is logged"

# Numbers are not wrapped: 4294967364 is not 68.
printf 'kernelcapi capi20 c4294967364:0\n' >"$DEVNAME"
start_stop "char 4294967364:0"
absent capi20
log_has "lists capi20 as another device" "the number out of range is refused"

# And the file that is right still works.
printf 'kernelcapi capi20 c68:0\n' >"$DEVNAME"
start_stop "a good modules.devname"
is_node capi20 68 0
done_testing
