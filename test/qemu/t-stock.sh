#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: Debian's stock kernel (kernel/stock.sh).  On the host:
# kernelcapi.ko (with the series) and capisim.ko build out of tree against
# Debian's headers, and through `dkms build` in a private DKMS tree.  Then
# the boots of Debian's own kernel in the VM: each group of `boots` below
# is one test/qemu/scenario.sh run, whose guest script
# (guest/scenarios-GROUP.sh) lists its scenarios on its run_scenarios
# line; their TAP is numbered into one stream, "[GROUP]" before each test.
# CAPI_SCENARIOS picks scenarios, as for the other boots.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=test/tap.sh
. "$here/../tap.sh"

boots=(stock-udev stock-kernel)

# ---------------------------------------------------------------- host side
err=$(mktemp)
tmp=$(mktemp -d)
trap '[ "$BASHPID" != "$$" ] || rm -rf "$err" "$tmp"' EXIT
if out=$("$top/kernel/stock.sh" 2>"$err" | tail -n1) && [ -f "$out/.done" ]; then
	pass "Debian's $(sed -n 's/^package=//p' "$out/info") fetched (apt-get download), kernelcapi.ko and capisim.ko built out of tree against its headers"
	grep -v '^\[stock\]' "$err" | diag
else
	fail "Debian's stock kernel fetched and kernelcapi.ko + capisim.ko built out of tree (kernel/stock.sh)"
	diag <"$err"
	diag "kernel/stock.sh fetches linux-image, linux-headers and linux-kbuild of linux-source-6.1's version with apt-get download (apt-get update first)"
	done_testing
fi
krel=$(cat "$out/kernelrelease")
headers=$(sed -n 's/^headers=//p' "$out/info")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$out/dkms-src/dkms.conf")

# The out-of-tree kernelcapi is the series' (patch 10's aliases, the DKMS
# version); Debian's is not.
mods="$out/staging/lib/modules/$krel"
ours=$(modinfo -F alias "$mods/updates/kernelcapi.ko" | sort | xargs)
theirs=$(modinfo -F alias "$mods/kernel/drivers/isdn/capi/kernelcapi.ko" | sort | xargs)
ourver=$(modinfo -F version "$mods/updates/kernelcapi.ko")
series_built() { [ "$ours" = "char-major-68-0 devname:capi20" ] && [ -z "$theirs" ] && [ "$ourver" = "$ver" ]; }
check "updates/kernelcapi.ko is built from the series (aliases: $ours; version $ourver), Debian's has no alias${theirs:+ (has: $theirs)}" series_built

# dkms build (never install) in a tree of its own: nothing on the host
# changes.  sign_file: no module signing (which would make a key in
# /var/lib/dkms); the VM's kernel does not enforce signatures.
need dkms dkms
mkdir -p "$tmp/dkms" "$tmp/src" "$tmp/inst"
cp -a "$out/dkms-src" "$tmp/src/capisim-$ver"
mdir="$tmp/dkms/capisim/$ver/$krel/$(uname -m)/module"
dkms_built() {
	sign_file=/nonexistent dkms build -m capisim -v "$ver" -k "$krel" \
		--kernelsourcedir "$headers" --dkmstree "$tmp/dkms" \
		--sourcetree "$tmp/src" --installtree "$tmp/inst" >"$err" 2>&1 &&
		[ -f "$mdir/kernelcapi.ko" ] && [ -f "$mdir/capisim.ko" ] &&
		[ "$(modinfo -F vermagic "$mdir/capisim.ko" | cut -d' ' -f1)" = "$krel" ]
}
check "dkms build -m capisim -v $ver -k $krel --kernelsourcedir <Debian's headers>: kernelcapi.ko and capisim.ko for $krel" dkms_built ||
	diag <"$err"

# ---------------------------------------------------------------- the boots
for group in "${boots[@]}"; do
	diag "boot of Debian's $krel: $group (guest/scenarios-$group.sh)"
	CAPI_KERNEL_OUT="$out" "$here/scenario.sh" "$group" >"$tmp/tap" 2>"$err"
	rc=$?
	results=0 plan=""
	while IFS= read -r line; do
		if [[ $line =~ ^(not\ )?ok\ [0-9]+(\ -)?\ ?(.*)$ ]]; then
			results=$((results + 1))
			T_N=$((T_N + 1))
			if [ -n "${BASH_REMATCH[1]}" ] && [[ $line != *" # TODO "* ]]; then
				T_FAILED=$((T_FAILED + 1))
			fi
			echo "${BASH_REMATCH[1]}ok $T_N - [$group] ${BASH_REMATCH[3]}"
		elif [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=${BASH_REMATCH[1]}
		elif [[ $line == "Bail out!"* ]]; then
			fail "[$group] ${line#Bail out! }"
		else
			printf '%s\n' "$line"
		fi
	done <"$tmp/tap"
	check "[$group] the boot reported all its tests (plan ${plan:-none}, $results results, status $rc)" \
		test "$plan" = "$results"
	cat "$err" >&2
done
done_testing
