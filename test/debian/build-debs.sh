#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/build-debs.sh - build the Debian source and binary packages
# of this tree, as a maintainer would from the release tarball:
# the .orig.tar.xz is make dist's tarball, then dpkg-buildpackage -us -uc
#
# Usage: test/debian/build-debs.sh [--version VERSION] [--build TYPE] [--orig TARBALL] OUTDIR
#        test/debian/build-debs.sh --make-orig OUTDIR
#
#   --make-orig: make the release tarball only: the tree's files (git
#   ls-files in a git checkout, else the whole tree but build
#   directories) copied into a scratch directory, autoreconf, configure
#   --disable-qemu-tests, make dist, whose dist-hook puts the DKMS trees
#   made from linux-source-6.1 and -6.12 in it (kernel/dkms/mkdist.sh).
#   OUTDIR gets capi-devd-V.tar.xz; stdout: its path.
#
#   Otherwise: TARBALL (or one made as --make-orig does) becomes
#   OUTDIR/capi-devd_V.orig.tar.xz, is unpacked into OUTDIR/capi-devd-V
#   with this tree's debian/, and dpkg-buildpackage -us -uc (source format
#   3.0 (quilt), Debian version V-1) builds there: the .dsc, .debian.tar.xz,
#   .debs, .changes and .buildinfo land in OUTDIR, the log in
#   OUTDIR/build.log.  --version builds the same source as another
#   upstream version, for the upgrade test: the tarball repacked with
#   AC_INIT in configure.ac set to VERSION, and a new debian/changelog
#   entry VERSION-1 (the one home of the version is configure.ac;
#   debian/rules checks that the changelog agrees).  --build TYPE is
#   dpkg-buildpackage's --build (any: -B, capi-devd only, as a buildd of
#   an architecture builds it; all: -A, kernelcapi-dkms only; default
#   full: the source package and both).  stdout: OUTDIR.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
top=$(cd "$here/../.." && pwd)
die() { echo "test/debian/build-debs.sh: error: $*" >&2; exit 1; }

version="" out="" orig="" make_orig=0 build=full
while [ $# -gt 0 ]; do
	case "$1" in
	--version) version=${2:?--version VERSION}; shift ;;
	--orig) orig=${2:?--orig TARBALL}; shift ;;
	--build) build=${2:?--build TYPE}; shift ;;
	--make-orig) make_orig=1 ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (try --help)" ;;
	*) out=$1 ;;
	esac
	shift
done
[ -n "$out" ] || die "OUTDIR missing (try --help)"
command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage not found. Fix: ./install-deps.sh"
[ -z "$orig" ] || orig=$(cd "$(dirname "$orig")" && pwd)/$(basename "$orig")
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# mkorig DIR: make dist of the tree in DIR/tree; prints the tarball
mkorig() {
	local d=$1/tree
	mkdir -p "$d"
	if git -C "$top" rev-parse --show-toplevel >/dev/null 2>&1 &&
		[ "$(git -C "$top" rev-parse --show-toplevel)" = "$top" ]; then
		(cd "$top" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
			tar --null -T - -cf -) | tar -C "$d" -xf -
	else
		tar -C "$top" --exclude='./build*' --exclude=autom4te.cache --exclude='./capi-devd-*' \
			-cf - . | tar -C "$d" -xf -
	fi
	(cd "$d" && autoreconf -fi && ./configure --disable-qemu-tests && make dist) \
		>"$1/dist.log" 2>&1 || { tail -n 40 "$1/dist.log" >&2; die "make dist failed (log: $1/dist.log)"; }
	ls "$d"/capi-devd-*.tar.xz
}

if [ "$make_orig" = 1 ]; then
	t=$(mkorig "$out")
	mv "$t" "$out/"
	rm -rf "$out/tree"
	echo "$out/$(basename "$t")"
	exit 0
fi
if [ -z "$orig" ]; then
	orig=$(mkorig "$out/dist")
fi
[ -f "$orig" ] || die "no tarball $orig"
up=$(basename "$orig" .tar.xz)
up=${up#capi-devd-}
src=$out/capi-devd-${version:-$up}
mkdir -p "$out/unpack"
tar -C "$out/unpack" -xJf "$orig"
[ -d "$out/unpack/capi-devd-$up" ] || die "$orig does not hold capi-devd-$up/"
mv "$out/unpack/capi-devd-$up" "$src"
rm -rf "$out/unpack"
if [ -n "$version" ]; then
	sed -i "s/^AC_INIT(\[capi-devd\], \[[^]]*\]/AC_INIT([capi-devd], [$version]/" "$src/configure.ac"
	grep -q "^AC_INIT(\[capi-devd\], \[$version\]" "$src/configure.ac" || die "cannot set the version in configure.ac"
	(cd "$out" && tar -cf - "capi-devd-$version" | xz -T0 -3 >"capi-devd_$version.orig.tar.xz")
else
	cp "$orig" "$out/capi-devd_$up.orig.tar.xz"
fi
# (a tarball made here lives in dist/ till now)
rm -rf "$out/dist"
# this tree's packaging, over the tarball's copy
rm -rf "$src/debian"
cp -a "$top/debian" "$src/debian"
if [ -n "$version" ]; then
	{
		echo "capi-devd ($version-1) unstable; urgency=medium"
		echo
		echo "  * Built as $version for the upgrade test (test/debian/build-debs.sh)."
		echo
		echo " -- $(sed -n 's/^Maintainer: //p' "$src/debian/control")  $(date -R)"
		echo
		cat "$src/debian/changelog"
	} >"$src/debian/changelog.new"
	mv "$src/debian/changelog.new" "$src/debian/changelog"
fi
(cd "$src" && dpkg-buildpackage -us -uc --build="$build") >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed (log: $out/build.log)"
}
rm -rf "$src"
echo "$out"
