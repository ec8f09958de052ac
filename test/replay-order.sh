#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Any order of events converges: duplicates, remove before add,
# interleaved units.  Nothing dangles and nothing is missing.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

{
	ev remove capi/4 240 4		# remove before any add
	ev add capi20 68 0
	ev add capi20 68 0		# duplicate
	ev add capi/4 240 4
	ev add capi/4 240 4		# duplicate
	ev add capi/5 240 5
	ev remove capi/5 240 5
	ev remove capi/5 240 5		# duplicate remove
	ev add capi/6 240 6
	ev remove capi/4 240 4
	ev add capi/4 240 4		# re-added
} | devd --replay=-
is_link capi20.04 capi/4
is_node capi/4 240 4
absent capi20.05
absent capi/5
is_link capi20.06 capi/6
is_link isdn/capi20 ../capi20
no_dangling
log_has "replayed 11 event\(s\): 0 ignored, 0 bad" "all 11 events taken"

# A unit reused after the driver came back with another major: the link
# follows the new device.
proc_devices 250 'capi!'
{ ev remove capi/6 240 6; ev add capi/6 250 6; } | devd --replay=-
is_node capi/6 250 6
is_link capi20.06 capi/6

# A remove of an old instance must not take the new one's names away:
# the node check is by device number.
{ ev remove capi/6 240 6; } | devd --replay=-
is_node capi/6 250 6

done_testing
