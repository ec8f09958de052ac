#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/port-series.sh - port kernel/patches/series (6.1) to another tree
#
# Usage: kernel/port-series.sh [--tree 6.12] [--continue]
#
#   Rewrites kernel/patches-V/series (V = 6.12 by default) and the patches
#   of kernel/patches-V/ from kernel/patches/series, patch by patch, in a
#   work tree of the pristine linux-source-V (kernel/build.sh --source-tree)
#   under $CACHE/kernel/port-V, whose git also sees the objects of the
#   pristine 6.1 tree.  For each 6.1 patch, the first that applies:
#     1. kernel/patches-V/NAME, when its series line records the patch-id
#        (git patch-id --stable) of the 6.1 patch it was ported from and
#        that is the 6.1 patch's patch-id now: a port made (or mended) by
#        hand is kept while its 6.1 patch's change stays the same;
#        When that patch has changed since, the port is not dropped: the
#        new 6.1 patch is applied (three-way) and the port stops, for the
#        port's own changes to be made again by hand (a port may differ
#        where git am sees nothing: 6.12's types, say), then --continue;
#     2. the 6.1 patch itself (git am): shared, named ../patches/NAME;
#     3. the 6.1 patch merged three-way (git am -3, the 6.1 blobs its index
#        lines name come from the 6.1 tree with the patches before it):
#        written to kernel/patches-V/NAME.
#   A conflict stops the port: resolve it in $CACHE/kernel/port-V (git
#   status; the previous port, if any, is kernel/patches-V/NAME; git add -f,
#   as Debian's .gitignore ignores the tree's top level), then
#   `git -C $CACHE/kernel/port-V am --continue` and run this again with
#   --continue.  The ports are written with git format-patch --zero-commit
#   (numbered as the 6.1 series), so that an unchanged port is unchanged
#   byte for byte.  Then run kernel/check-series.sh --tree V.
#
# Environment: CAPI_DEVD_CACHE as for kernel/build.sh.
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
say() { echo "[port] $*" >&2; }
die() { echo "kernel/port-series.sh: error: $*" >&2; exit 1; }

v=6.12 resume=0
while [ $# -gt 0 ]; do
	case "$1" in
	--tree) v=${2:?--tree V}; shift ;;
	--continue) resume=1 ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (try --help)" ;;
	esac
	shift
done
[ "$v" != 6.1 ] || die "6.1 is the tree the series is written for"

# shellcheck source=kernel/series.sh
. "$here/series.sh"
series_read "$here/patches/series" || die "bad kernel/patches/series (above)"
from=("${series_patches[@]}")
portdir="$here/patches-$v"
mkdir -p "$portdir"
# NAME -> the 6.1 patch-id its port was made from (the series' comments)
declare -A origin=()
if [ -f "$portdir/series" ]; then
	while read -r name id; do
		origin[$name]=$id
	done < <(awk '$2 == "#" && $3 == "port" && $6 == "patch-id" { print $1, $7 }' "$portdir/series")
fi
patch_id() { git patch-id --stable <"$1" | cut -d' ' -f1; }
# message PATCH: its commit message, for git commit -F
message() {
	local d
	d=$(mktemp -d)
	git mailinfo "$d/msg" "$d/patch" <"$1" | sed -n 's/^Subject: //p'
	echo
	cat "$d/msg"
	rm -rf "$d"
}

src61=$(LINUX_SOURCE_PKG=linux-source-6.1 "$here/build.sh" --source-tree | tail -n1) || die "no 6.1 source tree"
srcv=$(LINUX_SOURCE_PKG="linux-source-$v" "$here/build.sh" --source-tree | tail -n1) || die "no $v source tree"
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
work="$cache/kernel/port-$v"
g() { git -C "$work" "$@"; }

if [ "$resume" = 0 ]; then
	if [ ! -d "$work/.git" ]; then
		git clone -q --shared --no-checkout "$srcv" "$work" || die "cannot clone $srcv"
		echo "$src61/.git/objects" >>"$work/.git/objects/info/alternates"
	fi
	g config user.name port-series && g config user.email port-series@localhost
	g am --abort >/dev/null 2>&1 || true
	g fetch -q "$src61" "refs/tags/capi-pristine:refs/tags/pristine-6.1" --no-tags -f ||
		die "cannot see the 6.1 tree in $work"
	g checkout -q -f --detach capi-pristine && g clean -fdxq || die "cannot check out capi-pristine in $work"
	# The 6.1 blobs the patches' index lines name: the 6.1 series applied
	# to an index of its own, no work tree.
	idx="$work/.git/index-6.1"
	GIT_INDEX_FILE=$idx g read-tree pristine-6.1
	for p in "${from[@]}"; do
		(cd "$work" && GIT_INDEX_FILE=$idx git apply --cached "$here/$p") ||
			die "kernel/$p does not apply to 6.1 (kernel/check-series.sh)"
	done
	rm -f "$idx"
	: >"$work/.git/port-how"
elif [ -d "$work/.git/rebase-apply" ]; then
	die "$work is in the middle of git am: resolve it, git am --continue, then --continue"
fi

# ---------------------------------------------------------------- port
done_n=$(g rev-list --count capi-pristine..HEAD)
for ((i = done_n; i < ${#from[@]}; i++)); do
	p=${from[i]} name=$(basename "${from[i]}")
	id=$(patch_id "$here/$p")
	if [ "${origin[$name]:-}" = "$id" ] && [ -f "$portdir/$name" ] && g am -q --keep-cr "$portdir/$name" 2>/dev/null; then
		# the 6.1 patch's message, which may have changed
		message "$here/$p" | g commit -q --amend -F -
		say "$name: its port, kept (the 6.1 patch's change is the same)"
		echo "$name port" >>"$work/.git/port-how"
		continue
	fi
	g am --abort >/dev/null 2>&1 || true
	# A port can differ from its 6.1 patch where git am sees no conflict
	# (6.12's types, say): once that patch has changed, the port is mended
	# by hand again, never silently dropped for the new 6.1 patch.
	if [ -n "${origin[$name]:-}" ] && [ -f "$portdir/$name" ]; then
		g am -q -3 --keep-cr "$here/$p" ||
			say "$name: conflict; resolve it (git add -f FILE, git -C $work am --continue) first"
		echo "$name port" >>"$work/.git/port-how"
		say "$name: the 6.1 patch has changed since its port (kernel/patches-$v/$name) was made."
		say "  Make in $work what the port changed beyond the 6.1 patch, git -C $work commit -a --amend,"
		say "  then: kernel/port-series.sh --tree $v --continue"
		exit 1
	fi
	if g am -q --keep-cr "$here/$p" 2>/dev/null; then
		say "$name: the 6.1 patch applies as it is (shared)"
		echo "$name shared" >>"$work/.git/port-how"
		continue
	fi
	g am --abort >/dev/null 2>&1 || true
	if g am -q -3 --keep-cr "$here/$p"; then
		say "$name: merged three-way (own port)"
		echo "$name port" >>"$work/.git/port-how"
		continue
	fi
	say "$name: conflict. Resolve it in $work (git add -f FILE), then:"
	say "  git -C $work am --continue && kernel/port-series.sh --tree $v --continue"
	[ -f "$portdir/$name" ] && say "  (the previous port: kernel/patches-$v/$name)"
	exit 1
done

# ---------------------------------------------------------------- write
out=$(mktemp -d)
trap '[ "$BASHPID" != "$$" ] || rm -rf "$out"' EXIT
g format-patch -q -n --zero-commit -o "$out" capi-pristine..HEAD
mapfile -t made < <(ls "$out"/*.patch)
[ ${#made[@]} = ${#from[@]} ] || die "format-patch wrote ${#made[@]} patches for ${#from[@]}"
{
	echo "# The series on linux-source-$v, written by kernel/port-series.sh --tree $v."
	echo "# ../patches/NAME: 6.1's patch, shared; NAME: a port, kernel/patches-$v/NAME."
} >"$out/series"
keep=()
for ((i = 0; i < ${#from[@]}; i++)); do
	name=$(basename "${from[i]}")
	# a patch whose conflict was resolved by hand has no line: a port
	if grep -qx "$name shared" "$work/.git/port-how"; then
		echo "../patches/$name" >>"$out/series"
	else
		cp "${made[i]}" "$portdir/$name"
		keep+=("$name")
		echo "$name  # port of ../patches/$name patch-id $(patch_id "$here/${from[i]}")" >>"$out/series"
	fi
done
cp "$out/series" "$portdir/series"
for f in "$portdir"/*.patch; do
	[ -e "$f" ] || continue
	case " ${keep[*]} " in *" $(basename "$f") "*) ;; *) rm -f "$f"; say "removed kernel/patches-$v/$(basename "$f")" ;; esac
done
say "kernel/patches-$v/series: $((${#from[@]} - ${#keep[@]})) shared, ${#keep[@]} ported (${keep[*]})"
say "next: kernel/check-series.sh --tree $v"
