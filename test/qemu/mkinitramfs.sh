#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/qemu/mkinitramfs.sh - build a systemd initramfs for the capi-devd test VM
#
# Usage: test/qemu/mkinitramfs.sh --kernel-dir OUT [options]
#
#   OUT is the result directory printed by kernel/build.sh (bzImage, staging/,
#   gen_init_cpio, kernelrelease). The initramfs holds the host's own systemd
#   252 as PID 1 (/init -> /lib/systemd/systemd), journald, systemd-udevd,
#   kmod, bash and the usual command line tools with their shared libraries
#   (resolved with ldd), the staged kernel modules, a minimal /etc (os-release,
#   passwd, group with "dialout", machine-id), the guest's test library
#   (/capi-test/tap.sh: test/tap.sh, the host's TAP verbs, and
#   /capi-test/scenario-lib.sh) and whatever is added below.
#
# Options:
#   --modules NAME     module tree OUT/NAME: staging (default) or staging-prefix
#                      (drivers/isdn/capi built from kernel/fixtures/pre-fix-names.patch)
#   --module-subset LIST  only these modules of the tree, with what they depend
#                      on (its modules.dep), and indexes made anew by depmod
#                      for the subset: for a distribution kernel (kernel/stock.sh)
#                      whose whole module tree would not fit. LIST: module
#                      names or paths relative to lib/modules/RELEASE,
#                      separated by blanks or commas
#   --add HOST[:GUEST] add a file, symlink or directory (recursively); GUEST
#                      defaults to HOST made absolute. Shared libraries of ELF
#                      files are added too.
#   --pkg NAME         add the files of an installed Debian package (dpkg -L,
#                      without /usr/share/{doc,man,info,locale,lintian})
#   --unit FILE        install a systemd unit into /etc/systemd/system
#   --enable UNIT      pull UNIT into the boot transaction (capi.target.wants)
#   --test SCRIPT      run SCRIPT once the system is up (capi-test.service, after
#                      udev trigger/settle and the static device nodes), its
#                      stdout+stderr go to the second serial port (ttyS1),
#                      followed by "CAPI-TEST-EXIT: <status>"; on failure, dmesg
#                      and the journal go to the third serial port (ttyS2);
#                      then the guest reboots, which ends QEMU (-no-reboot)
#   --vm               interactive root shell on the console (ttyS0) instead;
#                      leaving the shell ends the VM
#   -o FILE            also copy the result to FILE
#
#   stdout: the path of the initramfs (uncompressed newc cpio, kept in the
#   cache). Cached: the systemd/tools part is keyed by this script and the
#   host's installed packages, the module part by the kernel build, the rest
#   by the added files' names, sizes and mtimes.
#
# Guest kernel command line switches read by the test unit:
#   capi.timeout=SECONDS  guest-side limit for the test script (default 240)
#   capi.dump=1           dump dmesg and the journal to ttyS2 even on success
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
die() { echo "mkinitramfs.sh: error: $*" >&2; exit 1; }

kout="" modules=staging subset="" output="" testscript="" vm=0
adds=() pkgs=() units=() enables=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel-dir) kout=$2; shift ;;
	--modules) modules=$2; shift ;;
	--module-subset) subset=$2; shift ;;
	--add) adds+=("$2"); shift ;;
	--pkg) pkgs+=("$2"); shift ;;
	--unit) units+=("$2"); shift ;;
	--enable) enables+=("$2"); shift ;;
	--test) testscript=$2; shift ;;
	--vm) vm=1 ;;
	-o) output=$2; shift ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (try --help)" ;;
	esac
	shift
done
[ -n "$kout" ] || die "--kernel-dir OUT is required (OUT: the directory kernel/build.sh prints)"
[ -f "$kout/.done" ] && [ -f "$kout/kernelrelease" ] || die "$kout is not a finished kernel/build.sh result"
gen="$kout/gen_init_cpio"
[ -x "$gen" ] || die "$gen missing (rebuild with kernel/build.sh)"
krel=$(cat "$kout/kernelrelease")
moddir="$kout/$modules/lib/modules/$krel"
[ -d "$moddir" ] || die "no module tree $moddir (--modules staging|staging-prefix)"
[ -z "$testscript" ] || [ -f "$testscript" ] || die "test script $testscript not found"

cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
ic="$cache/initramfs"
mkdir -p "$ic"

# ---------------------------------------------------------------- spec writer
# The archive is written by the kernel's own usr/gen_init_cpio from a spec
# naming host files directly: nothing is copied, no root needed for /dev nodes.
declare -A seen=()
spec=/dev/null

# guest path of a host path: the host is merged-/usr, so is the guest
gcanon() {
	local p=$1
	case "$p" in
	/bin|/bin/*|/sbin|/sbin/*|/lib|/lib/*|/lib64|/lib64/*) p="/usr$p" ;;
	esac
	echo "$p"
}
emit_dir() { # guest dir [mode]
	local d=$1 mode=${2:-0755}
	[ "$d" = / ] && return 0
	[ -n "${seen[$d]:-}" ] && return 0
	emit_dir "$(dirname "$d")"
	seen[$d]=d
	echo "dir $d $mode 0 0" >>"$spec"
}
emit_file() { # guest host [mode]
	local g=$1 h=$2 mode=${3:-}
	[ -n "${seen[$g]:-}" ] && return 0
	case "$g$h" in *[[:space:]]*) die "path with white space not supported: $h -> $g" ;; esac
	emit_dir "$(dirname "$g")"
	[ -n "$mode" ] || mode=$(stat -c %a "$h")
	seen[$g]=f
	echo "file $g $h $mode 0 0" >>"$spec"
}
emit_slink() { # guest target
	local g=$1 t=$2
	[ -n "${seen[$g]:-}" ] && return 0
	emit_dir "$(dirname "$g")"
	seen[$g]=l
	echo "slink $g $t 0777 0 0" >>"$spec"
}
emit_nod() { # guest mode type major minor
	[ -n "${seen[$1]:-}" ] && return 0
	emit_dir "$(dirname "$1")"
	seen[$1]=n
	echo "nod $1 $2 0 0 $3 $4 $5" >>"$spec"
}

declare -A ldd_done=() notfound=()
# libraries ldd could not resolve for some file (e.g. a .so whose RUNPATH is
# on the executable): warn when no file of that name made it in
warn_notfound() {
	local l
	for l in "${!notfound[@]}"; do
		grep -qE "^(file|slink) [^ ]*/$l " "$spec" 2>/dev/null ||
			[ -n "$(printf '%s\n' "${!seen[@]}" | grep -F "/$l")" ] ||
			echo "mkinitramfs.sh: warning: ${notfound[$l]} needs $l, not found by ldd" >&2
	done
	notfound=()
}
is_elf() {
	local m=""
	[ -f "$1" ] || return 1
	IFS= read -r -n 4 m <"$1" 2>/dev/null || true
	[ "$m" = $'\x7fELF' ]
}
add_libs() { # host ELF file
	local f=$1 line lib
	[ -n "${ldd_done[$f]:-}" ] && return 0
	ldd_done[$f]=1
	while read -r line; do
		case "$line" in
		*"=> not found"*) lib=${line%%=>*}; lib=$(echo $lib); notfound[$lib]="$f"; continue ;;
		*"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;;
		*) continue ;;
		esac
		add_host "$lib"
	done < <(ldd "$f" 2>/dev/null || true)
}
# add_host HOSTPATH [GUESTPATH]: file, symlink (and its target) or directory
add_host() {
	local h=$1 g=${2:-} t e
	[ -e "$h" ] || [ -L "$h" ] || die "$h does not exist"
	case "$h" in /*) ;; *) h="$PWD/$h" ;; esac
	if [ -z "$g" ]; then
		# resolve symlinked directories on the way (host is merged-/usr)
		g=$(gcanon "$(realpath "$(dirname "$h")")/$(basename "$h")")
	fi
	g=$(gcanon "$g")
	if [ -L "$h" ]; then
		[ -n "${seen[$g]:-}" ] && return 0
		t=$(readlink "$h")
		emit_slink "$g" "$t"
		case "$t" in /*) ;; *) t="$(dirname "$h")/$t" ;; esac
		if [ -e "$t" ]; then add_host "$t"; fi
	elif [ -d "$h" ]; then
		emit_dir "$g" "$(stat -c %a "$h")"
		for e in "$h"/* "$h"/.[!.]*; do
			[ -e "$e" ] || [ -L "$e" ] || continue
			add_host "$e" "$g/$(basename "$e")"
		done
	else
		emit_file "$g" "$h"
		if [ -x "$h" ] || [[ $h == *.so* ]]; then
			is_elf "$h" && add_libs "$h"
		fi
	fi
	return 0
}
add_if() { local p; for p in "$@"; do if [ -e "$p" ]; then add_host "$p"; fi; done; }
pkg_files() { # installed package -> its regular files and symlinks
	dpkg -L "$1" 2>/dev/null | grep -vE '^/usr/share/(doc|man|info|locale|lintian|bug|bash-completion|zsh)(/|$)' |
		while IFS= read -r f; do
			{ [ -f "$f" ] || [ -L "$f" ]; } && ! [ -d "$f" ] && echo "$f"
		done
}

# ---------------------------------------------------------------- base part
udev_rules=${CAPI_VM_UDEV_RULES:-min}
base_key=$( {
	echo "udev-rules $udev_rules"
	sha256sum <"$self"
	sha256sum </var/lib/dpkg/status
} | sha256sum | cut -c1-16)
base_cpio="$ic/base-$base_key.cpio"
base_list="$ic/base-$base_key.list"
build_base() {
	local tmp etc u
	tmp=$(mktemp -d "$ic/base.XXXXXX")
	spec="$tmp/spec"
	etc="$tmp/etc"
	mkdir -p "$etc"
	: >"$spec"
	for d in bin sbin lib lib64; do emit_slink "/$d" "usr/$d"; seen[/$d]=l; done
	emit_dir /usr/bin; emit_dir /usr/sbin; emit_dir /usr/lib; emit_dir /usr/lib64
	emit_dir /dev; emit_dir /proc 0555; emit_dir /sys 0555; emit_dir /run; emit_dir /root 0700
	emit_dir /tmp 1777; emit_dir /var; emit_dir /var/tmp 1777; emit_dir /var/log; emit_dir /mnt
	emit_dir /etc; emit_dir /home
	emit_nod /dev/console 0600 c 5 1
	emit_nod /dev/null 0666 c 1 3
	emit_slink /init /lib/systemd/systemd

	# systemd, udev, kmod, shells, tools
	add_host /lib/systemd/systemd
	add_host /lib/systemd/systemd-journald
	add_host /lib/systemd/systemd-udevd
	add_host /lib/systemd/systemd-shutdown
	add_host /lib/systemd/systemd-sulogin-shell
	# the one generator: systemd.mask=, systemd.wants=, systemd.debug_shell
	# on the kernel command line
	add_host /lib/systemd/system-generators/systemd-debug-generator
	local b
	for b in systemctl journalctl udevadm systemd-tmpfiles systemd-cat systemd-run systemd-analyze \
		systemd-escape systemd-notify kmod bash dash; do
		add_host "/bin/$b"
	done
	emit_slink /usr/bin/sh dash
	for b in modprobe insmod rmmod lsmod modinfo depmod; do emit_slink "/usr/sbin/$b" ../bin/kmod; done
	emit_slink /usr/bin/lsmod kmod
	for b in poweroff reboot halt shutdown; do emit_slink "/usr/sbin/$b" ../bin/systemctl; done
	while IFS= read -r b; do add_host "$b"; done < <(pkg_files coreutils | grep -E '/s?bin/')
	add_host /bin/grep; add_host /bin/sed; add_host /usr/bin/mawk; emit_slink /usr/bin/awk mawk
	add_if /usr/bin/find /usr/bin/xargs /bin/mount /bin/umount /bin/dmesg /usr/bin/flock \
		/usr/bin/setsid /bin/mountpoint /usr/bin/getent /usr/bin/cmp /usr/bin/diff \
		/bin/ps /usr/bin/pgrep /usr/bin/pkill /usr/bin/hexdump /usr/bin/xxd /usr/bin/strace \
		/usr/bin/stdbuf /usr/bin/gzip /bin/kill /usr/bin/logger

	# units: only what this VM needs, no generators
	for u in basic.target sysinit.target sockets.target timers.target paths.target slices.target \
		local-fs.target local-fs-pre.target swap.target multi-user.target shutdown.target \
		reboot.target final.target umount.target emergency.target rescue.target exit.target \
		network.target network-pre.target time-set.target \
		systemd-journald.service systemd-journald.socket systemd-journald-dev-log.socket \
		systemd-journald-audit.socket \
		systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket \
		systemd-udev-trigger.service systemd-udev-settle.service \
		kmod-static-nodes.service systemd-tmpfiles-setup-dev.service \
		systemd-reboot.service \
		sys-kernel-debug.mount sys-kernel-tracing.mount; do
		add_if "/lib/systemd/system/$u"
	done
	# there is no ACPI: poweroff and halt reboot, and QEMU runs with -no-reboot
	emit_slink /etc/systemd/system/poweroff.target /lib/systemd/system/reboot.target
	emit_slink /etc/systemd/system/halt.target /lib/systemd/system/reboot.target
	emit_slink /etc/systemd/system/ctrl-alt-del.target /lib/systemd/system/reboot.target
	for u in systemd-journald.service systemd-udevd.service systemd-udev-trigger.service \
		kmod-static-nodes.service systemd-tmpfiles-setup-dev.service \
		sys-kernel-debug.mount sys-kernel-tracing.mount; do
		emit_slink "/etc/systemd/system/sysinit.target.wants/$u" "/lib/systemd/system/$u"
	done
	for u in systemd-journald.socket systemd-journald-dev-log.socket \
		systemd-udevd-control.socket systemd-udevd-kernel.socket; do
		emit_slink "/etc/systemd/system/sockets.target.wants/$u" "/lib/systemd/system/$u"
	done
	# journald and udevd without their seccomp/namespace sandboxing: building
	# the filters costs seconds under TCG and protects nothing in this VM
	cat >"$etc/nosandbox.conf" <<-'EOF'
	[Service]
	SystemCallFilter=
	SystemCallArchitectures=
	MemoryDenyWriteExecute=no
	RestrictAddressFamilies=
	RestrictNamespaces=no
	RestrictRealtime=no
	RestrictSUIDSGID=no
	LockPersonality=no
	ProtectHostname=no
	PrivateMounts=no
	IPAddressDeny=
	EOF
	for u in systemd-journald.service systemd-udevd.service; do
		emit_file "/etc/systemd/system/$u.d/capi-vm.conf" "$etc/nosandbox.conf" 0644
	done
	# a shell on the console instead of sulogin when the boot goes wrong
	cat >"$etc/emergency.service" <<-'EOF'
	[Unit]
	Description=Emergency shell (capi-devd VM)
	DefaultDependencies=no
	Conflicts=shutdown.target
	Before=shutdown.target
	[Service]
	Environment=HOME=/root PATH=/usr/sbin:/usr/bin
	WorkingDirectory=/root
	ExecStartPre=-/bin/sh -c 'echo "capi-devd VM: emergency shell; exit to reboot (= end QEMU)"'
	ExecStart=/bin/bash -l
	ExecStopPost=/bin/systemctl --no-block reboot --force
	Type=idle
	StandardInput=tty-force
	StandardOutput=inherit
	StandardError=inherit
	TTYPath=/dev/console
	KillMode=process
	IgnoreSIGPIPE=no
	SendSIGHUP=yes
	EOF
	emit_file /etc/systemd/system/emergency.service "$etc/emergency.service" 0644
	emit_slink /etc/systemd/system/rescue.service emergency.service

	# udev rules and config of the udev package, tmpfiles of systemd/udev
	while IFS= read -r b; do add_host "$b"; done < <(pkg_files udev | grep -E '/udev\.conf$')
	if [ "$udev_rules" = all ]; then
		while IFS= read -r b; do add_host "$b"; done < <(pkg_files udev | grep -E '/rules\.d/.*\.rules$')
	else
		for b in 50-udev-default 60-serial 80-drivers; do add_host "/lib/udev/rules.d/$b.rules"; done
	fi
	add_host /lib/udev/rules.d/99-systemd.rules
	for b in systemd.conf tmp.conf var.conf systemd-tmp.conf static-nodes-permissions.conf legacy.conf; do
		add_if "/usr/lib/tmpfiles.d/$b"
	done
	add_if /usr/lib/os-release

	# /etc
	cat >"$etc/passwd" <<-'EOF'
	root:x:0:0:root:/root:/bin/bash
	daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
	nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
	EOF
	# Debian's fixed groups, plus the usual dynamic ones of udev rules
	cat >"$etc/group" <<-'EOF'
	root:x:0:
	daemon:x:1:
	bin:x:2:
	sys:x:3:
	adm:x:4:
	tty:x:5:
	disk:x:6:
	lp:x:7:
	mail:x:8:
	uucp:x:10:
	man:x:12:
	kmem:x:15:
	dialout:x:20:
	fax:x:21:
	voice:x:22:
	cdrom:x:24:
	floppy:x:25:
	tape:x:26:
	sudo:x:27:
	audio:x:29:
	dip:x:30:
	utmp:x:43:
	video:x:44:
	plugdev:x:46:
	staff:x:50:
	users:x:100:
	systemd-journal:x:101:
	input:x:102:
	sgx:x:103:
	kvm:x:104:
	render:x:105:
	nogroup:x:65534:
	EOF
	printf 'root:*:19000:0:99999:7:::\n' >"$etc/shadow"
	printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' >"$etc/nsswitch.conf"
	echo 0123456789abcdef0123456789abcdef >"$etc/machine-id"
	echo capi-vm >"$etc/hostname"
	printf '[Journal]\nStorage=volatile\nRateLimitBurst=0\n' >"$etc/journald.conf"
	cat >"$etc/profile" <<-'EOF'
	export PATH=/usr/sbin:/usr/bin
	export PS1='capi-vm:\w# '
	export TERM=${TERM:-vt100}
	[ -t 0 ] && stty sane 2>/dev/null
	EOF
	emit_file /etc/passwd "$etc/passwd" 0644
	emit_file /etc/group "$etc/group" 0644
	emit_file /etc/shadow "$etc/shadow" 0640
	emit_file /etc/nsswitch.conf "$etc/nsswitch.conf" 0644
	emit_file /etc/machine-id "$etc/machine-id" 0444
	emit_file /etc/hostname "$etc/hostname" 0644
	emit_file /etc/profile "$etc/profile" 0644
	emit_file /etc/systemd/journald.conf.d/capi.conf "$etc/journald.conf" 0644
	emit_slink /etc/os-release ../usr/lib/os-release
	emit_slink /etc/mtab ../proc/self/mounts
	emit_dir /etc/udev/rules.d
	emit_dir /etc/modprobe.d

	warn_notfound
	"$gen" -t "$(date +%s)" "$spec" >"$tmp/base.cpio" || die "gen_init_cpio failed (spec: $spec)"
	printf '%s\n' "${!seen[@]}" | sort >"$tmp/base.list"
	mv "$tmp/base.list" "$base_list"
	mv "$tmp/base.cpio" "$base_cpio"
	rm -rf "$tmp"
	# drop base archives of older package states
	ls -1t "$ic"/base-*.cpio 2>/dev/null | tail -n +3 | while read -r f; do rm -f "$f" "${f%.cpio}.list"; done
}
if [ ! -f "$base_cpio" ] || [ ! -f "$base_list" ]; then
	echo "[initramfs] building the systemd/tools part (once per host package state)" >&2
	build_base
fi

# ---------------------------------------------------------------- modules part
kkey=$(sed -n 's/^key=//p' "$kout/info")
[ -n "$kkey" ] || kkey=$(basename "$kout")
subset=$(echo "$subset" | tr ',' ' ' | xargs -n1 2>/dev/null | sort -u | xargs)
mod_cpio="$ic/modules-$kkey-$modules${subset:+-$(echo "$subset" | sha256sum | cut -c1-8)}.cpio"
# subset_tree DIR: the modules of $subset and their dependencies (modules.dep)
# under DIR/lib/modules/$krel, with the tree's builtin lists, and depmod
subset_tree() {
	local dst="$1/lib/modules/$krel" m rel deps f
	mkdir -p "$dst"
	for m in $subset; do
		case "$m" in
		*/*) rel=$m ;;
		*) rel=$(awk -F: -v m="$m" '{ n = $1; sub(/.*\//, "", n); sub(/\.ko(\.[a-z]+)?$/, "", n); gsub(/-/, "_", n) }
				n == m { print $1; exit }' "$moddir/modules.dep")
		   [ -n "$rel" ] || die "--module-subset: no module $m in $moddir/modules.dep" ;;
		esac
		[ -f "$moddir/$rel" ] || die "--module-subset: no $moddir/$rel"
		deps=$(awk -F: -v r="$rel" '$1 == r { print $2 }' "$moddir/modules.dep")
		for f in $rel $deps; do
			mkdir -p "$dst/$(dirname "$f")"
			ln -f "$moddir/$f" "$dst/$f" 2>/dev/null || cp "$moddir/$f" "$dst/$f"
		done
	done
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$moddir/$f" ] && cp "$moddir/$f" "$dst/$f"
	done
	"$(command -v depmod 2>/dev/null || echo /sbin/depmod)" -b "$1" "$krel" ||
		die "depmod of the module subset failed"
}
if [ ! -f "$mod_cpio" ]; then
	tmp=$(mktemp -d "$ic/mod.XXXXXX")
	spec="$tmp/spec"
	: >"$spec"
	seen=()
	for d in /usr /usr/lib; do seen[$d]=d; done
	if [ -n "$subset" ]; then
		[ -f "$moddir/modules.dep" ] || die "--module-subset: no $moddir/modules.dep"
		subset_tree "$tmp/sub"
		add_host "$tmp/sub/lib/modules/$krel" "/usr/lib/modules/$krel"
	else
		add_host "$moddir" "/usr/lib/modules/$krel"
	fi
	"$gen" -t "$(date +%s)" "$spec" >"$tmp/m.cpio" || die "gen_init_cpio failed (modules)"
	mv "$tmp/m.cpio" "$mod_cpio"
	rm -rf "$tmp"
	ls -1t "$ic"/modules-*.cpio 2>/dev/null | tail -n +7 | xargs -r rm -f
fi

# ---------------------------------------------------------------- extra part
tmp=$(mktemp -d "$ic/extra.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$tmp"' EXIT
spec="$tmp/spec"
: >"$spec"
seen=()
while IFS= read -r p; do seen[$p]=base; done <"$base_list"
ldd_done=()

for a in ${adds[@]+"${adds[@]}"}; do
	h=${a%%:*}
	g=""
	[ "$h" != "$a" ] && g=${a#*:}
	[ -e "$h" ] || [ -L "$h" ] || die "--add $h: no such file"
	if [ -n "$g" ]; then add_host "$h" "$g"; else add_host "$h"; fi
done
for p in ${pkgs[@]+"${pkgs[@]}"}; do
	dpkg -s "$p" >/dev/null 2>&1 || die "--pkg $p: package not installed (apt-get install $p)"
	while IFS= read -r f; do add_host "$f"; done < <(pkg_files "$p")
done
for u in ${units[@]+"${units[@]}"}; do
	[ -f "$u" ] || die "--unit $u: no such file"
	emit_file "/etc/systemd/system/$(basename "$u")" "$(realpath "$u")" 0644
done

# capi.target: the default target, pulls in the test or the shell
cat >"$tmp/capi.target" <<'EOF'
[Unit]
Description=capi-devd test VM
Requires=basic.target
After=basic.target
AllowIsolate=yes
EOF
emit_file /etc/systemd/system/capi.target "$tmp/capi.target" 0644
emit_slink /etc/systemd/system/default.target capi.target
# .wants links are resolved by their name: the target is only informative
for u in ${enables[@]+"${enables[@]}"}; do
	emit_slink "/etc/systemd/system/capi.target.wants/$u" "../$u"
done

cat >"$tmp/wrapper" <<'EOF'
#!/bin/bash
# capi-devd VM: run /capi-test/run, report on ttyS1, diagnostics on ttyS2
export PATH=/usr/sbin:/usr/bin HOME=/root SYSTEMD_COLORS=0
timeout=240 dump=0
for a in $(cat /proc/cmdline); do
	case "$a" in
	capi.timeout=*) timeout=${a#*=} ;;
	capi.dump=*) dump=${a#*=} ;;
	esac
done
out=/dev/ttyS1 diag=/dev/ttyS2
[ -c "$out" ] || out=/dev/console
[ -c "$diag" ] || diag=/dev/console
stty -F "$out" raw -echo 2>/dev/null || true
stty -F "$diag" raw -echo 2>/dev/null || true
read -r up _ </proc/uptime
echo "# guest: test unit starts at ${up}s after kernel start, $(nproc) CPU(s) up, kernel $(uname -r)" >"$out"
udevadm settle --timeout=60 || echo "# guest: udevadm settle failed" >"$out"
read -r up _ </proc/uptime
echo "# guest: udev settled at ${up}s, running the test" >"$out"
cd /capi-test
rc=0
timeout -k 5 "$timeout" /capi-test/run >"$out" 2>&1 || rc=$?
[ $rc = 124 ] && echo "# guest: test script timed out after ${timeout}s" >"$out"
read -r up _ </proc/uptime
echo "# guest: test ends at ${up}s" >"$out"
if [ "$rc" != 0 ] || [ "$dump" = 1 ]; then
	{
		echo "==== dmesg"
		dmesg
		echo "==== systemctl --failed"
		systemctl --no-pager --failed 2>&1
		echo "==== journal"
		journalctl -b --no-pager -o short-monotonic 2>&1
		echo "==== end"
	} >"$diag" 2>&1
fi
echo "CAPI-TEST-EXIT: $rc" >"$out"
sync
exit 0
EOF

# the test library: the same tap.sh as the host's tests
emit_file /capi-test/tap.sh "$(realpath "$here/../tap.sh")" 0644
emit_file /capi-test/scenario-lib.sh "$here/guest/scenario-lib.sh" 0644
if [ -n "$testscript" ]; then
	emit_file /capi-test/run "$(realpath "$testscript")" 0755
	emit_file /capi-test/wrapper "$tmp/wrapper" 0755
	cat >"$tmp/capi-test.service" <<'EOF'
[Unit]
Description=capi-devd VM test (/capi-test/run)
Wants=systemd-udev-trigger.service kmod-static-nodes.service systemd-tmpfiles-setup-dev.service
After=basic.target systemd-udev-trigger.service kmod-static-nodes.service systemd-tmpfiles-setup-dev.service systemd-journald.service
SuccessAction=reboot-force
FailureAction=reboot-force

[Service]
Type=oneshot
ExecStart=/capi-test/wrapper
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
EOF
	emit_file /etc/systemd/system/capi-test.service "$tmp/capi-test.service" 0644
	[ "$vm" = 1 ] || emit_slink /etc/systemd/system/capi.target.wants/capi-test.service ../capi-test.service
fi
if [ "$vm" = 1 ]; then
	cat >"$tmp/capi-shell.service" <<'EOF'
[Unit]
Description=capi-devd VM shell on the console
After=basic.target systemd-udev-trigger.service kmod-static-nodes.service systemd-tmpfiles-setup-dev.service
SuccessAction=reboot-force
FailureAction=reboot-force

[Service]
Type=idle
Environment=HOME=/root
WorkingDirectory=/root
ExecStartPre=-/bin/sh -c 'echo; echo "capi-devd VM ($(uname -r)): root shell. exit or poweroff ends QEMU. /capi-test/run holds the test script, if any."'
ExecStart=/bin/bash -l
StandardInput=tty-force
StandardOutput=inherit
StandardError=inherit
TTYPath=/dev/ttyS0
TTYReset=yes
TTYVHangup=yes
KillMode=process
IgnoreSIGPIPE=no
SendSIGHUP=yes
EOF
	emit_file /etc/systemd/system/capi-shell.service "$tmp/capi-shell.service" 0644
	emit_slink /etc/systemd/system/capi.target.wants/capi-shell.service ../capi-shell.service
fi

warn_notfound

# key of the whole thing: parts + the extra spec with sizes/mtimes of host files
extra_key=$( {
	echo "$base_key $kkey $modules"
	cat "$spec"
	awk '$1 == "file" { print $3 }' "$spec" | xargs -r stat -c '%n %s %Y'
} | sha256sum | cut -c1-16)
final="$ic/initramfs-$extra_key.cpio"
if [ ! -f "$final" ]; then
	"$gen" -t "$(date +%s)" "$spec" >"$tmp/extra.cpio" || die "gen_init_cpio failed (extra files; spec $spec)"
	cat "$base_cpio" "$mod_cpio" "$tmp/extra.cpio" >"$final.tmp"
	mv "$final.tmp" "$final"
	ls -1t "$ic"/initramfs-*.cpio 2>/dev/null | tail -n +9 | xargs -r rm -f
fi
if [ -n "$output" ]; then cp "$final" "$output"; fi
echo "$final"
