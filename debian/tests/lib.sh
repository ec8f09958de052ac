# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# debian/tests/lib.sh - what the DEP-8 tests share: the TAP verbs and the
# checks of the QEMU scenarios (test/tap.sh, test/qemu/guest/*-lib.sh,
# installed as /capi-test/ where they expect to be), the libcapi20 test
# client built here, the .debs that apt offers, and the headers of the
# running kernel.  Nothing from the environment but what autopkgtest
# sets.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive
src=$PWD
mkdir -p /capi-test
cp "$src/test/tap.sh" "$src/test/qemu/guest/scenario-lib.sh" "$src/test/qemu/guest/pppd-lib.sh" /capi-test/
if [ ! -x /usr/local/bin/capi-call ]; then
	gcc -O2 -Wall -o /usr/local/bin/capi-call "$src/test/client/capi-call.c" -lcapi20 ||
		{ echo "cannot build test/client/capi-call.c" >&2; exit 1; }
fi
# shellcheck source=test/qemu/guest/scenario-lib.sh
. /capi-test/scenario-lib.sh
# shellcheck source=test/qemu/guest/pppd-lib.sh
. /capi-test/pppd-lib.sh
# scenario-lib.sh sets its own PATH; the client is in /usr/local/bin
export PATH=/usr/local/sbin:/usr/local/bin:$PATH
KREL=$(uname -r)
# ttys_are N: the client holds N calls, each with its tty
ttys_are() { [ "$(units | wc -l)" = "$1" ]; }

# install_debs DIR PKG...: the .debs of PKG... in DIR installed with apt,
# as a user installs downloaded packages (no terminal, no network)
install_debs() {
	local dir=$1
	shift
	(
		cd "$dir" || exit 1
		args=()
		for p in "$@"; do args+=("./${p}_"*.deb); done
		echo "# cd $dir && apt-get install -y --allow-downgrades ${args[*]}"
		apt-get install -y --allow-downgrades "${args[@]}" </dev/null
	)
}
# fetch_debs DIR [VERSION [PKG...]]: PKG... (default capi-devd and
# kernelcapi-dkms) of VERSION (else apt's candidates: the packages under
# test) downloaded into DIR
fetch_debs() {
	local dir=$1 v=${2:+=$2} p pkgs=()
	shift $(( $# < 2 ? $# : 2 ))
	[ $# -gt 0 ] || set -- capi-devd kernelcapi-dkms
	for p in "$@"; do pkgs+=("$p$v"); done
	rm -rf "$dir" && mkdir -p "$dir" &&
		(cd "$dir" && apt-get download -q -o APT::Sandbox::User=root "${pkgs[@]}")
}
# headers_available: apt offers linux-headers of the running kernel (on
# ci.debian.net the archive may have dropped that ABI already)
headers_available() {
	[ -n "$(apt-cache policy "linux-headers-$KREL" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)')" ]
}
# purge_ours: neither package installed (as the testbed may have them,
# from the test's Depends), the modules they loaded unloaded
purge_ours() {
	apt-get purge -y -q capi-devd kernelcapi-dkms && { unload_capi || true; }
}
# headers_install FILE: linux-headers of the running kernel installed,
# the packages that brought listed in FILE for headers_purge; DKMS then
# builds for this kernel (and only then)
headers_install() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | sort >"$1.before"
	apt-get install -y -q "linux-headers-$KREL" || return 1
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | sort >"$1.after"
	comm -13 "$1.before" "$1.after" >"$1"
	rm -f "$1.before" "$1.after"
}
headers_purge() {	# headers_purge FILE: what headers_install FILE installed, purged
	[ ! -s "$1" ] || xargs apt-get purge -y -q <"$1"
}
# older_version PKG: the newest version of PKG that apt offers below the
# installed one (empty when none)
older_version() {
	local cur v best=""
	cur=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null)
	while read -r v; do
		[ -n "$v" ] || continue
		if [ -n "$cur" ] && dpkg --compare-versions "$v" ge "$cur"; then continue; fi
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
	done <<<"$(apt-cache madison "$1" | awk -F'|' '{ gsub(/ /, "", $2); print $2 }')"
	echo "$best"
}
dkms_module() {	# dkms_module NAME: the module DKMS installed for this kernel
	# (compressed, .ko.xz, where the kernel's modules are: Debian 13)
	compgen -G "/lib/modules/$KREL/updates/dkms/$1.ko*" >/dev/null
}
modinfo_path_is_dkms() { modinfo -n "$1" | grep -q "^/lib/modules/$KREL/updates/dkms/$1\.ko"; }
modinfo_path_is_debian() { modinfo -n kernelcapi | grep -q "^/lib/modules/$KREL/kernel/drivers/isdn/capi/kernelcapi\.ko"; }
# unload_capi: capisim and kernelcapi out of the kernel (rmmod when their
# files are gone already: modprobe -r looks modules up in modules.dep)
unload_capi() {
	local m
	for m in capisim kernelcapi; do
		[ ! -d "/sys/module/$m" ] || modprobe -r "$m" 2>/dev/null || rmmod "$m" 2>/dev/null
	done
	[ ! -d /sys/module/kernelcapi ]
}
# udevd_off: systemd-udevd and its sockets stopped, masked until the next
# boot (nothing starts them again), as on a system without udevd;
# udevd_on undoes it. Stopping the socket unit closes the socket but
# leaves its file (no RemoveOnStop=), and /run/udev/control is how
# capi-devd, like libudev, tells that udevd runs: remove it too.
udevd_units="systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket"
udevd_off() {
	# shellcheck disable=SC2086
	systemctl mask --runtime -q $udevd_units && systemctl stop $udevd_units &&
		rm -f /run/udev/control
}
udevd_on() {
	# shellcheck disable=SC2086
	systemctl unmask --runtime -q $udevd_units && systemctl start $udevd_units
}
service_active() { systemctl is-active -q capi-devd.service; }
service_inactive() { ! systemctl is-active -q capi-devd.service; }
# The file names of the system, without what changes by itself.
file_list() {
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
		-o -path /var/tmp -o -path /var/log -o -path /var/cache -o -path /var/lib/apt \
		-o -path /var/lib/dpkg -o -path /var/backups -o -path /capi-test \
		-o -path /var/lib/systemd/timers -o -path /var/lib/systemd/random-seed \
		-o -path /var/lib/systemd/catalog -o -path /var/lib/systemd/coredump \
		-o -path /var/lib/systemd/linger -o -path /root \) -prune -o -print | sort
}
no_capi_names() {
	[ -z "$(ls -d /dev/capi20 /dev/capi20.* /dev/capi /dev/isdn/capi20 2>/dev/null)" ]
}
no_capi_names_but_static() {
	[ -z "$(ls -d /dev/capi20.* /dev/capi /dev/isdn/capi20 2>/dev/null)" ] &&
		{ [ ! -e /dev/capi20 ] || [ "$(stat -c '%F %t:%T' /dev/capi20)" = "character special file 44:0" ]; }
}

# What the release's stock kernel brought before the install, recorded by
# record_baseline into FILE and read back (after the reboot) by
# load_baseline: stock_kernelcapi (modinfo -n kernelcapi, empty when the
# kernel has none) and dev_capi20 (what /dev/capi20 was, or none).  The
# checks after the remove compare with it, whatever the release.
stock_kernelcapi="" dev_capi20=""
record_baseline() {	# record_baseline FILE
	stock_kernelcapi=$(modinfo -n kernelcapi 2>/dev/null)
	dev_capi20=$(stat -c '%F %Hr:%Lr %U %G %a' /dev/capi20 2>/dev/null || echo none)
	printf 'stock_kernelcapi=%q\ndev_capi20=%q\n' "$stock_kernelcapi" "$dev_capi20" >"$1"
}
load_baseline() {	# load_baseline FILE
	# shellcheck disable=SC1090
	. "$1"
}
no_builtin_kernelcapi() {
	! grep -q kernelcapi "/lib/modules/$KREL/modules.builtin" && [ ! -d /sys/module/kernelcapi ]
}
# the installed libcapi20 package (libcapi20-3, or libcapi20-3t64 from Debian 13 on)
libcapi20_pkg() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' 'libcapi20-3*' 2>/dev/null |
		awk '$1 == "ii" { print $2, $3; exit }'
}
# release_major: 12, 13, ...; testing and unstable have no VERSION_ID: 99
# no_symbol_mismatch: no module load was refused for a symbol version
no_symbol_mismatch() { ! dmesg | grep -q 'disagrees about version of symbol'; }
release_major() { (. /etc/os-release && v=${VERSION_ID:-} && v=${v%%.*} && echo "${v:-99}"); }
systemd_version() { systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'; }
stock_kernelcapi_again() { [ "$(modinfo -n kernelcapi 2>/dev/null)" = "$stock_kernelcapi" ]; }
# the installed unit and rules file, wherever the release puts them
unit_file() { systemctl show -P FragmentPath capi-devd.service; }
rules_file() { ls /usr/lib/udev/rules.d/50-capi.rules /lib/udev/rules.d/50-capi.rules 2>/dev/null | head -n1; }
# client_echoes N PATTERN: the client's checks say it echoed bytes through
# N ttys whose names match PATTERN (an ERE)
client_echoes() { [ "$(grep -cE "^ok .*: bytes echoed through $2\$" "$CALL_OUT")" = "$1" ]; }
