#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Pre-fix kernels (control "capi", ttys "capiN"): devtmpfs puts the control
# node at /dev/capi, where applications need a directory.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

# What devtmpfs made before the events were sent.
mknod -m 0600 "$ROOT/dev/capi" c 68 0
mknod -m 0600 "$ROOT/dev/capi0" c 241 0
mknod -m 0600 "$ROOT/dev/capi3" c 241 3
mknod -m 0600 "$ROOT/dev/capi12" c 241 12
{
	ev add capi 68 0
	ev add capi0 241 0
	ev add capi3 241 3
	ev add capi12 241 12
} >"$ROOT/add.ev"
replay "$ROOT/add.ev"
is_node capi20 68 0
is_dir capi
is_link isdn/capi20 ../capi20
is_link capi/0 ../capi0
is_link capi/3 ../capi3
is_link capi/12 ../capi12
is_link capi20.00 capi/0
is_link capi20.03 capi/3
is_link capi20.12 capi/12
is_node capi3 241 3
no_dangling
log_has "moved the pre-fix control node" "the move is logged"
# Through the links, the names reach the tty node.
if [ "$(stat -L -c %t:%T "$ROOT/dev/capi20.03")" = "f1:3" ]; then
	pass "/dev/capi20.03 resolves to tty 3 (char 241:3)"
else fail "/dev/capi20.03 resolves to tty 3 (char 241:3)"; fi

replay "$ROOT/add.ev"
log_has ", 0 change\(s\)" "replaying again changes nothing"

{
	ev remove capi3 241 3
} | devd --replay=-
absent capi20.03
absent capi/3
is_link capi/0 ../capi0
no_dangling

{
	ev remove capi0 241 0
	ev remove capi12 241 12
	ev remove capi 68 0
} | devd --replay=-
absent capi
absent isdn
absent capi20.00
is_node capi20 68 0

# Reload: capi/ is still a directory (a tty outlived the control device),
# so devtmpfs could not make /dev/capi, and /dev/capi20 is gone too.
fresh_dev "$ROOT/dev/capi"
ln -s ../capi5 "$ROOT/dev/capi/5"
{ ev add capi 68 0; } | devd --replay=-
is_node capi20 68 0
is_link isdn/capi20 ../capi20

# A duplicate node: devtmpfs made /dev/capi while /dev/capi20 was there.
fresh_dev
mknod -m 0600 "$ROOT/dev/capi" c 68 0
mknod -m 0660 "$ROOT/dev/capi20" c 68 0
{ ev add capi 68 0; } | devd --replay=-
is_dir capi
is_node capi20 68 0

# A tty event before the control event still resolves the collision.
fresh_dev
mknod -m 0600 "$ROOT/dev/capi" c 68 0
mknod -m 0600 "$ROOT/dev/capi1" c 241 1
{ ev add capi1 241 1; ev add capi 68 0; } | devd --replay=-
is_dir capi
is_link capi/1 ../capi1
is_link capi20.01 capi/1
is_node capi20 68 0

# Not the control device at /dev/capi: never moved.
fresh_dev
mknod -m 0600 "$ROOT/dev/capi" c 1 3
{ ev add capi 68 0; ev add capi2 241 2; } | devd --replay=-
if [ "$(stat -c %F:%t:%T "$ROOT/dev/capi")" = "character special file:1:3" ]; then
	pass "a char 1:3 node at /dev/capi is left alone"
else fail "a char 1:3 node at /dev/capi is left alone"; fi
absent capi20.02
log_has "$ROOT/dev/capi is a character device other than 68:0, not ours: left alone" \
	"the refusal names the path"

done_testing
