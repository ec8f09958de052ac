#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Who can open a node, at any moment (issue 42): a default ACL on the dev
# root (break 1) and a node born with the directory's group (break 2).
# "Can open" is asked of the kernel without opening anything: test -r and
# test -w as the user (faccessat(2) weighs mode, owner, group and ACL as
# open(2) would), so no driver is ever reached.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

need setfacl acl
need setpriv util-linux
need strace strace
id nobody >/dev/null 2>&1 || fail "the user nobody exists (base-passwd)"
chmod 0755 "$ROOT"
ev add capi20 68 0 >"$ROOT/ev"
for n in 1 2 3; do ev add "capi/$n" 240 "$n"; done >>"$ROOT/ev"
NODES=(capi20 capi/1 capi/2 capi/3)
# can_open NODE: may nobody (uid and gid 65534, no other group) open it?
can_open() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		bash -c '[ -r "$1" ] || [ -w "$1" ]' _ "$ROOT/dev/$1"
}
# no_acl NODE: the node has no ACL entry beyond its mode.
no_acl() { [ -z "$(getfacl -p -c -s "$ROOT/dev/$1")" ]; }

# --- break 1: a default ACL on the dev root --------------------------
# The owner of the dev root gives it a default ACL naming themself; a
# root-owned dev root with one (its direct path) must fare the same.
for owner in nobody root; do
	fresh_dev
	chown "$owner" "$ROOT/dev"
	chmod 0755 "$ROOT/dev"
	setfacl -d -m u:nobody:rw "$ROOT/dev"
	replay "$ROOT/ev"
	for n in "${NODES[@]}"; do
		check "dev root of $owner with a default ACL for nobody: $n made" test -c "$ROOT/dev/$n"
		check "... and $n carries no ACL" no_acl "$n" || getfacl -p "$ROOT/dev/$n" 2>&1 | diag
		check "... and nobody cannot open $n" not can_open "$n"
	done
	check "... capi/, which capi-devd made, has no default ACL" \
		test -z "$(getfacl -p -c -d "$ROOT/dev/capi")"
done

# The same on a node that exists (the static node kmod-static-nodes made,
# root:root 0600, inheriting the default ACL): its mode is set, and the
# ACL, which the chmod would open, goes first.
fresh_dev
chown nobody "$ROOT/dev"
setfacl -d -m u:nobody:rw "$ROOT/dev"
mknod -m 0600 "$ROOT/dev/capi20" c 68 0
ev add capi20 68 0 >"$ROOT/ctl.ev"
replay "$ROOT/ctl.ev"
is_node capi20 68 0
check "an existing capi20 whose mode is set loses its ACL" no_acl capi20
check "... and nobody cannot open it" not can_open capi20

# --- break 2: no moment when another group has the node ---------------
# A set-group-ID dev root owned by nobody: a node made there is born in
# its group, nogroup.  The chown is delayed (strace), and nobody looks
# at every node all along: it must never be able to open one.
fresh_dev
chown nobody:nogroup "$ROOT/dev"
chmod 2755 "$ROOT/dev"
rm -f "$ROOT/stop"
# shellcheck disable=SC2016 # the inner shell's
setpriv --reuid=65534 --regid=65534 --clear-groups -- bash -c '
	while [ ! -e "$1/stop" ]; do
		for n in "$1"/dev/capi20 "$1"/dev/capi/*; do
			[ -c "$n" ] || continue
			if [ -r "$n" ] || [ -w "$n" ]; then echo "open $n"; else echo "shut $n"; fi
		done
	done' _ "$ROOT" >"$ROOT/probe" &
prober=$!
strace -f -o /dev/null -e trace=fchownat -e inject=fchownat:delay_enter=300000 \
	"${DEVD[@]}" --replay="$ROOT/ev" 2>"$LOG"
touch "$ROOT/stop"
wait "$prober"
for n in "${NODES[@]}"; do
	is_node "$n" "$( [ "$n" = capi20 ] && echo 68 || echo 240)" "$( [ "$n" = capi20 ] && echo 0 || echo "${n#capi/}")"
done
check "the prober saw the nodes while their chown was delayed ($(grep -c '^shut' "$ROOT/probe") looks)" \
	grep -q '^shut' "$ROOT/probe"
check "nobody, of the directory's group, could never open a node" \
	not grep -q '^open' "$ROOT/probe" || sort "$ROOT/probe" | uniq -c | diag

done_testing
