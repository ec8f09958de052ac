#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --verify says, after each DEVIATION: line, on a MEND: line, the one
# command that mends it, and the commands mend: the rescan (here the
# daemon's start on the root, as systemctl reload would make it rescan)
# for what capi-devd owns, rm first for what it never touches, setfacl -b
# for an ACL, udevadm trigger or rm for the modern names the rules own
# when udevd runs, and no command where none can (devices.txt disagrees).
# See --verify in capi-devd(8).
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"
need setfacl acl

SPEC="$FIX/devices-68.txt"
verify() { "${DEVD[@]}" --verify --devices-txt="$SPEC" >"$ROOT/out" 2>"$LOG"; }
# Each DEVIATION: line is followed by exactly one MEND: line.
paired() {
	awk '/^DEVIATION: / { if (want) exit 1; want = 1; next }
	     /^MEND: / { if (!want) exit 1; want = 0; next }
	     END { exit want }' "$ROOT/out"
}
# mend_of ERE: the MEND: line after the DEVIATION: line that starts with
# ROOT/dev/ and ERE.
mend_of() { awk -v p="^DEVIATION: $ROOT/dev/$1" '$0 ~ p { getline; print; exit }' "$ROOT/out"; }
rescan() {	# what systemctl reload does: the daemon rescans, here its start
	devd_bg --source=kernel --no-modprobe
	wait_for 5 grep -q 'start: ' "$LOG"
	kill -TERM "$pid"
	wait "$pid"
}

sysdev capi capi20 68 0 capi20
sysdev tty 'capi!3' 240 3 capi/3
mkdir -p "$ROOT/dev/capi" "$ROOT/dev/isdn"
mknod -m 0600 "$ROOT/dev/capi20" c 68 0
mknod -m 0660 "$ROOT/dev/capi/3" c 240 3
chgrp "$GID" "$ROOT/dev/capi/3"
setfacl -m u:nobody:rw "$ROOT/dev/capi/3"
ln -s capi/9 "$ROOT/dev/capi20.09"
ln -s ../capi20 "$ROOT/dev/isdn/capi20"
: >"$ROOT/dev/capi20.x'y"
verify
check "deviations: status 1" test $? = 1 || diag <"$ROOT/out"
check "each DEVIATION: line has its MEND: line" paired || diag <"$ROOT/out"
check "wrong group: the rescan" test "$(mend_of 'capi20: group')" = "MEND: systemctl reload capi-devd"
check "missing capi20.03: the rescan" test "$(mend_of 'capi20\.03:')" = "MEND: systemctl reload capi-devd"
check "stale capi20.09: the rescan" test "$(mend_of 'capi20\.09:')" = "MEND: systemctl reload capi-devd"
check "an ACL: setfacl -b" test "$(mend_of 'capi/3: has an ACL')" = "MEND: setfacl -b -- '$ROOT/dev/capi/3'"
check "a file of no tty: rm, quoted for the shell" \
	test "$(mend_of "capi20\\.x'y:")" = "MEND: rm -- '$ROOT/dev/capi20.x'\"'\"'y'"
diag <"$ROOT/out"

# Carry the mends out: the commands as printed, the rescan for systemctl.
grep '^MEND: ' "$ROOT/out" | sort -u | sed 's/^MEND: //' | while IFS= read -r cmd; do
	case $cmd in
	"systemctl reload capi-devd") ;;
	rm\ *|setfacl\ *) eval "$cmd" ;;
	*) echo "unexpected: $cmd" ;;
	esac
done >"$ROOT/unexpected"
check "every mend is a command this test can carry out" test ! -s "$ROOT/unexpected" || diag <"$ROOT/unexpected"
rescan
verify
check "after the mends and a rescan: --verify OK" test $? = 0 || { diag <"$ROOT/out"; diag <"$LOG"; }

# Something capi-devd never touches at a node's name: rm, then the rescan.
rm "$ROOT/dev/capi20" && ln -s /dev/null "$ROOT/dev/capi20"
verify
m=$(mend_of 'capi20:')
check "a symlink at the control node: rm, then the rescan ($m)" \
	test "$m" = "MEND: rm -- '$ROOT/dev/capi20' && systemctl reload capi-devd"
eval "${m#MEND: }" 2>/dev/null
rescan
verify
check "... carried out: --verify OK" test $? = 0 || diag <"$ROOT/out"

# With udevd the modern names are the rules': their mends are udev's.
mkdir -p "$ROOT/run/udev" && : >"$ROOT/run/udev/control"
chgrp 0 "$ROOT/dev/capi20"
ln -s capi/9 "$ROOT/dev/capi20.09"
verify
check "with udevd, a modern node's group: udevadm trigger" \
	test "$(mend_of 'capi20: group')" = "MEND: udevadm trigger --action=add --subsystem-match=capi --subsystem-match=tty --sysname-match='capi*'"
check "with udevd, a stale modern link: rm" \
	test "$(mend_of 'capi20\.09:')" = "MEND: rm -- '$ROOT/dev/capi20.09'"
rm -r "$ROOT/run"

# No command mends a devices.txt that names other devices.
sed -E 's|( 0 = /dev/capi20)([[:space:]])|\1x\2|' "$SPEC" >"$ROOT/spec"
"${DEVD[@]}" --verify --devices-txt="$ROOT/spec" >"$ROOT/out" 2>"$LOG"
check "devices.txt disagrees: MEND: none" grep -q '^MEND: none: devices.txt and capi-devd(8) disagree' "$ROOT/out" ||
	diag <"$ROOT/out"
done_testing
