#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/suite.sh - another Debian release's packages, fetched without
# touching the host's apt: a private apt configuration under the cache.
#
# Usage: kernel/suite.sh [--update] SUITE linux SERIES
#        kernel/suite.sh [--update] SUITE apt-get|apt-cache ARGS...
#
#   SUITE is a release of the table in test/debian/suite-lib.sh (bookworm,
#   trixie, sid; SUITE-backports too).  The private configuration lives in
#     $CACHE/apt/SUITE/   sources.list, lists/, cache/
#   Its sources are the host's own (apt-get indextargets): the same archive
#   URIs and components, the host's codename replaced by SUITE (bookworm ->
#   trixie, bookworm-updates -> trixie-updates, bookworm-security ->
#   trixie-security; only the pockets SUITE has, and SUITE-backports beside
#   SUITE for SUITE-backports): suite_sources of test/debian/suite-lib.sh.
#   apt-get update runs on the first use and with
#   --update; nothing of the host's apt state (sources, lists, dpkg status)
#   is read or written besides its index targets.
#
#   linux SERIES: the candidate version V of linux-source-SERIES in SUITE,
#   fetched with the matching linux-image-<abi>-amd64,
#   linux-headers-<abi>-amd64 and the headers and kbuild packages it
#   depends on (apt-get download: nothing is installed),
#   unpacked with dpkg-deb -x into
#     $CACHE/suite/SUITE/linux-V/root     (keyed by the version)
#   and prints that directory, which also holds debs/, version (V) and
#   abi (the ABI name, e.g. 6.12.117+deb13-amd64).  Its
#   root/usr/src/linux-source-SERIES.tar.xz is the source tarball,
#   root/usr/src/linux-headers-<abi>/.config Debian's kernel configuration,
#   root/boot/vmlinuz-<abi> and root/lib/modules/<abi> its kernel.
#
#   apt-get|apt-cache ARGS: runs it with the private configuration, e.g.
#     kernel/suite.sh trixie apt-cache policy libcapi20-3t64
#
# Environment: CAPI_DEVD_CACHE (cache root, as kernel/build.sh).
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
say() { echo "[suite] $*" >&2; }
die() { echo "kernel/suite.sh: error: $*" >&2; exit 1; }
# shellcheck source=test/debian/suite-lib.sh
. "$here/../test/debian/suite-lib.sh"

update=0
case "${1:-}" in
--update) update=1; shift ;;
-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
[ $# -ge 2 ] || die "usage: kernel/suite.sh [--update] SUITE linux SERIES | SUITE apt-get|apt-cache ARGS (try --help)"
suite=$1 cmd=$2
shift 2
suite_known "$suite" || die "'$suite' is not a release of the table in test/debian/suite-lib.sh"
for c in apt-get apt-cache dpkg-deb flock; do
	command -v "$c" >/dev/null 2>&1 || die "$c not found (see install-deps.sh)"
done
keyring=$SUITE_KEYRING
[ -r "$keyring" ] || die "$keyring not found. Fix: apt-get install debian-archive-keyring"

suite_cache
a="$cache/apt/$suite"
mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/preferences.d"
exec 9>"$a/lock"
flock 9

# ---------------------------------------------------------------- apt
apt_opts=(-o Dir::Etc::sourcelist="$a/sources.list" -o Dir::Etc::sourceparts=-
	-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache"
	-o Dir::State::status=/dev/null -o Dir::Etc::preferences="$a/preferences"
	-o Dir::Etc::preferencesparts="$a/preferences.d"
	-o APT::Sandbox::User=root -o Acquire::Languages=none)

# The host's archives (codename replaced by the suite), one line each.
sources=$(suite_sources "$suite") || die "no sources for $suite (above)"
[ -n "$sources" ] || die "the host's apt configuration has no archive of its own release to take the URI from (apt-get indextargets)"
if [ "$update" = 1 ] || [ ! -f "$a/.updated" ] || [ "$sources" != "$(cat "$a/sources.list" 2>/dev/null)" ]; then
	echo "$sources" >"$a/sources.list"
	say "apt-get update for $suite (private configuration $a)"
	apt-get "${apt_opts[@]}" -q update >"$a/update.log" 2>&1 ||
		{ cat "$a/update.log" >&2; die "apt-get update for $suite failed (above)"; }
	grep -q '^[EW]: ' "$a/update.log" && cat "$a/update.log" >&2
	touch "$a/.updated"
fi

case "$cmd" in
apt-get|apt-cache) exec "$cmd" "${apt_opts[@]}" "$@" ;;
linux) ;;
*) die "unknown command '$cmd' (try --help)" ;;
esac

# ---------------------------------------------------------------- linux
series=${1:?kernel/suite.sh: linux SERIES (e.g. 6.12)}
show() { apt-cache "${apt_opts[@]}" show --no-all-versions "$1" 2>/dev/null | sed -n "s/^$2: //p" | head -n1; }
ver=$(show "linux-source-$series" Version)
[ -n "$ver" ] || die "$suite has no linux-source-$series"
# linux-headers-amd64 of the same version depends on linux-headers-<abi>-amd64
meta=$(apt-cache "${apt_opts[@]}" show "linux-headers-amd64=$ver" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1)
hdr=$(echo "$meta" | tr ',' '\n' | sed -n 's/^ *\(linux-headers-[0-9][^ ]*-amd64\).*/\1/p' | head -n1)
[ -n "$hdr" ] || die "$suite has no linux-headers-amd64=$ver naming the ABI's headers"
abi=${hdr#linux-headers-}
# what the headers need to build modules: its -common and linux-kbuild
mapfile -t deps < <(apt-cache "${apt_opts[@]}" show "$hdr=$ver" 2>/dev/null | sed -n 's/^Depends: //p' |
	head -n1 | tr ',' '\n' | sed -n 's/^ *\(linux-\(headers\|kbuild\)-[^ ]*\).*/\1/p')
pkgs=("linux-source-$series" "linux-image-$abi" "$hdr" "${deps[@]}")

d="$cache/suite/$suite/linux-$ver"
if [ ! -f "$d/.done" ] || [ "$(cat "$d/packages" 2>/dev/null)" != "${pkgs[*]}" ]; then
	say "fetching ${pkgs[*]} ($ver) from $suite"
	rm -rf "$d"
	mkdir -p "$d/debs"
	if ! (cd "$d/debs" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]/%/=$ver}") >"$d/fetch.log" 2>&1; then
		cat "$d/fetch.log" >&2
		die "apt-get download from $suite failed (above). Fix: kernel/suite.sh --update $suite linux $series"
	fi
	for deb in "$d"/debs/*.deb; do
		[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] || die "$deb is not version $ver"
		dpkg-deb -x "$deb" "$d/root" || die "dpkg-deb -x $deb failed"
	done
	[ -r "$d/root/usr/src/linux-source-$series.tar.xz" ] || die "linux-source-$series holds no /usr/src/linux-source-$series.tar.xz"
	[ -r "$d/root/usr/src/$hdr/.config" ] || die "$hdr holds no .config"
	[ -r "$d/root/boot/vmlinuz-$abi" ] || die "linux-image-$abi holds no /boot/vmlinuz-$abi"
	echo "$ver" >"$d/version"
	echo "$abi" >"$d/abi"
	echo "${pkgs[*]}" >"$d/packages"
	touch "$d/.done"
fi
echo "$d"
