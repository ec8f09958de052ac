#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The two paths of tree.c agree (issue 42): in a dev root that only root
# writes, capi-devd takes the direct path; CAPI_DEVD_TREE=careful makes it
# take the careful one, which is otherwise taken where anyone else can
# write.  Each scenario below (the contract's events, and the hostile
# trees of the breaks) runs on a copy of the same tree both ways: both
# must leave the same tree (type, mode, owner, group, device number, link
# target of every entry) and say the same (the log, the summary's counts
# included).  make check-careful runs the whole host suite on the
# careful path.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

need setfacl acl
chmod 0755 "$ROOT"
# listing DIR: every entry, all that tells two trees apart.
listing() {
	(cd "$1" && find . -mindepth 1 ! -name '.#*' \
		-printf '%y %m %U:%G %n %P -> %l ' -exec stat -c '%t:%T' {} \; | sort)
	getfacl -p -R -s "$1" 2>/dev/null | sed "s|$1|DEV|"
}
# run_path PATH EVENTS: replay EVENTS into a copy of $ROOT/base.
run_path() {
	rm -rf "${ROOT:?}/dev"
	cp -a "$ROOT/base" "$ROOT/dev"
	if [ "$1" = careful ]; then
		CAPI_DEVD_TREE=careful "${DEVD[@]}" --replay="$2" 2>"$LOG"
	else
		env -u CAPI_DEVD_TREE "${DEVD[@]}" --replay="$2" 2>"$LOG"
	fi
	echo "exit $?" >>"$LOG"
	listing "$ROOT/dev" >"$ROOT/tree.$1"
	grep -v "CAPI_DEVD_TREE=careful" "$LOG" | sed "s|$ROOT|ROOT|g" >"$ROOT/log.$1"
	[ "$1" = direct ] || grep -q "every operation on .* takes the careful path" "$LOG"
}
# both NAME EVENTS: the scenario, both ways; $ROOT/base is its tree.
both() {
	if ! run_path careful "$2"; then
		fail "$1: the careful path was taken"
		return
	fi
	run_path direct "$2"
	if cmp -s "$ROOT/tree.direct" "$ROOT/tree.careful"; then
		pass "$1: both paths leave the same tree"
	else
		fail "$1: both paths leave the same tree"
		diff -u "$ROOT/tree.direct" "$ROOT/tree.careful" | diag
	fi
	if cmp -s "$ROOT/log.direct" "$ROOT/log.careful"; then
		pass "$1: both paths say the same"
	else
		fail "$1: both paths say the same"
		diff -u "$ROOT/log.direct" "$ROOT/log.careful" | diag
	fi
}
base() { rm -rf "$ROOT/base" && mkdir -m 0755 "$ROOT/base"; }

# The contract: recorded streams, a whole life, any order.
base
both "recorded modern stream" "$FIX/recorded-modern.ev"
both "demo stream" "$FIX/demo.ev"
{
	ev add capi20 68 0
	for n in 0 7 19 20 123; do ev add "capi/$n" 240 "$n"; done
	for n in 7 123; do ev remove "capi/$n" 240 "$n"; done
	ev add capi/7 240 7
	ev remove capi/4 240 4
	ev add capi/5 240 5
	ev add capi/5 240 5
	ev remove capi/5 240 5
	ev remove capi/5 240 5
	for n in 0 7 19 20; do ev remove "capi/$n" 240 "$n"; done
	ev remove capi20 68 0
} >"$ROOT/life.ev"
both "a modern life, duplicates, removes before adds" "$ROOT/life.ev"
{
	ev add capi 68 0
	for n in 0 3 12; do ev add "capi$n" 241 "$n"; done
	ev remove capi3 241 3
	ev add capi3 241 3
	for n in 0 3 12; do ev remove "capi$n" 241 "$n"; done
	ev remove capi 68 0
} >"$ROOT/prefix.ev"
both "a pre-fix life" "$ROOT/prefix.ev"
base
mknod -m 0600 "$ROOT/base/capi" c 68 0
both "the pre-fix control node moved" "$ROOT/prefix.ev"

# Break 3: removes of other devices of the same names.
base
{
	ev add capi/7 240 7; ev remove capi/7 241 7; ev remove capi7 241 7
	ev add capi8 241 8; ev remove capi8 242 8
} >"$ROOT/other.ev"
both "removes of another device" "$ROOT/other.ev"

# Foreign and odd entries at our names, and nodes to fix.
base
mkdir -p "$ROOT/base/capi" "$ROOT/base/capi20.07"
echo precious >"$ROOT/base/capi20.05"
ln -s /dev/ttyS0 "$ROOT/base/capi20.06"
mkfifo "$ROOT/base/capi20.08"
ln -s capi/10 "$ROOT/base/capi20.09"
mknod -m 0600 "$ROOT/base/capi/4" c 240 4
ln "$ROOT/base/capi/4" "$ROOT/base/capi4.hard"
mknod -m 0644 "$ROOT/base/capi/3" c 240 3
chown 1000:0 "$ROOT/base/capi/3"
mknod -m 0600 "$ROOT/base/capi20" c 68 0
setfacl -m u:nobody:rw "$ROOT/base/capi20"
mknod -m 0660 "$ROOT/base/capi/2" c 240 2
chgrp "$GID" "$ROOT/base/capi/2"
ln -s capi/2 "$ROOT/base/capi20.02"
{
	ev add capi20 68 0
	for n in 2 3 4 5 6 7 8 9; do ev add "capi/$n" 250 "$n"; done
	for n in 5 6 7 8 9; do ev remove "capi/$n" 250 "$n"; done
} >"$ROOT/foreign.ev"
proc_devices 250 'capi!'
both "foreign entries, a hard link, wrong owner, an ACL, an old major" "$ROOT/foreign.ev"
proc_devices 240 'capi!' 241 capi

# A default ACL on the dev root, and a set-group-ID one of another group.
base
setfacl -d -m u:nobody:rw "$ROOT/base"
both "a default ACL on the dev root" "$ROOT/life.ev"
base
chgrp nogroup "$ROOT/base"
chmod 2755 "$ROOT/base"
both "a set-group-ID dev root of another group" "$ROOT/life.ev"

# Break 7: records refused, the same on both.
base
{
	printf 'ACTION=add\nDEVPATH=/devices/virtual/tty/capi!7\nSUBSYSTEM=tty\n'
	printf 'DEVNAME=../x\nMAJOR=240\nMINOR=7\nDEVNAME=capi/7\n\n'
	ev add capi/1 1 1
} >"$ROOT/bad.ev"
both "refused records" "$ROOT/bad.ev"

done_testing
