#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/stock.sh - Debian's stock kernel for the test VM, with capisim and
# the fixed kernelcapi built out of tree against its headers
#
# Usage: kernel/stock.sh [--fetch-only] [--force] [--print-abi]
#
#   Finds Debian's linux-image-6.1.0-NN-amd64 whose version is the version
#   of the installed linux-source-6.1 (the source kernel/build.sh builds),
#   fetches it with its linux-headers-6.1.0-NN-amd64,
#   linux-headers-6.1.0-NN-common and linux-kbuild-6.1 with
#   `apt-get download` (nothing is installed) into the release's archive
#   of test/debian/suite-lib.sh ($CACHE/suite/SUITE/archives, which every
#   mmdebstrap of that release shares: a .deb the image fetched is not
#   fetched again, nor the other way round) and unpacks them with
#   `dpkg-deb -x` into
#     $CACHE/stock/<version>/root          (keyed by the version)
#   Then builds drivers/isdn/capi as the series leaves it
#   (kernel/dkms/mksrc.sh) out of tree, kbuild M=, against those headers:
#   kernelcapi.ko (with the series' n_tty fix) and capisim.ko, and stages
#   Debian's modules with both added to updates/, where DKMS puts them,
#   and runs depmod -b on the staged copy (Debian's package ships no
#   modules.dep: its postinst runs depmod, as this does).
#
#   stdout: one line, the result dir OUT, laid out like kernel/build.sh's:
#     OUT/bzImage         Debian's vmlinuz
#     OUT/config, OUT/System.map, OUT/kernelrelease (6.1.0-NN-amd64)
#     OUT/staging         /lib/modules/<release>: Debian's modules,
#                         updates/kernelcapi.ko and updates/capisim.ko,
#                         modules.dep and the other indexes from depmod -b
#                         (Debian's own kernelcapi.ko stays in
#                         kernel/drivers/isdn/capi/)
#     OUT/dkms-src        the source tree of kernel/dkms/mksrc.sh built here
#     OUT/gen_init_cpio   usr/gen_init_cpio of the linux-source tree
#     OUT/info            what was built from what (headers=, abi=, ...)
#   Progress and errors go to stderr; the build log is OUT/build.log.
#
#   --fetch-only  only fetch and unpack; print $CACHE/stock/<version>
#   --print-abi   print the package name of the matching image and exit
#   --force       build OUT again
#
# Environment: CAPI_DEVD_CACHE (cache root, as kernel/build.sh),
#   LINUX_SOURCE_PKG (default linux-source-6.1), CAPI_KERNEL_JOBS (make -j).
set -euo pipefail
export LC_ALL=C
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
say() { echo "[stock] $*" >&2; }
die() { echo "kernel/stock.sh: error: $*" >&2; exit 1; }
# shellcheck source=test/debian/suite-lib.sh
. "$here/../test/debian/suite-lib.sh"

fetch_only=0 force=0 print_abi=0
while [ $# -gt 0 ]; do
	case "$1" in
	--fetch-only) fetch_only=1 ;;
	--force) force=1 ;;
	--print-abi) print_abi=1 ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (try --help)" ;;
	esac
	shift
done

for c in apt-get apt-cache dpkg-deb dpkg-query make gcc depmod flock sha256sum; do
	command -v "$c" >/dev/null 2>&1 || [ -x "/sbin/$c" ] || die "$c not found (see install-deps.sh)"
done
DEPMOD=$(command -v depmod 2>/dev/null || echo /sbin/depmod)

# ---------------------------------------------------------------- which image
src_pkg=${LINUX_SOURCE_PKG:-linux-source-6.1}
ver=$(dpkg-query -W -f='${Version}' "$src_pkg" 2>/dev/null) ||
	die "$src_pkg is not installed: its version names the stock kernel to test (apt-get install $src_pkg)"
[ -n "$ver" ] || die "$src_pkg has no version (not installed?)"
series=${src_pkg#linux-source-}

# The ABI packages linux-image-<series>.0-NN-amd64 (not -unsigned, not
# -dbg) that apt knows, and the one of them with the version of the source.
candidates=$(apt-cache search --names-only "^linux-image-${series//./\\.}\\.0-[0-9]+-amd64\$" | cut -d' ' -f1 | sort -u)
[ -n "$candidates" ] || die "apt knows no linux-image-$series.0-NN-amd64 package.
  Fix: apt-get update (Debian 12's main and security archives in the sources)"
# shellcheck disable=SC2086
image=$(apt-cache madison $candidates 2>/dev/null |
	awk -F'|' -v v="$ver" '{ gsub(/ /, "", $1); gsub(/ /, "", $2) } $2 == v { print $1 }' | sort -u)
# shellcheck disable=SC2086
[ -n "$image" ] || die "no linux-image-$series.0-NN-amd64 has version $ver, the version of $src_pkg.
  apt has: $(apt-cache madison $candidates 2>/dev/null | awk -F'|' '{ gsub(/ /, ""); printf "%s=%s ", $1, $2 }')
  Fix: apt-get update, or install the $src_pkg that matches the newest image"
[ "$(echo "$image" | wc -l)" = 1 ] || die "more than one image package has version $ver: $(echo "$image" | xargs)"
krel=${image#linux-image-}
if [ "$print_abi" = 1 ]; then echo "$image"; exit 0; fi
headers="linux-headers-$krel"
common="linux-headers-${krel%-amd64}-common"
kbuild="linux-kbuild-$series"

suite_cache
sc="$cache/stock/$ver"
# The release whose kernel series this is (suite-lib.sh's table): its
# archive of .debs, shared with every mmdebstrap of it.
suite=$(suite_table | awk -v s="$series" '$3 == s { print $1; exit }')
[ -n "$suite" ] || die "no release in the table of test/debian/suite-lib.sh has linux $series"
mkdir -p "$sc"
exec 9>"$sc/lock"
if ! flock -n 9; then
	say "waiting for another kernel/stock.sh (lock $sc/lock)"
	flock 9
fi

# ---------------------------------------------------------------- fetch
root="$sc/root"
hdir="$root/usr/src/$headers"
if [ ! -f "$sc/.fetched" ]; then
	rm -rf "$sc/debs" "$root"
	mkdir -p "$sc/debs"
	# In $suite's archive already (the image's mmdebstrap, an earlier run)?
	archive="$cache/suite/$suite/archives"
	mkdir -p "$archive"
	have_deb() { local f; for f in "$archive/${1}_"*.deb; do
		[ -f "$f" ] && [ "$(dpkg-deb -f "$f" Version)" = "$ver" ] && { echo "$f"; return 0; }; done; return 1; }
	want=()
	for p in "$image" "$headers" "$common" "$kbuild"; do
		have_deb "$p" >/dev/null || want+=("$p=$ver")
	done
	if [ ${#want[@]} -gt 0 ]; then
		say "fetching ${want[*]} with apt-get download into $archive"
		# _apt may not enter the cache: download as root without the warning
		if ! (cd "$sc/debs" && apt-get download -q -o APT::Sandbox::User=root "${want[@]}") >"$sc/fetch.log" 2>&1; then
			cat "$sc/fetch.log" >&2
			die "apt-get download of ${want[*]} failed (above).
  Fix: network access to Debian's archive, apt-get update"
		fi
		# into the archive by a rename, under its lock (suite_archive)
		( flock 7; for f in "$sc"/debs/*.deb; do
			[ -e "$archive/${f##*/}" ] || mv "$f" "$archive/${f##*/}"; done ) 7>"$cache/suite/$suite/archives.lock"
	fi
	say "unpacking $image $headers $common $kbuild ($ver) from $archive ($(( 4 - ${#want[@]} )) of 4 were there)"
	for p in "$image" "$headers" "$common" "$kbuild"; do
		deb=$(have_deb "$p") || die "apt-get download left no $p .deb of version $ver (in $archive)"
		dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x $deb failed"
	done
	[ -f "$root/boot/vmlinuz-$krel" ] || die "$image holds no /boot/vmlinuz-$krel"
	[ -d "$root/lib/modules/$krel/kernel" ] || die "$image holds no /lib/modules/$krel"
	[ -f "$hdir/Makefile" ] || die "$headers holds no Makefile"
	# The headers' Makefile includes the common one by its absolute
	# installed path; point it at the unpacked copy.
	sed -i "s#^include /usr/src/#include $root/usr/src/#" "$hdir/Makefile"
	grep -q "^include $root/usr/src/$common/Makefile" "$hdir/Makefile" ||
		die "unexpected $hdir/Makefile (no include of $common)"
	touch "$sc/.fetched"
fi
if [ "$fetch_only" = 1 ]; then echo "$sc"; exit 0; fi

# ---------------------------------------------------------------- key
dkms_version=$("$here/dkms/mksrc.sh" --print-version)
key=$( {
	echo "image $image $ver"
	echo "script $(sha256sum <"$self")"
	echo "mksrc $(sha256sum <"$here/dkms/mksrc.sh") $dkms_version"
	echo "gcc $(gcc -dumpfullversion)"
	echo "kmod $("$DEPMOD" --version | head -n1)"
} | sha256sum | cut -c1-16)
out="$sc/out-$key"
suite_done "$out" "$force"

suite_build "$out" kernel/stock.sh

# ---------------------------------------------------------------- out of tree
srctree=$("$here/build.sh" --source-tree | tail -n1) || build_fail "kernel/build.sh --source-tree failed"
"$here/dkms/mksrc.sh" --source-tree "$srctree" "$tmp/dkms-src" >/dev/null || build_fail "kernel/dkms/mksrc.sh failed"
cp -a "$tmp/dkms-src" "$tmp/obj"
jobs=${CAPI_KERNEL_JOBS:-$(($(nproc) + 1))}
say "building kernelcapi.ko and capisim.ko out of tree against $headers"
make -C "$hdir" M="$tmp/obj" -j"$jobs" modules >>"$log" 2>&1 || build_fail "out-of-tree build against $hdir failed"
for m in kernelcapi capisim; do
	[ -f "$tmp/obj/$m.ko" ] || build_fail "the out-of-tree build made no $m.ko"
	v=$(modinfo -F vermagic "$tmp/obj/$m.ko" | cut -d' ' -f1)
	[ "$v" = "$krel" ] || build_fail "$m.ko has vermagic $v, not $krel"
done

# ---------------------------------------------------------------- staging
say "staging Debian's modules with updates/kernelcapi.ko and updates/capisim.ko"
mods="$tmp/staging/lib/modules/$krel"
mkdir -p "$tmp/staging/lib/modules"
cp -al "$root/lib/modules/$krel" "$mods"
rm -f "$mods/build" "$mods/source"
mkdir -p "$mods/updates"
for m in kernelcapi capisim; do
	cp "$tmp/obj/$m.ko" "$mods/updates/$m.ko"
	strip --strip-debug "$mods/updates/$m.ko"
done
"$DEPMOD" -b "$tmp/staging" "$krel" >>"$log" 2>&1 || build_fail "depmod -b of the staged modules failed"
for m in kernelcapi capisim; do
	grep -q "^updates/$m.ko:" "$mods/modules.dep" || build_fail "depmod does not resolve $m to updates/$m.ko"
done

# ---------------------------------------------------------------- result
ln "$root/boot/vmlinuz-$krel" "$tmp/bzImage" 2>/dev/null || cp "$root/boot/vmlinuz-$krel" "$tmp/bzImage"
cp "$root/boot/config-$krel" "$tmp/config"
cp "$root/boot/System.map-$krel" "$tmp/System.map"
echo "$krel" >"$tmp/kernelrelease"
gcc -O2 -o "$tmp/gen_init_cpio" "$srctree/usr/gen_init_cpio.c" >>"$log" 2>&1 || build_fail "cannot build usr/gen_init_cpio"
rm -rf "$tmp/obj"
t1=$(date +%s)
{
	echo "key=stock-$key"
	echo "kind=stock"
	echo "package=$image $ver"
	echo "kernelrelease=$krel"
	echo "abi=$krel"
	echo "headers=$hdir"
	echo "dkms_version=$dkms_version"
	echo "updates=kernelcapi.ko capisim.ko"
	echo "stock_kernelcapi=kernel/drivers/isdn/capi/kernelcapi.ko"
	echo "build_seconds=$((t1 - t0))"
	echo "built=$(date -u +%FT%TZ)"
} >"$tmp/info"
suite_built "$out"
suite_keep "$sc" out
say "ready in $((t1 - t0)) s: $out"
echo "$out"
