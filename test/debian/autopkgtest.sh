#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/autopkgtest.sh SUITE - debian/tests run by Debian's own
# autopkgtest, with its QEMU virt server, as Debian's infrastructure runs
# them: the source package and the .debs built in SUITE
# (test/debian/chroot-debs.sh SUITE) given to `autopkgtest SRC.dsc DEBS --
# qemu IMAGE`, which puts the .debs in its own repository, installs each
# test's Depends (@ among them) from it and from the archive, and follows
# the tests' reboot.  The tests fetch the running kernel's headers from the
# archive: the guest has the network (QEMU's user networking).
#
# The image: autopkgtest-build-qemu SUITE from the host's archive for
# SUITE (suite_uri), kept in $cache/autopkgtest/SUITE-KEY (KEY: the
# autopkgtest and vmdb2 versions, the archive, this script).  Two things
# this machine lacks are stood in for while it is built, each only when
# missing:
#   - device-mapper (a container's kernel): vmdb2 maps the image's
#     partitions with kpartx; our kpartx (first in PATH for the build)
#     attaches the image with losetup, adds its partitions with partx and
#     names them as kpartx does, /dev/mapper/loopNpM;
#   - udev: grub-mkconfig then names the root by its loop device, which
#     the guest does not have; the build's --script names it by UUID.
# QEMU runs under TCG, as test/debian/run.sh's guests: KVM boots no
# kernel on these machines.  autopkgtest-virt-qemu passes -enable-kvm when
# /dev/kvm is writable and -cpu host; its --qemu-command is a wrapper that
# drops the one and makes the other -cpu max.
#
# TAP: the build, the image, then one result per test of
# debian/tests/control from autopkgtest's summary, and autodep8's
# dkms-autopkgtest (Testsuite: autopkgtest-pkg-dkms); each test's own checks
# (its stdout) are counted in a diagnostic.  make check-world
# (test/bookworm-autopkgtest.sh, test/trixie-autopkgtest.sh).
set -u
suite=${1:?usage: test/debian/autopkgtest.sh SUITE}
: "${TESTDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
# shellcheck source=test/debian/dep8-lib.sh
. "$TESTDIR/debian/dep8-lib.sh"
# shellcheck source=test/debian/suite-lib.sh
. "$TESTDIR/debian/suite-lib.sh"
dep8_start "autopkgtest-$suite" autopkgtest:autopkgtest autopkgtest-build-qemu:autopkgtest vmdb2:vmdb2 \
	partx:util-linux qemu-system-x86_64:qemu-system-x86 mmdebstrap:mmdebstrap autodep8:autodep8

# ---------------------------------------------------------------- build
dep8_debs "$suite" "$work" "@V@"
o=$DEP8_DEBS

# ---------------------------------------------------------------- image
suite_cache
mirror=$(suite_uri "$suite")
check "$suite's archive among the host's apt sources" test -n "$mirror" || done_testing
key=$( {
	dpkg-query -W autopkgtest vmdb2
	echo "$mirror"
	sha256sum <"$0"
} | sha256sum | cut -c1-16)
img=$cache/autopkgtest/$suite-$key
mkdir -p "$cache/autopkgtest"
t0=$(date +%s)
if [ ! -f "$img/.done" ]; then
	rm -rf "$img.tmp"
	mkdir -p "$img.tmp/bin"
	if grep -qw device-mapper /proc/misc; then
		rmdir "$img.tmp/bin"
	else
		cat >"$img.tmp/bin/kpartx" <<'EOF'
#!/bin/sh
# kpartx -a|-d IMAGE, for vmdb2 on a kernel without device-mapper
# (test/debian/autopkgtest.sh): loop device partitions named as kpartx's
set -e
case $1 in
-a*)
	loop=$(losetup -f --show "$2")
	partx -a "$loop"
	b=${loop#/dev/}
	mkdir -p /dev/mapper
	for p in /sys/block/"$b"/"$b"p*; do
		[ -e "$p" ] || continue
		n=${p##*/}
		ln -sf "/dev/$n" "/dev/mapper/$n"
		echo "add map $n ($(cat "$p/dev")): 0 $(cat "$p/size") linear $loop $(cat "$p/start")"
	done ;;
-d*)
	for loop in $(losetup -j "$2" | cut -d: -f1); do
		b=${loop#/dev/}
		for p in /dev/mapper/"$b"p*; do [ -L "$p" ] && rm -f "$p"; done
		partx -d "$loop" || :
	done ;;
*) echo "kpartx: only -a and -d here" >&2; exit 1 ;;
esac
EOF
		chmod +x "$img.tmp/bin/kpartx"
	fi
	cat >"$img.tmp/root-by-uuid" <<'EOF'
#!/bin/sh
# autopkgtest-build-qemu --script: the root by UUID in grub.cfg
set -e
dev=$(findmnt -n -o SOURCE --target "$1")
uuid=$(blkid -c /dev/null -o value -s UUID "$dev")
test -n "$uuid"
sed -i "s|root=/dev/[^ ]*|root=UUID=$uuid|g" "$1/boot/grub/grub.cfg"
grep -m1 "root=UUID=$uuid" "$1/boot/grub/grub.cfg"
EOF
	chmod +x "$img.tmp/root-by-uuid"
	PATH=$img.tmp/bin:$PATH nice autopkgtest-build-qemu --mirror="$mirror" --size=8G \
		--script="$img.tmp/root-by-uuid" "$suite" "$img.tmp/disk.img" >"$img.tmp/build.log" 2>&1
	r=$?
	# what our kpartx attached, should vmdb2 have failed before its -d
	for loop in $(losetup -j "$img.tmp/disk.img.raw" 2>/dev/null | cut -d: -f1); do
		partx -d "$loop" 2>/dev/null
		losetup -d "$loop"
	done
	if [ $r = 0 ] && [ -f "$img.tmp/disk.img" ]; then
		echo "build_seconds=$(dep8_secs "$t0")" >"$img.tmp/info"
		suite_built "$img"
		suite_keep "$cache/autopkgtest" "$suite"
	fi
fi
if check "an autopkgtest image of $suite (autopkgtest-build-qemu $suite)" test -f "$img/.done"; then
	diag "figure: image: $(dep8_secs "$t0") s now, $(sed -n 's/^build_seconds=//p' "$img/info") s when built ($img)"
else
	tail -n 30 "$img.tmp/build.log" | diag
	done_testing
fi

# ---------------------------------------------------------------- autopkgtest
cat >"$work/qemu" <<'EOF'
#!/bin/sh
# autopkgtest-virt-qemu's QEMU under TCG (test/debian/autopkgtest.sh)
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	case $a in
	-enable-kvm) ;;
	-cpu) shift; n=$((n - 1)); set -- "$@" -cpu max ;;
	*) set -- "$@" "$a" ;;
	esac
done
exec qemu-system-x86_64 -accel tcg "$@"
EOF
chmod +x "$work/qemu"
version=$(sed -n 's/^version=//p' "$o/info")
t0=$(date +%s)
nice autopkgtest --output-dir "$work/out" --log-file "$work/log" \
	--timeout-test=7200 --timeout-install=3600 --timeout-copy=900 --timeout-short=900 \
	"$o/new/capi-devd_${version}-1.dsc" "$o/new/capi-devd_${version}-1_amd64.deb" \
	"$o/new/kernelcapi-dkms_${version}-1_all.deb" \
	-- qemu --qemu-command="$work/qemu" --ram-size=2048 --cpus=1 --timeout-reboot=1800 \
	--overlay-dir="$work" "$img/disk.img" >"$work/stdout" 2>&1
r=$?
diag "figure: autopkgtest: $(dep8_secs "$t0") s (exit $r)"
# autopkgtest exits 0 (all passed), 2 (some skipped), else failures
check "autopkgtest exits 0 (exit $r)" test $r = 0 || tail -n 40 "$work/log" | diag
for t in $(sed -n 's/^Tests: *//p' "$DEP8_TOP/debian/tests/control"); do
	v=$(awk -v t="$t" '$1 == t { print $2 }' "$work/out/summary" 2>/dev/null)
	n=$(grep -c '^ok ' "$work/out/$t-stdout" 2>/dev/null)
	check "autopkgtest: $t $v (its $n checks ok, $(grep -c '^not ok ' "$work/out/$t-stdout" 2>/dev/null) not ok)" \
		test "$v" = PASS || grep -E '^not ok|^# ' "$work/out/$t-stdout" | head -n 30 | diag
done
# Testsuite: autopkgtest-pkg-dkms in debian/control: autopkgtest adds
# autodep8's DKMS test (dkms-autopkgtest: the module built for every
# installed kernel)
v=$(awk '$1 == "dkms-autopkgtest" { print $2 }' "$work/out/summary" 2>/dev/null)
check "autopkgtest: autodep8's dkms-autopkgtest ${v:-did not run}" test "$v" = PASS ||
	tail -n 30 "$work/out/dkms-autopkgtest-stdout" "$work/out/dkms-autopkgtest-stderr" 2>/dev/null | diag
grep -m1 -o 'testbed running kernel: .*' "$work/log" | diag
diag "figure: test/debian/autopkgtest.sh $suite: $(dep8_secs "$T0") s in all"
done_testing
