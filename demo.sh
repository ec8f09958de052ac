#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - the main job.  Builds what is missing (capi-devd, the
# libcapi20 client, the patched kernel), boots the VM with systemd, udevd,
# 50-capi.rules and capi-devd.service, places a few calls through capisim,
# shows the names that appeared and the --verify verdict, echoes data
# through a tty, hangs up and shows the names gone; then two pppd, one per
# end of a call that capisim switches, dial each other through those names,
# ping across the link and hang up.
#   ./demo.sh --replay   the same story without a VM: a recorded event
#                        stream replayed into a temporary root; needs a C
#                        compiler and the build tools only
#                        (install-deps.sh --build), no QEMU.  With
#                        CAPI_DEVD set to a built capi-devd it builds
#                        nothing (test/demo-replay.sh, make check-quick).
# Run as root on Debian 12.
set -euo pipefail
cd "$(dirname "$0")"

usage() {
	cat <<'USAGE'
usage: ./demo.sh [--replay]
  (none)      build capi-devd and the patched kernel, boot the VM (QEMU),
              place calls through capisim, show and verify the names,
              hang up, then two pppd dial each other; installs what it
              needs first (./install-deps.sh)
  --replay    the same story without a VM: a recorded event stream
              replayed into a temporary root; needs only a C compiler
              and the build tools (./install-deps.sh --build)
  -h, --help  this text
Run as root on Debian 12.
USAGE
}
replay=0
for arg in "$@"; do
	case $arg in
	--replay) replay=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "demo.sh: unknown option '$arg' (see ./demo.sh --help)" >&2; exit 2 ;;
	esac
done

if [ $replay = 0 ]; then
	./install-deps.sh
	autoreconf -fi >/dev/null
	mkdir -p build
	(cd build && { [ -f Makefile ] || ../configure --enable-werror >/dev/null; } &&
		make -j"$(nproc)" capi-devd test/client/capi-call test/send-uevent >/dev/null)
	echo "== building the kernel (cached) and booting the VM; this takes a while the first time"
	CAPI_DEVD=$PWD/build/capi-devd CAPI_CALL=$PWD/build/test/client/capi-call \
		SEND_UEVENT=$PWD/build/test/send-uevent exec test/qemu/scenario.sh demo
fi

if [ -n "${CAPI_DEVD:-}" ]; then
	DEVD=$CAPI_DEVD
else
	# Its own build directory: build/ is configured for the QEMU tests
	# (libcapi20), and nothing here is installed (hence the two dirs).
	./install-deps.sh --build
	autoreconf -fi >/dev/null
	mkdir -p build-demo
	(cd build-demo && { [ -f Makefile ] || ../configure --enable-werror --disable-qemu-tests \
		--with-udevdir=/lib/udev --with-systemdsystemunitdir=/lib/systemd/system >/dev/null; } &&
		make -j"$(nproc)" capi-devd >/dev/null)
	DEVD=$PWD/build-demo/capi-devd
fi

R=$(mktemp -d "${TMPDIR:-/tmp}/capi-devd-demo.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$R"' EXIT
mkdir -p "$R/dev" "$R/sys/class/capi/capi20"

# ls's status is 2 once the names are gone, which is the point: shown, not
# fatal.
show() {
	echo "\$ ls -l /dev/capi20 /dev/isdn /dev/capi /dev/capi20.*"
	(cd "$R" && { ls -l dev/capi20 dev/isdn dev/capi dev/capi20.* 2>&1 || :; } | sed 's|dev/|/dev/|g')
}
# --verify against the "68 char" block of devices.txt, in its layout
# (the VM's demo reads linux-source-6.1's whole file).
verify() {
	echo "\$ capi-devd --verify --devices-txt=test/fixtures/devices-68.txt"
	"$DEVD" --root="$R" --verify --devices-txt=test/fixtures/devices-68.txt
}

echo "== replaying test/fixtures/demo.ev (a control device, ttys 0, 1 and 24)"
"$DEVD" --root="$R" --group=dialout --tty-major=239 --replay=test/fixtures/demo.ev
show
# --verify reads the live devices from sysfs: describe the same ones.
printf 'MAJOR=68\nMINOR=0\nDEVNAME=capi20\n' >"$R/sys/class/capi/capi20/uevent"
for n in 0 1 24; do
	mkdir -p "$R/sys/class/tty/capi!$n"
	printf 'MAJOR=239\nMINOR=%d\nDEVNAME=capi/%d\n' $n $n >"$R/sys/class/tty/capi!$n/uevent"
done
verify
echo "\$ capi-devd --list    # the names and what each is, for scripts"
"$DEVD" --root="$R" --list | sed "s|^$R||"

echo
echo "== hanging up: remove events for ttys 0, 1 and 24"
sed -n '/^ACTION=add/,/^$/p' test/fixtures/demo.ev | sed 's/ACTION=add/ACTION=remove/' |
	awk 'BEGIN { RS = ""; ORS = "\n\n" } /SUBSYSTEM=tty/' |
	"$DEVD" --root="$R" --group=dialout --replay=-
rm -rf "$R/sys/class/tty"
show
verify
echo "== done: the names came with the devices and went with them"
