#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# install-deps.sh - install every Debian 12 package capi-devd needs to
# build, test and boot its test kernel.  Run as root; does nothing when
# all are there.  --build: only those that build capi-devd (what
# ./demo.sh --replay uses).
set -eu

BUILD_PACKAGES="build-essential autoconf automake pkg-config libudev-dev libkmod-dev"
PACKAGES="
$BUILD_PACKAGES
systemd udev kmod mandoc man-db socat time shellcheck
linux-source-6.1 xz-utils
flex bison bc cpio libelf-dev libssl-dev ccache rsync
python3-ply python3-git
qemu-system-x86
clang libclang-rt-14-dev
libcapi20-dev libcapi20-3
dkms
ppp iproute2 iputils-ping
busybox gnuplot-nox strace acl
dpkg-dev debhelper dh-dkms fakeroot lintian piuparts mmdebstrap qemu-utils e2fsprogs
autopkgtest autodep8 vmdb2
"
case ${1:-} in
'') ;;
--build) PACKAGES=$BUILD_PACKAGES ;;
*) echo "usage: ./install-deps.sh [--build]" >&2; exit 2 ;;
esac

missing=""
for p in $PACKAGES; do
	if [ "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)" != installed ]; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: these packages are missing:$missing" >&2
	echo "install-deps.sh: run me as root (or apt-get install them)" >&2
	exit 1
fi
echo "install-deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
