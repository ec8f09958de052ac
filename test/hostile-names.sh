#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Names lost or kept wrongly, and a record that hid a refused value
# (issue 42, breaks 3 to 7).
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

# start_stop [OPTION]...: the daemon's start rescan, then SIGTERM.
start_stop() {
	devd_bg --no-modprobe "$@"
	wait_for 5 grep -q "start:" "$LOG" || diag "no start line"
	kill -TERM "$pid"
	wait "$pid"
}

# --- break 3: a remove takes a link only when it points at its device ---
# tty 7 is live at 240:7; a remove of capi/7 at 241:7 (or of the pre-fix
# capi7 at 241:7) is of another device: the live tty keeps every name.
for mode in 0755 1777; do
	fresh_dev
	chmod "$mode" "$ROOT/dev"
	{ ev add capi/7 240 7; ev remove capi/7 241 7; } >"$ROOT/ev"
	replay "$ROOT/ev"
	is_node capi/7 240 7
	is_link capi20.07 capi/7
	ev remove capi7 241 7 >"$ROOT/ev"
	replay "$ROOT/ev"
	is_node capi/7 240 7
	is_link capi20.07 capi/7
	# The remove of the device itself still takes both.
	ev remove capi/7 240 7 >"$ROOT/ev"
	replay "$ROOT/ev"
	absent capi20.07
	absent capi/7
done
# A pre-fix tree alone: capi7 at 241:7, and a remove of capi7 at 242:7.
fresh_dev
chmod 0755 "$ROOT/dev"
{ ev add capi7 241 7; ev remove capi7 242 7; } >"$ROOT/ev"
replay "$ROOT/ev"
is_node capi7 241 7
is_link capi/7 ../capi7
is_link capi20.07 capi/7

# --- break 4: a refused sysfs record leaves what exists alone ----------
fresh_sys
chmod 0755 "$ROOT/dev"
sysdev tty 'capi!7' 240 7 capi/7
printf 'MAJOR=240\nMINOR=7\nDEVNAME=capi/7\nX=%02000d\n' 0 >"$ROOT/sys/class/tty/capi!7/uevent"
mkdir -p "$ROOT/dev/capi"
mknod -m 0660 "$ROOT/dev/capi/7" c 240 7
chgrp "$GID" "$ROOT/dev/capi/7"
ln -s capi/7 "$ROOT/dev/capi20.07"
start_stop --source=kernel
is_node capi/7 240 7
is_link capi20.07 capi/7
log_has "sysfs class/tty/capi!7: over-long property value" "the refused record is logged"
log_has "scan of $ROOT/sys was not complete" "the start says the scan was not complete"

# --- break 5: our own node, left at the major the driver had -----------
# The CAPI tty driver came back at 242 while capi-devd was down; 240 is
# another driver's now.  capi/7 at 240:7 is ours (root, our group and
# mode, one link): it is replaced.  One that is not ours stays.
fresh_sys
chmod 0755 "$ROOT/dev"
proc_devices 240 other 242 'capi!'
sysdev tty 'capi!7' 242 7 capi/7
sysdev tty 'capi!8' 242 8 capi/8
mkdir -p "$ROOT/dev/capi"
mknod -m 0660 "$ROOT/dev/capi/7" c 240 7
chgrp "$GID" "$ROOT/dev/capi/7"
ln -s capi/7 "$ROOT/dev/capi20.07"
mknod -m 0600 "$ROOT/dev/capi/8" c 240 8
start_stop --source=kernel
is_node capi/7 242 7
is_link capi20.07 capi/7
log_has "removed $ROOT/dev/capi/7 \(char 240:7\): ours" "the replacement is logged"
check "capi/8 at 240:8, mode 0600, not ours: stays" \
	test "$(stat -c '%t:%T %a' "$ROOT/dev/capi/8")" = "f0:8 600"
proc_devices 240 'capi!' 241 capi

# --- break 6: with udevd, the rules' capi/N is never swept --------------
fresh_sys
chmod 0755 "$ROOT/dev"
mkdir -p "$ROOT/dev/capi"
mknod -m 0660 "$ROOT/dev/capi/7" c 240 7
chgrp "$GID" "$ROOT/dev/capi/7"
start_stop --source=udev
is_node capi/7 240 7

# --- break 7: a repeated key refuses the record, counted bad ------------
fresh_dev
for dup in 'DEVNAME=../x' 'DEVNAME=/capi/7' 'MAJOR=1' 'ACTION=frob'; do
	{
		printf 'ACTION=add\nDEVPATH=/devices/virtual/tty/capi!7\nSUBSYSTEM=tty\n'
		printf '%s\n' "$dup"
		printf 'MAJOR=240\nMINOR=7\nDEVNAME=capi/7\n'
		case $dup in ACTION=*) printf 'ACTION=add\n' ;; esac
		echo
	} >"$ROOT/ev"
	replay "$ROOT/ev"
	check "$dup, then a harmless one: nothing made" test -z "$(tree)" || tree | diag
	log_has "replayed 0 event\(s\): 0 ignored, 1 bad" "$dup given twice: counted bad"
done

done_testing
