#!/bin/bash
# test/debian/piuparts.sh - piuparts on the packages of DEBDIR: install,
# remove and purge in a fresh Debian chroot (no kernel there, so DKMS
# builds nothing and no module is loaded anywhere)
#
# Usage: test/debian/piuparts.sh [--suite SUITE] DEBDIR
#
#   The chroot comes from a minbase tarball that mmdebstrap makes once per
#   suite and apt state, in $CAPI_DEVD_CACHE/debian-image/base-SUITE-KEY.tar.gz;
#   apt in it uses the host's Debian sources (as test/debian/mkimage.sh).
#   There is no upgrade test against the archive (the packages are not in
#   it); debian/tests/upgrade tests the upgrade in the VM.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
die() { echo "test/debian/piuparts.sh: error: $*" >&2; exit 1; }

suite=bookworm dir=""
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=${2:?}; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) dir=$1 ;;
	esac
	shift
done
[ -d "$dir" ] || die "DEBDIR missing (try --help)"
for c in piuparts mmdebstrap; do
	command -v "$c" >/dev/null || die "$c not found. Fix: ./install-deps.sh"
done

# The host's Debian archive entries for SUITE, one-line form for piuparts.
src=$(for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && grep -q '^Suites:.*bookworm' "$f" && { sed "/^Suites:/s/bookworm/$suite/g" "$f"; echo; }
done)
[ -n "$src" ] || die "no Debian entry in the host's apt sources"
mirror=$(awk '/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) { print u; exit } }' s="$suite" <<<"$src")
security=$(awk '/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s "-security") { print u; exit } }' s="$suite" <<<"$src")
[ -n "$mirror" ] || die "no entry for $suite in the host's apt sources"

cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
ic="$cache/debian-image"
mkdir -p "$ic"
lists=$(cat /var/lib/apt/lists/*_dists_"${suite}"*_InRelease 2>/dev/null | sha256sum)
key=$(printf '%s\n' "$suite" "$src" "$lists" "$(sha256sum <"$self")" | sha256sum | cut -c1-16)
base="$ic/base-$suite-$key.tar.gz"
if [ ! -f "$base" ]; then
	printf '%s\n' "$src" >"$ic/base-$suite.sources"
	mmdebstrap --variant=minbase --mode=root "$suite" "$base.tmp.tar.gz" "$ic/base-$suite.sources" >&2 ||
		die "mmdebstrap of the $suite base tarball failed"
	mv "$base.tmp.tar.gz" "$base"
	find "$ic" -maxdepth 1 -name "base-$suite-*.tar.gz" ! -name "${base##*/}" -delete
fi

extra=()
[ -z "$security" ] || extra=(--extra-repo "deb $security $suite-security main")
debs=$(ls "$dir"/capi-devd_*.deb "$dir"/capisim-dkms_*.deb)
# shellcheck disable=SC2086
piuparts --basetgz "$base" --distribution "$suite" --mirror "$mirror main" "${extra[@]}" \
	--no-upgrade-test --warn-on-others $debs
