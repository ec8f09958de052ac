#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pre-fix mend removes only the directories it made (issue 28,
# break 6): when the pre-fix control device goes, an empty isdn/ or
# capi/ that capi-devd did not make stays; those it made go.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

mkdir "$ROOT/dev/isdn" "$ROOT/dev/capi"
ev remove capi 68 0 >"$ROOT/ev"
replay "$ROOT/ev"
is_dir isdn
is_dir capi

fresh_dev
{ ev add capi 68 0; ev remove capi 68 0; } >"$ROOT/ev"
replay "$ROOT/ev"
absent isdn
absent capi
done_testing
