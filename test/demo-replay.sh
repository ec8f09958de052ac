#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ./demo.sh --replay, the README's story without a VM, runs to its end
# (exit 0) with the built capi-devd (CAPI_DEVD: nothing built, nothing
# installed) and shows what it says: the names of a control device and
# ttys 0, 1 and 24 after the replayed events, --verify OK, then after the
# hang-up the tty names gone, the control device's kept, --verify OK.
# The entry scripts' options: --help on stdout with status 0, an unknown
# option refused in one line with status 2 (check.sh too).
set -u
: "${CAPI_DEVD:?run through make check, or set CAPI_DEVD}"
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "the demo makes device nodes (mknod): run make check as root"
TOP=$(cd "$TESTDIR/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/capi-devd-test.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$W"' EXIT
export LC_ALL=C

for s in demo.sh check.sh; do
	rc=0
	"$TOP/$s" --help >"$W/out" 2>"$W/err" </dev/null || rc=$?
	check "$s --help: status 0, usage on stdout, nothing on stderr" \
		test "$rc:$(head -n1 "$W/out" | cut -d' ' -f1,2):$(wc -c <"$W/err")" = "0:usage: ./$s:0" ||
		diag <"$W/err"
	rc=0
	"$TOP/$s" --no-such-option >"$W/out" 2>"$W/err" </dev/null || rc=$?
	check "$s --no-such-option: status 2, one line on stderr, nothing on stdout" \
		test "$rc:$(wc -l <"$W/err"):$(wc -c <"$W/out")" = "2:1:0" || diag <"$W/err"
done

rc=0
"$TOP/demo.sh" --replay >"$W/out" 2>"$W/err" </dev/null || rc=$?
check "./demo.sh --replay: status 0" test $rc = 0 || diag <"$W/err"
check "./demo.sh --replay runs to its last line" test "$(tail -n1 "$W/out")" = \
	"== done: the names came with the devices and went with them" || diag <"$W/out"
# The two acts: before and after the hang-up.
sed '/^== hanging up/,$d' "$W/out" >"$W/up"
sed -n '/^== hanging up/,$p' "$W/out" >"$W/down"
# has ACT ERE: a line of that act matches.
has() { grep -Eq -- "$2" "$W/$1"; }
node='crw-rw---- 1 root dialout'
check "up: /dev/capi20, char 68:0, root:dialout 0660" has up "^$node 68, 0 .* /dev/capi20$"
for n in 0 1 24; do
	check "up: /dev/capi/$n, char 239:$n, root:dialout 0660" has up "^$node 239, +$n .* $n$"
	check "up: /dev/capi20.$(printf %02d $n) -> capi/$n" has up "^l.* /dev/capi20\.$(printf %02d $n) -> capi/$n$"
done
check "up: /dev/isdn/capi20 -> ../capi20" has up '^l.* capi20 -> \.\./capi20$'
check "up: --verify OK, 3 ttys" has up '^verify: OK: control device, 3 tty\(s\)'
check "up: --list names /dev/capi/24, char 239:24" has up '^/dev/capi/24 node char:239:24 dialout 0660$'
check "up: --list names /dev/capi20.24 -> capi/24" has up '^/dev/capi20\.24 link capi/24 - -$'
check "down: /dev/capi is gone" has down "cannot access '/dev/capi': No such file"
check "down: no /dev/capi20.NN is left" has down "cannot access '/dev/capi20\.\*': No such file"
check "down: /dev/capi20 stays" has down "^$node 68, 0 .* /dev/capi20$"
check "down: --verify OK, 0 ttys" has down '^verify: OK: control device, 0 tty\(s\)'
check "down: no tty node is listed" not has down "^$node 239,"
done_testing
