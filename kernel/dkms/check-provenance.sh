#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/dkms/check-provenance.sh - has Debian changed a file that the DKMS
# source took from its linux-source package?
#
# Usage: kernel/dkms/check-provenance.sh DIR
#
#   DIR is a DKMS source (kernel/dkms/mksrc.sh's OUTDIR or
#   kernel/dkms/combine.sh's, or kernelcapi-dkms's /usr/src/capisim-V): each
#   PROVENANCE file in it names the package (linux-source-6.1, -6.12),
#   its version and the sha256 of each pristine file taken from it.  For
#   each package, the archive's current version (apt-cache of the release
#   whose table row in test/debian/suite-lib.sh names that series, with
#   kernel/suite.sh's private apt configuration) is fetched with apt-get
#   download into $CAPI_DEVD_CACHE/provenance/ (kept, by version; or,
#   when the host's installed package or kernel/suite.sh's cache has
#   that version already, its tarball is taken from there) and the
#   recorded files compared with its tarball's.
#   Prints one line a package ("same" or "changed") and one line a changed
#   or missing file; exit status 0 when nothing changed, 1 when a file
#   did, 2 on an error.  When Debian changed a file (a security fix, say),
#   regenerate: doc/debian.md, "Provenance".
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
kdir=$(cd "$here/.." && pwd)
say() { echo "[provenance] $*" >&2; }
die() { echo "kernel/dkms/check-provenance.sh: error: $*" >&2; exit 2; }
# shellcheck source=test/debian/suite-lib.sh
. "$kdir/../test/debian/suite-lib.sh"

case "${1:-}" in
-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
""|-*) die "usage: kernel/dkms/check-provenance.sh DIR (try --help)" ;;
esac
dir=$1
mapfile -t provs < <(find "$dir" -name PROVENANCE -type f | sort)
[ ${#provs[@]} -gt 0 ] || die "$dir has no PROVENANCE (not made by kernel/dkms/mksrc.sh)"
suite_cache

# field FILE NAME: the value of "NAME VALUE" in FILE
field() { sed -n "s/^$2 //p" "$1" | head -n1; }

# the recorded files of each package version, over all its trees (6.12's
# and 7's both come from linux-source-6.12; 7's adds the headers)
declare -A recs=()
keys=()
for p in "${provs[@]}"; do
	pkg=$(field "$p" package) ver=$(field "$p" version)
	if [ -z "$pkg" ] || [ -z "$ver" ]; then die "$p names no package or version"; fi
	key="$pkg $ver"
	[ -n "${recs[$key]+x}" ] || keys+=("$key")
	recs[$key]=$(printf '%s\n%s\n' "${recs[$key]:-}" "$(sed -n 's/^file //p' "$p")" | sed '/^$/d' | sort -u)
done

changed=0
for key in "${keys[@]}"; do
	pkg=${key% *} ver=${key#* }
	series=${pkg#linux-source-}
	# the release whose table row names this series
	suite=$(suite_table | awk -v s="$series" '$3 == s { print $1; exit }')
	[ -n "$suite" ] || die "no release of test/debian/suite-lib.sh's table has linux $series"
	cur=$("$kdir/suite.sh" "$suite" apt-cache show --no-all-versions "$pkg" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n1)
	[ -n "$cur" ] || die "$suite has no $pkg"
	d="$cache/provenance/$pkg-$cur"
	# a tarball of that version already here: the host's installed
	# package, or the one kernel/suite.sh fetched into the cache
	if [ ! -f "$d/.done" ]; then
		for t in "/usr/src/$pkg.tar.xz" "$cache"/suite/*/"linux-$cur/root/usr/src/$pkg.tar.xz"; do
			[ -r "$t" ] || continue
			case $t in
			/usr/src/*) [ "$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)" = "$cur" ] || continue ;;
			esac
			say "$pkg $cur: $t"
			rm -rf "$d"
			mkdir -p "$d"
			ln -s "$t" "$d/$pkg.tar.xz"
			touch "$d/.done"
			break
		done
	fi
	if [ ! -f "$d/.done" ]; then
		say "fetching $pkg $cur from $suite"
		rm -rf "$d"
		mkdir -p "$d"
		(cd "$d" && "$kdir/suite.sh" "$suite" apt-get -q download "$pkg=$cur") >"$d/fetch.log" 2>&1 ||
			{ cat "$d/fetch.log" >&2; die "apt-get download $pkg=$cur from $suite failed"; }
		deb=$(ls "$d"/*.deb)
		dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" >"$d/$pkg.tar.xz" ||
			die "$deb holds no /usr/src/$pkg.tar.xz"
		rm -f "$deb"
		sha256sum <"$d/$pkg.tar.xz" | cut -d' ' -f1 >"$d/tarball.sha256"
		touch "$d/.done"
	fi
	mapfile -t files < <(cut -d' ' -f1 <<<"${recs[$key]}")
	x=$(mktemp -d "${TMPDIR:-/tmp}/capi-prov.XXXXXX")
	tar -xJf "$d/$pkg.tar.xz" -C "$x" --strip-components=1 "${files[@]/#/$pkg/}" 2>/dev/null || true
	bad=()
	while read -r f sum; do
		if [ ! -f "$x/$f" ]; then
			bad+=("$f (gone)")
		elif [ "$(sha256sum <"$x/$f" | cut -d' ' -f1)" != "$sum" ]; then
			bad+=("$f")
		fi
	done <<<"${recs[$key]}"
	rm -rf "$x"
	if [ ${#bad[@]} = 0 ]; then
		echo "$pkg: same: the ${#files[@]} files recorded from $ver are those of $suite's $cur"
	else
		changed=1
		echo "$pkg: changed: $suite's $cur differs from the recorded $ver in ${#bad[@]} file(s):"
		printf '  %s\n' "${bad[@]}"
	fi
done
exit $changed
