#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/kernel-export-debian.sh - kernel/export-debian.sh: the series' fixes
# as Debian's kernel package would carry them (bugfix/all/, a series
# fragment, DEP-3's Forwarded:) apply in order with fuzz 0 to the pristine
# files of linux-source-6.1 and give what the series gives: exactly the
# small set for bookworm, not the n_tty fixes nor the features.  Then the
# same on a copy of kernel/ whose second fix has a context line changed:
# --check fails and names that patch.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
top=$(cd "$TESTDIR/.." && pwd)
need patch patch
work=$(mktemp -d "${TMPDIR:-/tmp}/capi-export-test.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$work"' EXIT
export LINUX_SOURCE_PKG=linux-source-6.1

"$top/kernel/export-debian.sh" --check "$work/out" >"$work/log" 2>&1
r=$?
diag <"$work/log"
check "export-debian.sh --check: the fixes apply with fuzz 0 and change the tree as the series' files do (exit $r)" test $r = 0
# The small set for bookworm: the series' first 13 patches (fixes 1-13),
# in the series' order; not the n_tty fixes, not the features.
subjects() {	# subjects FILE...: each one's Subject, without [PATCH n/m]
	local f
	for f; do sed -n 's/^Subject: \(\[PATCH [0-9]*\/[0-9]*\] \)\{0,1\}//p' "$f"; done
}
want=$(subjects "$top"/kernel/patches/00{01..13}-*.patch)
got=$(sed "s|^|$work/out/|" "$work/out/series" | while read -r f; do subjects "$f"; done)
check "the series fragment names the bookworm set, patches 1-13, in order" test "$got" = "$want"
[ "$got" = "$want" ] || diff <(echo "$want") <(echo "$got") | diag
check "no n_tty fix and no feature is exported (flip buffer, throttle, select, loading on demand, capisim)" \
	not grep -qE 'flip-buffer|throttle|select-kernelcapi|load-kernelcapi|capisim' "$work/out/series"
bad=0
while read -r p; do
	f=$work/out/$p
	grep -q '^Subject: isdn: capi: ' "$f" && grep -q '^Forwarded: ' "$f" &&
		! grep -q '^Subject: \[PATCH' "$f" && ! head -n1 "$f" | grep -q '^From [0-9a-f]* ' || {
		diag "$p: header not in Debian's form"
		bad=1
	}
done <"$work/out/series"
check "each exported fix has Subject: without [PATCH n/m], Forwarded:, no mbox From line" test $bad = 0

# A copy of kernel/ whose second fix no longer fits the tree.
mkdir -p "$work/k"
cp -a "$top/kernel/patches" "$top/kernel/capisim" "$top/kernel/series.sh" \
	"$top/kernel/export-debian.sh" "$top/kernel/suite.sh" "$work/k/"
second=$(grep -l '^Cc: stable@vger\.kernel\.org' "$work"/k/patches/[0-9]*.patch | sed -n 2p)
# the first context line of the first hunk: one character changed
line=$(awk '/^@@ /{h=1; next} h && /^ ./{print NR; exit}' "$second")
sed -i "${line}s/^ \(.\)/ X\1/" "$second"
"$work/k/export-debian.sh" --check "$work/out2" >"$work/log2" 2>&1
r=$?
diag <"$work/log2"
check "a fix that does not fit: --check fails (exit $r)" test $r = 1
check "and names it" grep -q "bugfix/all/capi-.* does not apply with fuzz 0" "$work/log2"
done_testing
