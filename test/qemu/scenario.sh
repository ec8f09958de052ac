#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/scenario.sh - run a group of make check scenarios in the VM.
#
# Usage: test/qemu/scenario.sh udev|kernel|prefix|pppd|demo|ttyfix|stock-udev|stock-kernel
#
# Boots the patched kernel with systemd, udevd, 50-capi.rules,
# capi-devd.service and the libcapi20 client capi-call, and runs
# guest/scenarios-GROUP.sh inside; prints its TAP.  test/README.md says
# which scenarios each group runs.
#   udev    udevd + rules + capi-devd --source=udev; its boot runs ttyfix's
#           and pppd's scenarios too (make check: test/qemu/t-udev.sh)
#   kernel  udevd masked, capi-devd --source=kernel
#   prefix  the pre-fix fixture build of kernelcapi
#   pppd    as udev: two pppd over a switched call (guest/pppd-lib.sh),
#           alone (its scenarios are in udev's boot)
#   demo    as udev: a few calls, the names, --verify, pppd (./demo.sh)
#   ttyfix  as udev: the middleware ttys' receive path and lifetime, alone
#   stock-udev, stock-kernel  as udev and kernel, on Debian's own kernel
#           (CAPI_KERNEL_KIND=stock, kernel/stock.sh; test/qemu/t-stock.sh)
# Every guest/scenarios-*.sh is in the guest as /capi-test/scenarios-*.sh,
# so that a boot's script can source another's scenarios (DEFINE_ONLY=1).
# udev, pppd, demo and stock-udev also get guest/pppd-lib.sh and pppd's
# tools; udev and ttyfix ldisc-switch.
# CAPI_DEVD, CAPI_CALL and SEND_UEVENT name the built binaries (make check
# sets them).  CAPI_SCENARIOS="5 10" runs only those scenarios (after the
# group's setup); a group that has none of them is skipped.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
group=${1:?usage: scenario.sh udev|kernel|prefix}
: "${CAPI_DEVD:?set CAPI_DEVD to the built capi-devd (make check does)}"
: "${CAPI_CALL:?set CAPI_CALL to the built test/client/capi-call (make check does)}"
: "${SEND_UEVENT:?set SEND_UEVENT to the built test/send-uevent (make check does)}"
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
# shellcheck source=test/tap.sh
. "$here/../tap.sh"

# The unit as installed, with the binary in /usr/sbin; devices.txt from
# the same linux-source the kernel is built from.
work=$cache/scenario-files
mkdir -p "$work"
"$top/rules/mkunit.sh" /usr/sbin <"$top/rules/capi-devd.service.in" >"$work/capi-devd.service.new"
cmp -s "$work/capi-devd.service.new" "$work/capi-devd.service" ||
	mv "$work/capi-devd.service.new" "$work/capi-devd.service"
src=/usr/src/linux-source-6.1.tar.xz
if [ ! -s "$work/devices.txt" ] || [ "$src" -nt "$work/devices.txt" ]; then
	tar -xJf "$src" -C "$work" --strip-components=3 \
		linux-source-6.1/Documentation/admin-guide/devices.txt ||
		{ fail "devices.txt from $src (package linux-source-6.1: run ./install-deps.sh)"; done_testing; }
fi

append=""
modules=staging
# pppd over CAPI (guest/pppd-lib.sh): Debian's pppd, iproute2, ping, socat
ppp=(--add "$here/guest/pppd-lib.sh:/capi-test/pppd-lib.sh"
	--add /usr/sbin/pppd --add /usr/bin/ip --add /usr/bin/ping --add /usr/bin/socat)
case $group in
stock-*) export CAPI_KERNEL_KIND=stock ;;
esac
case $group in
udev|ttyfix)
	# scenario 32's failslab takes only caches marked at boot
	[ "${CAPI_KERNEL_DEBUG:-0}" != 1 ] || append="$append slub_debug=A,kmalloc-2k"
	ldisc=(--add "${LDISC_SWITCH:?set LDISC_SWITCH to the built test/qemu/ldisc-switch (make check does)}:/usr/bin/ldisc-switch")
	# udev runs ttyfix's and pppd's scenarios too (one boot, issue 29)
	if [ "$group" = ttyfix ]; then ppp=("${ldisc[@]}"); else ppp+=("${ldisc[@]}"); fi ;;
pppd|demo|stock-udev) ;;
kernel|stock-kernel)
	ppp=()
	for u in systemd-udevd.service systemd-udevd-control.socket \
		systemd-udevd-kernel.socket systemd-udev-trigger.service \
		systemd-udev-settle.service; do
		append="$append systemd.mask=$u"
	done ;;
prefix) modules=staging-prefix; ppp=() ;;
*) echo "scenario.sh: unknown group '$group'" >&2; exit 2 ;;
esac

guest=$here/guest/scenarios-$group.sh
[ "$group" = demo ] && guest=$here/guest/demo.sh
# The scenarios a group runs: its guest script's run_scenarios line.
scenarios_of() { sed -n 's/^run_scenarios //p' "$@" | tr '\n' ' '; }
if [ -n "${CAPI_SCENARIOS:-}" ] && [ "$group" != demo ]; then
	runs=" $(scenarios_of "$guest")" all=" $(scenarios_of "$here"/guest/scenarios-*.sh)" pick=""
	for n in $CAPI_SCENARIOS; do
		[[ $all == *" $n "* ]] || { fail "CAPI_SCENARIOS: no scenario $n (test/README.md)"; done_testing; }
		[[ $runs != *" $n "* ]] || pick="$pick,$n"
	done
	[ -n "$pick" ] || skip_all "CAPI_SCENARIOS=$CAPI_SCENARIOS: the $group boot runs${runs% }"
	append="$append capi.scenarios=${pick#,}"
fi
others=()
for f in "$here"/guest/scenarios-*.sh; do
	[ "$f" = "$guest" ] || others+=(--add "$f:/capi-test/${f##*/}")
done
CAPI_VM_MODULES=$modules CAPI_VM_APPEND="${CAPI_VM_APPEND:-}$append" \
exec "$here/vm-test.sh" "$guest" "${others[@]}" \
	--add "$CAPI_DEVD:/usr/sbin/capi-devd" \
	--add "$CAPI_CALL:/usr/bin/capi-call" \
	--add "$SEND_UEVENT:/usr/bin/send-uevent" \
	--add /usr/bin/setpriv --add /usr/bin/unshare \
	--add "$top/rules/50-capi.rules:/lib/udev/rules.d/50-capi.rules" \
	--add "$work/devices.txt:/usr/share/capi-devd/devices.txt" \
	--unit "$work/capi-devd.service" --enable capi-devd.service \
	--pkg libcapi20-3 ${ppp[@]+"${ppp[@]}"}
