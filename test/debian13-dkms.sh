#!/bin/bash
# Debian 13: the packages built in Debian 13, as its users would, and
# capisim-dkms installed there: DKMS builds kernelcapi and capisim against
# Debian 13's own headers (linux-headers-amd64, gcc-14), from the 6.12
# tree of the series.  In a trixie chroot made with mmdebstrap from the
# archive the host's apt already uses (kernel/suite.sh's private
# sources.list); nothing of trixie touches the host.  The .debs the chroot
# downloads are kept in $CACHE/suite/trixie/archives for the next run.
# Run by make check-debian13.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
need mmdebstrap mmdebstrap
need git git
top=$(cd "$TESTDIR/.." && pwd)
cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac

d=$("$top/kernel/suite.sh" trixie linux 6.12 | tail -n1) ||
	{ fail "kernel/suite.sh trixie linux 6.12 fetches Debian 13's kernel"; done_testing; }
srcl="$cache/apt/trixie/sources.list"
[ -s "$srcl" ] || { fail "kernel/suite.sh wrote $srcl"; done_testing; }
abi=$(cat "$d/abi")
diag "Debian 13 kernel $abi ($(cat "$d/version")), sources: $srcl"
archives="$cache/suite/trixie/archives"
mkdir -p "$archives"
# the kernel packages kernel/suite.sh fetched already
cp -n "$d"/debs/*.deb "$archives/" 2>/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/capi-d13.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/out"
# the checkout as it is (tracked and new files), not the build output
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -co --exclude-standard -z |
		tar --null -T - -czf "$work/src.tar.gz" --transform 's,^,capi-devd/,')
else
	tar -C "$(dirname "$top")" -czf "$work/src.tar.gz" --exclude='build*' \
		--transform "s,^$(basename "$top"),capi-devd," "$(basename "$top")"
fi

# In the chroot: the build dependencies (debian/control), the packages,
# then capisim-dkms installed with apt, whose postinst has DKMS build.
cat >"$work/inside.sh" <<'EOF'
#!/bin/sh
set -e
exec >/out/inside.log 2>&1
set -x
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
mkdir -p /build && cd /build
tar -xzf /src.tar.gz
cd capi-devd
apt-get build-dep -y ./
dpkg-buildpackage -us -uc -b
cd ..
ls -l ./*.deb
cp ./*.deb /out/
apt-get install -y ./capi-devd_*.deb ./capisim-dkms_*.deb || true
dkms status >/out/dkms-status 2>&1 || true
find /lib/modules -path '*/updates/dkms/*' -name '*.ko*' >/out/modules
for m in $(cat /out/modules); do
	echo "$m $(modinfo -F vermagic "$m") $(modinfo -F version "$m")"
done >/out/modinfo
ls /usr/src/ >/out/usr-src
gcc --version | head -n1 >/out/gcc
EOF
chmod +x "$work/inside.sh"

log="$work/mmdebstrap.log"
if mmdebstrap --variant=apt --skip=essential/unlink \
	--include=build-essential,dkms,linux-headers-amd64,ca-certificates \
	--setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
	--setup-hook="sync-in $archives /var/cache/apt/archives/" \
	--customize-hook="copy-in $work/src.tar.gz $work/inside.sh /" \
	--customize-hook='mkdir -p "$1/out"' \
	--customize-hook='chroot "$1" /inside.sh || true' \
	--customize-hook="sync-out /out $work/out" \
	--customize-hook="sync-out /var/cache/apt/archives $archives" \
	trixie /dev/null "$srcl" >"$log" 2>&1; then
	pass "mmdebstrap: a Debian 13 chroot with build-essential, dkms and linux-headers-amd64"
else
	fail "mmdebstrap: a Debian 13 chroot with build-essential, dkms and linux-headers-amd64"
	tail -n 30 "$log" | diag
	done_testing
fi
o="$work/out"
diag "in the chroot: $(cat "$o/gcc" 2>/dev/null)"
debs_built() { ls "$o"/capi-devd_*.deb "$o"/capisim-dkms_*.deb; }
if check "dpkg-buildpackage in Debian 13 builds capi-devd and capisim-dkms" debs_built; then
	for f in "$o"/*.deb; do diag "$(basename "$f")"; done
else
	{ grep -E '(^|: )(error|E):' "$o/inside.log" | head -n 20; tail -n 20 "$o/inside.log"; } | diag
fi
check "capisim-dkms built there carries the 6.12 tree" \
	grep -q 'capisim-6\.12\.' "$o/usr-src"
diag "dkms status: $(cat "$o/dkms-status" 2>/dev/null)"
for m in kernelcapi capisim; do
	if ! check "DKMS built and installed $m.ko for $abi" grep -q "^/lib/modules/$abi/updates/dkms/$m\.ko" "$o/modinfo"; then
		grep -E 'dkms|DKMS|error|Error' "$o/inside.log" | tail -n 30 | diag
	fi
	check "$m.ko's vermagic is Debian 13's kernel ($abi)" \
		grep -q "/$m\.ko[^ ]* $abi " "$o/modinfo"
done
check "kernelcapi.ko's version is the 6.12 tree's (6.12.*-capi.*)" \
	grep -Eq '/kernelcapi\.ko[^ ]* .* 6\.12\.[0-9]+-capi\.' "$o/modinfo"
cat "$o/modinfo" | diag
done_testing
