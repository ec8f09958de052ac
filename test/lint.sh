#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped files: the man page is lint-clean, the unit verifies and is
# hardened to an exposure of 2.0 or lower, the rules use no key that
# udevd 252 rejects, and test/README.md lists every VM scenario.
set -u
: "${CAPI_DEVD:?run through make check}"
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
SRC=$(cd "$TESTDIR/.." && pwd)
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
need mandoc mandoc
need systemd-analyze systemd
need man man-db
W=$(mktemp -d) && trap '[ "$BASHPID" != "$$" ] || rm -rf "$W"' EXIT

out=$(mandoc -T lint -W warning "$SRC/man/capi-devd.8" 2>&1)
check "mandoc -T lint: clean" test -z "$out" || diag <<<"$out"

# Every option the daemon takes is in the man page, and the other way round
# (but for udevadm's and mokutil's, which it names).
opts_bin=$("$CAPI_DEVD" --help | grep -o -- '--[a-z-]*' | sort -u)
opts_man=$(grep -o -- '\\-\\-[a-z\\-]*' "$SRC/man/capi-devd.8" | sed 's/\\//g' | sort -u)
missing=$(comm -23 <(echo "$opts_bin") <(echo "$opts_man"))
extra=$(comm -13 <(echo "$opts_bin") <(echo "$opts_man") | grep -v -x -e --kernel -e --property -e --subsystem-match -e --import -e --reload -e --action -e --sysname-match -e --)
check "the man page documents exactly the options of --help" test -z "$missing$extra" ||
	diag "missing: $missing extra: $extra"

mkdir -p "$W/man8" "$W/bin"
cp "$SRC/man/capi-devd.8" "$W/man8/"
cp "$CAPI_DEVD" "$W/bin/capi-devd"
"$SRC/rules/mkunit.sh" "$W/bin" <"$SRC/rules/capi-devd.service.in" >"$W/capi-devd.service"
out=$(MANPATH="$W" systemd-analyze verify "$W/capi-devd.service" 2>&1)
check "systemd-analyze verify: clean" test -z "$out" || diag <<<"$out"

score=$(systemd-analyze security --offline=true "$W/capi-devd.service" 2>&1 |
	sed -n 's/.*Overall exposure level for capi-devd.service: \([0-9.]*\).*/\1/p')
low() { [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; }
check "systemd-analyze security: exposure ${score:-unknown} <= 2.0" low

# udevd >= 176 ignores NAME= for device nodes, and the pre-fix names must
# not get links from the rules (capi-devd owns them).
rules() { grep -v '^#' "$SRC/rules/50-capi.rules"; }
renames() { rules | grep -q 'NAME='; }
links_prefix() { rules | grep 'KERNEL=="capi\[0-9\]\*"\|KERNEL=="capi"' | grep -q SYMLINK; }
check "rules: no NAME= renaming" not renames
check "rules: no links for pre-fix names" not links_prefix

# test/README.md has a row for every VM scenario, with the boot that runs it.
unlisted() {
	local t group n
	for t in "$SRC"/test/qemu/t-*.sh; do
		group=$(sed -n 's|.*/scenario\.sh" \([a-z]*\)$|\1|p' "$t")
		[ -n "$group" ] || continue
		for n in $(sed -n 's/^run_scenarios //p' "$SRC/test/qemu/guest/scenarios-$group.sh"); do
			grep -q "^| $n .*| \`test/qemu/${t##*/}\` |\$" "$SRC/test/README.md" ||
				echo "$n (${t##*/})"
		done
	done
}
missing=$(unlisted)
check "test/README.md lists every VM scenario with its boot" test -z "$missing" ||
	diag "not listed: $missing"
done_testing
