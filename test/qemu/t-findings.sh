#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/t-findings.sh - TAP: the directed tests of issue 38's findings
# (capi-fuzz -D, test/qemu/capi-fuzz.c), in one boot, two CPUs:
#   hang     finding 1: DISCONNECT_B3_RESP, LISTEN_REQ and another
#            process's open and close of /dev/capi20 return within 5 s
#            while a tty under TCOOFF waits in tcsetattr(TCSADRAIN)
#   reorder  finding 3: a stream under send-queue-full echoes in order
#   open-churn  finding 2 (with CAPI_KERNEL_DEBUG=1 only: it needs KASAN
#            to see the use after free): open("/dev/capi/0") in a loop
#            while minor 0's B3 connection comes and goes
# On the series before issue 38's fixes, hang failed every time and
# reorder, a race, in 2 of its 3 runs (doc/kernel.md, "Fuzzer").
# make check runs it; make check-fuzz (in make check-world) runs it on
# the --debug kernel too.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
d="hang+reorder"
[ "${CAPI_KERNEL_DEBUG:-0}" != 1 ] || d="open-churn+$d"
CAPI_FUZZ_DIRECTED=${CAPI_FUZZ_DIRECTED:-$d} exec "$here/t-fuzz.sh" "$@"
