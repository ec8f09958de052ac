#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/run.sh - run debian/tests (DEP-8) in the Debian image, booted
# under QEMU with its own kernel and initramfs, without network
#
# Usage: test/debian/run.sh --image DIR --debs DIR [--debs-old DIR] [--out DIR]
#                           [--control FILE] [--archive SUITE=DIR]...
#
#   DIR of --image is test/debian/mkimage.sh's.  The image is booted
#   through a qcow2 overlay (the image stays as built), with the image's
#   own vmlinuz and initrd.img, one CPU (TCG), no network card, and a 9p
#   share that holds the source tree (SRC: this checkout), the results,
#   and a flat apt repository (dpkg-scanpackages --multiversion) of the
#   .debs of --debs and --debs-old and of the headers of the image's
#   kernel (linux-headers-KREL and what it depends on of the kernel's
#   source package, from the .debs the image build downloaded:
#   $CAPI_DEVD_CACHE/suite/SUITE/archives), as the archive gives them to
#   a testbed.  In the guest, test/debian/guest.sh sets the testbed up
#   (that repository its only apt source, no kernel headers: checked),
#   installs each test's Depends, runs the tests of debian/tests/control
#   in order, rebooting when a test asks to (autopkgtest's reboot
#   protocol), and powers off.
#   --control FILE: the tests of FILE (a path in the source tree, in the
#   format of debian/tests/control) instead, found in FILE's directory.
#   --archive SUITE=DIR: the .debs of DIR as a second flat repository,
#   /run/dep8/SUITE in the guest, whose Release names SUITE as Suite and
#   Codename (and, for SUITE-backports, NotAutomatic and
#   ButAutomaticUpgrades, as Debian's backports): a test adds it to the
#   guest's sources as a user adds SUITE's archive.
#   A reboot boots the newest kernel installed in the guest, as GRUB's
#   first entry would: guest.sh powers the guest off and leaves that
#   kernel and its initrd in the share when it is not the running one,
#   and QEMU boots them on the same disk.
#   OUT (default: a new directory under $CAPI_DEVD_CACHE/dep8)
#   gets NAME.log and NAME.status per test, boots (seconds from boot to
#   the runner, per boot) and console.log.
#   stdout: OUT.  Exit status 0 when the guest ran every test (whatever
#   their results), 1 when it did not finish.
#
# Environment: CAPI_DEVD_CACHE, CAPI_DEP8_TIMEOUT (seconds, default 3600),
#   CAPI_QEMU_MEM (MiB, default 1536).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
top=$(cd "$here/../.." && pwd)
die() { echo "test/debian/run.sh: error: $*" >&2; exit 2; }

image="" debs="" debs_old="" out="" control="" extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--image) image=${2:?}; shift ;;
	--debs) debs=${2:?}; shift ;;
	--debs-old) debs_old=${2:?}; shift ;;
	--out) out=${2:?}; shift ;;
	--control) control=${2:?}; shift ;;
	--archive) extra+=("${2:?}"); shift ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (try --help)" ;;
	esac
	shift
done
[ -f "$image/.done" ] || die "--image $image: not an image of test/debian/mkimage.sh"
[ -d "$debs" ] || die "--debs DIR missing"
qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 not found. Fix: ./install-deps.sh"
command -v qemu-img >/dev/null || die "qemu-img not found. Fix: ./install-deps.sh (qemu-utils)"
command -v dpkg-scanpackages >/dev/null || die "dpkg-scanpackages not found. Fix: ./install-deps.sh (dpkg-dev)"

cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
if [ -z "$out" ]; then
	mkdir -p "$cache/dep8"
	out=$(mktemp -d "$cache/dep8/run.XXXXXX")
fi
mkdir -p "$out"
share="$out/share"
rm -rf "$share"
mkdir -p "$share/src" "$share/repo" "$share/out"
# The source tree as autopkgtest gives it: the files of the checkout.
tar -C "$top" --exclude=.git --exclude='./build*' --exclude=autom4te.cache -cf - \
	debian test/client test/debian test/qemu/guest test/tap.sh test/tap.h rules README.md |
	tar -C "$share/src" -xf -
cp "$here/guest.sh" "$share/guest.sh"
if [ -n "$control" ]; then
	[ -f "$share/src/$control" ] || die "--control $control: not a file of the source tree the guest gets"
	echo "$control" >"$share/control"
fi
for d in "$debs" ${debs_old:+"$debs_old"}; do
	cp "$d"/*.deb "$share/repo/"
done
rm -f "$share"/repo/*-dbgsym_*.deb
# The headers of the image's kernel, the versions the image had.
suite=$(sed -n 's/^suite=//p' "$image/info")
krel=$(sed -n 's/^kernelrelease=//p' "$image/info")
# (SUITE-backports: SUITE's archive, test/debian/mkimage.sh)
archives="$cache/suite/${suite%-backports}/archives"
n=0
while read -r pkg ver; do
	f=$(ls "$archives/${pkg}_${ver/:/%3a}_"*.deb 2>/dev/null | head -n1)
	[ -n "$f" ] || die "no $pkg $ver in $archives (rebuild the image: test/debian/mkimage.sh --force)"
	cp "$f" "$share/repo/"
	n=$((n + 1))
done < <(awk -v k="linux-headers-$krel" '$1 == "ii" && ($2 == k || $2 ~ /^linux-headers-.*-common$/ || $2 ~ /^linux-kbuild-/) { print $2, $3 }' "$image/packages")
[ "$n" -ge 2 ] || die "the image has no linux-headers-$krel"
# flat_repo DIR [FIELD...]: Packages and an unsigned Release in DIR (the
# guest trusts the repository: [trusted=yes]), with FIELDs ("Suite: x")
flat_repo() {
	local d=$1 f
	shift
	(cd "$d" && dpkg-scanpackages --multiversion . >Packages 2>/dev/null) || die "dpkg-scanpackages failed"
	{
		echo "Origin: capi-dep8"
		echo "Label: capi-dep8"
		for f in "$@"; do echo "$f"; done
		echo "Date: $(date -Ru)"
		echo "SHA256:"
		echo " $(sha256sum <"$d/Packages" | cut -d' ' -f1) $(stat -c %s "$d/Packages") Packages"
	} >"$d/Release"
}
flat_repo "$share/repo"
for a in ${extra[@]+"${extra[@]}"}; do
	name=${a%%=*} dir=${a#*=}
	case $name in ""|*[!a-z0-9-]*|repo|src|out|boot) die "--archive $a: SUITE must be a suite name" ;; esac
	compgen -G "$dir/*.deb" >/dev/null || die "--archive $a: no .deb in $dir"
	mkdir -p "$share/$name"
	cp "$dir"/*.deb "$share/$name/"
	case $name in
	*-backports) flat_repo "$share/$name" "Suite: $name" "Codename: $name" \
		"NotAutomatic: yes" "ButAutomaticUpgrades: yes" ;;
	*) flat_repo "$share/$name" "Suite: $name" "Codename: $name" ;;
	esac
done

overlay="$out/overlay.qcow2"
qemu-img create -q -f qcow2 -F raw -b "$image/disk.img" "$overlay"
t0=$(date +%s)
end=$((t0 + ${CAPI_DEP8_TIMEOUT:-3600}))
kernel=$image/vmlinuz initrd=$image/initrd.img nboot=0
rm -f "$out/console.log"
# A reboot in the guest restarts QEMU's machine with the same kernel,
# initrd and command line; poweroff ends QEMU.  tsc=reliable: under TCG
# the clocksource watchdog would otherwise drop the TSC for the HPET,
# whose every read QEMU emulates.  nowatchdog and no RCU stall reports:
# an emulated CPU that the host does not schedule for 20 s (make -j2
# building a kernel beside it) is no lockup of the guest's, and their
# backtraces would read as kernel warnings.  norandmaps: no address
# space randomization in the guest, for every process: systemd's
# units, apt and dpkg and their scripts, make, gcc, cc1 and as, the
# tests' shells, each mapping its binary and libraries afresh.  Under TCG
# that is pure emulation cost (the cause not isolated: QEMU's lookup of
# translated code by address, page tables, TLB refills); nothing in
# debian/tests depends on the addresses.  Measured: two full DEP-8 runs
# side by side, qemu64 both (qemu's CPU seconds): boot to the runner
# 42.8 vs 55.6 s, the lifecycle test's Depends install 15.6 vs 24.8 s,
# its start (gcc builds the test client) to ok 1 28.5 vs 38.4 s.
# -cpu qemu64, not max: the same DEP-8 work costs less emulation.  max
# gives the guest AVX2, LA57 (5-level paging) and the rest of what TCG
# can emulate, and glibc, gcc and the kernel take them; measured with one
# guest per model side by side (qemu's CPU seconds, Debian 13 image, the
# same steps): a kbuild compile of kcapi.o 38.7 s vs 42.7/42.8 s (max,
# twice), depmod -a of the 7.3 kernel's .ko.xz 43.2 s vs 41.8/45.6 s (no
# difference), headers install and boot the same.  SMEP and SMAP stay
# on (max has them, qemu64 not): the kernel then still faults on a
# module's stray access to user memory, as on real hardware; TCG checks
# them when it fills its TLB (their cost not measured apart).
# tsc_early_khz: the guest's TSC counts at the host's rate (TCG reads the
# host's TSC), but on a loaded host the kernel's early calibration against
# the emulated PIT can come out far off (seen: 838 MHz for 2445 MHz, a
# guest clock 2.9 times too fast, every timeout of the tests cut short),
# and the later refinement keeps the early rate when the two differ by
# more than 1 %.  So the guest is given the host kernel's own figure, from
# its log (refined, else the TSC's, else the processor's when they are
# one); without it, the guest calibrates as before.
tsc=$(dmesg 2>/dev/null | sed -n -e 's/.*tsc: Refined TSC clocksource calibration: \([0-9]*\)\.\([0-9]\{3\}\)[0-9]* MHz.*/3 \1\2/p' \
	-e 's/.*tsc: Detected \([0-9]*\)\.\([0-9]\{3\}\)[0-9]* MHz TSC.*/2 \1\2/p' \
	-e 's/.*tsc: Detected \([0-9]*\)\.\([0-9]\{3\}\)[0-9]* MHz processor.*/1 \1\2/p' | sort -n | tail -n1 | cut -d' ' -f2)
echo "tsc_early_khz=${tsc:-none: no TSC rate in the host kernel log}" >"$out/tsc"
cpu=qemu64,+smep,+smap
# A power-off that left a kernel in the share (the newest the guest has,
# for its reboot): the same disk booted again with it.
while :; do
	rm -rf "${share:?}/boot"
	nboot=$((nboot + 1))
	timeout "$((end - $(date +%s)))" "$qemu" -machine q35,accel=tcg -cpu "$cpu" -smp 1 \
		-m "${CAPI_QEMU_MEM:-1536}" -nographic -nic none -no-user-config -nodefaults \
		-chardev "file,id=con,path=$out/console.log,append=on" -serial chardev:con \
		-kernel "$kernel" -initrd "$initrd" \
		-append "root=/dev/vda rw console=ttyS0 capi.dep8=1 systemd.show_status=0 net.ifnames=0 tsc=reliable nowatchdog rcupdate.rcu_cpu_stall_suppress=1 norandmaps${tsc:+ tsc_early_khz=$tsc}" \
		-drive "file=$overlay,if=virtio,format=qcow2,cache=unsafe" \
		-virtfs "local,path=$share,mount_tag=dep8,security_model=none,id=dep8" \
		-rtc base=utc || echo "qemu exit $?" >>"$out/qemu.status"
	[ ! -f "$share/out/done" ] && [ -f "$share/boot/vmlinuz" ] && [ -f "$share/boot/initrd.img" ] &&
		[ "$(date +%s)" -lt "$end" ] || break
	mv "$share/boot/vmlinuz" "$out/vmlinuz.$nboot"
	mv "$share/boot/initrd.img" "$out/initrd.img.$nboot"
	kernel=$out/vmlinuz.$nboot initrd=$out/initrd.img.$nboot
done
t1=$(date +%s)
{ echo "wall_seconds=$((t1 - t0))"; echo "accel=tcg"; echo "cpu=$cpu"; echo "smp=1"; echo "qemu_runs=$nboot"; } >"$out/info"
cp -a "$share/out/." "$out/"
rm -f "$overlay" "$out"/vmlinuz.* "$out"/initrd.img.*
echo "$out"
[ -f "$out/done" ]
