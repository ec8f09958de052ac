#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/piuparts.sh - piuparts on the packages of DEBDIR: install,
# remove and purge in a fresh Debian chroot (no kernel there, so DKMS
# builds nothing and no module is loaded anywhere)
#
# Usage: test/debian/piuparts.sh [--suite SUITE] DEBDIR
#
#   The chroot comes from a minbase tarball that mmdebstrap makes once per
#   suite and apt state, in $CAPI_DEVD_CACHE/debian-image/base-SUITE-KEY.tar.gz;
#   apt in it uses the host's Debian archives for SUITE (suite_sources of
#   test/debian/suite-lib.sh, as test/debian/mkimage.sh); its .debs come
#   from and go to the suite's archive in the cache (suite_archive).
#   There is no upgrade test against the archive (the packages are not in
#   it); debian/tests/lifecycle tests the upgrade in the VM.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
die() { echo "test/debian/piuparts.sh: error: $*" >&2; exit 1; }
# shellcheck source=test/debian/suite-lib.sh
. "$here/suite-lib.sh"

suite=bookworm dir=""
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=${2:?}; shift ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) dir=$1 ;;
	esac
	shift
done
[ -d "$dir" ] || die "DEBDIR missing (try --help)"
suite_known "$suite" || die "--suite $suite is not in the table of test/debian/suite-lib.sh"
suite_need piuparts mmdebstrap

# The host's Debian archives for SUITE (one-line form), and for piuparts
# the archive of SUITE and its security archive.
src=$(suite_sources "$suite") || die "no sources for $suite (above)"
[ -n "$src" ] || die "no Debian entry in the host's apt sources"
mirror=$(suite_uri "$suite")
security=$(suite_uri "$suite" security)
[ -n "$mirror" ] || die "no entry for $suite in the host's apt sources"

suite_cache
ic="$cache/debian-image"
mkdir -p "$ic"
lists=$(suite_lists "$suite")
key=$(printf '%s\n' "$suite" "$src" "$lists" "$(sha256sum <"$self")" | sha256sum | cut -c1-16)
base="$ic/base-$suite-$key.tar.gz"
exec 8>"$ic/base-$suite.lock"; flock 8	# one build of a base at a time
if [ ! -f "$base" ]; then
	printf '%s\n' "$src" >"$ic/base-$suite.list"
	suite_archive "$suite"
	mmdebstrap --variant=minbase --mode=root "${suite_archive_opts[@]}" \
		"$suite" "$base.tmp.tar.gz" "$ic/base-$suite.list" >&2 ||
		die "mmdebstrap of the $suite base tarball failed"
	mv "$base.tmp.tar.gz" "$base"
	find "$ic" -maxdepth 1 -name "base-$suite-*.tar.gz" ! -name "${base##*/}" -delete
fi
exec 8>&-

extra=()
[ -z "$security" ] || extra=(--extra-repo "deb $security $suite-security main")
debs=$(ls "$dir"/capi-devd_*.deb "$dir"/kernelcapi-dkms_*.deb)
# piuparts runs the chroot's commands with its own environment: a TMPDIR
# of the caller's (a directory the chroot has not) made mktemp, and so
# DKMS in kernelcapi-dkms's postinst, fail there.  Its own scratch
# directory is then under /tmp.
# shellcheck disable=SC2086
env -u TMPDIR piuparts --basetgz "$base" --distribution "$suite" --mirror "$mirror main" "${extra[@]}" \
	--no-upgrade-test --warn-on-others $debs
