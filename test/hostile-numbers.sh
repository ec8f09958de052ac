#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Numbers in the files capi-devd reads are refused above their range,
# never wrapped (issue 28, break 6): sscanf("%u") took 4294967536 for 240
# and 4294967364 for 68.  ROOT/proc/devices and devices.txt here;
# modules.devname in test/hostile-devname.sh.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

# /proc/devices names the tty driver at 2^32 + 240 only: no major of it.
proc_devices 4294967536 'capi!'
ev add capi/0 240 0 >"$ROOT/ev"
replay "$ROOT/ev"
absent capi/0
log_has "major unknown" "the tty is refused: no driver major was read"
proc_devices 240 'capi!'
replay "$ROOT/ev"
is_node capi/0 240 0

# devices.txt: a block "4294967364 char" is not the 68 char block, and a
# minor of 2^32 + 1 is not minor 1.
sysdev capi capi20 68 0 capi20
ev add capi20 68 0 | devd --replay=-
printf ' 4294967364 char\tNot CAPI\n\t\t  0 = /dev/capi20\tControl\n\n' >"$ROOT/spec"
"${DEVD[@]}" --devices-txt="$ROOT/spec" --verify >"$ROOT/out" 2>&1
rc=$?
check "a 4294967364 char block is no 68 char block: exit 2 (got $rc)" test $rc = 2
check "... said as such" grep -q 'no "68 char" block' "$ROOT/out" || diag <"$ROOT/out"
printf ' 68 char\tCAPI\n\t\t  0 = /dev/capi20\tControl\n\t4294967297 = /dev/capi20.00\tFirst\n\n' >"$ROOT/spec"
"${DEVD[@]}" --devices-txt="$ROOT/spec" --verify >"$ROOT/out" 2>&1
rc=$?
check "a minor of 4294967297 is refused: exit 2 (got $rc)" test $rc = 2
check "... said as such" grep -q 'minor out of range' "$ROOT/out" || diag <"$ROOT/out"
done_testing
