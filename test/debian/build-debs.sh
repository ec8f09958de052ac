#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/build-debs.sh - build the Debian packages of this tree, as a
# user would in a clean clone: dpkg-buildpackage -us -uc -b
#
# Usage: test/debian/build-debs.sh [--version VERSION] OUTDIR
#
#   Copies the tree's files (git ls-files when this is a git checkout,
#   else the whole tree but build directories) into OUTDIR/src, and runs
#   dpkg-buildpackage there; the .debs, .changes and .buildinfo land in
#   OUTDIR, the log in OUTDIR/build.log.  --version builds the same tree
#   as another version, for the upgrade test: AC_INIT in configure.ac and
#   a new debian/changelog entry get VERSION (the one home of the version
#   is configure.ac; debian/rules checks that the changelog agrees).
#   stdout: OUTDIR.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
top=$(cd "$here/../.." && pwd)
die() { echo "test/debian/build-debs.sh: error: $*" >&2; exit 1; }

version="" out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--version) version=${2:?--version VERSION}; shift ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (try --help)" ;;
	*) out=$1 ;;
	esac
	shift
done
[ -n "$out" ] || die "OUTDIR missing (try --help)"
command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage not found. Fix: ./install-deps.sh"
rm -rf "$out"
mkdir -p "$out/src"
out=$(cd "$out" && pwd)
if git -C "$top" rev-parse --show-toplevel >/dev/null 2>&1 &&
	[ "$(git -C "$top" rev-parse --show-toplevel)" = "$top" ]; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -C "$out/src" -xf -
else
	tar -C "$top" --exclude='./build*' --exclude=autom4te.cache -cf - . | tar -C "$out/src" -xf -
fi
if [ -n "$version" ]; then
	sed -i "s/^AC_INIT(\[capi-devd\], \[[^]]*\]/AC_INIT([capi-devd], [$version]/" "$out/src/configure.ac"
	grep -q "^AC_INIT(\[capi-devd\], \[$version\]" "$out/src/configure.ac" || die "cannot set the version in configure.ac"
	{
		echo "capi-devd ($version) unstable; urgency=medium"
		echo
		echo "  * Built as $version for the upgrade test (test/debian/build-debs.sh)."
		echo
		echo " -- $(sed -n 's/^Maintainer: //p' "$out/src/debian/control")  $(date -R)"
		echo
		cat "$out/src/debian/changelog"
	} >"$out/src/debian/changelog.new"
	mv "$out/src/debian/changelog.new" "$out/src/debian/changelog"
fi
(cd "$out/src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed (log: $out/build.log)"
}
rm -rf "$out/src"
echo "$out"
