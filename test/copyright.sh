#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/copyright.sh [DIR] - debian/copyright against the files: each file
# of the tree (git's files in a checkout, else every file of DIR: an
# unpacked release tarball with its kernel/dkms/src) whose first lines
# carry an SPDX-License-Identifier gets, from the last Files stanza of
# debian/copyright that matches it (as copyright-format 1.0 reads them),
# the license its SPDX line names, in the Debian short name:
# GPL-2.0-only and GPL-2.0 are GPL-2, GPL-2.0-or-later and GPL-2.0+ are
# GPL-2+, "X WITH Linux-syscall-note" is "X with Linux-syscall-note
# exception".  Every short name that a Files stanza uses has its License
# paragraph, once.  make check-quick; test/debian/t-packages.sh runs it
# on the release tarball too.  DIR defaults to the source tree.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
top=$(cd "$TESTDIR/.." && pwd)
dir=${1:-$top}
copyright=$top/debian/copyright
# (the release tarball has no debian/: it is the .orig.tar.xz)
[ -f "$copyright" ] || skip_all "no debian/copyright: a release tarball, whose debian/ comes beside it"

# The Files stanzas, last first: "PATTERN...<TAB>LICENSE" a line.
stanzas=$(awk '
	function flush() { if (files != "") print files "\t" lic; files = ""; lic = "" }
	/^$/ { flush(); field = ""; next }
	/^[^ \t]/ { field = $1; sub(/:.*/, "", field); v = $0; sub(/^[^:]*:[ \t]*/, "", v)
		if (field == "Files") files = v
		if (field == "License") lic = v
		next }
	field == "Files" { v = $0; sub(/^[ \t]+/, "", v); files = files " " v }
	END { flush() }' "$copyright" | tac)
[ -n "$stanzas" ] || fail "debian/copyright has Files stanzas"

# license_of FILE: the License of the last stanza whose pattern matches
license_of() {
	local - pats lic p
	set -f	# the patterns are matched, not expanded (local -: till return)
	while IFS=$'\t' read -r pats lic; do
		for p in $pats; do
			# shellcheck disable=SC2053 # the pattern is a glob
			[[ $1 == $p ]] && { echo "$lic"; return 0; }
		done
	done <<<"$stanzas"
	return 1
}
# debian_name SPDX: the Debian short name of an SPDX expression
debian_name() {
	local s=$1 exc=""
	case $s in
	*" WITH "*) exc=" with ${s##* WITH } exception"; s=${s%% WITH *} ;;
	esac
	case $s in
	GPL-2.0-only|GPL-2.0) echo "GPL-2$exc" ;;
	GPL-2.0-or-later|GPL-2.0+) echo "GPL-2+$exc" ;;
	*) echo "unknown SPDX license $1"; return 1 ;;
	esac
}

if git -C "$dir" rev-parse --show-toplevel >/dev/null 2>&1 &&
	[ "$(git -C "$dir" rev-parse --show-toplevel)" = "$dir" ]; then
	files=$(cd "$dir" && git ls-files)
else
	files=$(cd "$dir" && find . -type f ! -path './.git/*' | sed 's|^\./||' | sort)
fi
# "FILE<TAB>SPDX" for each file with an SPDX line in its first 5 lines
spdx_lines() {
	(cd "$dir" && tr '\n' '\0' <<<"$files" | xargs -0 awk '
		FNR == 1 { done = 0 }
		FNR <= 5 && !done && /SPDX-License-Identifier:/ {
			v = $0; sub(/.*SPDX-License-Identifier:[ \t]*/, "", v)
			sub(/[ \t]*(\*\/|-->)?[ \t]*$/, "", v)
			print FILENAME "\t" v; done = 1 }' 2>/dev/null)
}
n=0 bad=0
while IFS=$'\t' read -r f spdx; do
	[ -n "$spdx" ] || continue
	n=$((n + 1))
	want=$(debian_name "$spdx")
	got=$(license_of "$f") || got="no stanza"
	if [ "$want" != "$got" ]; then
		[ "$bad" -ge 20 ] || diag "$f: SPDX $spdx ($want), debian/copyright: $got"
		bad=$((bad + 1))
	fi
done < <(spdx_lines)
check "$n files with an SPDX line in $dir: each one's stanza in debian/copyright gives its license ($bad differ)" \
	test "$n" -gt 0 -a "$bad" = 0

# Every short name that a stanza uses ("A and B" names two) has its text
# once: a License paragraph of its own, or the text under a stanza's
# License line.
paras=$(awk '/^$/ { files = 0; lic = "" } /^Files:/ { files = 1 }
	/^License:/ { lic = $0; sub(/^License:[ \t]*/, "", lic); if (!files) { print lic; lic = "" }; next }
	/^[ \t]/ && lic != "" { print lic; lic = "" }
	/^[^ \t]/ { lic = "" }' "$copyright" | sort)
used=$(cut -f2 <<<"$stanzas" | sed 's/ and /\n/g' | sort -u)
missing=$(comm -23 <(echo "$used") <(echo "$paras" | sort -u))
check "every license a Files stanza names has its License paragraph (missing: ${missing:-none})" test -z "$missing"
twice=$(uniq -d <<<"$paras")
check "no License paragraph twice (${twice:-none})" test -z "$twice"
done_testing
