#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile roots (issue 16, breaks 1-5 and 9): what the daemon trusts
# besides the uevent: the dev root itself, the root's sysfs and
# proc/devices, the kernel's features (statx), /proc/self/mountinfo.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"
: "${NO_STATX:?run through make check, or set NO_STATX}"

fresh() { fresh_sys; proc_devices 240 'capi!' 241 capi; }
# The daemon's start against the root's sysfs, then SIGTERM.
start_stop() {
	devd_bg --source=kernel --no-modprobe
	wait_for 5 grep -q "start:" "$LOG" || diag "no start line"
	kill -TERM "$pid"
	wait "$pid"
}

# --- 1. ROOT/dev is a symlink: refused, nothing made where it points ----
rm -rf "${ROOT:?}/dev"
mkdir "$ROOT/elsewhere"
ln -s elsewhere "$ROOT/dev"
{ ev add capi20 68 0; ev add capi/7 240 7; } >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
rc=$?
check "ROOT/dev a symlink: exit 2" test "$rc" = 2 || diag "exit $rc"
log_has "$ROOT/dev is a symlink: capi-devd writes only in the directory it is given" "ROOT/dev a symlink: the error says so"
check "ROOT/dev a symlink: nothing made where it points" test -z "$(ls -A "$ROOT/elsewhere")" ||
	find "$ROOT/elsewhere" | diag
rm -rf "${ROOT:?}/dev" "$ROOT/elsewhere"
fresh

# --- 2. a live unit whose uevent file cannot be read is not swept ------
# A FIFO and a symlink at uevent; the links and nodes of both units stay,
# and the log names the file and says that nothing was removed.
stale_setup() {
	sysdev capi capi20 68 0 capi20
	sysdev tty 'capi!5' 240 5 capi/5
	sysdev tty 'capi!6' 240 6 capi/6
	mkdir -p "$ROOT/dev/capi"
	mknod "$ROOT/dev/capi/5" c 240 5
	mknod "$ROOT/dev/capi/6" c 240 6
	ln -s capi/5 "$ROOT/dev/capi20.05"
	ln -s capi/6 "$ROOT/dev/capi20.06"
	ln -s capi/9 "$ROOT/dev/capi20.09"		# stale, but no sweep now
}
stale_setup
rm "$ROOT/sys/class/tty/capi!5/uevent"
mkfifo "$ROOT/sys/class/tty/capi!5/uevent"
mv "$ROOT/sys/class/tty/capi!6/uevent" "$ROOT/sys/class/tty/capi!6/real"
ln -s real "$ROOT/sys/class/tty/capi!6/uevent"
start_stop
is_link capi20.05 capi/5
is_link capi20.06 capi/6
check "the node capi/5 stays" test -c "$ROOT/dev/capi/5"
is_link capi20.09 capi/9
log_has "sysfs class/tty/capi!5: uevent is not a regular file" "a FIFO at uevent is logged"
log_has "sysfs class/tty/capi!6: uevent cannot be opened: Too many levels of symbolic links" "a symlink at uevent is logged"
log_has "start: 1 control device\(s\), 0 tty\(s\), but the scan of $ROOT/sys was not complete .*: no stale link removed" "the start says nothing was removed, and why"
is_link isdn/capi20 ../capi20
fresh
# A unit whose directory went away (ENOENT) is gone: its link is swept.
stale_setup
rm -r "$ROOT/sys/class/tty/capi!6"
ln -s nowhere "$ROOT/sys/class/tty/capi!6"
start_stop
absent capi20.06
absent capi20.09
is_link capi20.05 capi/5
fresh

# --- 3. no statx(STATX_MNT_ID): the mount table by device number -------
# A private mount namespace whose /proc is a tmpfs holding only the
# mountinfo the test writes (the dev directory's device named devtmpfs,
# or nothing), and statx failing with ENOSYS.  No real devtmpfs is
# touched.
fake_proc() {	# fake_proc FSTYPE|none: the mountinfo line of ROOT/dev
	local dev
	dev=$(stat -c '%Hd:%Ld' "$ROOT/dev")
	mkdir -p "$ROOT/fakeproc/self"
	if [ "$1" = none ]; then : >"$ROOT/fakeproc/self/mountinfo"
	else printf '1 0 %s / %s rw - %s none rw\n' "$dev" "$ROOT/dev" "$1" >"$ROOT/fakeproc/self/mountinfo"; fi
}
# The fake /proc has no self/fd: the direct path, which needs none, even
# under make check-careful.
nostatx_replay() {	# nostatx_replay FILE: replay with the fake /proc, no statx
	# shellcheck disable=SC2016 # $1 and $@ are the inner shell's
	unshare -m bash -c 'mount -t tmpfs none /proc && cp -r "$1"/fakeproc/self /proc/ && shift && exec "$@"' \
		_ "$ROOT" "$NO_STATX" env -u CAPI_DEVD_TREE "${DEVD[@]}" --replay="$1" 2>"$LOG"
}
need unshare util-linux
check "the seccomp helper runs a command" "$NO_STATX" true
fake_proc devtmpfs
ev add capi/7 240 7 >"$ROOT/add.ev"
ev remove capi/7 240 7 >"$ROOT/remove.ev"
nostatx_replay "$ROOT/add.ev"
absent capi/7
absent capi20.07
log_has "devtmpfs: nodes are the kernel's, told by its device number \(no statx mount ID\)" "devtmpfs told without statx, and logged"
mkdir -p "$ROOT/dev/capi"
mknod -m 0660 "$ROOT/dev/capi/7" c 240 7
chgrp "$GID" "$ROOT/dev/capi/7"
nostatx_replay "$ROOT/add.ev"
is_link capi20.07 capi/7
nostatx_replay "$ROOT/remove.ev"
absent capi20.07
is_node capi/7 240 7
fresh
# Nothing tells: nodes are made, never removed, and the log says so.
fake_proc none
nostatx_replay "$ROOT/add.ev"
is_node capi/7 240 7
is_link capi20.07 capi/7
log_has "warning: cannot tell whether $ROOT/dev is devtmpfs \(no such mount in the mount table\): nodes are made when missing but never removed" "unknown file system: logged"
nostatx_replay "$ROOT/remove.ev"
absent capi20.07
is_node capi/7 240 7
rm -rf "${ROOT:?}/fakeproc"
fresh

# --- 4. proc/devices naming the tty driver at a fixed major -------------
proc_devices 1 'capi!' 8 capi
{ ev add capi/1 1 1; ev add capi8 8 8; } >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
check "capi! at major 1, capi at 8 in proc/devices: no node made" test -z "$(tree)" || tree | diag
log_has "bad record: CAPI tty driver's major unknown \(no \"capi!\"" "a fixed major in proc/devices is not the driver's"
# The old fixed major of pre-fix kernels, 191, is the driver's.
proc_devices 191 capi
ev add capi3 191 3 >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
is_link capi/3 ../capi3
fresh

# --- 5. a sysfs uevent file cannot override the scanner's keys ----------
sysdev capi capi20 68 0 capi20
sysdev tty 'capi!5' 240 5 capi/5
printf 'ACTION=remove\nSUBSYSTEM=tty\nDEVPATH=/x\n' >>"$ROOT/sys/class/tty/capi!5/uevent"
printf 'ACTION=remove\n' >>"$ROOT/sys/class/capi/capi20/uevent"
mkdir -p "$ROOT/dev/capi" "$ROOT/dev/isdn"
mknod "$ROOT/dev/capi20" c 68 0
mknod "$ROOT/dev/capi/5" c 240 5
ln -s capi/5 "$ROOT/dev/capi20.05"
ln -s ../capi20 "$ROOT/dev/isdn/capi20"
start_stop
is_link capi20.05 capi/5
is_node capi/5 240 5
is_link isdn/capi20 ../capi20
log_has "start: 1 control device\(s\), 1 tty\(s\), 0 stale link\(s\) removed" "ACTION=remove in sysfs: the unit is live"
fresh

# --- 9. a NUL byte in a key refuses the record -------------------------
printf 'ACTION=add\nDEVPATH=/devices/virtual/tty/capi!7\nSUBSYSTEM=tty\nMAJOR=240\nMINOR=7\nDEVNAME=capi/7\nDEVNAME\0=capi/../../x\n\n' >"$ROOT/in.ev"
devd --replay="$ROOT/in.ev"
check "DEVNAME\\0=...: nothing made" test -z "$(tree)" || tree | diag
log_has "bad record: NUL byte in a property" "DEVNAME\\0=...: refused, and says why"

done_testing
