#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian 13's stock kernel has no CAPI: the packages say so.  From
# linux-image-<abi>-amd64 of trixie (kernel/suite.sh trixie linux 6.12):
# CONFIG_ISDN_CAPI=y but no CONFIG_BT_CMTP, the only option that builds
# kernelcapi in 6.12; no kernelcapi (nor cmtp) module and none built in.
# From linux-source-6.12: drivers/isdn/capi/Makefile builds kernelcapi only
# for BT_CMTP, which depends on DEPRECATED, a symbol no Kconfig defines.
# Run by make check-debian13.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
need apt-get apt
need dpkg-deb dpkg

d=$("$TESTDIR/../kernel/suite.sh" trixie linux 6.12 | tail -n1) ||
	{ fail "kernel/suite.sh trixie linux 6.12 fetches Debian 13's kernel"; done_testing; }
abi=$(cat "$d/abi")
diag "linux-image-$abi $(cat "$d/version")"
cfg="$d/root/boot/config-$abi"
mods="$d/root/usr/lib/modules/$abi"
[ -d "$mods" ] || mods="$d/root/lib/modules/$abi"

check "Debian 13's config has CONFIG_ISDN_CAPI=y" grep -qx 'CONFIG_ISDN_CAPI=y' "$cfg"
has_cmtp() { grep -E '^CONFIG_BT_CMTP=' "$cfg"; }
check "Debian 13's config has no CONFIG_BT_CMTP" not has_cmtp || has_cmtp | diag
check "... nor the middleware ttys (CONFIG_ISDN_CAPI_MIDDLEWARE)" \
	not grep -q '^CONFIG_ISDN_CAPI_MIDDLEWARE=' "$cfg"
capi_mods() { find "$mods" -name 'kernelcapi.ko*' -o -name 'cmtp.ko*' -o -name 'capi*.ko*'; }
check "its modules (of $(find "$mods" -name '*.ko*' | wc -l)) have no kernelcapi or cmtp" \
	test -z "$(capi_mods)" || capi_mods | diag
check "no kernelcapi built in (modules.builtin)" not grep -q 'capi' "$mods/modules.builtin"

# the source of the same version
src=$(tar -xJOf "$d/root/usr/src/linux-source-6.12.tar.xz" --occurrence=1 --wildcards '*/drivers/isdn/capi/Makefile' 2>/dev/null)
diag "drivers/isdn/capi/Makefile: $(grep kernelcapi.o <<<"$src")"
check "linux-source-6.12 builds kernelcapi only for BT_CMTP" grep -qx 'obj-$(CONFIG_BT_CMTP)[[:space:]]*+= kernelcapi.o' <<<"$src"
done_testing
