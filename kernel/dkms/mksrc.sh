#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/dkms/mksrc.sh - assemble the DKMS source tree of capisim and the
# fixed kernelcapi from the kernel series
#
# Usage: kernel/dkms/mksrc.sh [--tree 7] [--source-tree DIR] OUTDIR
#        kernel/dkms/mksrc.sh [--tree 7] --print-version
#
#   Takes drivers/isdn/capi of the pristine linux-source-6.1 tree
#   (unpacked from the source package's tarball, /usr/src/ or the one
#   kernel/suite.sh fetched; or DIR: a git tree whose tag capi-pristine is
#   the unpatched source, e.g. kernel/build.sh --source-tree, or a plain
#   unpacked source tree), applies what kernel/patches/series changes under
#   drivers/isdn/capi/, patch by patch, adds capisim's own source
#   (kernel/capisim/: capisim.c, capisim-compat.h; kernel/series.sh) and
#   writes OUTDIR (created; it must not exist or be empty):
#     OUTDIR/*.c *.h Makefile  drivers/isdn/capi as the series leaves it,
#                              with kernel/capisim/'s capisim.c and header
#     OUTDIR/Kbuild            kernel/dkms/Kbuild: builds kernelcapi.ko and
#                              capisim.ko against a kernel without the series
#     OUTDIR/dkms.conf         PACKAGE_NAME capisim, PACKAGE_VERSION below
#     OUTDIR/dkms-version.c    MODULE_VERSION(PACKAGE_VERSION) for kernelcapi.ko
#     OUTDIR/PROVENANCE        the package, version and sha256 of its source
#                              tarball, the sha256 of each pristine file
#                              taken from it, the patches applied
#   Nothing of linux-source is kept in the checkout: the files are the
#   series' own, and capisim's are kernel/capisim/.  Build by hand with
#     make -C /lib/modules/$(uname -r)/build M=OUTDIR modules
#   or install through DKMS (doc/kernel.md, "On Debian's stock kernel"),
#   or with the kernelcapi-dkms package (debian/, README.md).
#
#   --tree 7 writes the tree for the kernels after mainline's removal of
#   ISDN and CAPI (7.1): linux-source-6.12's, as above, plus what those
#   kernels lack, from kernel/dkms/linux-7/:
#     OUTDIR/include/...       the headers that kernel/dkms/linux-7/headers
#                              names, copied from the pristine 6.12 tree
#     OUTDIR/compat.h          kernel/dkms/linux-7/compat.h: the API changes
#                              since 6.12, by kernel version (Kbuild
#                              includes it before each file)
#     kernel/dkms/linux-7/patches/*.patch, applied after the series: the
#                              changes compat.h cannot make (recorded in
#                              PROVENANCE as patches)
#   and its dkms.conf is for kernels 7.* (BUILD_EXCLUSIVE_KERNEL).
#   Without --tree, the tree is the series' own (6.1 or 6.12), for the
#   kernels of that series only.
#
#   --print-version prints the PACKAGE_VERSION only: the upstream version
#   of linux-source-6.1 and a hash of the series and kernel/capisim/,
#   e.g. 6.1.192-capi.1a2b3c4d.
#
# Environment: LINUX_SOURCE_PKG (default linux-source-6.1; linux-source-6.12
# takes Debian 13's tree and kernel/patches-6.12/series, and is the
# tree of --tree 7), CAPI_DEVD_CACHE (kernel/suite.sh: where 6.12's
# tarball is fetched when linux-source-6.12 is not installed).
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
kdir=$(cd "$here/.." && pwd)
die() { echo "kernel/dkms/mksrc.sh: error: $*" >&2; exit 1; }

srctree="" out="" print_version=0 tree=
while [ $# -gt 0 ]; do
	case "$1" in
	--source-tree) srctree=${2:?--source-tree DIR}; shift ;;
	--print-version) print_version=1 ;;
	--tree) tree=${2:?--tree 7}; shift ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (try --help)" ;;
	*) [ -z "$out" ] || die "one OUTDIR only"; out=$1 ;;
	esac
	shift
done

# shellcheck source=kernel/series.sh
. "$kdir/series.sh"
pkg=${LINUX_SOURCE_PKG:-linux-source-6.1}
case "$tree" in
"") extra=() ;;
7)	# the newest tree before the removal
	[ -z "${LINUX_SOURCE_PKG:-}" ] || [ "$pkg" = linux-source-6.12 ] ||
		die "--tree 7 is made from linux-source-6.12, not $pkg"
	pkg=linux-source-6.12
	extra=("$here/linux-$tree/headers" "$here/linux-$tree/compat.h") ;;
*) die "--tree $tree: only 7 (the kernels after the removal) is known" ;;
esac
# the tree's own patches, applied after the series: what the kernel API
# of its range needs that compat.h cannot do (kernel/dkms/linux-TREE/patches/)
tpatches=()
if [ -n "$tree" ]; then
	for p in "$here/linux-$tree"/patches/*.patch; do
		[ -f "$p" ] && tpatches+=("${p#"$kdir"/}")
	done
	extra+=("${tpatches[@]/#/$kdir/}")
fi
series=$(series_file "$pkg")
[ -f "$series" ] || die "no $series"
series_read "$series" || die "bad series (above)"
patches=("${series_patches[@]}")
[ ${#patches[@]} -gt 0 ] || die "kernel/${series#"$kdir"/} is empty: nothing to build out of tree"

tree_source "$pkg" || die "no source tree $pkg (above)"
pkgver=$tree_version
version="${pkgver%%-*}-capi.$( {
	for p in "${patches[@]}"; do basename "$p"; cat "$kdir/$p"; done
	while read -r f dest; do echo "$f $dest"; cat "$kdir/$f"; done < <(series_overlay_list)
	cat "$here/Kbuild" "$here/dkms.conf.in" "${extra[@]}"
} | sha256sum | cut -c1-8)"
if [ "$print_version" = 1 ]; then echo "$version"; exit 0; fi

[ -n "$out" ] || die "OUTDIR missing (try --help)"
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	die "$out exists and is not empty"
fi
hdrs=()
[ -z "$tree" ] || mapfile -t hdrs < <(grep -v '^#' "$here/linux-$tree/headers")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/capi-dkms.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$tmp"' EXIT
if [ -z "$srctree" ]; then
	# only what the tree needs, straight from the source package's tarball
	srctree=$tmp/src
	mkdir -p "$srctree"
	tar -xJf "$tree_tarball" -C "$srctree" --strip-components=1 \
		"$pkg/drivers/isdn/capi" "${hdrs[@]/#/$pkg/}" ||
		die "cannot unpack drivers/isdn/capi from $tree_tarball"
fi
[ -d "$srctree/drivers/isdn/capi" ] || die "$srctree has no drivers/isdn/capi"
# the pristine files, not whatever state a build left the work tree in
if git -C "$srctree" rev-parse -q --verify capi-pristine >/dev/null 2>&1; then
	git -C "$srctree" archive capi-pristine drivers/isdn/capi | tar -x -C "$tmp" ||
		die "cannot read drivers/isdn/capi at tag capi-pristine of $srctree"
else
	mkdir -p "$tmp/drivers/isdn"
	cp -a "$srctree/drivers/isdn/capi" "$tmp/drivers/isdn/capi"
fi
# where each file comes from, before the patches change them
{
	echo "# PROVENANCE of this DKMS tree, written by capi-devd's kernel/dkms/mksrc.sh:"
	echo "# the Debian source package and its tarball, the pristine files taken"
	echo "# from it (sha256, before the patches), the patches applied in order and"
	echo "# capi-devd's own files (kernel/capisim/).  kernel/dkms/check-provenance.sh"
	echo "# compares the files with the archive's current package."
	echo "tree ${tree:-${pkg#linux-source-}}"
	echo "package $pkg"
	echo "version $pkgver"
	if [ -r "$tree_tarball" ]; then
		echo "tarball $(basename "$tree_tarball") $(sha256sum <"$tree_tarball" | cut -d' ' -f1)"
	fi
	(cd "$tmp" && find drivers -type f | sort | xargs sha256sum) | awk '{ print "file", $2, $1 }'
	for h in "${hdrs[@]}"; do
		echo "file $h $(sha256sum <"$srctree/$h" | cut -d' ' -f1)"
	done
	for p in "${patches[@]}" "${tpatches[@]}"; do echo "patch $p $(sha256sum <"$kdir/$p" | cut -d' ' -f1)"; done
	while read -r f _; do echo "own $f $(sha256sum <"$kdir/$f" | cut -d' ' -f1)"; done < <(series_overlay_list)
} >"$tmp/PROVENANCE"
# git apply outside any repository (GIT_CEILING_DIRECTORIES stops the
# search at $tmp's parent), only the hunks under drivers/isdn/capi/
for p in "${patches[@]}" "${tpatches[@]}"; do
	(cd "$tmp" && GIT_CEILING_DIRECTORIES=$(dirname "$tmp") \
		git apply --include='drivers/isdn/capi/*' --whitespace=nowarn "$kdir/$p") ||
		die "kernel/$p does not apply to drivers/isdn/capi of $srctree"
done
series_overlay "$tmp" drivers/isdn/capi/ || die "cannot copy kernel/capisim/ into the DKMS tree"
d="$tmp/drivers/isdn/capi"
[ -f "$d/capisim.c" ] || die "no drivers/isdn/capi/capisim.c (kernel/capisim/)"
# shellcheck disable=SC2016 # a make variable, not a shell one
grep -qF 'obj-$(CONFIG_ISDN_CAPI_SIM)' "$d/Makefile" || die "the series does not build capisim (drivers/isdn/capi/Makefile)"
[ -f "$d/Makefile" ] || die "no drivers/isdn/capi/Makefile"
rm -f "$d/Kconfig"
if [ -n "$tree" ]; then
	# kernelcapi's headers, pristine (the series changes none of them)
	mkdir -p "$tmp/carried"
	if git -C "$srctree" rev-parse -q --verify capi-pristine >/dev/null 2>&1; then
		git -C "$srctree" archive capi-pristine "${hdrs[@]}" | tar -x -C "$tmp/carried" ||
			die "cannot read the headers of kernel/dkms/linux-$tree/headers at tag capi-pristine of $srctree"
	else
		(cd "$srctree" && cp --parents "${hdrs[@]}" "$tmp/carried/") ||
			die "$srctree lacks a header of kernel/dkms/linux-$tree/headers"
	fi
	cp -a "$tmp/carried/include" "$d/include"
	cp "$here/linux-$tree/compat.h" "$d/compat.h"
fi
cp "$here/Kbuild" "$d/Kbuild"
series_v=${tree:-${pkg#linux-source-}}
# The kernels of the tree: its series (6.1.*, 6.12.*); for the tree 7, only
# the 7.x series it was built and booted on (doc/kernel.md, doc/debian.md):
# a newer 7.N may change what compat.h covers, and a failed DKMS build in
# its linux-image's postinst would fail the user's kernel upgrade.  DKMS
# skips a kernel outside BUILD_EXCLUSIVE_KERNEL (one line, exit 77: the
# kernel's install succeeds).  7.0 still has CAPI in-tree: its own.
tree7_booted="7.2 7.3"
if [ "$tree" = 7 ]; then
	kernels="^7\\.($(sed 's/^7\.//; s/ 7\./|/g' <<<"$tree7_booted"))\\."
else
	kernels="^${series_v//./\\.}\\."
fi
sed -e "s/@VERSION@/$version/" -e "s/@SERIES@/$series_v/" \
	-e "s/@KERNELS@/${kernels//\\/\\\\}/" "$here/dkms.conf.in" >"$d/dkms.conf"
cat >"$d/dkms-version.c" <<EOF
// SPDX-License-Identifier: GPL-2.0
/* Written by capi-devd's kernel/dkms/mksrc.sh: the DKMS package version. */
#include <linux/module.h>

MODULE_VERSION("$version");
EOF
cp "$tmp/PROVENANCE" "$d/PROVENANCE"
mkdir -p "$out"
cp -a "$d/." "$out/"
echo "$out"
