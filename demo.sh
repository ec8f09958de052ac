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
#                        stream replayed into a temporary root
# Run as root on Debian 12.
set -euo pipefail
cd "$(dirname "$0")"
./install-deps.sh
autoreconf -fi >/dev/null
mkdir -p build
(cd build && { [ -f Makefile ] || ../configure --enable-werror >/dev/null; } &&
	make -j"$(nproc)" capi-devd test/client/capi-call test/send-uevent >/dev/null)
DEVD=$PWD/build/capi-devd

if [ "${1:-}" != --replay ]; then
	echo "== building the kernel (cached) and booting the VM; this takes a while the first time"
	CAPI_DEVD=$DEVD CAPI_CALL=$PWD/build/test/client/capi-call \
		SEND_UEVENT=$PWD/build/test/send-uevent exec test/qemu/scenario.sh demo
fi

R=$(mktemp -d /tmp/capi-devd-demo.XXXXXX)
trap '[ "$BASHPID" != "$$" ] || rm -rf "$R"' EXIT
mkdir -p "$R/dev" "$R/sys/class/capi/capi20"
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$R" --strip-components=3 \
	linux-source-6.1/Documentation/admin-guide/devices.txt

show() {
	echo "\$ ls -l /dev/capi20 /dev/isdn /dev/capi /dev/capi20.*"
	(cd "$R" && ls -l dev/capi20 dev/isdn dev/capi dev/capi20.* 2>&1 | sed 's|dev/|/dev/|g')
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
echo "\$ capi-devd --verify"
"$DEVD" --root="$R" --verify --devices-txt="$R/devices.txt"

echo
echo "== hanging up: remove events for ttys 0, 1 and 24"
sed -n '/^ACTION=add/,/^$/p' test/fixtures/demo.ev | sed 's/ACTION=add/ACTION=remove/' |
	awk 'BEGIN { RS = ""; ORS = "\n\n" } /SUBSYSTEM=tty/' |
	"$DEVD" --root="$R" --group=dialout --replay=-
rm -rf "$R/sys/class/tty"
show
echo "\$ capi-devd --verify"
"$DEVD" --root="$R" --verify --devices-txt="$R/devices.txt"
