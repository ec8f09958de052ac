#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The static /dev/capi20 at start-up without udevd (--source=kernel):
# when the running kernel's modules.devname lists capi20 as char 68:0,
# capi-devd gives the node group and mode (kmod-static-nodes made it
# root:root 0600), or makes it when nothing is there; it acts on what it
# checked: a symlink or another device at the name is left alone.  The
# driver is not loaded: sysfs has no CAPI device.  See LOADING ON FIRST
# OPEN in capi-devd(8).
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

DEVNAME_DIR="$ROOT/lib/modules/$(uname -r)"
mkdir -p "$DEVNAME_DIR"
devname() { printf '# Device nodes to trigger on-demand module loading.\n%b' "$*" >"$DEVNAME_DIR/modules.devname"; }
# Start the daemon, wait for its first scan (after the static node), stop it.
start_stop() {	# start_stop LABEL [OPTIONS]
	local label=$1
	shift
	devd_bg --source=kernel "$@"
	check "$label: capi-devd starts" wait_for 5 grep -q 'start: ' "$LOG" || diag <"$LOG"
	kill -TERM "$pid"
	wait "$pid"
}
state() { stat -c '%F %t:%T %a %g' "$ROOT/dev/capi20" 2>&1; }
devname 'kernelcapi capi20 c68:0\nfuse fuse c10:229\n'

mknod -m 0600 "$ROOT/dev/capi20" c 68 0
chgrp 0 "$ROOT/dev/capi20"
start_stop "root:root 0600, as kmod-static-nodes makes it"
is_node capi20 68 0
log_has "static node $ROOT/dev/capi20: group $GID, mode 0660" "the change is logged"

rm "$ROOT/dev/capi20"
start_stop "no node"
is_node capi20 68 0
log_has "made the static node $ROOT/dev/capi20 \(char 68:0, from modules.devname\)" "the node made is logged"

# Acting on what it checked: never through a symlink, never another device.
rm "$ROOT/dev/capi20"
mknod -m 0600 "$ROOT/victim" c 68 0
ln -s ../victim "$ROOT/dev/capi20"
start_stop "a symlink at capi20"
check "the symlink is left as it was" test "$(readlink "$ROOT/dev/capi20")" = ../victim
check "its target keeps root 0600" test "$(stat -c '%a %g' "$ROOT/victim")" = "600 0"
log_has "/dev/capi20 is a symlink, not ours: left alone" "the symlink is refused with a warning"
rm "$ROOT/dev/capi20"
mknod -m 0600 "$ROOT/dev/capi20" c 1 3
start_stop "char 1:3 at capi20"
check "the other device keeps root 0600" test "$(state)" = "character special file 1:3 600 0"
log_has "/dev/capi20 is char 1:3, not 68:0, not ours: left alone" "the other device is refused with a warning"

# Nothing to do: the kernel lists no capi20, or lists it as another device.
rm "$ROOT/dev/capi20"
devname 'fuse fuse c10:229\n'
start_stop "modules.devname without capi20"
absent capi20
devname 'kernelcapi capi20 c69:0\n'
start_stop "modules.devname with capi20 as char 69:0"
absent capi20
log_has "modules.devname lists capi20 as another device than char 68:0" "the odd entry is logged"
rm "$DEVNAME_DIR/modules.devname"
start_stop "no modules.devname"
absent capi20

# A dry run prints and changes nothing.
devname 'kernelcapi capi20 c68:0\n'
out=$("${DEVD[@]}" --source=kernel --dry-run 2>"$LOG" & p=$!; wait_for 5 grep -q 'start: ' "$LOG"; kill -TERM $p; wait $p)
check "--dry-run prints the mknod" test "$out" = "mknod $ROOT/dev/capi20 c 68 0"
absent capi20
mknod -m 0600 "$ROOT/dev/capi20" c 68 0
out=$("${DEVD[@]}" --source=kernel --dry-run 2>"$LOG" & p=$!; wait_for 5 grep -q 'start: ' "$LOG"; kill -TERM $p; wait $p)
check "--dry-run prints the chgrp and chmod ($(echo "$out" | tr '\n' ';'))" \
	test "$out" = "chgrp $GID $ROOT/dev/capi20"$'\n'"chmod 0660 $ROOT/dev/capi20"
check "and leaves root 0600" test "$(state)" = "character special file 44:0 600 0"

done_testing
