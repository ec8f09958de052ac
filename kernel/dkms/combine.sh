#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/dkms/combine.sh - one DKMS source for several kernel trees
#
# Usage: kernel/dkms/combine.sh [--version VERSION] OUTDIR TREEDIR...
#
#   Each TREEDIR is what kernel/dkms/mksrc.sh wrote for one tree
#   (LINUX_SOURCE_PKG=linux-source-6.1, linux-source-6.12, and --tree 7):
#   drivers/isdn/capi with the series of that tree, for the kernels of that
#   tree only (7: 6.12's, with the headers and compat.h that the kernels
#   after mainline's removal of CAPI need).  The
#   CAPI code differs between trees (6.12's tty and class interfaces), so a
#   6.1 kernel needs 6.1's source and a 6.12 kernel 6.12's; capisim.c and
#   capisim-compat.h are kernel/capisim/'s in every tree, the same files.
#   OUTDIR gets
#     OUTDIR/linux-V/        each tree, as mksrc.sh wrote it (V: 6.1, 6.12,
#                            7), for the kernels V.*
#     OUTDIR/select-tree.sh  DKMS's PRE_BUILD: copies linux-V/ of the kernel
#                            being built for to the top of DKMS's build
#                            directory (a copy; the source stays as it is)
#     OUTDIR/dkms.conf       BUILD_EXCLUSIVE_KERNEL: the kernels of every
#                            tree; PACKAGE_VERSION: VERSION
#   and prints the version.  VERSION is the package's (debian/rules: the
#   upstream version, as dh_dkms's #MODULE_VERSION#); without --version,
#   the trees' versions joined with "+", so that a change of any tree's
#   series is a new DKMS version (a build by hand, test/dkms-suites.sh).
#   Each tree keeps its own version (linux-source's and a hash of its
#   series, kernel/dkms/mksrc.sh) as kernelcapi.ko's modinfo version.
set -euo pipefail
export LC_ALL=C
die() { echo "kernel/dkms/combine.sh: error: $*" >&2; exit 1; }

pkgversion=
if [ "${1:-}" = --version ]; then
	pkgversion=${2:?--version VERSION}
	shift 2
	case $pkgversion in *[!A-Za-z0-9.+~]*|"") die "--version $pkgversion: not a version" ;; esac
fi
[ $# -ge 2 ] || die "usage: kernel/dkms/combine.sh [--version VERSION] OUTDIR TREEDIR..."
out=$1
shift
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
	die "$out exists and is not empty"
fi
mkdir -p "$out"
versions=() kernels=() series=()
for t in "$@"; do
	[ -f "$t/dkms.conf" ] || die "$t has no dkms.conf (not made by kernel/dkms/mksrc.sh)"
	v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$t/dkms.conf")
	k=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\^\(.*\)"$/\1/p' "$t/dkms.conf")
	s=$(sed -n 's/^tree //p' "$t/PROVENANCE" 2>/dev/null)	# 6.1, 6.12, 7
	[ -n "$v" ] && [ -n "$k" ] && [ -n "$s" ] || die "$t/dkms.conf: no version, kernels or tree"
	case " ${series[*]} " in *" $s "*) die "tree $s given twice" ;; esac
	mkdir "$out/linux-$s"
	cp -a "$t/." "$out/linux-$s/"
	rm "$out/linux-$s/dkms.conf"
	versions+=("$v") kernels+=("$k") series+=("$s")
done
version=${pkgversion:-$(IFS=+; echo "${versions[*]}")}
alt=$(IFS='|'; echo "${kernels[*]}")

cat >"$out/select-tree.sh" <<'EOF'
#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS's PRE_BUILD (written by capi-devd's kernel/dkms/combine.sh): put the
# CAPI source of the kernel's tree at the top of the build directory.
set -eu
kernelver=${1:?kernel version}
cd "$(dirname "$0")"
for d in linux-*/; do
	d=${d%/}
	case $kernelver in
	"${d#linux-}".*)
		cp -a "$d/." .
		echo "capisim: building the source of linux-source-${d#linux-} for $kernelver"
		exit 0
		;;
	esac
done
echo "capisim: no source for kernel $kernelver (trees: $(echo linux-*))" >&2
exit 1
EOF
chmod 0755 "$out/select-tree.sh"

cat >"$out/dkms.conf" <<EOF
# SPDX-License-Identifier: GPL-2.0
# dkms.conf - capisim and the fixed kernelcapi (drivers/isdn/capi with the
# capi-devd kernel series), for the kernels of the trees ${series[*]}; each
# kernel is built from its own tree's source (select-tree.sh).
# Made by kernel/dkms/combine.sh.  The trees' own versions (modinfo
# kernelcapi): $(IFS=' '; echo "${versions[*]}").
PACKAGE_NAME="capisim"
PACKAGE_VERSION="$version"
PRE_BUILD="select-tree.sh \${kernelver}"
BUILT_MODULE_NAME[0]="kernelcapi"
DEST_MODULE_LOCATION[0]="/updates/dkms"
BUILT_MODULE_NAME[1]="capisim"
DEST_MODULE_LOCATION[1]="/updates/dkms"
BUILD_EXCLUSIVE_KERNEL="^($alt)"
AUTOINSTALL="yes"
EOF
echo "$version"
