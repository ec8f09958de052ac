#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# rules/mkunit.sh SBINDIR <capi-devd.service.in >capi-devd.service
# The unit as installed, for the systemd it is built for: @sbindir@
# replaced; from systemd 253 on, Type=notify-reload instead of
# Type=notify and ExecReload=: systemd sends SIGHUP itself and waits for
# the daemon's RELOADING=1 (with MONOTONIC_USEC) and READY=1, so that
# systemctl reload returns once the rescan is done.  Before 253 (Debian
# 12's 252) ExecReload= sends SIGHUP and systemctl reload returns at once.
# The version: CAPI_SYSTEMD_VERSION, else systemd.pc's (the release's
# build environment), else none (Type=notify, which every systemd has).
# The one place that makes the unit: make, test/lint.sh and
# test/qemu/scenario.sh run it.
set -eu
sbindir=${1:?usage: rules/mkunit.sh SBINDIR <in >out}
v=${CAPI_SYSTEMD_VERSION:-$(pkg-config --modversion systemd 2>/dev/null || echo 0)}
v=${v%%[!0-9]*}
if [ "${v:-0}" -ge 253 ]; then
	sed -e "s|@sbindir[@]|$sbindir|g" -e 's/^Type=notify$/Type=notify-reload/' -e '/^ExecReload=/d'
else
	sed -e "s|@sbindir[@]|$sbindir|g"
fi
