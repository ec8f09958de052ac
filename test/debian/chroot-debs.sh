#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/chroot-debs.sh - the Debian packages of this tree built in
# another Debian release, as its users would build them, and kernelcapi-dkms
# installed there so that DKMS builds the modules for that release's kernel
#
# Usage: test/debian/chroot-debs.sh [--force] [--dist-inside] SUITE
#
#   SUITE: trixie (Debian 13), sid, or another release of the table in
#   test/debian/suite-lib.sh (the source package needs no linux-source:
#   its tarball carries the DKMS trees).
#   The release tarball is made on the host (test/debian/build-debs.sh
#   --make-orig: make dist, with the DKMS trees), or with --dist-inside
#   in the chroot, as a user of SUITE with a git checkout makes it (its
#   linux-source-6.1 and -6.12 fetched through kernel/suite.sh; the log
#   in dist.log).  In a SUITE chroot made
#   with mmdebstrap from the archive the host's apt already uses
#   (kernel/suite.sh's private sources.list; nothing of SUITE touches the
#   host): apt-get build-dep, then test/debian/build-debs.sh --orig twice,
#   the source and binary packages of this version and (-B) capi-devd of
#   VERSION~prev1 (the upgrade's version before), then apt-get install of the new .debs, whose
#   kernelcapi-dkms postinst has DKMS build kernelcapi and capisim.
#   The results live in the cache, keyed by what goes into the packages
#   (the tree's files but its tests, debian/tests, doc/, bench/ and the
#   *.md files, none of which a package installs), this
#   script, build-debs.sh, the sources and the suite's apt lists:
#     $CAPI_DEVD_CACHE/debs/SUITE-KEY/
#       new/  old/    the .debs (and .changes, .buildinfo, build.log)
#       inside.log    the chroot's log; gcc, usr-src, dkms-status,
#                     modules, modinfo: what the install left; unit,
#                     verify-unit, verify-rules: the installed unit and
#                     the release's systemd-analyze verify and udevadm
#                     verify of it and of 50-capi.rules; no-tree:
#                     the kernel postinst hook of DKMS for a kernel of
#                     no tree (7.99.0-1-amd64), its output and exit
#       abi           the ABI of SUITE's linux-image-amd64 (where the
#                     table names a linux series)
#       info          suite, key, build_seconds
#   stdout: one line, that directory.  Exit status 0 when both builds gave
#   their .debs (the directory is then complete and kept: .done), 1 when
#   not (the directory holds the logs; the next run tries again).
#   The .debs the chroot downloads are kept in $CAPI_DEVD_CACHE/suite/SUITE/
#   archives for every chroot and image of SUITE (suite_archive).
#
# Environment: CAPI_DEVD_CACHE (cache root, as kernel/build.sh).
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
top=$(cd "$here/../.." && pwd)
say() { echo "[chroot-debs] $*" >&2; }
die() { echo "test/debian/chroot-debs.sh: error: $*" >&2; exit 2; }
# shellcheck source=test/debian/suite-lib.sh
. "$here/suite-lib.sh"

force=0 suite="" inside=0
while [ $# -gt 0 ]; do
	case "$1" in
	--force) force=1 ;;
	--dist-inside) inside=1 ;;
	-h|--help) sed -n '3,/^set -euo/p' "$self" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (try --help)" ;;
	*) suite=$1 ;;
	esac
	shift
done
series=""
suite_known "$suite" && series=$(suite_field "$suite" linux)
[ -n "$series" ] || die "SUITE must be a release of test/debian/suite-lib.sh's table, e.g. trixie (try --help)"
suite_need mmdebstrap flock sha256sum
suite_cache

d=""
if [ "$series" != - ]; then
	d=$("$top/kernel/suite.sh" "$suite" linux "$series" | tail -n1) ||
		die "kernel/suite.sh $suite linux $series failed"
else
	# no kernel fetched ahead (sid): the private apt configuration only
	"$top/kernel/suite.sh" "$suite" apt-cache policy >/dev/null ||
		die "kernel/suite.sh $suite failed"
fi
srcl="$cache/apt/$suite/sources.list"
[ -s "$srcl" ] || die "kernel/suite.sh wrote no $srcl"

# The tree's files: git's (tracked and new) in a checkout, else all but
# build output.
files() {
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$top" && git ls-files -co --exclude-standard -z |
			xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh)
	else
		(cd "$top" && find . -path ./.git -prune -o -path './build*' -prune \
			-o -path ./autom4te.cache -prune -o -type f -print0)
	fi
}
# what the packages are made of: not the tests, which debian/tests run
packaged() { grep -zv -e '^\(\./\)\{0,1\}\(test\|debian/tests\|doc\|bench\)/' -e '\.md$'; }
key=$( {
	echo "suite $suite dist-inside $inside"
	(cd "$top" && files | packaged | sort -z | xargs -0 sha256sum)
	echo "script $(sha256sum <"$self")"
	echo "build-debs $(sha256sum <"$here/build-debs.sh")"
	# the tarball's DKMS trees come from the host's linux-source-6.1
	# (and SUITE's lists below name 6.12's)
	dpkg-query -W linux-source-6.1 2>/dev/null || true
	echo "sources $(cat "$srcl")"
	cat "$cache/apt/$suite"/lists/*_InRelease 2>/dev/null
} | sha256sum | cut -c1-16)
dc="$cache/debs"
out="$dc/$suite-$key"
suite_lock "$dc" test/debian/chroot-debs.sh
suite_done "$out" "$force"

t0=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
[ -z "$d" ] || cp "$d/abi" "$out/abi"
# the kernel packages kernel/suite.sh fetched already, before
# suite_archive takes its snapshot (each by a rename, under the archive's
# lock, as suite_archive's copy out)
mkdir -p "$cache/suite/$suite/archives"
[ -z "$d" ] || flock "$cache/suite/$suite/archives.lock" sh -c 'for f; do
		b=${f##*/}
		[ -e "$0/$b" ] || { cp "$f" "$0/.$b.tmp" && mv "$0/.$b.tmp" "$0/$b"; }
	done' "$cache/suite/$suite/archives" "$d"/debs/*.deb 2>/dev/null || true
suite_archive "$suite"
work=$(mktemp -d "${TMPDIR:-/tmp}/capi-chroot-debs.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$work"' EXIT
(cd "$top" && files | tar --null -T - -czf "$work/src.tar.gz" --transform 's|^\(\./\)\{0,1\}|capi-devd/|')
version=$(sed -n 's/^AC_INIT(\[capi-devd\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
# the release tarball (the source package's .orig.tar.xz): made here,
# or in the chroot with --dist-inside
dist=""
if [ "$inside" = 0 ]; then
	say "make dist (test/debian/build-debs.sh --make-orig)"
	orig=$("$here/build-debs.sh" --make-orig "$work/dist" 2>"$out/dist.err") ||
		{ cat "$out/dist.err" >&2; die "make dist failed"; }
	cp "$orig" "$work/orig.tar.xz"
else
	: >"$work/orig.tar.xz"
	# make dist needs, besides the build dependencies, git (git apply
	# applies the series to the linux-source trees)
	dist="apt-get install -y git
test/debian/build-debs.sh --make-orig /build/dist >/out/dist.log 2>&1 || { cat /out/dist.log; exit 1; }
cp /build/dist/capi-devd-$version.tar.xz /capi-devd-$version.tar.xz"
fi

# In the chroot: the build dependencies (debian/control), the two builds,
# then the new packages installed with apt (no terminal, no network).
cat >"$work/inside.sh" <<EOF
#!/bin/sh
set -e
exec >/out/inside.log 2>&1
set -x
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
mkdir -p /build && cd /build
tar -xzf /src.tar.gz
cd capi-devd
apt-get build-dep -y ./
$dist
test/debian/build-debs.sh --orig /capi-devd-$version.tar.xz /out/new
test/debian/build-debs.sh --orig /capi-devd-$version.tar.xz --version '$version~prev1' --build any /out/old
cd /out/new
apt-get install -y ./capi-devd_*.deb ./kernelcapi-dkms_*.deb || true
dkms status >/out/dkms-status 2>&1 || true
find /lib/modules -path '*/updates/dkms/*' -name '*.ko*' >/out/modules
for m in \$(cat /out/modules); do
	echo "\$m \$(modinfo -F vermagic "\$m") \$(modinfo -F version "\$m")"
done >/out/modinfo
{ ls /usr/src/; ls -d /usr/src/capisim-*/linux-* || true; } >/out/usr-src
gcc --version | head -n1 >/out/gcc
# the release's systemd and udev read the unit and the rules as built
# there (Type=notify-reload from systemd 253 on): their verdicts, with
# their exit status last
apt-get install -y systemd udev >/out/systemd-install.log 2>&1 || true
unit=\$(dpkg -L capi-devd | grep '/capi-devd\\.service\$' | head -n1)
rules=\$(dpkg -L capi-devd | grep '/rules\\.d/50-capi\\.rules\$' | head -n1)
{ echo "unit \$unit"; systemctl --version | head -n1; grep -E '^(Type|ExecReload)=' "\$unit" || true; } >/out/unit
r=0; systemd-analyze verify --man=no "\$unit" >/out/verify-unit 2>&1 || r=\$?
echo "exit \$r" >>/out/verify-unit
r=0; udevadm verify "\$rules" >/out/verify-rules 2>&1 || r=\$?
echo "exit \$r" >>/out/verify-rules
# a kernel of no tree (7.99: after the 7.x series the package was built
# and booted on), its headers there as a newer kernel's would be: the
# hook that its linux-image's postinst runs, what a user sees and its
# exit status
k=7.99.0-1-amd64
mkdir -p /lib/modules/\$k/build/include
r=0
/etc/kernel/postinst.d/dkms \$k >/out/no-tree 2>&1 || r=\$?
echo "exit \$r" >>/out/no-tree
rm -rf /lib/modules/\$k /var/lib/dkms/capisim/*/\$k
EOF
chmod +x "$work/inside.sh"

# What the install left running in the chroot keeps its /dev/pts busy,
# and mmdebstrap's cleanup then fails: each such process is named in the
# log and stopped.  In sid, dkms 3.2's progress loop leaves its last
# "sleep 3" behind the build it waited for.
# shellcheck disable=SC2016 # for the hook's shell
reap_hook='for p in /proc/[0-9]*; do
	[ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] || continue
	echo "chroot-debs: left running in the chroot: ${p#/proc/} $(tr "\0" " " <"$p/cmdline")"
	kill "${p#/proc/}" 2>/dev/null
done; sleep 2'
say "mmdebstrap $suite,$([ "$inside" = 0 ] || echo " make dist,") the builds and the install (log: $out/mmdebstrap.log, $out/inside.log)"
if ! mmdebstrap --variant=apt \
	--include=build-essential,dkms,linux-headers-amd64,ca-certificates \
	--customize-hook="copy-in $work/src.tar.gz $work/inside.sh /" \
	--customize-hook="upload $work/orig.tar.xz /capi-devd-$version.tar.xz" \
	--customize-hook='mkdir -p "$1/out"' \
	--customize-hook='chroot "$1" /inside.sh || true' \
	--customize-hook="$reap_hook" \
	--customize-hook="sync-out /out $out" \
	"${suite_archive_opts[@]}" \
	"$suite" /dev/null "$srcl" >"$out/mmdebstrap.log" 2>&1; then
	say "mmdebstrap of $suite failed"
	echo "$out"
	exit 1
fi
t1=$(date +%s)
{
	echo "suite=$suite"
	echo "key=$key"
	echo "version=$version"
	echo "build_seconds=$((t1 - t0))"
	echo "built=$(date -u +%FT%TZ)"
} >"$out/info"
echo "$out"
ls "$out/new/capi-devd_${version}-1_amd64.deb" "$out/new/kernelcapi-dkms_${version}-1_all.deb" \
	"$out/old/capi-devd_${version}~prev1-1_amd64.deb" >/dev/null 2>&1 || exit 1
touch "$out/.done"
# keep the two newest builds of the suite
suite_keep "$dc" "$suite"
say "ready in $((t1 - t0)) s: $out"
