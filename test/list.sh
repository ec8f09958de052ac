#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# capi-devd --list: the names of the contract in the dev tree, one a
# line, "PATH TYPE WHAT GROUP MODE", sorted, on a modern and on a pre-fix
# tree; what is there is shown as it is (a symlink is not followed, a
# target is escaped into one field); the tree is not changed.  See
# --list in capi-devd(8).
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

list() {	# list: --list's lines without the root; its status
	local rc=0
	"$CAPI_DEVD" --root="$ROOT" --list >"$ROOT/raw" 2>"$LOG" || rc=$?
	sed "s|^$ROOT||" "$ROOT/raw"
	return $rc
}
D=/dev
{ ev add capi20 68 0; ev add capi/0 240 0; ev add capi/7 240 7; ev add capi/12 240 12; } | replay -
list >"$ROOT/out"
check "modern: exit 0" test $? = 0
cat >"$ROOT/want" <<EOF2
$D/capi20 node char:68:0 $GID 0660
$D/isdn/capi20 link ../capi20 - -
$D/capi/0 node char:240:0 $GID 0660
$D/capi/7 node char:240:7 $GID 0660
$D/capi/12 node char:240:12 $GID 0660
$D/capi20.00 link capi/0 - -
$D/capi20.07 link capi/7 - -
$D/capi20.12 link capi/12 - -
EOF2
check "modern: every name, what it is, in order" cmp -s "$ROOT/want" "$ROOT/out" ||
	diff -u "$ROOT/want" "$ROOT/out" | diag
tree >"$ROOT/before"
list >/dev/null
check "--list changes nothing" test "$(tree)" = "$(cat "$ROOT/before")"

fresh_dev
{ ev add capi 68 0; ev add capi2 241 2; } | replay -
list >"$ROOT/out"
cat >"$ROOT/want" <<EOF2
$D/capi20 node char:68:0 $GID 0660
$D/isdn/capi20 link ../capi20 - -
$D/capi/2 link ../capi2 - -
$D/capi2 node char:241:2 $GID 0660
$D/capi20.02 link capi/2 - -
EOF2
check "pre-fix: every name, what it is, in order" cmp -s "$ROOT/want" "$ROOT/out" ||
	diff -u "$ROOT/want" "$ROOT/out" | diag

# What is there, as it is: nothing followed, one line a name.
fresh_dev
mkdir -p "$ROOT/elsewhere/0"
ln -s elsewhere "$ROOT/dev/capi-x"
ln -s ../elsewhere "$ROOT/dev/capi"
ln -s "$(printf 'a b\nc')" "$ROOT/dev/capi20.03"
: >"$ROOT/dev/capi20"
list >"$ROOT/out"
cat >"$ROOT/want" <<EOF2
$D/capi20 other - - -
$D/capi link ../elsewhere - -
$D/capi20.03 link a\\x20b\\nc - -
EOF2
check "hostile: a file, a symlinked capi/, a target with a blank and a newline" \
	cmp -s "$ROOT/want" "$ROOT/out" || diff -u "$ROOT/want" "$ROOT/out" | diag

"$CAPI_DEVD" --root="$ROOT/nowhere" --list >/dev/null 2>"$LOG"
check "a dev root that cannot be opened: exit 2" test $? = 2
done_testing
