#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every shell script of the project is clean under shellcheck at severity
# "warning" (errors and warnings; shellcheck's info and style notes are not
# asked for), following what each sources (-x).  One test a script.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
SRC=$(cd "$TESTDIR/.." && pwd -P)
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
need shellcheck shellcheck

# The scripts: the files git tracks, or in a tarball (which may be unpacked
# inside another checkout: make distcheck) every file; a script
# is named *.sh or starts with a #!/bin/sh, bash or dash line.  Autotools'
# own (build-aux/, configure) and build trees are not ours.
files() {
	if [ "$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null)" = "$SRC" ]; then
		git -C "$SRC" ls-files
	else
		(cd "$SRC" && find . -type d \( -name .git -o -name build-aux -o -name autom4te.cache \
			-o -name '_build' -o -name 'build*' -o -name 'capi-devd-*' \) -prune \
			-o -type f -print | sed 's|^\./||')
	fi
}
is_script() {
	case $1 in
	build-aux/*) return 1 ;;
	*.sh) return 0 ;;
	esac
	head -n 1 "$SRC/$1" 2>/dev/null | grep -qE '^#!(/usr)?/bin/(env )?(ba|da)?sh( |$)'
}
# clean FILE: shellcheck finds nothing; what it finds goes to $out
clean() {
	out=$(cd "$SRC" && shellcheck -x -S warning -f gcc "$1" 2>&1)
}
n=0
while IFS= read -r f; do
	is_script "$f" || continue
	n=$((n + 1))
	check "shellcheck $f" clean "$f" || diag <<<"$out"
done < <(files | sort)
check "found the scripts ($n)" test "$n" -gt 30
done_testing
