#!/bin/bash
# The shipped files: the man page is lint-clean, the unit verifies and is
# hardened to an exposure of 2.0 or lower, and the rules use no key that
# udevd 252 rejects.
set -u
: "${CAPI_DEVD:?run through make check}"
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
SRC=$(cd "$TESTDIR/.." && pwd)
T_N=0 T_FAILED=0
pass() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
fail() { T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"; }
for tool in mandoc systemd-analyze man; do
	command -v $tool >/dev/null || { echo "Bail out! $tool is missing: run ./install-deps.sh"; exit 99; }
done
W=$(mktemp -d) && trap 'rm -rf "$W"' EXIT

out=$(mandoc -T lint -W warning "$SRC/man/capi-devd.8" 2>&1)
[ -z "$out" ] && pass "mandoc -T lint: clean" || { fail "mandoc -T lint: clean"; echo "$out" | sed 's/^/#   /'; }

# Every option the daemon takes is in the man page, and the other way round.
opts_bin=$("$CAPI_DEVD" --help | grep -o -- '--[a-z-]*' | sort -u)
opts_man=$(grep -o -- '\\-\\-[a-z\\-]*' "$SRC/man/capi-devd.8" | sed 's/\\//g' | sort -u)
missing=$(comm -23 <(echo "$opts_bin") <(echo "$opts_man"))
extra=$(comm -13 <(echo "$opts_bin") <(echo "$opts_man") | grep -v -e --kernel -e --property -e --subsystem-match)
[ -z "$missing$extra" ] && pass "the man page documents exactly the options of --help" ||
	{ fail "the man page documents exactly the options of --help"; echo "#   missing: $missing extra: $extra"; }

mkdir -p "$W/man8" "$W/bin"
cp "$SRC/man/capi-devd.8" "$W/man8/"
cp "$CAPI_DEVD" "$W/bin/capi-devd"
sed "s|@sbindir[@]|$W/bin|g" "$SRC/rules/capi-devd.service.in" >"$W/capi-devd.service"
out=$(MANPATH="$W" systemd-analyze verify "$W/capi-devd.service" 2>&1)
[ -z "$out" ] && pass "systemd-analyze verify: clean" || { fail "systemd-analyze verify: clean"; echo "$out" | sed 's/^/#   /'; }

score=$(systemd-analyze security --offline=true "$W/capi-devd.service" 2>&1 |
	sed -n 's/.*Overall exposure level for capi-devd.service: \([0-9.]*\).*/\1/p')
if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'; then
	pass "systemd-analyze security: exposure $score <= 2.0"
else
	fail "systemd-analyze security: exposure ${score:-unknown} <= 2.0"
fi

# udevd >= 176 ignores NAME= for device nodes, and the pre-fix names must
# not get links from the rules (capi-devd owns them).
rules="$SRC/rules/50-capi.rules"
if grep -v '^#' "$rules" | grep -q 'NAME='; then fail "rules: no NAME= renaming"; else pass "rules: no NAME= renaming"; fi
if grep -v '^#' "$rules" | grep 'KERNEL=="capi\[0-9\]\*"\|KERNEL=="capi"' | grep -q SYMLINK; then
	fail "rules: no links for pre-fix names"; else pass "rules: no links for pre-fix names"; fi
echo "1..$T_N"
[ $T_FAILED = 0 ]
