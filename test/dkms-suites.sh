#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/dkms-suites.sh - kernelcapi-dkms's module source (kernelcapi with the
# series and capisim: kernel/dkms/mksrc.sh for the 6.1 and 6.12 trees and
# --tree 7, joined by kernel/dkms/combine.sh, as debian/rules makes it)
# built with W=1 against the kernel headers of each row of the table
# below, in a chroot of that release (mmdebstrap; its own gcc, the one its
# headers name), the tree picked by the package's select-tree.sh as DKMS
# would.  Each row fails on a build error, on a warning, when a module is
# missing or has another kernel's vermagic, or when the archive's headers
# are no longer of the kernel series the row names (then the row is due
# for a look).  It prints the headers' package version, the compiler and
# the build time.  Nothing of those releases touches the host: the apt
# sources are kernel/suite.sh's private ones.  Run by make check-dkms;
# CAPI_DKMS_SUITES="sid trixie-backports" runs those rows only.
set -u
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"
top=$(cd "$TESTDIR/.." && pwd)
need mmdebstrap mmdebstrap
need git git
# shellcheck source=test/debian/suite-lib.sh
. "$top/test/debian/suite-lib.sh"
suite_cache

# One row a build: the suite whose headers are installed (a
# SUITE-backports row is a chroot of SUITE, apt-get -t SUITE-backports),
# the headers package, and
# the kernel series its version must start with.
dkms_table() {
	cat <<'EOF'
bookworm            linux-headers-amd64  6.1.
bookworm-backports  linux-headers-amd64  6.12.
trixie              linux-headers-amd64  6.12.
trixie-backports    linux-headers-amd64  7.3.
sid                 linux-headers-amd64  7.2.
EOF
}

# The W=1 warnings of mainline's own code, which our series does not
# touch: "FILE FLAG", one a line.  Any other warning fails the row.
#   capiutil.c  bufprint(), a printf-like helper without a format
#               attribute, unchanged since before 6.1
known_warnings() {
	cat <<'EOF'
capiutil.c -Wsuggest-attribute=format
EOF
}
# new_warnings LOG: the warnings of LOG that known_warnings does not list
new_warnings() {
	grep 'warning:' "$1" | while IFS= read -r w; do
		f=${w%%:*}
		f=${f##*/} flag=$(sed -n 's/.*\[\(-W[^]]*\)\]$/\1/p' <<<"$w")
		known_warnings | grep -qxF "$f $flag" || echo "$w"
	done
}

work=$(mktemp -d "${TMPDIR:-/tmp}/capi-dkms-suites.XXXXXX")
trap '[ "$BASHPID" != "$$" ] || rm -rf "$work"' EXIT

# The module source, as debian/rules makes it for kernelcapi-dkms.
t0=$(date +%s)
trees=()
for t in 6.1 6.12 7; do
	case $t in
	7) args=(--tree 7) pkg=linux-source-6.12 ;;
	*) args=() pkg=linux-source-$t ;;
	esac
	if ! LINUX_SOURCE_PKG=$pkg "$top/kernel/dkms/mksrc.sh" "${args[@]}" "$work/tree-$t" >"$work/mksrc-$t.log" 2>&1; then
		fail "kernel/dkms/mksrc.sh makes the tree $t"
		diag <"$work/mksrc-$t.log"
		done_testing
	fi
	trees+=("$work/tree-$t")
done
if ! "$top/kernel/dkms/combine.sh" "$work/src" "${trees[@]}" >"$work/combine.log" 2>&1; then
	fail "kernel/dkms/combine.sh joins the trees 6.1, 6.12 and 7"
	diag <"$work/combine.log"
	done_testing
fi
pass "kernel/dkms/combine.sh joins the trees 6.1, 6.12 and 7"
check "the source has linux-6.1/, linux-6.12/ and linux-7/ with its headers" \
	test -f "$work/src/linux-6.1/kcapi.c" -a -f "$work/src/linux-6.12/kcapi.c" \
	-a -f "$work/src/linux-7/compat.h" -a -f "$work/src/linux-7/include/uapi/linux/capi.h"
diag "kernelcapi-dkms $(tail -n1 "$work/combine.log"): $(( $(date +%s) - t0 )) s"
tar -C "$work/src" -czf "$work/src.tar.gz" .

# In the chroot: the kernel the headers are for, the tree select-tree.sh
# picks for it, the build, what the compiler and the modules say.
cat >"$work/inside.sh" <<'EOF'
#!/bin/sh
set -e
exec >/out/inside.log 2>&1
export LC_ALL=C.UTF-8
pkg=$1
dep=$(dpkg-query -W -f '${Depends}' "$pkg" | tr ',' '\n' | sed -n 's/^ *linux-headers-\([0-9][^ ]*\).*/\1/p' | head -n1)
[ -n "$dep" ] || dep=${pkg#linux-headers-}
echo "$dep" >/out/kver
dpkg-query -W -f '${Version}' "linux-headers-$dep" >/out/hdrver
mkdir /build
tar -xzf /src.tar.gz -C /build
cd /build
./select-tree.sh "$dep" >/out/select.log 2>&1
t0=$(date +%s)
set +e
make -C "/usr/src/linux-headers-$dep" M=/build W=1 modules >/out/build.log 2>&1
echo $? >/out/status
echo $(( $(date +%s) - t0 )) >/out/seconds
cc=$(sed -n '1s/^[^=]*:= *\([^ ]*\) .*/\1/p' /build/.kcapi.o.cmd)
echo "$cc: $($cc --version | head -n1)" >/out/cc
for m in kernelcapi capisim; do
	echo "$m $(modinfo -F vermagic "/build/$m.ko")"
done >/out/vermagic
EOF
chmod +x "$work/inside.sh"

rows=$(dkms_table)
if [ -n "${CAPI_DKMS_SUITES:-}" ]; then
	rows=$(awk -v want=" $CAPI_DKMS_SUITES " 'index(want, " " $1 " ")' <<<"$rows")
	[ -n "$rows" ] || { fail "CAPI_DKMS_SUITES ($CAPI_DKMS_SUITES) names a row of the table"; done_testing; }
fi
while read -r suite hdr series; do
	TAP_PREFIX="$suite $hdr"
	base=${suite%-backports}
	# SUITE's candidate (its -security or -updates when newer), or
	# backports' for a SUITE-backports row
	tsuite=""
	[ "$base" = "$suite" ] || tsuite="-t $suite"
	out="$work/out-$suite"
	mkdir -p "$out"
	if ! "$top/kernel/suite.sh" "$suite" apt-cache policy >/dev/null 2>"$out/suite.log"; then
		fail "kernel/suite.sh sets up the apt sources of $suite"
		diag <"$out/suite.log"
		continue
	fi
	suite_archive "$base"
	t0=$(date +%s)
	mmdebstrap --variant=apt \
		--include=build-essential,kmod \
		--customize-hook="chroot \"\$1\" apt-get install -y --no-install-recommends $tsuite $hdr" \
		--customize-hook="copy-in $work/src.tar.gz $work/inside.sh /" \
		--customize-hook='mkdir -p "$1/out"' \
		--customize-hook="chroot \"\$1\" /inside.sh $hdr || true" \
		--customize-hook="sync-out /out $out" \
		"${suite_archive_opts[@]}" \
		"$base" /dev/null "$cache/apt/$suite/sources.list" </dev/null >"$out/mmdebstrap.log" 2>&1
	r=$?
	if ! check "mmdebstrap: a $base chroot with build-essential and $hdr from $suite" test -s "$out/kver"; then
		diag "mmdebstrap exit $r"
		tail -n 30 "$out/mmdebstrap.log" | diag
		[ -f "$out/inside.log" ] && tail -n 20 "$out/inside.log" | diag
		continue
	fi
	kver=$(cat "$out/kver")
	diag "headers linux-headers-$kver $(cat "$out/hdrver"); $(cat "$out/cc" 2>/dev/null); build $(cat "$out/seconds" 2>/dev/null) s, chroot and build $(( $(date +%s) - t0 )) s"
	check "the headers are of kernel $series* ($kver)" test "${kver#"$series"}" != "$kver"
	check "select-tree.sh picks a tree for $kver" grep -q '^capisim: building' "$out/select.log" ||
		diag <"$out/select.log"
	diag "$(cat "$out/select.log")"
	if ! check "make M= W=1 modules succeeds" grep -qx 0 "$out/status"; then
		grep -E 'error|Error' "$out/build.log" | head -n 30 | diag
	fi
	new_warnings "$out/build.log" >"$out/new-warnings"
	if ! check "no compiler warning (W=1) but mainline's own" not test -s "$out/new-warnings"; then
		diag <"$out/new-warnings"
	fi
	diag "warnings: $(grep -c 'warning:' "$out/build.log") ($(wc -l <"$out/new-warnings") new)"
	grep 'warning:' "$out/build.log" | sort | uniq -c | diag
	for m in kernelcapi capisim; do
		check "$m.ko's vermagic is $kver's" grep -q "^$m $kver " "$out/vermagic"
	done
done <<<"$rows"
TAP_PREFIX=""
done_testing
