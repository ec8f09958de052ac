#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/lintian.sh - lintian of another Debian release on the full
# source+binary build of DIR (its .changes: the .dsc, the tarballs and
# both .debs), in a chroot of that release
#
# Usage: test/debian/lintian.sh SUITE DIR
#
#   SUITE is a release of the table in test/debian/suite-lib.sh (sid for
#   sid's lintian); DIR holds the .changes, e.g. the new/ of
#   test/debian/chroot-debs.sh's output.  mmdebstrap --variant=apt with
#   lintian, from the host's archives for SUITE (suite_sources), its .debs
#   from and to SUITE's archive in the cache (suite_archive); nothing of
#   SUITE touches the host.  In it: lintian -EvIL +pedantic
#   --show-overrides on the .changes, as test/debian/t-packages.sh runs
#   bookworm's.  stdout: lintian's output, then "lintian VERSION, exit N".
#   Exit status: lintian's.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
die() { echo "test/debian/lintian.sh: error: $*" >&2; exit 2; }
# shellcheck source=test/debian/suite-lib.sh
. "$here/suite-lib.sh"
case "${1:-}" in -h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
suite=${1:-} dir=${2:-}
suite_known "$suite" || die "SUITE must be a release of test/debian/suite-lib.sh's table (try --help)"
changes=""
for f in "$dir"/*_amd64.changes; do [ -f "$f" ] && changes=$f; done
[ -n "$changes" ] || die "no _amd64.changes (source and binaries) in $dir"
suite_need mmdebstrap
src=$(suite_sources "$suite") || die "no sources for $suite (above)"
suite_cache
work=$(mktemp -d "${TMPDIR:-/tmp}/capi-lintian.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$work"' EXIT
mkdir -p "$work/in" "$work/out"
cp "$dir"/*.changes "$dir"/*.dsc "$dir"/*.tar.* "$dir"/*.deb "$dir"/*.buildinfo "$work/in/" 2>/dev/null || true
printf '%s\n' "$src" >"$work/sources.list"
cat >"$work/run.sh" <<EOT
#!/bin/sh
cd /in
lintian -EvIL +pedantic --show-overrides ${changes##*/} >/out/lintian.out 2>&1
r=\$?
echo "lintian \$(dpkg-query -W -f='\${Version}' lintian), exit \$r" >/out/verdict
EOT
suite_archive "$suite"
mmdebstrap --variant=apt --include=lintian \
	--customize-hook="copy-in $work/in $work/run.sh /" \
	--customize-hook='mkdir -p "$1/out"' \
	--customize-hook='chroot "$1" sh /run.sh' \
	--customize-hook="sync-out /out $work/out" \
	"${suite_archive_opts[@]}" \
	"$suite" /dev/null "$work/sources.list" >"$work/mmdebstrap.log" 2>&1 ||
	{ tail -n 30 "$work/mmdebstrap.log" >&2; die "mmdebstrap of $suite failed"; }
cat "$work/out/lintian.out" "$work/out/verdict"
exit "$(sed -n 's/.*, exit //p' "$work/out/verdict")"
