#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/export-debian.sh - the series' fixes in the form Debian's kernel
# package carries patches (debian/patches/bugfix/all/, quilt, fuzz 0), to
# offer them to Debian's linux for bookworm (6.1) and trixie (6.12).
#
# Usage: kernel/export-debian.sh [--check] OUTDIR
#
#   Takes the series of LINUX_SOURCE_PKG (default linux-source-6.1; see
#   kernel/series.sh) and, of its patches, the small set of fixes named
#   below (debian_set): the fixes of defects a user of /dev/capi20 or a
#   CMTP peer can reach, which change no behaviour an application relies
#   on.  Each must carry "Cc: stable@vger.kernel.org".  The n_tty fixes
#   (the flip buffer, the throttle: new code in the receive path, for a
#   tty that has returned no byte since v3.12) stay out, and so do the
#   features (Kconfig select, loading on demand, capisim), our test tools.
#   Writes
#     OUTDIR/bugfix/all/capi-NAME.patch   each fix: its mail header without
#                                         the "From <hash>" line and the
#                                         "[PATCH n/m]" prefix, DEP-3's
#                                         Forwarded: field, the rest as is
#     OUTDIR/series                       the lines for debian/patches/series
#   --check then applies OUTDIR's series in order with patch --fuzz=0 (as
#   quilt does in Debian's kernel package) to the pristine files of the
#   tree's tarball, without the series' other patches, and compares the
#   result with what the series' own files of those fixes make: the
#   export changes headers only.  Exit 1, naming the patch, when one does
#   not apply.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "export-debian: $*" >&2; exit 1; }

check=0 out=
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1 ;;
	-h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (try --help)" ;;
	*) [ -z "$out" ] || die "one OUTDIR only"; out=$1 ;;
	esac
	shift
done
[ -n "$out" ] || die "OUTDIR missing (try --help)"

# shellcheck source=kernel/series.sh
. "$here/series.sh"
pkg=${LINUX_SOURCE_PKG:-linux-source-6.1}
series_read "$(series_file "$pkg")" || die "bad series (above)"

# subject PATCH: its whole subject, without "[PATCH n/m] isdn: capi: "
subject() {
	awk '/^Subject: / { s = $0; c = 1; next } c && /^ / { s = s $0; next } { c = 0 }
	     END { print s }' "$1" |
	sed 's/^Subject: *\(\[PATCH [^]]*\] *\)\{0,1\}//; s/^isdn: capi: //'
}
# fix_name PATCH: capi-SUBJECT.patch, the whole subject (not format-patch's
# cut) in lower case, each run of other characters than letters and
# digits a "-".
fix_name() {
	subject "$1" |
	tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//; s/^/capi-/; s/$/.patch/'
}

# The set for Debian's kernel (bookworm's 6.1), by subject; in the
# series they are its first patches, so each applies without the rest.
debian_set=(
	"do not reuse a tty minor that a hung-up tty still holds"
	"do not wait for a tty under the application's lock"
	"limit the messages an application has not read"
	"receive from a work item, not from the tty methods"
	"wait for the line discipline instead of dropping data"
	"drop malformed messages from the controller"
	"reset a minor's output when its tty is opened or closed"
	"send a minor's output from one sender at a time"
	"retry a DATA_B3_REQ that came back with send queue full"
	"do not send from ->start() with interrupts off"
	"refuse an application without data blocks"
	"drop DATA_B3_INDs beyond the window of a connection"
	"drop DATA_B3_INDs for a connection the application lacks"
)
in_set() {
	local s
	for s in "${debian_set[@]}"; do [ "$s" = "$1" ] && return 0; done
	return 1
}
chosen=()
for p in "${series_patches[@]}"; do
	in_set "$(subject "$here/$p")" && chosen+=("$p")
done
[ ${#chosen[@]} = ${#debian_set[@]} ] ||
	die "the series of $pkg has ${#chosen[@]} of the ${#debian_set[@]} patches of the Debian set (subjects in $0)"

mkdir -p "$out/bugfix/all"
: >"$out/series"
fixes=()
for p in "${chosen[@]}"; do
	grep -q '^Cc: stable@vger\.kernel\.org' "$here/$p" || die "$p is in the Debian set but no fix (no Cc: stable)"
	name=$(fix_name "$here/$p")
	# The mail header: no "From <hash> <date>" mbox line, the subject
	# without its "[PATCH n/m]", and Forwarded: after it.  The header ends
	# at the first empty line; the subject may continue on the next lines.
	awk 'NR == 1 && /^From [0-9a-f]+ / { next }
	     !body && /^Subject: / { sub(/\[PATCH [0-9]+\/[0-9]+\] /, ""); subj = 1; print; next }
	     !body && subj && /^ / { print; next }
	     !body && subj { print "Forwarded: not-needed (mainline removed CAPI in 7.1: no upstream commit can come first, as stable@vger.kernel.org asks)"; subj = 0 }
	     !body && /^$/ { body = 1 }
	     { print }' "$here/$p" >"$out/bugfix/all/$name"
	echo "bugfix/all/$name" >>"$out/series"
	fixes+=("$out/bugfix/all/$name")
done
echo "export-debian: ${#fixes[@]} fixes of $pkg's series in $out (series: $out/series)"
[ "$check" = 1 ] || exit 0

# The files the series touches, pristine from the tarball, twice: once for
# the exported fixes, once for the series' own files of the same fixes.
tree_source "$pkg" || die "no source tree $pkg (above)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/capi-export.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$tmp"' EXIT
mapfile -t files < <(for p in "${series_patches[@]}"; do
	sed -n 's|^+++ b/||p; s|^--- a/||p' "$here/$p"; done | sort -u)
mkdir -p "$tmp/a"
tar -xJf "$tree_tarball" -C "$tmp/a" --strip-components=1 "${files[@]/#/$pkg/}" ||
	die "cannot unpack the series' files from $tree_tarball"
cp -a "$tmp/a" "$tmp/b"
while read -r p; do
	patch -d "$tmp/a" -p1 --fuzz=0 --quiet --no-backup-if-mismatch <"$out/$p" ||
		die "$p does not apply with fuzz 0 to $pkg"
done <"$out/series"
for p in "${chosen[@]}"; do
	patch -d "$tmp/b" -p1 --quiet --no-backup-if-mismatch <"$here/$p" ||
		die "$p does not apply to $pkg"
done
diff -r "$tmp/b" "$tmp/a" >&2 || die "the exported fixes change the tree otherwise than the series' own patch files"
echo "export-debian: the ${#fixes[@]} fixes apply in order with fuzz 0 to $pkg $tree_version, without the rest of the series, and change it as the series' patch files do"
