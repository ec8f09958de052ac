#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Ownership: what stands at one of our names and is not ours is left
# alone with a warning naming it; nothing is made outside the dev root.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

echo precious >"$ROOT/dev/capi20.05"
ln -s /dev/ttyS0 "$ROOT/dev/capi20.06"
mkdir "$ROOT/dev/capi20.07"
mkfifo "$ROOT/dev/capi20.08"
ln -s capi/99 "$ROOT/dev/capi20.09"		# our shape, wrong unit: ours to fix
mkdir -p "$ROOT/outside"
ln -s ../outside "$ROOT/dev/isdn"		# escape attempt through a symlinked directory
{
	ev add capi20 68 0
	for n in 5 6 7 8 9; do ev add "capi/$n" 240 "$n"; done
} | devd --replay=-

if [ "$(cat "$ROOT/dev/capi20.05")" = precious ]; then pass "a regular file is kept"
else fail "a regular file is kept"; fi
is_link capi20.06 /dev/ttyS0
is_dir capi20.07
if [ -p "$ROOT/dev/capi20.08" ]; then pass "a FIFO is kept"; else fail "a FIFO is kept"; fi
is_link capi20.09 capi/9
if [ -z "$(ls -A "$ROOT/outside")" ]; then pass "nothing made through the isdn symlink"
else fail "nothing made through the isdn symlink"; ls -la "$ROOT/outside" | diag; fi
is_link isdn ../outside
log_has "$ROOT/dev/capi20.05 is a regular file, not ours: left alone" "warns about the file, by path"
log_has "$ROOT/dev/capi20.06 is a symlink to \"/dev/ttyS0\", not ours: left alone" "warns about the foreign symlink"
log_has "$ROOT/dev/capi20.07 is a directory, not ours" "warns about the directory"
log_has "$ROOT/dev/isdn is not a directory, not ours" "warns about the symlinked directory"

# Removes take only our own link to this very device.
{ for n in 5 6 7 8; do ev remove "capi/$n" 240 "$n"; done; } | devd --replay=-
if [ -f "$ROOT/dev/capi20.05" ]; then pass "remove keeps the file"; else fail "remove keeps the file"; fi
is_link capi20.06 /dev/ttyS0
ln -sfn capi/10 "$ROOT/dev/capi20.09"
{ ev remove capi/9 240 9; } | devd --replay=-
is_link capi20.09 capi/10

# A foreign file where a node belongs: no link is pointed at it.
fresh_dev "$ROOT/dev/capi"
echo junk >"$ROOT/dev/capi/3"
{ ev add capi/3 240 3; } | devd --replay=-
absent capi20.03
log_has "$ROOT/dev/capi/3 is a regular file, not ours" "warns about the file at the node's name"

# capi/ is a symlink out of the dev root, with the right node behind it:
# still not ours, and no link is pointed through it.
rm -rf "${ROOT:?}/outside" && fresh_dev "$ROOT/outside"
mknod -m 0660 "$ROOT/outside/3" c 240 3
chgrp "$GID" "$ROOT/outside/3"
ln -s ../outside "$ROOT/dev/capi"
{ ev add capi/3 240 3; } | devd --replay=-
absent capi20.03
log_has "$ROOT/dev/capi is not a directory, not ours" "a symlinked capi/ is refused"

# A leftover temporary name from a crash does not stop us.
fresh_dev
ln -s junk "$ROOT/dev/.#capi-devd.capi20.02"
{ ev add capi/2 240 2; } | devd --replay=-
is_link capi20.02 capi/2

# A long foreign symlink is not ours, even when the start of its target
# looks like one of ours: a truncated read is never ours.
fresh_dev "$ROOT/dev/capi"
long=capi/123456789012345678901234567/../../../../victim
ln -s "$long" "$ROOT/dev/capi20.07"
longer=capi/$(printf '%0300d' 7)
ln -s "$longer" "$ROOT/dev/capi20.08"
prefix_long=../capi1234567890123456789012345/../../victim
ln -s "$prefix_long" "$ROOT/dev/capi/9"
{ ev add capi/7 240 7; ev add capi/8 240 8; ev add capi9 241 9; } | devd --replay=-
is_link capi20.07 "$long"
is_link capi20.08 "$longer"
is_link capi/9 "$prefix_long"
log_has "$ROOT/dev/capi20.07 is a symlink to \"$long\", not ours: left alone" \
	"warns about the long foreign symlink, with its whole target"
log_has "$ROOT/dev/capi20.08 is a symlink to \"capi/0+\"\.\.\., not ours" \
	"warns about the symlink too long to read whole"
log_has "$ROOT/dev/capi/9 is a symlink to \"$prefix_long\", not ours" \
	"warns about the long foreign symlink in capi/"

# Without /proc a mode cannot be set through the checked descriptor: in
# a dev root that someone other than root can write, none is set (not by
# name either), and the reason is logged.  Where only root writes, nobody
# can swap the node: the mode is set by name (the direct path, even under
# make check-careful).
need unshare util-linux
no_proc_devd() {
	unshare --mount --propagation private sh -c 'umount -l /proc && exec "$@"' sh \
		env -u CAPI_DEVD_TREE "$CAPI_DEVD" --root="$ROOT" --group="$GID" --mode=0660 \
		--replay="$ROOT/ctl.ev" 2>"$LOG"
}
ev add capi20 68 0 >"$ROOT/ctl.ev"
if id nobody >/dev/null 2>&1; then
	fresh_dev
	chown nobody "$ROOT/dev"
	mknod -m 0600 "$ROOT/dev/capi20" c 68 0
	no_proc_devd
	if [ "$(stat -c %a "$ROOT/dev/capi20")" = 600 ]; then pass "without /proc, dev owned by nobody: no chmod"
	else fail "without /proc, dev owned by nobody: no chmod"; fi
	log_has "cannot chmod $ROOT/dev/capi20: /proc is not mounted" "without /proc: the reason is logged"
else
	fail "the user nobody exists (base-passwd)"
fi
fresh_dev
mknod -m 0600 "$ROOT/dev/capi20" c 68 0
no_proc_devd
if [ "$(stat -c %a:%g "$ROOT/dev/capi20")" = "660:$GID" ]; then pass "without /proc, dev only root writes: mode and group set"
else fail "without /proc, dev only root writes: mode and group set"; fi

# Temporary names: a file at a name of their old shape is not ours.
fresh_dev
echo precious >"$ROOT/dev/.#capi-devd.capi20.02"
{ ev add capi/2 240 2; } | devd --replay=-
is_link capi20.02 capi/2
if [ "$(cat "$ROOT/dev/.#capi-devd.capi20.02" 2>/dev/null)" = precious ]; then
	pass "a regular file at an old-style temporary name is kept"
else fail "a regular file at an old-style temporary name is kept"; fi

# They are .#capi-devd.PID.RANDOM.NAME: another in each process, used for
# making and for removing a link, and none is left behind.
: "${WATCH_NAMES:?run through make check, or set WATCH_NAMES to test/watch-names}"
fresh_dev
"$WATCH_NAMES" "$ROOT/dev" 5000 >"$ROOT/names" &
wpid=$!
watching() { grep -q ready "$ROOT/names"; }
wait_for 5 watching
# A link made where nothing is needs no temporary name (see below); an
# old link of ours replaced and a link removed each use one.
for _ in 1 2; do
	ln -sfn capi/9 "$ROOT/dev/capi20.02"
	{ ev add capi/2 240 2; ev remove capi/2 240 2; } | devd --replay=-
done
ev add capi/3 240 3 | devd --replay=-
sleep 0.2
kill "$wpid"; wait "$wpid"
tmps=$(grep '^\.#' "$ROOT/names" | sort -u)
shaped=$(grep -Ec '^\.#capi-devd\.[1-9][0-9]*\.[0-9a-f]{16}\.capi20\.02$' <<<"$tmps")
if [ -n "$tmps" ] && [ "$shaped" = "$(wc -l <<<"$tmps")" ]; then
	pass "temporary names are .#capi-devd.PID.RANDOM.NAME"
else fail "temporary names are .#capi-devd.PID.RANDOM.NAME"; diag <<<"$tmps"; fi
# Two processes, two names; each used for the swap with the old link and
# for moving the link aside to remove it.  inotify merges an event that
# repeats the one before it, so a name shows 2 or 3 times, never once.
once=$(grep '^\.#' "$ROOT/names" | sort | uniq -c | awk '$1 < 2' | wc -l)
if [ "$shaped" = 2 ] && [ "$once" = 0 ]; then
	pass "each process has its own temporary names, for links replaced and removed"
else fail "each process has its own temporary names, for links replaced and removed"; diag <"$ROOT/names"; fi
check "a link made where nothing was is made in place, without a temporary name" \
	not grep -q '^\.#.*capi20\.03$' "$ROOT/names"
is_link capi20.03 capi/3
left=$(find "$ROOT/dev" -mindepth 1 -maxdepth 1 -name '.#*')
check "no temporary name is left" test -z "$left" || ls -A "$ROOT/dev" | diag

done_testing
