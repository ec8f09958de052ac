#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/build.sh - build the capi-devd test kernel (bzImage + staged modules).
#
# Usage: kernel/build.sh [--debug|--kcsan] [--force] [--verbose] [--print-key]
#        kernel/build.sh --source-tree
#
#   Extracts /usr/src/linux-source-6.1.tar.xz (or the tarball of
#   LINUX_SOURCE_PKG, see kernel/series.sh), applies its series
#   (kernel/patches/series; pristine when the series is missing or empty)
#   and copies capisim's own source (kernel/capisim/) into the tree,
#   configures tinyconfig + kernel/capi.config (+ kernel/debug.config with
#   --debug: lockdep, KASAN, kmemleak; + kernel/kcsan.config with --kcsan:
#   KCSAN, which excludes KASAN, so it is a variant of its own), checks that
#   every option of the fragments made it into .config, builds bzImage and
#   modules, installs the modules into a staging dir and runs depmod. When
#   kernel/fixtures/pre-fix-names.patch exists, also builds drivers/isdn/capi
#   with that patch applied (out of tree, M=) into a second staging dir.
#
#   Everything lives outside the checkout, under
#     ${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}/kernel
#   Results are keyed by a hash of the linux-source version, this script, the
#   fragments, the series (names and contents), kernel/capisim/ and the
#   fixture patch; a run
#   whose key was built already only prints the result directory.
#
#   --source-tree only makes sure the pristine source tree exists (a git
#   work tree whose tag capi-pristine is the unpatched source) and prints
#   its path; kernel/check-series.sh clones it.
#
#   stdout: one line, the result directory OUT, which holds
#     OUT/bzImage            the kernel
#     OUT/config             its .config
#     OUT/kernelrelease      `uname -r` of that kernel
#     OUT/staging            INSTALL_MOD_PATH of modules_install (+ depmod)
#     OUT/staging-prefix     same modules, drivers/isdn/capi from the fixture
#                            (only when kernel/fixtures/pre-fix-names.patch exists)
#     OUT/info               what was built from what
#     OUT/gen_init_cpio      the tree's usr/gen_init_cpio (for test/qemu/)
#   Progress and errors go to stderr; the full build log is OUT/build.log
#   (on failure: $CACHE/kernel/log/).
#
# Environment:
#   CAPI_DEVD_CACHE        cache root (default above)
#   CAPI_KERNEL_JOBS       make -j (default: number of CPUs + 1)
#   CAPI_KERNEL_KEEP       result dirs kept per variant (default 4)
#   CAPI_NO_CCACHE=1       do not use ccache even when installed
#   CCACHE_DIR             ccache dir (default $CACHE/ccache)
#   LINUX_SOURCE_PKG       Debian source package (default linux-source-6.1)
set -euo pipefail

export LC_ALL=C
# Run from make (make check, make -j): the parent's MAKEFLAGS would leak its
# jobserver, -s/-w and "Entering directory" lines into the kernel's make.
# The kernel build is a separate build with its own -j.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"

variant=default
force=0
verbose=${CAPI_KERNEL_VERBOSE:-0}
print_key=0
source_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--debug) variant=debug ;;
	--kcsan) variant=kcsan ;;
	--force) force=1 ;;
	--verbose|-v) verbose=1 ;;
	--print-key) print_key=1 ;;
	--source-tree) source_only=1 ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "kernel/build.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done

say() { echo "[kernel] $*" >&2; }
die() { echo "kernel/build.sh: error: $*" >&2; exit 1; }

# shellcheck source=kernel/series.sh
. "$here/series.sh"
pkg=${LINUX_SOURCE_PKG:-linux-source-6.1}
frag_main="$here/capi.config"
frag_pristine="$here/capi-pristine.config"
frag_debug="$here/debug.config"
frag_kcsan="$here/kcsan.config"
series=$(series_file "$pkg")
fixture="$here/fixtures/pre-fix-names.patch"

# ---------------------------------------------------------------- prerequisites
tree_source "$pkg" || die "no source tree $pkg (above)"
tarball=$tree_tarball pkgver=$tree_version
missing=()
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need_file() { [ -e "$1" ] || missing+=("$2"); }
need_cmd make make
need_cmd gcc gcc
need_cmd flex flex
need_cmd bison bison
need_cmd bc bc
need_cmd perl perl
need_cmd git git
need_cmd patch patch
need_cmd xz xz-utils
need_cmd flock util-linux
need_cmd sha256sum coreutils
[ -x /sbin/depmod ] || command -v depmod >/dev/null 2>&1 || missing+=(kmod)
need_file /usr/include/libelf.h libelf-dev
need_file /usr/include/openssl/opensslv.h libssl-dev
if [ ${#missing[@]} -gt 0 ]; then
	# shellcheck disable=SC2046
	die "missing build tools.
  Fix: apt-get install $(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')"
fi
DEPMOD=$(command -v depmod 2>/dev/null || echo /sbin/depmod)
for f in "$frag_main" "$frag_pristine"; do
	[ -r "$f" ] || die "$f is missing"
done

# ---------------------------------------------------------------- the key
# Patches named by the series, in order ("#" starts a comment).
series_patches=()
if [ -f "$series" ]; then
	series_read "$series" || die "bad series (above)"
elif compgen -G "$here/patches/*.patch" >/dev/null; then
	say "warning: kernel/patches/*.patch exist but kernel/patches/series does not: building pristine"
fi
fragments=("$frag_main")
case $variant in
debug) fragments+=("$frag_debug") ;;
kcsan) fragments+=("$frag_kcsan") ;;
esac
for f in "${fragments[@]}"; do
	[ -r "$f" ] || die "$f is missing"
done

manifest() {
	echo "package $pkg $pkgver"
	echo "tarball $(stat -c %s-%Y "$tarball")"
	echo "gcc $(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion)"
	# the rest of the toolchain that goes into the result
	echo "binutils $(ld --version 2>/dev/null | head -n1)"
	echo "kmod $("$DEPMOD" --version 2>/dev/null | head -n1)"
	echo "libelf $(dpkg-query -W -f='${Version}' libelf-dev 2>/dev/null || echo unknown)"
	echo "libssl $(dpkg-query -W -f='${Version}' libssl-dev 2>/dev/null || echo unknown)"
	echo "variant $variant"
	echo "script $(sha256sum <"$self") $(sha256sum <"$here/series.sh")"
	echo "pristine-fragment $(sha256sum <"$frag_pristine")"
	local f p
	for f in "${fragments[@]}"; do echo "fragment $(basename "$f") $(sha256sum <"$f")"; done
	for p in "${series_patches[@]}"; do echo "patch $p $(sha256sum <"$here/$p")"; done
	# capisim's own files, copied into the tree (inert without the series)
	local ov dest
	while read -r ov dest; do echo "overlay $ov $dest $(sha256sum <"$here/$ov")"; done < <(series_overlay_list)
	if [ -f "$fixture" ]; then echo "fixture $(sha256sum <"$fixture")"; else echo "fixture none"; fi
}
key=$(manifest | sha256sum | cut -c1-16)
if [ "$print_key" = 1 ]; then echo "$variant-$key"; exit 0; fi

cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
kc="$cache/kernel"
out="$kc/out/$variant-$key"

if [ "$source_only" = 0 ] && [ "$force" = 0 ] && [ -f "$out/.done" ]; then
	say "up to date: $out (modules: $out/staging)"
	echo "$out"
	exit 0
fi

mkdir -p "$kc/out" "$kc/src" "$kc/obj" "$kc/log"
exec 9>"$kc/lock"
if ! flock -n 9; then
	say "waiting for another kernel/build.sh (lock $kc/lock)"
	flock 9
fi
# somebody else may have built it while we waited
if [ "$source_only" = 0 ] && [ "$force" = 0 ] && [ -f "$out/.done" ]; then
	say "up to date: $out"
	echo "$out"
	exit 0
fi

t0=$(date +%s)
log="$kc/log/$variant-$key.log"
: >"$log"
fail() {
	echo "kernel/build.sh: error: $*" >&2
	if [ -s "$log" ]; then
		echo "---- last lines of $log ----" >&2
		tail -n 40 "$log" >&2
		echo "---- full log: $log" >&2
	fi
	exit 1
}
run() { # run a command, output to the log (and stderr when verbose)
	echo "+ $*" >>"$log"
	if [ "$verbose" = 1 ]; then
		"$@" 2>&1 | tee -a "$log" >&2
		return "${PIPESTATUS[0]}"
	else
		"$@" >>"$log" 2>&1
	fi
}

# ---------------------------------------------------------------- source tree
# One git work tree per source package version: the pristine tree is commit
# "capi-pristine"; each build resets to it and applies the series. git only
# rewrites files that differ, so the O= build dir stays incremental.
src="$kc/src/$pkg-$pkgver"
if [ ! -f "$src/.capi-pristine" ]; then
	say "extracting $tarball (once per source version)"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" || fail "cannot extract $tarball"
	top=$(ls "$src.tmp")
	[ "$(echo "$top" | wc -l)" = 1 ] && [ -f "$src.tmp/$top/Makefile" ] || fail "unexpected layout of $tarball"
	mv "$src.tmp/$top" "$src"
	rmdir "$src.tmp"
	say "recording the pristine tree (git)"
	(
		cd "$src"
		git init -q .
		git config core.compression 1
		git config core.looseCompression 1
		git config gc.auto 0
		git config core.autocrlf false
		git add -f -A .
		git -c user.name=capi-devd -c user.email=capi-devd@localhost \
			commit -q --no-verify -m "pristine $pkg $pkgver"
		git tag capi-pristine
	) >>"$log" 2>&1 || fail "cannot record the pristine tree in git"
	touch "$src/.capi-pristine"
	# keep the stamp out of git's view
	echo "/.capi-pristine" >>"$src/.git/info/exclude"
fi

if [ "$source_only" = 1 ]; then
	rm -f "$log"
	echo "$src"
	exit 0
fi

say "applying ${#series_patches[@]} patch(es) from kernel/${series#"$here"/}"
(
	cd "$src"
	git reset -q --hard capi-pristine
	git clean -fdxq -e /.capi-pristine
) >>"$log" 2>&1 || fail "cannot reset $src"
for p in "${series_patches[@]}"; do
	echo "+ git apply $p" >>"$log"
	if ! (cd "$src" && git apply --whitespace=nowarn "$here/$p") >>"$log" 2>&1; then
		(cd "$src" && git apply --check -v "$here/$p") >>"$log" 2>&1 || true
		fail "kernel/$p does not apply (on $pkg $pkgver after the patches before it in kernel/${series#"$here"/})"
	fi
done
# capisim.c and the rest of kernel/capisim/: built once the series' Kconfig
# and Makefile lines name them
echo "+ series_overlay $src" >>"$log"
series_overlay "$src" >>"$log" 2>&1 || fail "cannot copy kernel/capisim/ into $src"

# ---------------------------------------------------------------- Kconfig helpers
# kconfig_settable SYM: true when the tree defines SYM with a prompt
# (bool/tristate "..." or a prompt line), i.e. a fragment can set it.
kconfig_settable() {
	local sym=$1 files
	files=$(grep -rlE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+${sym}[[:space:]]*\$" "$src" 2>/dev/null || true)
	[ -n "$files" ] || return 1
	# shellcheck disable=SC2086
	awk -v sym="$sym" '
		$1 ~ /^(menu)?config$/ { inblk = ($2 == sym); next }
		$1 ~ /^(choice|endchoice|menu|endmenu|if|endif|source|comment)$/ { inblk = 0; next }
		inblk && $1 ~ /^(bool|tristate|string|int|hex)$/ && $2 ~ /^"/ { found = 1 }
		inblk && $1 == "prompt" { found = 1 }
		END { exit !found }' $files
}

# The series' Kconfig: capisim (ISDN_CAPI_SIM) selects the hidden tristate
# ISDN_CAPI. Without it (pristine 6.1, or a partial series) kernelcapi is
# only built for Bluetooth CMTP.
pristine_capi=0
if ! kconfig_settable ISDN_CAPI_SIM; then
	pristine_capi=1
	say "no ISDN_CAPI_SIM in this tree (series not applied): adding $(basename "$frag_pristine") (kernelcapi via BT_CMTP)"
	fragments=("$frag_main" "$frag_pristine" "${fragments[@]:1}")
fi

# ---------------------------------------------------------------- configure
obj="$kc/obj/$pkg-$pkgver-$variant"
# Reproducible: the build date is the source tarball's, a real date.
build_date=$(date -u -d "@$(stat -c %Y "$tarball")" '+%a %b %e %H:%M:%S UTC %Y')
mkdir -p "$obj"
jobs=${CAPI_KERNEL_JOBS:-$(($(nproc) + 1))}
# LOCALVERSION= (set, empty): no "+" from scripts/setlocalversion for the
# git work tree, the release stays <version>-capi whatever the series
makeargs=(-C "$src" O="$obj" ARCH=x86_64 -j"$jobs" LOCALVERSION=
	KBUILD_BUILD_USER=capi-devd KBUILD_BUILD_HOST=localhost
	KBUILD_BUILD_VERSION=1 KBUILD_BUILD_TIMESTAMP="$build_date")
if [ "${CAPI_NO_CCACHE:-0}" != 1 ] && command -v ccache >/dev/null 2>&1; then
	export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache}
	mkdir -p "$CCACHE_DIR"
	[ -f "$CCACHE_DIR/ccache.conf" ] || printf 'max_size = 3G\n' >"$CCACHE_DIR/ccache.conf"
	makeargs+=(CC="ccache gcc" HOSTCC="ccache gcc")
	ccache -z >/dev/null 2>&1 || true
	say "using ccache ($CCACHE_DIR)"
fi

say "configuring: tinyconfig + $(for f in "${fragments[@]}"; do printf '%s ' "$(basename "$f")"; done)"
run make "${makeargs[@]}" tinyconfig || fail "make tinyconfig failed"
run "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${fragments[@]}" ||
	fail "merge_config.sh failed"
run make "${makeargs[@]}" olddefconfig || fail "make olddefconfig failed"

# Every option of the fragments must be in the final .config, with the value
# of the last fragment that sets it.
check_config() {
	local cfg="$obj/.config" f line sym val marked prev
	declare -A want=() optional=()
	for f in "${fragments[@]}"; do
		prev=""
		while IFS= read -r line || [ -n "$line" ]; do
			marked=0
			[ "$prev" = "# provided-by-series" ] && marked=1
			prev=$line
			if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
				sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
			elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
				sym=${BASH_REMATCH[1]} val=n
			else
				continue
			fi
			want[$sym]=$val
			if [ $marked = 1 ]; then optional[$sym]=1; else unset "optional[$sym]"; fi
		done <"$f"
	done
	local bad=0 have
	for sym in $(printf '%s\n' "${!want[@]}" | sort); do
		val=${want[$sym]}
		if [ "${optional[$sym]:-0}" = 1 ] && [ "$pristine_capi" = 1 ]; then
			say "SKIP $sym=$val: this tree does not have the series (provided-by-series)"
			echo "skipped $sym" >>"$obj/.capi-skipped"
			continue
		fi
		have=$(grep -E "^$sym=" "$cfg" | tail -n1 | cut -d= -f2- || true)
		[ -n "$have" ] || have=n
		if [ "$have" != "$val" ]; then
			echo "kernel/build.sh: config check: $sym wanted '$val', final .config has '$have'" >&2
			bad=1
		fi
	done
	return $bad
}
rm -f "$obj/.capi-skipped"
check_config || fail "options of the config fragments did not make it into .config (unmet dependency or misspelt symbol; see $obj/.config)"

# ---------------------------------------------------------------- build
say "building bzImage and modules (-j$jobs; log: $log)"
run make "${makeargs[@]}" bzImage modules || fail "kernel build failed"
# The release as kbuild wrote it, not `make kernelrelease`, whose stdout a
# make could decorate with directory messages.
krel=$(cat "$obj/include/config/kernel.release" 2>>"$log") || fail "no include/config/kernel.release in $obj"
[[ $krel =~ ^[0-9]+\.[0-9]+[A-Za-z0-9._+-]*$ ]] || fail "unexpected kernel release '$krel' in $obj/include/config/kernel.release"

tmp="$out.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"
say "installing modules into staging"
run make "${makeargs[@]}" INSTALL_MOD_PATH="$tmp/staging" INSTALL_MOD_STRIP=1 DEPMOD="$DEPMOD" modules_install ||
	fail "modules_install failed"
rm -f "$tmp/staging/lib/modules/$krel/build" "$tmp/staging/lib/modules/$krel/source"
run "$DEPMOD" -b "$tmp/staging" "$krel" || fail "depmod failed"

# ---------------------------------------------------------------- fixture
fixture_state=none
if [ -f "$fixture" ]; then
	say "building the pre-fix fixture of drivers/isdn/capi (kernel/fixtures/$(basename "$fixture"))"
	bad_paths=$(sed -n -E 's#^(---|\+\+\+) [ab]/##p' "$fixture" | grep -v '^/dev/null' | grep -v '^drivers/isdn/capi/' || true)
	[ -z "$bad_paths" ] || fail "kernel/fixtures/$(basename "$fixture") touches files outside drivers/isdn/capi/: $bad_paths"
	fx="$kc/fixture/$variant"
	rm -rf "$fx"
	mkdir -p "$fx/drivers/isdn"
	cp -a "$src/drivers/isdn/capi" "$fx/drivers/isdn/capi"
	run patch -d "$fx" -p1 --no-backup-if-mismatch -s -i "$fixture" ||
		fail "kernel/fixtures/$(basename "$fixture") does not apply on drivers/isdn/capi of the patched tree"
	run make "${makeargs[@]}" M="$fx/drivers/isdn/capi" modules || fail "fixture module build failed"
	cp -al "$tmp/staging" "$tmp/staging-prefix"
	rm -f "$tmp/staging-prefix/lib/modules/$krel/kernel/drivers/isdn/capi/"*.ko
	run make "${makeargs[@]}" M="$fx/drivers/isdn/capi" INSTALL_MOD_PATH="$tmp/staging-prefix" \
		INSTALL_MOD_DIR=kernel/drivers/isdn/capi INSTALL_MOD_STRIP=1 DEPMOD="$DEPMOD" modules_install ||
		fail "fixture modules_install failed"
	# hard links: the depmod files must not be shared with staging
	for f in "$tmp/staging-prefix/lib/modules/$krel"/modules.*; do
		cp --remove-destination "$f" "$f.new" && mv "$f.new" "$f"
	done
	run "$DEPMOD" -b "$tmp/staging-prefix" "$krel" || fail "depmod (fixture) failed"
	fixture_state=built
fi

# ---------------------------------------------------------------- result
cp "$obj/arch/x86/boot/bzImage" "$tmp/bzImage"
cp "$obj/.config" "$tmp/config"
cp "$obj/System.map" "$tmp/System.map"
# the kernel's own cpio writer, used by test/qemu/mkinitramfs.sh
cp "$obj/usr/gen_init_cpio" "$tmp/gen_init_cpio"
echo "$krel" >"$tmp/kernelrelease"
t1=$(date +%s)
{
	echo "key=$variant-$key"
	echo "package=$pkg $pkgver"
	echo "kernelrelease=$krel"
	echo "variant=$variant"
	echo "series=${series_patches[*]:-}"
	echo "pristine_capi_fallback=$pristine_capi"
	echo "fixture=$fixture_state"
	echo "skipped=$(cut -d' ' -f2 "$obj/.capi-skipped" 2>/dev/null | tr '\n' ' ')"
	echo "modules=$(cd "$tmp/staging/lib/modules/$krel" && find . -name '*.ko' | sed 's#.*/##' | sort | tr '\n' ' ')"
	echo "build_seconds=$((t1 - t0))"
	echo "built=$(date -u +%FT%TZ)"
	echo "--- manifest"
	manifest
} >"$tmp/info"
cp "$log" "$tmp/build.log"
rm -rf "$out"
mv "$tmp" "$out"
touch "$out/.done"
rm -f "$log"
ln -sfn "$variant-$key" "$kc/out/latest-$variant"

# keep the newest CAPI_KERNEL_KEEP results of this variant
keep=${CAPI_KERNEL_KEEP:-4}
ls -1dt "$kc/out/$variant-"*/ 2>/dev/null | tail -n +$((keep + 1)) | while read -r d; do rm -rf "$d"; done

if command -v ccache >/dev/null 2>&1 && [ "${CAPI_NO_CCACHE:-0}" != 1 ]; then
	ccache -s 2>/dev/null | grep -iE 'hits|misses' | head -3 | sed 's/^/[kernel] ccache: /' >&2 || true
fi
say "built $krel in $((t1 - t0)) s: $out (modules: $out/staging)"
echo "$out"
