#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The long-running daemon links libudev and libc and nothing else:
# libsystemd (notify.c speaks the protocol) and libkmod (dlopen()ed by
# --load-driver) would map zstd, lzma, libcrypto and libgcrypt for years.
set -u
: "${CAPI_DEVD:?run through make check}"
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
need readelf binutils

# A --enable-sanitizers build also needs the sanitizers' runtimes.
needed=$(readelf -d "$CAPI_DEVD" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
	grep -Ev '^lib(asan|ubsan|lsan)\.so' | sort | tr '\n' ' ')
check "capi-devd needs libudev and libc only" test "$needed" = "libc.so.6 libudev.so.1 " ||
	diag "NEEDED: $needed"
bound() { readelf --dyn-syms "$CAPI_DEVD" | grep -e 'kmod_' -e 'sd_notify'; }
check "no libkmod or libsystemd symbol is bound at load time" not bound ||
	bound | diag
done_testing
