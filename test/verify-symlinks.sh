#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --verify judges what is at each name (issue 28, break 5): a node name
# that is a symlink to a right node elsewhere is a deviation, and so is
# a dev root that is a symlink, as the daemon refuses both.  The names
# that are links by the contract (capi20.NN, isdn/capi20) still resolve.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

SPEC="$FIX/devices-68.txt"
verify() { "${DEVD[@]}" --devices-txt="$SPEC" --verify >"$ROOT/out" 2>&1; }
out_has() { grep -q -- "$1" "$ROOT/out"; }

sysdev capi capi20 68 0 capi20
sysdev tty 'capi!3' 240 3 capi/3
{ ev add capi20 68 0; ev add capi/3 240 3; } | devd --replay=-
verify
check "the daemon's tree verifies (exit $?)" out_has "^verify: OK" || diag <"$ROOT/out"

# capi20 a symlink to a right node outside the dev root.
mv "$ROOT/dev/capi20" "$ROOT/capi20.real"
ln -s ../capi20.real "$ROOT/dev/capi20"
verify
rc=$?
check "capi20 a symlink to a right node: exit 1 (got $rc)" test $rc = 1
check "... said as such" \
	out_has "^DEVIATION: $ROOT/dev/capi20: symlink, expected a character device" ||
	diag <"$ROOT/out"
rm "$ROOT/dev/capi20" && mv "$ROOT/capi20.real" "$ROOT/dev/capi20"

# capi/3 a symlink to a right node.
mv "$ROOT/dev/capi/3" "$ROOT/tty3.real"
ln -s ../../tty3.real "$ROOT/dev/capi/3"
verify
rc=$?
check "capi/3 a symlink to a right node: exit 1 (got $rc)" test $rc = 1
check "... said as such" \
	out_has "^DEVIATION: $ROOT/dev/capi/3: symlink, expected a character device" ||
	diag <"$ROOT/out"
rm "$ROOT/dev/capi/3" && mv "$ROOT/tty3.real" "$ROOT/dev/capi/3"

# ROOT/dev itself a symlink to a right tree.
mv "$ROOT/dev" "$ROOT/dev.real"
ln -s dev.real "$ROOT/dev"
verify
rc=$?
check "ROOT/dev a symlink to a right tree: exit 1 (got $rc)" test $rc = 1
check "... said as such" out_has "^DEVIATION: $ROOT/dev: symlink, expected a directory" ||
	diag <"$ROOT/out"
rm "$ROOT/dev" && mv "$ROOT/dev.real" "$ROOT/dev"
verify
check "put back, it verifies again" out_has "^verify: OK" || diag <"$ROOT/out"
done_testing
