#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/dkms/mkdist.sh - the module source that the release tarball
# carries: every DKMS tree, so that the Debian source package builds
# kernelcapi-dkms without any linux-source package
#
# Usage: kernel/dkms/mkdist.sh OUTDIR
#
#   Writes OUTDIR (created; it must not exist or be empty):
#     OUTDIR/linux-6.1/    kernel/dkms/mksrc.sh's tree of linux-source-6.1
#     OUTDIR/linux-6.12/   ... of linux-source-6.12 (kernel/patches-6.12)
#     OUTDIR/linux-7/      ... --tree 7 (6.12's, with the headers and
#                          compat.h of the kernels after the removal)
#     OUTDIR/devices.txt   the CAPI 2.0 block ("68 char") of
#                          Documentation/admin-guide/devices.txt of
#                          linux-source-6.1, with its source in its first
#                          lines: the default spec of capi-devd --verify
#   each tree with its PROVENANCE (kernel/dkms/check-provenance.sh OUTDIR
#   compares them with the archive).  linux-source-6.1 is the host's
#   (/usr/src), linux-source-6.12 the host's or the one kernel/suite.sh
#   fetches into the cache; each tarball is read once.  Makefile.am's
#   dist-hook runs this into the tarball's kernel/dkms/src/; nothing of it
#   is committed.  Prints OUTDIR.
#
#   The trees are made once per key in $CAPI_DEVD_CACHE/dkms-dist/trees-KEY/
#   and copied from there: KEY hashes this script, kernel/series.sh,
#   mksrc.sh and what mksrc.sh --print-version hashes for each tree (its
#   patches, capisim's files, Kbuild, dkms.conf.in, the 7.x extras and the
#   linux-source version).  A CI run makes dist four times (make
#   distcheck twice, the Debian 12 and 13 package builds), and the trees
#   took about 50 s of CPU each (issue 41).  The two newest keys are kept.
#
# Environment: CAPI_DEVD_CACHE (kernel/suite.sh).
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
kdir=$(cd "$here/.." && pwd)
die() { echo "kernel/dkms/mkdist.sh: error: $*" >&2; exit 1; }

case "${1:-}" in
-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
""|-*) die "usage: kernel/dkms/mkdist.sh OUTDIR (try --help)" ;;
esac
out=$1
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	die "$out exists and is not empty"
fi
say() { echo "[mkdist] $*" >&2; }
# shellcheck source=kernel/series.sh
. "$kdir/series.sh"
# shellcheck source=test/debian/suite-lib.sh
. "$kdir/../test/debian/suite-lib.sh"
mapfile -t hdrs < <(grep -v '^#' "$here/linux-7/headers")

suite_cache
key=$( {
	cat "$self" "$kdir/series.sh" "$here/mksrc.sh"
	LINUX_SOURCE_PKG=linux-source-6.1 "$here/mksrc.sh" --print-version
	LINUX_SOURCE_PKG=linux-source-6.12 "$here/mksrc.sh" --print-version
	LINUX_SOURCE_PKG=linux-source-6.12 "$here/mksrc.sh" --tree 7 --print-version
} | sha256sum | cut -c1-16) || die "cannot hash the trees' inputs (above)"
dc="$cache/dkms-dist"
kept="$dc/trees-$key"
suite_lock "$dc" kernel/dkms/mkdist.sh
mkdir -p "$out"
if [ -f "$kept/.done" ]; then
	say "the trees of key $key from the cache ($kept)"
	cp -a "$kept/." "$out/"
	rm -f "$out/.done"
	echo "$out"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/capi-mkdist.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$tmp"' EXIT
for v in 6.1 6.12; do
	pkg=linux-source-$v
	tree_source "$pkg" || die "no $pkg (above)"
	extra=(Documentation/admin-guide/devices.txt)
	[ "$v" != 6.12 ] || extra+=("${hdrs[@]}")
	mkdir -p "$tmp/$v"
	tar -xJf "$tree_tarball" -C "$tmp/$v" --strip-components=1 \
		"$pkg/drivers/isdn/capi" "${extra[@]/#/$pkg/}" ||
		die "cannot unpack drivers/isdn/capi from $tree_tarball"
	LINUX_SOURCE_PKG=$pkg "$here/mksrc.sh" --source-tree "$tmp/$v" "$out/linux-$v" >/dev/null ||
		die "kernel/dkms/mksrc.sh failed for $pkg"
	if [ "$v" = 6.12 ]; then
		LINUX_SOURCE_PKG=$pkg "$here/mksrc.sh" --tree 7 --source-tree "$tmp/$v" "$out/linux-7" >/dev/null ||
			die "kernel/dkms/mksrc.sh --tree 7 failed"
	else
		{
			echo "# The CAPI 2.0 block (major 68 char) of Documentation/admin-guide/devices.txt"
			echo "# of Debian's $pkg $tree_version,"
			echo "# GPL-2.0; the default spec of capi-devd --verify."
			echo
			sed -n '/^  68 char/,/^  68 block/p' "$tmp/$v/Documentation/admin-guide/devices.txt" | sed '$d'
		} >"$out/devices.txt"
		grep -q '^  68 char' "$out/devices.txt" || die "no 68 char block in devices.txt of $pkg"
	fi
done
rm -rf "$kept.tmp" "$kept"
if ! { cp -a "$out" "$kept.tmp" && touch "$kept.tmp/.done" && mv "$kept.tmp" "$kept"; }; then
	die "cannot keep the trees in $kept"
fi
suite_keep "$dc" trees
echo "$out"
