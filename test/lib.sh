# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - the replay tests' fake root: a temporary root with dev/, sys/
# and proc/devices, capi-devd run against it, and checks on the tree it
# made.  The TAP verbs are test/tap.sh's.
# Sourced by test/*.sh; CAPI_DEVD and TESTDIR come from the Makefile.

set -u
: "${CAPI_DEVD:?run through make check, or set CAPI_DEVD}"
: "${TESTDIR:=$(cd "$(dirname "$0")" && pwd)}"
# shellcheck disable=SC2034 # for the tests that source this file
FIX="$TESTDIR/fixtures"
# shellcheck source=test/tap.sh
. "$TESTDIR/tap.sh"

# Nodes are made with mknod, which needs CAP_MKNOD: a root-only test.
[ "$(id -u)" = 0 ] || skip_all "these tests make device nodes (mknod): run make check as root"

ROOT=$(mktemp -d "${TMPDIR:-/tmp}/capi-devd-test.XXXXXX")
# Only the test's own shell removes it: a subshell that a signal ends runs
# the EXIT trap too (bash), and a stray kill (a pid reused on a busy
# machine) once took a running test's root away that way.
trap '[ "$BASHPID" != "$$" ] || rm -rf "$ROOT"' EXIT
# A signal that ends the test says so in its log, with what ran it: a root
# that vanished mid-test (once, under a sanitizer run's load) left no
# trace of who ended what.
for sig in TERM INT HUP; do
	# shellcheck disable=SC2064 # the signal's name, now
	trap "diag 'lib.sh: SIG$sig: the test stops here'; ps -o pid,ppid,args -p \$PPID,\$\$ | diag; exit 1" $sig
done
mkdir -p "$ROOT/dev" "$ROOT/sys" "$ROOT/proc"
# The root's /proc/devices names the CAPI tty driver's major: 240 for the
# modern driver ("capi!"), 241 for the pre-fix one ("capi").  A test that
# needs another writes its own with proc_devices.
proc_devices() {	# proc_devices [MAJOR NAME]...
	{
		printf 'Character devices:\n  1 mem\n  4 tty\n 68 capi20\n'
		while [ $# -ge 2 ]; do printf '%3d %s\n' "$1" "$2"; shift 2; done
		printf '\nBlock devices:\n  8 sd\n'
	} >"$ROOT/proc/devices"
}
proc_devices 240 'capi!' 241 capi
GID=4242		# any group will do; numeric, so no /etc/group entry
LOG="$ROOT/log"

# Run capi-devd against $ROOT; stderr goes to $LOG.
DEVD=("$CAPI_DEVD" --root="$ROOT" --group="$GID" --mode=0660)
devd() { "${DEVD[@]}" "$@" 2>"$LOG"; }
replay() { devd --replay="$1"; }
# Start the daemon in the background; its pid goes to $pid.
# shellcheck disable=SC2034 # for the tests that source this file
devd_bg() { "${DEVD[@]}" "$@" 2>"$LOG" & pid=$!; }
# A fresh, empty dev/ (and sys/) in the root.
fresh_dev() { rm -rf "${ROOT:?}/dev" && mkdir -p "$ROOT/dev" "$@"; }
fresh_sys() { rm -rf "${ROOT:?}/dev" "${ROOT:?}/sys" && mkdir -p "$ROOT/dev" "$ROOT/sys" "$@"; }

# A device in the root's sysfs: sysdev CLASS SYSNAME MAJOR MINOR DEVNAME
sysdev() {
	mkdir -p "$ROOT/sys/class/$1/$2"
	printf 'MAJOR=%s\nMINOR=%s\nDEVNAME=%s\n' "$3" "$4" "$5" >"$ROOT/sys/class/$1/$2/uevent"
}
# One replay record from KEY=VALUE words: rec PROPS...
rec() { printf '%s\n' "$@"; echo; }

# Events written on the fly: ev ACTION DEVNAME MAJOR MINOR
ev() {
	local action=$1 name=$2 maj=$3 min=$4 subsys=tty sysname
	case $name in capi20|capi) subsys=capi ;; esac
	sysname=$(printf '%s' "$name" | tr / !)
	printf 'KERNEL[1.0] %s /devices/virtual/%s/%s (%s)\n' "$action" "$subsys" "$sysname" "$subsys"
	printf 'ACTION=%s\nDEVPATH=/devices/virtual/%s/%s\nSUBSYSTEM=%s\n' "$action" "$subsys" "$sysname" "$subsys"
	printf 'MAJOR=%s\nMINOR=%s\nDEVNAME=%s\nSEQNUM=1\n\n' "$maj" "$min" "$name"
}

# The tree as "type mode gid path [-> target]" lines, sorted.
tree() {
	(cd "$ROOT/dev" && find . -mindepth 1 ! -name '.#*' -printf '%y %m %G %P %l\n' | sort -k4)
}

# Checks; each is one TAP line.
is_link() {	# is_link NAME TARGET
	local got
	got=$(readlink "$ROOT/dev/$1" 2>/dev/null)
	if [ -L "$ROOT/dev/$1" ] && [ "$got" = "$2" ]; then
		pass "/dev/$1 -> $2"
	else
		fail "/dev/$1 -> $2 (got '${got:-nothing}')"
	fi
}
is_node() {	# is_node NAME MAJOR MINOR
	local got
	got=$(stat -c '%F %t:%T %a %g' "$ROOT/dev/$1" 2>/dev/null)
	local want
	want=$(printf 'character special file %x:%x 660 %s' "$2" "$3" "$GID")
	if [ "$got" = "$want" ]; then
		pass "/dev/$1 is char $2:$3, group $GID, mode 0660"
	else
		fail "/dev/$1 is char $2:$3, group $GID, mode 0660 (got '${got:-nothing}')"
	fi
}
is_dir() {
	if [ -d "$ROOT/dev/$1" ] && [ ! -L "$ROOT/dev/$1" ]; then pass "/dev/$1 is a directory"
	else fail "/dev/$1 is a directory"; fi
}
absent() {
	if [ ! -e "$ROOT/dev/$1" ] && [ ! -L "$ROOT/dev/$1" ]; then pass "/dev/$1 is absent"
	else fail "/dev/$1 is absent (found $(stat -c %F "$ROOT/dev/$1"))"; fi
}
# Every symlink under dev resolves.
no_dangling() {
	local d
	d=$(cd "$ROOT/dev" && find . -xtype l)
	if [ -z "$d" ]; then pass "nothing dangles"
	else fail "nothing dangles: $(echo "$d" | tr '\n' ' ')"; fi
}
same_tree() {	# same_tree FILE-WITH-EXPECTED-TREE DESCRIPTION
	local got
	got=$(tree)
	if [ "$got" = "$(cat "$1")" ]; then pass "$2"
	else fail "$2"; diff -u "$1" - <<<"$got" | diag; fi
}
log_has() {	# log_has REGEX DESCRIPTION
	if grep -Eq -- "$1" "$LOG"; then pass "$2"
	else fail "$2"; diag <"$LOG"; fi
}
