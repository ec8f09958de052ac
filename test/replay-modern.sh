#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Modern kernel names from a replay: add, duplicates, N >= 100, remove.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

{
	ev add capi20 68 0
	for n in 0 7 19 20 99 100 123; do ev add "capi/$n" 240 "$n"; done
} >"$ROOT/add.ev"

replay "$ROOT/add.ev"
is_node capi20 68 0
is_link isdn/capi20 ../capi20
is_node capi/0 240 0
is_link capi20.00 capi/0
is_link capi20.07 capi/7
is_link capi20.19 capi/19
is_link capi20.20 capi/20
is_link capi20.99 capi/99
is_link capi20.100 capi/100
is_link capi20.123 capi/123
absent capi20.7
no_dangling
log_has "replayed 8 event\(s\): 0 ignored, 0 bad" "all 8 events applied"

tree >"$ROOT/first"
replay "$ROOT/add.ev"
same_tree "$ROOT/first" "replaying the same events again changes nothing"
log_has ", 0 change\(s\)" "a duplicate add makes no change at all"

# A recorded stream: header lines and unrelated events are skipped.  Its
# kernel had the tty driver at major 239.
proc_devices 239 'capi!'
replay "$FIX/recorded-modern.ev"
log_has "replayed 2 event\(s\): 3 ignored, 0 bad" "recorded stream: capi events applied, others ignored"
is_link capi20.05 capi/5
proc_devices 240 'capi!'

{
	ev remove capi/7 240 7
	ev remove capi/123 240 123
} | devd --replay=-
absent capi20.07
absent capi/7
absent capi20.123
is_link capi20.00 capi/0
no_dangling

{
	for n in 0 19 20 99 100; do ev remove "capi/$n" 240 "$n"; done
	ev remove capi/5 239 5
	ev remove capi20 68 0
} | devd --replay=-
absent capi20.00
absent capi
absent isdn
is_node capi20 68 0		# the node stays for on-demand loading
if [ "$(tree | wc -l)" = 1 ]; then pass "only the control node is left"
else fail "only the control node is left"; tree | diag; fi

# --dry-run prints and changes nothing.
fresh_dev
out=$(devd --replay="$ROOT/add.ev" --dry-run)
if grep -q "ln -sf capi/7 $ROOT/dev/capi20.07" <<<"$out"; then pass "--dry-run prints the links"
else fail "--dry-run prints the links"; diag <<<"$out"; fi
if [ -z "$(tree)" ]; then pass "--dry-run changes nothing"; else fail "--dry-run changes nothing"; fi

done_testing
