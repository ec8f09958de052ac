#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/dep8-path.sh PATH - a user's way off a Debian release, with
# the packages installed, done with apt as a user does it and booted under
# QEMU, in the image of test/debian/mkimage.sh (test/debian/run.sh), the
# results TAP as for debian/tests (test/debian/dep8-lib.sh).
#
#   RELEASE-backports (bookworm-backports): RELEASE's system with the
#   packages built there (test/debian/chroot-debs.sh RELEASE) installed on
#   its stock kernel, then apt-get install -t RELEASE-backports
#   linux-image-amd64 linux-headers-amd64 and a reboot into that kernel
#   (test/debian/paths/backports-kernel).
#
# The guest has no network.  What apt would download for that command is
# computed on the host by apt itself: the private apt configuration of
# kernel/suite.sh for PATH, with the dpkg status, apt's extended states
# and apt.conf.d of the installed system (read out of the image with
# debugfs: Install-Recommends "false" there) and apt-get --print-uris; those
# .debs (kept in RELEASE's archive in the cache) become the flat
# repository /run/dep8/PATH in the guest (run.sh --archive), which the test
# adds to its sources.  A package missing there fails the guest's apt-get.
# Nothing of PATH touches the host.  The test of a path is a two-line
# script that names it: test/bookworm-backports-kernel.sh (make check-world).
set -u
path=${1:?usage: test/debian/dep8-path.sh RELEASE-backports}
: "${TESTDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
# shellcheck source=test/debian/dep8-lib.sh
. "$TESTDIR/debian/dep8-lib.sh"
for c in mmdebstrap:mmdebstrap qemu-img:qemu-utils qemu-system-x86_64:qemu-system-x86 debugfs:e2fsprogs; do
	need "${c%%:*}" "${c#*:}"
done
case $path in
*-backports)
	from=${path%-backports}
	ctl=test/debian/paths/backports-kernel.control
	want=(install -t "$path" linux-image-amd64 linux-headers-amd64) ;;
*) echo "test/debian/dep8-path.sh: unknown path $path" >&2; exit 2 ;;
esac
T0=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/var/tmp}/capi-path-$path.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$work"' EXIT

# ---------------------------------------------------------------- build
dep8_debs "$from" "$work" "@V@"
o=$DEP8_DEBS

# ---------------------------------------------------------------- image
dep8_image "$from" "$work"

# ---------------------------------------------------------------- what apt downloads
t0=$(date +%s)
# shellcheck source=test/debian/suite-lib.sh
. "$TESTDIR/debian/suite-lib.sh"
suite_cache
pool=$cache/suite/$from/archives
mkdir -p "$pool" "$work/archive" "$work/dl"
img_cat() { debugfs -R "cat $1" "$DEP8_IMAGE/disk.img" 2>>"$work/debugfs.err"; }
img_cat /var/lib/dpkg/status >"$work/status"
img_cat /var/lib/apt/extended_states >"$work/extended_states"
for f in $(debugfs -R "ls -p /etc/apt/apt.conf.d" "$DEP8_IMAGE/disk.img" 2>>"$work/debugfs.err" |
	awk -F/ '$6 != "" && $6 != "." && $6 != ".." { print $6 }'); do
	img_cat "/etc/apt/apt.conf.d/$f"
done >"$work/apt.conf"
check "the image's dpkg status and apt.conf.d, read with debugfs ($(grep -c '^Package: ' "$work/status") packages)" \
	grep -q '^Package: dkms$' "$work/status" || diag <"$work/debugfs.err"
suite_apt() {
	"$DEP8_TOP/kernel/suite.sh" "$path" apt-get -c "$work/apt.conf" -o Dir::State::status="$work/status" \
		-o Dir::State::extended_states="$work/extended_states" "$@"
}
suite_apt -qq --print-uris "${want[@]}" >"$work/uris" 2>"$work/apt.err"
r=$?
n=$(grep -c '\.deb ' "$work/uris")
check "apt-get --print-uris ${want[*]}, in the installed system with $path's sources: $n packages (exit $r)" \
	test $r = 0 -a "$n" -gt 0 || diag <"$work/apt.err"
sed "s/^'[^']*' //; s/ .*//" "$work/uris" | diag
# each .deb from RELEASE's archive in the cache, else downloaded into it
while read -r uri file _; do
	file=${file%% *}
	[ -f "$pool/$file" ] || {
		b=${file%.deb} && pkg=${b%%_*} && ver=${b#*_} && ver=${ver%_*} && ver=${ver//%3a/:}
		(cd "$work/dl" && suite_apt -q download "$pkg=$ver") >>"$work/dl.log" 2>&1 &&
			flock "$cache/suite/$from/archives.lock" mv "$work/dl/$file" "$pool/$file"
	} || { diag "cannot fetch $uri"; tail -n 5 "$work/dl.log" | diag; }
	cp "$pool/$file" "$work/archive/" 2>/dev/null
done < <(grep '\.deb ' "$work/uris")
check "all $n .debs in the guest's $path repository" test "$(ls "$work/archive" | wc -l)" = "$n"
diag "figure: the $path repository: $n .debs, $(du -sm "$work/archive" | cut -f1) MB, $(dep8_secs "$t0") s"

# ---------------------------------------------------------------- the path, booted
dep8_run "$o/new" "" "$work" "$ctl" --archive "$path=$work/archive"
diag "figure: test/debian/dep8-path.sh $path: $(dep8_secs "$T0") s in all"
done_testing
