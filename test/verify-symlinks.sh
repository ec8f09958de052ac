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

# symlinked NAME REAL TARGET KIND: ROOT/NAME, a right KIND (node or tree),
# moved to ROOT/REAL and a symlink TARGET to it put at its name: --verify
# exits 1 and says what it found there; then put back.
symlinked() {
	local rc label=${1#dev/} want="a character device"
	[ "$1" = dev ] && label=ROOT/dev want="a directory"
	mv "$ROOT/$1" "$ROOT/$2" && ln -s "$3" "$ROOT/$1"
	verify
	rc=$?
	check "$label a symlink to a right $4: exit 1 (got $rc)" test $rc = 1
	check "... said as such" out_has "^DEVIATION: $ROOT/$1: symlink, expected $want" ||
		diag <"$ROOT/out"
	rm "$ROOT/$1" && mv "$ROOT/$2" "$ROOT/$1"
}
# capi20 a symlink to a right node outside the dev root.
symlinked dev/capi20 capi20.real ../capi20.real node
# capi/3 a symlink to a right node.
symlinked dev/capi/3 tty3.real ../../tty3.real node
# ROOT/dev itself a symlink to a right tree.
symlinked dev dev.real dev.real tree
verify
check "put back, it verifies again" out_has "^verify: OK" || diag <"$ROOT/out"
done_testing
