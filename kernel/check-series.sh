#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/check-series.sh - check kernel/patches the way a maintainer would.
#
# Usage: kernel/check-series.sh [--tree 6.1|6.12] [--no-stock] [--no-build|--build-last]
#
#   Clones the pristine linux-source tree (kernel/build.sh --source-tree)
#   into the cache and applies its series (kernel/series.sh: 6.1's is
#   kernel/patches/series, 6.12's kernel/patches-6.12/series) one patch at
#   a time with git am, with capisim's own source (kernel/capisim/, copied
#   into the tree by kernel/series.sh before the first patch; the series'
#   Kconfig and Makefile lines build it).  After each patch:
#   scripts/checkpatch.pl --strict of the same tree is clean, and
#   drivers/isdn/capi/ builds without a warning
#   (tinyconfig + kernel/capi.config, + kernel/capi-pristine.config while
#   the tree has no capisim yet, exactly as kernel/build.sh configures;
#   6.12's BT_CMTP depends on DEPRECATED, a symbol no Kconfig defines, so
#   for that configuration the work tree drops "&& DEPRECATED" until the
#   build is done).  After the last patch, checkpatch.pl --strict -f of
#   the same tree is clean on each file of kernel/capisim/ (the compat
#   header may compare LINUX_VERSION_CODE: that is what it is for).
#
#   Then, unless --no-stock: Debian's own configuration of the matching
#   linux-image (config-*-amd64 from the linux-headers package, fetched
#   with apt-get download into the cache) goes through olddefconfig on the
#   pristine and on the patched tree, as it is and with BT_CMTP=y and
#   BT_CMTP=n (6.1; on 6.12 no configuration can have BT_CMTP).  What the
#   Makefiles of drivers/isdn/ and net/bluetooth/cmtp/ build from each
#   .config (object and y/m), and the CAPI options, must be the same before
#   and after the series; kernelcapi is built as BT_CMTP is (6.1: module,
#   6.12: not at all).  With the series, the same config plus
#   ISDN_CAPI_SIM=m (capisim alone) builds kernelcapi and the middleware.
#   --tree 6.12 takes Debian 13's config from kernel/suite.sh.
#
#   --no-build skips the W=1 builds (applies, checkpatch, Debian's config).
#   --build-last builds the pristine tree and the last patch only (every
#   patch still applies and is checkpatch-clean): make check-ci's run of
#   6.12's port (test/series-6.12.sh); make check-world builds each step.
#
#   Output: TAP.  Logs: $CACHE/kernel/series/log/.
#
# Environment: CAPI_DEVD_CACHE, LINUX_SOURCE_PKG as for kernel/build.sh
#   (--tree V sets LINUX_SOURCE_PKG=linux-source-V);
#   CAPI_KERNEL_JOBS (default: CPUs + 1).
set -uo pipefail
export LC_ALL=C
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
stock=1 build=1 build_last=0
while [ $# -gt 0 ]; do
	case "$1" in
	--no-stock) stock=0 ;;
	--no-build) build=0 ;;
	--build-last) build_last=1 ;;
	--tree) export LINUX_SOURCE_PKG=linux-source-${2:?--tree 6.1|6.12}; shift ;;
	-h|--help) sed -n '3,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "kernel/check-series.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done

# shellcheck source=test/tap.sh
. "$here/../test/tap.sh"
# What the rest cannot do without: one failed test, and the end.
bail() { fail "$*"; done_testing; }

cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
pkg=${LINUX_SOURCE_PKG:-linux-source-6.1}
# 6.1's keeps the directory it always had
sc="$cache/kernel/series"
[ "$pkg" = linux-source-6.1 ] || sc="$sc-${pkg#linux-source-}"
logdir="$sc/log"
mkdir -p "$logdir"
# One run per tree at a time: the work tree and the object dirs are shared.
exec 8>"$sc/lock"
flock -n 8 || { echo "# waiting for another kernel/check-series.sh ($sc/lock)"; flock 8; }
jobs=${CAPI_KERNEL_JOBS:-$(($(nproc) + 1))}

src=$("$here/build.sh" --source-tree | tail -n1) || bail "kernel/build.sh --source-tree failed"
[ -d "$src/.git" ] || bail "no pristine source tree at '$src'"

# shellcheck source=kernel/series.sh
. "$here/series.sh"
series=$(series_file "$pkg")
series_read "$series" 2>"$logdir/series.log" || bail "$(cat "$logdir/series.log")"
patches=("${series_patches[@]}")
[ ${#patches[@]} -gt 0 ] || bail "kernel/${series#"$here"/} names no patch"
echo "# $pkg: kernel/${series#"$here"/}"
[ "$build_last" = 0 ] || echo "# --build-last: the W=1 build of the pristine tree and of the last patch only"

# A private clone: the objects are shared with the pristine tree, the work
# tree and the index are ours (kernel/build.sh resets its own at any time).
work="$sc/linux"
if [ ! -d "$work/.git" ]; then
	rm -rf "$work"
	git clone -q --shared --no-checkout "$src" "$work" || bail "cannot clone $src"
fi
git -C "$work" config user.name "check-series" && git -C "$work" config user.email "check-series@localhost"
git -C "$work" am --abort >/dev/null 2>&1
git -C "$work" checkout -q -f --detach capi-pristine && git -C "$work" clean -fdxq ||
	bail "cannot check out capi-pristine in $work"
# capisim's own files, untracked: inert until the series' Kconfig and
# Makefile lines name them, and git am and checkout leave them be
series_overlay "$work" || bail "cannot copy kernel/capisim/ into $work"

# ---------------------------------------------------------------- steps
obj="$sc/obj"
mkdir -p "$obj"
kmake() { make -C "$work" O="$obj" ARCH=x86_64 -j"$jobs" "$@"; }
cmtp_kconfig="$work/net/bluetooth/cmtp/Kconfig"
# The pristine fragment while the tree has no capisim yet, as
# kernel/build.sh: then 6.12's BT_CMTP loses "&& DEPRECATED" in the work
# tree for every make (a syncconfig would drop it), until the build is done.
pristine_frag() {
	! grep -qs '^config ISDN_CAPI_SIM$' "$work/drivers/isdn/capi/Kconfig" || return 1
	sed -i 's/ && DEPRECATED$//' "$cmtp_kconfig"
}
configure() {	# tinyconfig + the fragments kernel/build.sh would use
	local frags=("$here/capi.config")
	! pristine_frag || frags+=("$here/capi-pristine.config")
	kmake tinyconfig &&
	"$work/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" &&
	kmake olddefconfig
}
# build_capi LOG CONFIGURE: build drivers/isdn/capi/ with W=1, configured
# first if CONFIGURE is 1.  Without a Kconfig change since the last
# configure, its .config would be the same: the step keeps it.  Everything,
# modules_prepare too, is built with W=1, so that a step recompiles only
# what its patch changed (not the prepare objects twice, once per flags).
# modules_prepare runs after a configure only: a directory target runs
# Kbuild's prepare itself, and each make that finds nothing to do still
# costs about 5 s of CPU (issue 41).
build_capi() {
	local rc=0
	{ { [ "$2" = 0 ] || { configure && kmake W=1 modules_prepare; }; } &&
	  { pristine_frag || :; } && kmake W=1 drivers/isdn/capi/; } >"$1" 2>&1 || rc=1
	git -C "$work" checkout -q -- net/bluetooth/cmtp/Kconfig
	return $rc
}
# kconfig_changed: did the last commit touch what configure reads?
kconfig_changed() {
	git -C "$work" diff --name-only HEAD~1 HEAD |
		grep -qE '(^|/)Kconfig[^/]*$|(^|/)configs/|^scripts/kconfig/'
}
warnings() {	# warnings LOG: its compiler warnings in drivers/isdn/capi/, no line numbers
	sed -n -E 's#^[^ ]*(drivers/isdn/capi/[^:]*):[0-9]+:[0-9]+: (warning|error): #\1: \2: #p' "$1" | sort -u
}

# Pristine 6.1 has W=1 warnings of its own (capiutil.c): those are the
# baseline; a patch must add none.  The build is incremental, so a step
# compiles (and warns about) only what the patch changed; the pristine
# build compiles all of drivers/isdn/capi/, even in an object dir that an
# earlier (perhaps interrupted) run left behind.
rm -rf "$obj/drivers/isdn/capi"
reconf=1	# 1: the next step configures afresh (Kconfig changed, or a build failed)
if [ "$build" = 0 ]; then
	skip "pristine: drivers/isdn/capi builds" "--no-build"
elif t=$SECONDS; build_capi "$logdir/build-0.log" 1; then
	echo "# pristine: W=1 build $((SECONDS - t)) s"
	pass "pristine: drivers/isdn/capi builds"
	reconf=0
else
	fail "pristine: drivers/isdn/capi builds"
	tail -n 30 "$logdir/build-0.log" | diag
fi
if [ "$build" = 1 ]; then
	warnings "$logdir/build-0.log" >"$logdir/warnings-0"
	sed 's/^/pristine W=1 warning: /' "$logdir/warnings-0" | diag
fi
step=0
for p in "${patches[@]}"; do
	step=$((step + 1))
	if git -C "$work" am -q --keep-cr "$here/$p" >"$logdir/am-$step.log" 2>&1; then
		pass "patch $step ($p) applies"
	else
		fail "patch $step ($p) applies"
		diag <"$logdir/am-$step.log"
		git -C "$work" am --abort >/dev/null 2>&1
		break
	fi
	# UNKNOWN_COMMIT_ID: the tree carries no upstream history, so the
	# commit a Fixes: tag names cannot be looked up here (its form is
	# still checked).
	# Debian's python3 first: checkpatch runs scripts/spdxcheck.py, which
	# needs python3-ply and python3-git (install-deps.sh).
	if (cd "$work" && PATH=/usr/bin:/bin:$PATH ./scripts/checkpatch.pl --strict --no-summary -q \
		--ignore UNKNOWN_COMMIT_ID "$here/$p") >"$logdir/checkpatch-$step.log" 2>&1 &&
		[ ! -s "$logdir/checkpatch-$step.log" ]; then
		pass "patch $step: checkpatch.pl --strict is clean"
	else
		fail "patch $step: checkpatch.pl --strict is clean"
		diag <"$logdir/checkpatch-$step.log"
	fi
	if [ "$build" = 0 ]; then
		continue
	fi
	kconfig_changed && reconf=1
	if [ "$build_last" = 1 ] && [ "$step" -lt ${#patches[@]} ]; then
		continue
	fi
	t=$SECONDS
	if ! build_capi "$logdir/build-$step.log" $reconf; then
		fail "patch $step: drivers/isdn/capi builds with W=1 and no new warning"
		tail -n 30 "$logdir/build-$step.log" | diag
		reconf=1
		continue
	fi
	echo "# patch $step: W=1 build $((SECONDS - t)) s$([ $reconf = 1 ] && echo ', configured afresh')"
	reconf=0
	new=$(warnings "$logdir/build-$step.log" | comm -23 - "$logdir/warnings-0")
	if [ -z "$new" ]; then
		pass "patch $step: drivers/isdn/capi builds with W=1 and no new warning"
	else
		fail "patch $step: drivers/isdn/capi builds with W=1 and no new warning"
		echo "$new" | diag
	fi
done
patched=$(git -C "$work" rev-parse HEAD)

# capisim is no patch: its files get the checkpatch.pl --strict a patch
# adding them would get, from the same tree.  A compat header is where
# kernel versions are compared, so it may name LINUX_VERSION_CODE.
while read -r f dest; do
	case $f in *.rst) continue ;; esac
	ign=UNKNOWN_COMMIT_ID
	case $f in *-compat.h) ign=$ign,LINUX_VERSION_CODE,CONSTANT_COMPARISON ;; esac
	log="$logdir/checkpatch-${f##*/}.log"
	if (cd "$work" && PATH=/usr/bin:/bin:$PATH ./scripts/checkpatch.pl --strict --no-summary -q \
		--ignore "$ign" -f "$dest") >"$log" 2>&1 && [ ! -s "$log" ]; then
		pass "kernel/$f: checkpatch.pl --strict -f is clean"
	else
		fail "kernel/$f: checkpatch.pl --strict -f is clean"
		diag <"$log"
	fi
done < <(series_overlay_list)

# ---------------------------------------------------------------- stock config
echo "# the series, patch by patch: $SECONDS s"
if [ "$stock" = 0 ]; then
	done_testing
fi

# Debian's config of the linux-image built from the same source version.
tree_source "$pkg" 2>"$logdir/tree.log" || bail "$(cat "$logdir/tree.log")"
ver=$tree_version
debs="$sc/debs"
mkdir -p "$debs"
config=$(find "$debs/$ver" -path '*/usr/src/linux-headers-*-amd64/.config' 2>/dev/null | head -n1)
if [ "$pkg" = linux-source-6.12 ]; then
	d=$("$here/suite.sh" trixie linux 6.12 | tail -n1) || bail "kernel/suite.sh trixie linux 6.12 failed"
	config="$d/root/usr/src/linux-headers-$(cat "$d/abi")/.config"
elif [ -z "$config" ]; then
	# linux-headers-amd64 (= ver) depends on linux-headers-<abi>-amd64
	hdr=$(apt-cache show "linux-headers-amd64=$ver" 2>/dev/null |
		sed -n 's/^Depends: .*\(linux-headers-[0-9][^ ,]*-amd64\).*/\1/p' | head -n1)
	[ -n "$hdr" ] || bail "apt-cache knows no linux-headers-amd64=$ver (run apt-get update)"
	rm -rf "${debs:?}/$ver" && mkdir -p "$debs/$ver"
	(cd "$debs/$ver" && apt-get download -q "$hdr=$ver") >"$logdir/download.log" 2>&1 ||
		{ diag <"$logdir/download.log"; bail "apt-get download $hdr=$ver failed"; }
	dpkg-deb -x "$debs/$ver"/*.deb "$debs/$ver/root" || bail "cannot unpack $hdr"
	config=$(find "$debs/$ver" -path '*/usr/src/linux-headers-*-amd64/.config' | head -n1)
	[ -n "$config" ] || bail "no .config in $hdr"
fi
echo "# Debian config: $config"

# What the Makefiles build from a .config: "path/obj.o y|m" for every
# obj-$(CONFIG_...) line of the given Makefiles, within its directory's
# own state (the parent Makefile's line for dir/), plus the CAPI options.
built() {	# built TREE CONFIG
	awk -v tree="$1" '
		FNR == NR { if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) val[substr($0, 1, RLENGTH - 1)] = substr($0, RLENGTH + 1); next }
		function st(sym) { return (sym in val) ? val[sym] : "n" }
		function min(a, b) { return (a == "n" || b == "n") ? "n" : (a == "m" || b == "m") ? "m" : "y" }
		{
			dir = FILENAME; sub(tree "/", "", dir); sub(/\/Makefile$/, "", dir)
			if (!match($0, /^obj-\$\(CONFIG_[A-Za-z0-9_]+\)[ \t]*\+?=/)) next
			sym = $0; sub(/^obj-\$\(/, "", sym); sub(/\).*/, "", sym)
			line = substr($0, RLENGTH + 1)
			nf = split(line, w, /[ \t]+/)
			for (i = 1; i <= nf; i++) if (w[i] != "") {
				s = st(sym)
				if (w[i] ~ /\/$/) dirstate[dir "/" w[i]] = s
				else objs[dir "/" w[i]] = s
			}
		}
		function parent(d) { sub(/[^\/]*\/$/, "", d); return d }
		function eff(d,   s) {	# a directory is built as far as its parents are
			s = dirstate[d]
			if (parent(d) in dirstate) s = min(s, eff(parent(d)))
			return s
		}
		END {
			for (o in objs) {
				d = o; sub(/[^\/]*$/, "", d)
				s = (d in dirstate) ? min(eff(d), objs[o]) : objs[o]
				if (s != "n" && o ~ /^(drivers\/isdn|net\/bluetooth)\//) print o, s
			}
			for (k in val) if (k ~ /^CONFIG_(CAPI_TRACE|ISDN_CAPI_MIDDLEWARE)$/) print k, val[k]
		}' "$2" "$1/drivers/Makefile" "$1/drivers/isdn/Makefile" "$1/drivers/isdn/capi/Makefile" \
			"$1/net/Makefile" "$1/net/bluetooth/Makefile" "$1/net/bluetooth/cmtp/Makefile" | sort
}
# olddef COMMIT CONFIG OUTDIR: the .config olddefconfig makes of CONFIG, in
# OUTDIR/.config (KCONFIG_CONFIG); scripts/kconfig/conf is built once, in
# an object dir of its own (no patch touches scripts/kconfig/).
olddef() {
	git -C "$work" checkout -q -f --detach "$1" &&
	rm -rf "$3" && mkdir -p "$3" "$sc/kconfig-obj" && cp "$2" "$3/.config" &&
	make -C "$work" O="$sc/kconfig-obj" ARCH=x86_64 KCONFIG_CONFIG="$3/.config" \
		olddefconfig >"$3.log" 2>&1
}
variant() {	# variant NAME SEDSCRIPT
	local name=$1 cfg="$sc/stock-$1.config" before after
	sed -e "$2" "$config" >"$cfg"
	if ! olddef capi-pristine "$cfg" "$sc/stock-$name-before" || ! olddef "$patched" "$cfg" "$sc/stock-$name-after"; then
		fail "Debian config ($name): olddefconfig before and after the series"
		return
	fi
	git -C "$work" checkout -q -f --detach capi-pristine
	before=$(built "$work" "$sc/stock-$name-before/.config")
	git -C "$work" checkout -q -f --detach "$patched"
	after=$(built "$work" "$sc/stock-$name-after/.config")
	if [ "$before" = "$after" ]; then
		pass "Debian config ($name): the series builds the same CAPI objects: $(echo $after)"
	else
		fail "Debian config ($name): the series builds the same CAPI objects"
		diff -u <(echo "$before") <(echo "$after") | diag
	fi
	# everything else in .config stays as it was, but ISDN_CAPI's own line
	local other
	other=$(diff <(grep -v '^CONFIG_ISDN_CAPI=' "$sc/stock-$name-before/.config" | grep '^CONFIG_' | sort) \
		<(grep -v '^CONFIG_ISDN_CAPI=' "$sc/stock-$name-after/.config" | grep '^CONFIG_' | sort))
	if [ -z "$other" ]; then pass "Debian config ($name): no other option changes"
	else fail "Debian config ($name): no other option changes"; echo "$other" | diag; fi
}
variant debian ''
# kernelcapi is what BT_CMTP is: 6.1 m, 6.12 nothing (BT_CMTP cannot be set)
cmtp=$(sed -n 's/^CONFIG_BT_CMTP=//p' "$sc/stock-debian-before/.config")
kcapi=$(sed -n 's#^drivers/isdn/capi/kernelcapi.o ##p' <<<"$(built "$work" "$sc/stock-debian-after/.config")")
if [ "$kcapi" = "$cmtp" ]; then
	pass "Debian config: kernelcapi is built as BT_CMTP is ('${cmtp:-not at all}') with the series"
else
	fail "Debian config: kernelcapi is built as BT_CMTP is ('${cmtp:-not at all}') with the series: '${kcapi:-not at all}'"
fi
if [ "$cmtp" = m ]; then
	# built in: Bluetooth (and rfkill, which caps it) too
	variant cmtp-y 's/^CONFIG_\(RFKILL\|BT\|BT_CMTP\)=m$/CONFIG_\1=y/'
	variant cmtp-n 's/^CONFIG_BT_CMTP=m$/# CONFIG_BT_CMTP is not set/'
fi
# capisim alone brings kernelcapi and the middleware ttys (patch 2's job)
echo 'CONFIG_ISDN_CAPI_SIM=m' | cat "$config" - >"$sc/stock-capisim.config"
if olddef "$patched" "$sc/stock-capisim.config" "$sc/stock-capisim-after"; then
	sim=$(built "$work" "$sc/stock-capisim-after/.config")
	want="CONFIG_ISDN_CAPI_MIDDLEWARE y
drivers/isdn/capi/capisim.o m
drivers/isdn/capi/kernelcapi.o ${cmtp:-m}"
	if [ "$(grep -E '^(CONFIG_ISDN_CAPI_MIDDLEWARE|drivers/isdn/capi/(capisim|kernelcapi)\.o) ' <<<"$sim")" = "$want" ]; then
		pass "Debian config + ISDN_CAPI_SIM=m: $(echo $sim)"
	else
		fail "Debian config + ISDN_CAPI_SIM=m builds kernelcapi, capisim and the middleware"
		echo "$sim" | diag
	fi
else
	fail "Debian config + ISDN_CAPI_SIM=m: olddefconfig"
fi
git -C "$work" checkout -q -f --detach "$patched"
echo "# in all: $SECONDS s"

done_testing
