#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every function in src/ fits on a screen: at most 60 lines from the line
# of its name to its closing brace.  Prints the longest ones as figures.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"

MAX=60
SRC=$(cd "$TESTDIR/../src" && pwd)

# "LINES FILE:LINE NAME" for each function definition: a line at column
# 0 that names it, then "{" at column 0, then "}" at column 0.
lengths() {
	awk '
	FNR == 1 { head = 0 }
	/^[A-Za-z_][A-Za-z0-9_ *]*\(/ && !body { head = FNR; name = $0 }
	/^\{$/ && head { body = 1 }
	/^\}/ && body {
		f = FILENAME; sub(".*/", "", f)
		n = name; sub("\\(.*", "", n); sub(".*[ *]", "", n)
		print FNR - head + 1, f ":" head, n
		body = 0; head = 0
	}' "$SRC"/*.c | sort -rn
}

all=$(lengths)
count=$(wc -l <<<"$all")
long=$(awk -v max=$MAX '$1 > max' <<<"$all")
check "found $count functions in src/ (50 or more: the scan works)" test "$count" -ge 50
check "every function in src/ is at most $MAX lines" test -z "$long" || diag <<<"$long"
diag "longest:"
head -5 <<<"$all" | diag
done_testing
