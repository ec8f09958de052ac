#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/dkms-provenance.sh - kernel/dkms/check-provenance.sh against the
# archive: the DKMS trees made now (kernel/dkms/mksrc.sh, 6.1 and
# --tree 7) record the files of the current linux-source-6.1 and -6.12,
# so the check finds them the same; a PROVENANCE whose sha256 of
# kcapi.c and one header no longer match the archive fails it, naming
# both.  Run by make check-dkms.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
top=$(cd "$TESTDIR/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/capi-dkms-prov.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$work"' EXIT

for t in 6.1 7; do
	case $t in
	7) args=(--tree 7) ;;
	*) args=() ;;
	esac
	if ! "$top/kernel/dkms/mksrc.sh" "${args[@]}" "$work/src/linux-$t" >"$work/mksrc-$t.log" 2>&1; then
		fail "kernel/dkms/mksrc.sh makes the tree $t"
		diag <"$work/mksrc-$t.log"
		done_testing
	fi
	check "the tree $t has a PROVENANCE with its package's tarball" \
		grep -q '^tarball linux-source-6\.[0-9]*\.tar\.xz [0-9a-f]\{64\}$' "$work/src/linux-$t/PROVENANCE"
done
check "PROVENANCE of the tree 7 records the headers it carries" \
	grep -q '^file include/uapi/linux/capi\.h [0-9a-f]\{64\}$' "$work/src/linux-7/PROVENANCE"

"$top/kernel/dkms/check-provenance.sh" "$work/src" >"$work/same.log" 2>&1
r=$?
diag <"$work/same.log"
check "check-provenance.sh: both packages the same as in the archive (exit $r)" test $r = 0
check "it names both packages" test "$(grep -c ': same: ' "$work/same.log")" = 2

sed -i -e 's/^\(file drivers\/isdn\/capi\/kcapi\.c \).*/\1'"$(printf '0%.0s' {1..64})"'/' \
	-e 's/^\(file include\/linux\/kernelcapi\.h \).*/\1'"$(printf 'f%.0s' {1..64})"'/' \
	"$work/src/linux-7/PROVENANCE"
"$top/kernel/dkms/check-provenance.sh" "$work/src" >"$work/changed.log" 2>&1
r=$?
diag <"$work/changed.log"
check "a recorded file that differs from the archive's fails it (exit $r)" test $r = 1
check "it names the changed kcapi.c" grep -qx '  drivers/isdn/capi/kcapi.c' "$work/changed.log"
check "it names the changed kernelcapi.h" grep -qx '  include/linux/kernelcapi.h' "$work/changed.log"
check "the 6.1 tree is still the same" grep -q '^linux-source-6.1: same' "$work/changed.log"
done_testing
