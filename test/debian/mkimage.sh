#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/mkimage.sh - a real Debian system image for the package tests
#
# Usage: test/debian/mkimage.sh [--suite SUITE] [--force] [--print-key]
#
#   Builds, with mmdebstrap (Debian's own tool), a Debian SUITE system
#   (default bookworm): systemd, udev, the stock linux-image-amd64 with its
#   headers and its own initramfs (initramfs-tools), dkms, gcc,
#   libcapi20 (libcapi20-3 on Debian 12, libcapi20-3t64 from Debian 13 on),
#   ppp and what the DEP-8 tests of debian/tests use, as a raw
#   ext4 disk image.  SUITE is a release of the table in
#   test/debian/suite-lib.sh; the apt sources are the host's own Debian
#   archives with the suite name replaced by SUITE (suite_sources there);
#   nothing is installed on the host.  SUITE-backports (trixie-backports)
#   is SUITE's system whose user then moved to the backports kernel:
#   built as SUITE, with SUITE-backports in its sources, then
#   apt-get install -t SUITE-backports linux-image-amd64
#   linux-headers-amd64 run in it as a user runs it (SUITE's own kernel
#   stays installed, as apt leaves it); the newest kernel is the image's.
#
#   The image lives in the cache, keyed by what went into it (the suite,
#   the package list, this script, mmdebstrap's version and the apt lists
#   of the suite: the host's, else kernel/suite.sh's private ones):
#     $CAPI_DEVD_CACHE/debian-image/SUITE-KEY/
#       disk.img      the root file system (raw ext4; boot it through a
#                     qcow2 overlay, test/debian/run.sh does)
#       vmlinuz       the image's own /boot/vmlinuz-*
#       initrd.img    the image's own /boot/initrd.img-* (initramfs-tools)
#       info          suite, key, kernel release, build seconds
#       packages      dpkg -l of the image as built, the headers included
#                     (test/debian/run.sh gives the guest their .debs)
#   stdout: one line, that directory.  Progress goes to stderr; the
#   build log is DIR.tmp/build.log while it runs (kept on failure).
#
#   The kernel headers (linux-headers-*, linux-kbuild-*) are installed
#   with the image, then purged from it in the build: a DEP-8 testbed has
#   none (test/debian/guest.sh's testbed step purged them in the guest,
#   117 s of TCG per run for 7 packages; natively it takes seconds), so
#   installing kernelcapi-dkms builds nothing until a test installs
#   linux-headers-$(uname -r).
#
#   In the image, capi-dep8.service runs when the kernel command line has
#   capi.dep8=1: it mounts the 9p share "dep8" at /run/dep8 and runs
#   /run/dep8/guest.sh (test/debian/guest.sh, given by run.sh).
#
# Environment: CAPI_DEVD_CACHE (cache root, as kernel/build.sh).
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
say() { echo "[image] $*" >&2; }
die() { echo "test/debian/mkimage.sh: error: $*" >&2; exit 1; }
# shellcheck source=test/debian/suite-lib.sh
. "$here/suite-lib.sh"

suite=bookworm force=0 print_key=0
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=${2:?--suite SUITE}; shift ;;
	--force) force=1 ;;
	--print-key) print_key=1 ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (try --help)" ;;
	esac
	shift
done
suite_known "$suite" || die "bad suite name: $suite (not in the table of test/debian/suite-lib.sh)"
suite_need mmdebstrap mke2fs sha256sum flock

# What the tests need in the guest: the packages' dependencies (dkms,
# the headers, a compiler) are there, since the guest has no network.
# Debian 13's 64-bit time_t transition renamed the library's package.
libcapi20=$(suite_field "$suite" libcapi20)
packages="systemd systemd-sysv udev dbus kmod initramfs-tools
linux-image-amd64 linux-headers-amd64 dkms gcc make libc6-dev
$libcapi20 libcapi20-dev ppp iproute2 iputils-ping socat procps"

# SUITE-backports: SUITE's system (mmdebstrap's suite, the .debs of
# SUITE's archive in the cache), the kernel then taken from backports.
base=${suite%-backports}
kernel_hook=()
if [ "$base" != "$suite" ]; then
	kernel_hook=(--customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q -t $suite linux-image-amd64 linux-headers-amd64")
fi

# The host's Debian archives, for SUITE (one-line form).
src=$(suite_sources "$suite") || die "no sources for $suite (above)"
[ -n "$src" ] || die "no Debian entry in the host's apt sources to take the archive from"

suite_cache
ic="$cache/debian-image"
mkdir -p "$ic"

# The lists of the suite say which versions the image gets: the host's,
# or for another release kernel/suite.sh's private ones (the host has none).
lists=$(suite_lists "$suite")
key=$( {
	echo "suite $suite"
	echo "packages $packages"
	echo "sources $src"
	echo "lists $lists"
	echo "script $(sha256sum <"$self")"
	echo "mmdebstrap $(mmdebstrap --version)"
} | sha256sum | cut -c1-16)
if [ "$print_key" = 1 ]; then echo "$suite-$key"; exit 0; fi
out="$ic/$suite-$key"

suite_lock "$ic" test/debian/mkimage.sh
suite_done "$out" "$force"

suite_build "$out" test/debian/mkimage.sh
printf '%s\n' "$src" >"$tmp/debian.list"

# The guest's hook: run the test runner from the 9p share, once per boot.
cat >"$tmp/capi-dep8.service" <<'EOF'
[Unit]
Description=capi-devd DEP-8 test runner (9p share dep8)
ConditionKernelCommandLine=capi.dep8=1
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mkdir -p /run/dep8 && mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 dep8 /run/dep8 && exec /bin/bash /run/dep8/guest.sh'
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
EOF

# initramfs-tools with the few modules a QEMU guest's root needs: the
# default (MODULES=most) copies half the kernel into every initramfs.
echo MODULES=list >"$tmp/initramfs.conf"
cat >"$tmp/initramfs.hook" <<'EOF'
#!/bin/sh
[ "$1" = prereqs ] && exit 0
. /usr/share/initramfs-tools/hook-functions
manual_add_modules virtio_pci virtio_blk ext4 crc32c_generic
EOF

# The headers out of the image, as the testbed has them (see above):
# after dpkg -l listed them (run.sh takes their versions from it), after
# the kernel hook that may install the backports kernel's.
cat >"$tmp/purge-headers" <<'EOF'
#!/bin/sh
set -e
root=$1
h=$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'linux-headers-*' 'linux-kbuild-*' |
	awk '$1 == "ii" { print $2 }')
[ -n "$h" ] || { echo "purge-headers: no headers in the image" >&2; exit 1; }
# shellcheck disable=SC2086 # package names
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $h
EOF

say "mmdebstrap $suite into $tmp/root (log: $log)"
suite_archive "$base"
# shellcheck disable=SC2086
mmdebstrap --variant=minbase --mode=root \
	--aptopt='APT::Install-Recommends "false"' \
	--include="$(echo $packages | tr ' ' ',')" \
	--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/etc/initramfs-tools/hooks"' \
	--essential-hook="cp '$tmp/initramfs.conf' \"\$1/etc/initramfs-tools/conf.d/capi-test.conf\"" \
	--essential-hook="install -m 0755 '$tmp/initramfs.hook' \"\$1/etc/initramfs-tools/hooks/capi-test\"" \
	--customize-hook='echo capi-test >"$1/etc/hostname"' \
	--customize-hook='printf "/dev/vda / ext4 errors=remount-ro 0 1\n" >"$1/etc/fstab"' \
	--customize-hook="cp '$tmp/capi-dep8.service' \"\$1/etc/systemd/system/\"" \
	--customize-hook='chroot "$1" systemctl enable capi-dep8.service' \
	--customize-hook='chroot "$1" passwd -d root' \
	"${kernel_hook[@]}" \
	--customize-hook="chroot \"\$1\" dpkg -l >'$tmp/packages'" \
	--customize-hook="ls \"\$1/usr/src\" >'$tmp/usr-src'" \
	--customize-hook="sh '$tmp/purge-headers' \"\$1\"" \
	--customize-hook='rm -f "$1/etc/machine-id"; touch "$1/etc/machine-id"' \
	"${suite_archive_opts[@]}" \
	"$base" "$tmp/root" "$tmp/debian.list" >>"$log" 2>&1 ||
	build_fail "mmdebstrap of $suite failed"

vmlinuz=$(ls "$tmp"/root/boot/vmlinuz-* 2>/dev/null | sort -V | tail -n1)
[ -n "$vmlinuz" ] || build_fail "the image has no /boot/vmlinuz-*"
krel=${vmlinuz##*/vmlinuz-}
[ -f "$tmp/root/boot/initrd.img-$krel" ] || build_fail "the image has no /boot/initrd.img-$krel (initramfs-tools)"
grep -qx "linux-headers-$krel" "$tmp/usr-src" || build_fail "the image was built without headers for $krel"
[ ! -e "$tmp/root/usr/src/linux-headers-$krel" ] || build_fail "the headers for $krel were not purged from the image"
rm -f "$tmp/usr-src"
cp "$vmlinuz" "$tmp/vmlinuz"
cp "$tmp/root/boot/initrd.img-$krel" "$tmp/initrd.img"

say "making the ext4 disk image"
size_mb=$(( $(du -sm "$tmp/root" | cut -f1) + 1536 ))
mke2fs -q -t ext4 -L capi-test -d "$tmp/root" "$tmp/disk.img" "${size_mb}M" >>"$log" 2>&1 ||
	build_fail "mke2fs -d of the image failed"
rm -rf "$tmp/root"
t1=$(date +%s)
{
	echo "suite=$suite"
	echo "key=$key"
	echo "kernelrelease=$krel"
	echo "disk_mb=$size_mb"
	echo "build_seconds=$((t1 - t0))"
	echo "built=$(date -u +%FT%TZ)"
} >"$tmp/info"
suite_built "$out"
# keep the two newest images of the suite
suite_keep "$ic" "$suite"
say "ready in $((t1 - t0)) s: $out"
echo "$out"
