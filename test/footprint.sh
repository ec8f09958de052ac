#!/bin/bash
# The long-running daemon links libudev and libc and nothing else:
# libsystemd (notify.c speaks the protocol) and libkmod (dlopen()ed by
# --load-driver) would map zstd, lzma, libcrypto and libgcrypt for years.
set -u
: "${CAPI_DEVD:?run through make check}"
T_N=0 T_FAILED=0
pass() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
fail() { T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"; }
command -v readelf >/dev/null || { echo "Bail out! readelf is missing: run ./install-deps.sh"; exit 99; }

needed=$(readelf -d "$CAPI_DEVD" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
if [ "$needed" = "libc.so.6 libudev.so.1 " ]; then
	pass "capi-devd needs libudev and libc only"
else
	fail "capi-devd needs libudev and libc only"; echo "#   NEEDED: $needed"
fi
if readelf --dyn-syms "$CAPI_DEVD" | grep -q -e 'kmod_' -e 'sd_notify'; then
	fail "no libkmod or libsystemd symbol is bound at load time"
	readelf --dyn-syms "$CAPI_DEVD" | grep -e kmod_ -e sd_notify | sed 's/^/#   /'
else
	pass "no libkmod or libsystemd symbol is bound at load time"
fi
echo "1..$T_N"
[ $T_FAILED = 0 ]
