# shellcheck shell=bash disable=SC2034  # sets variables for its callers
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/series.sh - sourced: which source tree, which patches, in order,
# and the files of kernel/capisim/ that go into the tree besides them.
# Used by kernel/build.sh, kernel/check-series.sh, kernel/dkms/mksrc.sh and
# kernel/port-series.sh.
#
# A tree is a Debian source package (LINUX_SOURCE_PKG):
#   linux-source-6.1    Debian 12's, installed on the host (apt-get install),
#                       else fetched into the cache by kernel/suite.sh
#   linux-source-6.12   Debian 13's, fetched into the cache by kernel/suite.sh
#
# The series of linux-source-V is kernel/patches-V/series when that file
# exists, else kernel/patches/series.  A series names one patch a line,
# relative to its own directory; "#" starts a comment.  So
# kernel/patches-6.12/series names a patch shared with 6.1 as
# ../patches/NAME and a patch of its own as NAME.
#
# capisim, our own driver, is no patch: kernel/capisim/ is one source for
# every tree (capisim.c, capisim-compat.h where the kernels differ,
# capisim.rst).  The series' patch "build capisim" only adds its Kconfig
# entry, Makefile line, MAINTAINERS entry and documentation index line;
# series_overlay copies the files themselves into a tree.

series_kdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# series_file PKG: the series file of PKG's tree
series_file() {
	local v=${1#linux-source-}
	if [ -f "$series_kdir/patches-$v/series" ]; then
		echo "$series_kdir/patches-$v/series"
	else
		echo "$series_kdir/patches/series"
	fi
}

# series_read FILE: the patches FILE names, in order, into the array
# series_patches, as paths relative to kernel/ (patches/0001-....patch);
# returns 1 with a message when FILE names a patch that does not exist.
series_read() {
	local file=$1 dir line name
	series_patches=()
	dir=$(dirname "$file")
	while IFS= read -r line || [ -n "$line" ]; do
		read -r name _ <<<"${line%%#*}" || true
		[ -n "$name" ] || continue
		if [ ! -f "$dir/$name" ]; then
			echo "${file#"$series_kdir"/}: names $name, which does not exist" >&2
			return 1
		fi
		series_patches+=("$(realpath -m --relative-to="$series_kdir" "$dir/$name")")
	done <"$file"
}

# tree_source PKG: sets tree_tarball (the source tarball) and tree_version
# (the Debian version of PKG); returns 1 with a message when PKG is missing.
# The host's installed source package first (Debian 12's linux-source-6.1
# on a Debian 12 host, Debian 13's linux-source-6.12 in a Debian 13
# package build), else the release's own, fetched into the cache by
# kernel/suite.sh (so make dist works on any release's host).
tree_source() {
	local d suite series=${1#linux-source-}
	tree_tarball=/usr/src/$1.tar.xz
	if [ -r "$tree_tarball" ]; then
		tree_version=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null) ||
			tree_version="unknown-$(stat -c %s-%Y "$tree_tarball")"
		return 0
	fi
	case $series in
	6.1) suite=bookworm ;;
	6.12) suite=trixie ;;
	*)
		echo "$1: no Debian release known to carry it" >&2
		return 1
		;;
	esac
	d=$("$series_kdir/suite.sh" "$suite" linux "$series" | tail -n1) || {
		echo "$1 of $suite could not be fetched (above)
  Fix: apt-get install $1, or let kernel/suite.sh reach the archive" >&2
		return 1
	}
	tree_tarball=$d/root/usr/src/$1.tar.xz
	tree_version=$(cat "$d/version")
}

# series_overlay_list: the files of kernel/capisim/, one a line, as
# "FILE DEST": FILE relative to kernel/, DEST its place in a source tree
# (*.rst in Documentation/isdn/, the rest in drivers/isdn/capi/).
series_overlay_list() {
	local f
	for f in "$series_kdir"/capisim/*; do
		[ -f "$f" ] || continue
		f=${f#"$series_kdir"/}
		case $f in
		*.rst) echo "$f Documentation/isdn/${f##*/}" ;;
		*) echo "$f drivers/isdn/capi/${f##*/}" ;;
		esac
	done
}

# series_overlay TREE [PREFIX]: copy the files of kernel/capisim/ into
# TREE, those whose DEST starts with PREFIX only (default: all).  They
# stay untracked in a git tree.  Before or after the patches alike: only
# the series' Kconfig and Makefile lines make the kernel build them.
series_overlay() {
	local tree=$1 prefix=${2:-} f dest
	while read -r f dest; do
		case $dest in "$prefix"*) ;; *) continue ;; esac
		mkdir -p "$tree/$(dirname "$dest")" && cp "$series_kdir/$f" "$tree/$dest" || return 1
	done < <(series_overlay_list)
}
