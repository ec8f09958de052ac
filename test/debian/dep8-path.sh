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
#   RELEASE-to-NEXT (bookworm-to-trixie): RELEASE's system with the
#   packages built there installed, linux-headers-amd64 installed (the
#   image's own .deb of it, as /run/dep8/RELEASE) and calls on the stock
#   kernel; then the upgrade in place as Debian's release notes give it:
#   the sources switched to NEXT, apt-get upgrade --without-new-pkgs,
#   apt-get full-upgrade, and a reboot into NEXT's kernel
#   (test/debian/paths/release-upgrade).  The packages stay the ones built
#   in RELEASE: NEXT's build has the same version, which apt would not
#   take over the installed one (and Debian never has two builds of one
#   version), so the user keeps them across the upgrade.
#
# The guest has no network.  What apt would download for those commands is
# computed on the host by apt itself: the private apt configuration of
# kernel/suite.sh for the target (PATH, or NEXT), with the dpkg status
# (plus the stanzas of the two packages, which the testbed installs),
# apt's extended states and apt.conf.d of the installed system (read out
# of the image with debugfs: Install-Recommends "false" there) and
# apt-get --print-uris; those .debs (kept in the target's archive in the
# cache) become the flat repository /run/dep8/TARGET in the guest (run.sh
# --archive), which the test adds to its sources.  A package missing there
# fails the guest's apt-get.  Nothing of the target touches the host.  The
# test of a path is a two-line script that names it:
# test/bookworm-backports-kernel.sh, test/bookworm-upgrade-trixie.sh
# (make check-world).
set -u
path=${1:?usage: test/debian/dep8-path.sh RELEASE-backports|RELEASE-to-NEXT}
: "${TESTDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
# shellcheck source=test/debian/dep8-lib.sh
. "$TESTDIR/debian/dep8-lib.sh"
case $path in
*-backports)
	from=${path%-backports}
	ctl=test/debian/paths/backports-kernel.control
	target=$path pool_suite=$from extra=()
	wants=("install -t $path linux-image-amd64 linux-headers-amd64") ;;
*-to-*)
	from=${path%-to-*} target=${path#*-to-}
	pool_suite=$target
	ctl=test/debian/paths/release-upgrade.control
	wants=("upgrade --without-new-pkgs" "full-upgrade")
	# The first run's guest needed more than run.sh's default hour: DKMS
	# for 6.1 827 s, the minimal upgrade 894 s, and the full-upgrade was
	# still going when the hour was up (two cores shared, TCG).
	export CAPI_DEP8_TIMEOUT=${CAPI_DEP8_TIMEOUT:-10800} ;;
*) echo "test/debian/dep8-path.sh: unknown path $path" >&2; exit 2 ;;
esac
dep8_start "path-$path" mmdebstrap:mmdebstrap qemu-img:qemu-utils qemu-system-x86_64:qemu-system-x86 \
	debugfs:e2fsprogs

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
pool=$cache/suite/$pool_suite/archives
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
# the status of the testbed: the image's with the two packages installed
for d in "$o"/new/*.deb; do
	case $d in *-dbgsym_*) continue ;; esac
	echo
	dpkg-deb -f "$d" | sed '1a Status: install ok installed'
done >>"$work/status"
case $path in
*-to-*)
	# The test installs RELEASE's linux-headers-amd64 before the upgrade,
	# and with it the headers the image was built with (mkimage.sh
	# purged them; their versions are in its dpkg -l): those stanzas go
	# into the status too, so that apt upgrades them as the guest's apt
	# will, and the next release's headers are in its repository.  The
	# image's own .deb of linux-headers-amd64 is /run/dep8/RELEASE.
	mkdir -p "$work/from"
	for pv in $(awk '$1 == "ii" && $2 ~ /^linux-(headers|kbuild)-/ { print $2 "_" $3 }' "$DEP8_IMAGE/packages"); do
		deb=$(compgen -G "$cache/suite/$from/archives/${pv/:/%3a}_*.deb" | head -n1)
		check "$from's ${pv%%_*} ${pv#*_}, as the image was built with it, from the image build's .debs" \
			test -n "$deb" || continue
		{ echo; dpkg-deb -f "$deb" | sed '1a Status: install ok installed'; } >>"$work/status"
		case $pv in linux-headers-amd64_*) cp "$deb" "$work/from/" ;; esac
	done
	check "$from's linux-headers-amd64 for /run/dep8/$from" compgen -G "$work/from/*.deb" >/dev/null
	extra=(--archive "$from=$work/from") ;;
esac
suite_apt() {
	"$DEP8_TOP/kernel/suite.sh" "$target" apt-get -c "$work/apt.conf" -o Dir::State::status="$work/status" \
		-o Dir::State::extended_states="$work/extended_states" "$@"
}
: >"$work/uris"
for w in "${wants[@]}"; do
	# shellcheck disable=SC2086 # the words of the command
	suite_apt -qq --print-uris $w >"$work/uris.1" 2>"$work/apt.err"
	r=$?
	n=$(grep -c '\.deb ' "$work/uris.1")
	check "apt-get --print-uris $w, in the installed system with $target's sources: $n packages (exit $r)" \
		test $r = 0 -a "$n" -gt 0 || diag <"$work/apt.err"
	cat "$work/uris.1" >>"$work/uris"
done
sort -u -o "$work/uris" "$work/uris"
n=$(grep -c '\.deb ' "$work/uris")
sed "s/^'[^']*' //; s/ .*//" "$work/uris" | diag
# each .deb from RELEASE's archive in the cache, else downloaded into it
while read -r uri file _; do
	file=${file%% *}
	[ -f "$pool/$file" ] || {
		b=${file%.deb} && pkg=${b%%_*} && ver=${b#*_} && ver=${ver%_*} && ver=${ver//%3a/:}
		(cd "$work/dl" && suite_apt -q download "$pkg=$ver") >>"$work/dl.log" 2>&1 &&
			flock "$cache/suite/$pool_suite/archives.lock" mv "$work/dl/$file" "$pool/$file"
	} || { diag "cannot fetch $uri"; tail -n 5 "$work/dl.log" | diag; }
	cp "$pool/$file" "$work/archive/" 2>/dev/null
done < <(grep '\.deb ' "$work/uris")
check "all $n .debs in the guest's $target repository" test "$(ls "$work/archive" | wc -l)" = "$n"
diag "figure: the $target repository: $n .debs, $(du -sm "$work/archive" | cut -f1) MB, $(dep8_secs "$t0") s"
# ---------------------------------------------------------------- the path, booted
dep8_run "$o/new" "" "$work" "$ctl" --archive "$target=$work/archive" ${extra[@]+"${extra[@]}"}
diag "figure: test/debian/dep8-path.sh $path: $(dep8_secs "$T0") s in all"
done_testing
