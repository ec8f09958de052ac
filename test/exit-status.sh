#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every exit-2 case that capi-devd(8) lists under EXIT STATUS is run here
# and must end with status 2: the list is read from the man page, so a
# case added there without a command here fails, and the two cannot
# drift apart.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

MAN="$TESTDIR/../man/capi-devd.8"
# The bullets after ".B 2" in EXIT STATUS, one per line, without escapes.
cases() {
	awk '/^\.SH EXIT STATUS/ { s = 1; next } /^\.SH/ { s = 0 }
	     s && /^\.B 2$/ { two = 1; next }
	     s && two && /^\.RE/ { two = 0 }
	     s && two && bullet { print; bullet = 0; next }
	     s && two && /^\.IP \\\(bu/ { bullet = 1 }' "$MAN" | tr -d '\\'
}
SPEC="$FIX/devices-68.txt"
: >"$ROOT/ev"
mkdir -p "$ROOT/linked/elsewhere" "$ROOT/scan/dev" "$ROOT/scan/sys/class/tty/capi!0"
ln -s elsewhere "$ROOT/linked/dev"
mkfifo "$ROOT/scan/sys/class/tty/capi!0/uevent"
# A capi/ that only root may read, for --verify run by nobody.
mkdir -p "$ROOT/unread/dev/capi" "$ROOT/unread/sys"
chmod 0755 "$ROOT" "$ROOT/unread" "$ROOT/unread/dev"
chmod 0700 "$ROOT/unread/dev/capi"
need setpriv util-linux
long=$(printf "%04096d" 0)
run() {	# run CASE: the command of one case, its stderr to $LOG
	case $1 in
	"an unknown option") "$CAPI_DEVD" --no-such-option ;;
	"a value an option does not take") "$CAPI_DEVD" --mode=9 --replay="$ROOT/ev" ;;
	"an argument that is not an option") "$CAPI_DEVD" --root="$ROOT" extra ;;
	"two of --replay, --verify, --list and --load-driver")
		"$CAPI_DEVD" --root="$ROOT" --replay="$ROOT/ev" --verify ;;
	"--replay with --source=udev")
		"$CAPI_DEVD" --root="$ROOT" --replay="$ROOT/ev" --source=udev ;;
	# Refused before any driver is looked at: nothing is loaded here.
	"--load-driver with --root") "$CAPI_DEVD" --load-driver --root="$ROOT" ;;
	"an empty --root") "$CAPI_DEVD" --root= --replay="$ROOT/ev" ;;
	"a --root too long for its paths") "$CAPI_DEVD" --root="/$long" --replay="$ROOT/ev" ;;
	"a 50-capi.rules whose group and mode cannot be used")
		mkdir -p "$ROOT/etc/udev/rules.d"
		echo 'KERNEL=="capi20", GROUP="a b", OPTIONS+="static_node=capi20"' \
			>"$ROOT/etc/udev/rules.d/50-capi.rules"
		"$CAPI_DEVD" --root="$ROOT" --replay="$ROOT/ev"
		local r=$?
		rm -r "${ROOT:?}/etc"
		return $r ;;
	"a group that does not exist")
		"$CAPI_DEVD" --root="$ROOT" --group=no-such-group-capi --replay="$ROOT/ev" ;;
	"a group ID out of range")
		"$CAPI_DEVD" --root="$ROOT" --group=4294967295 --replay="$ROOT/ev" ;;
	"a dev root that cannot be opened")
		"$CAPI_DEVD" --root="$ROOT/nowhere" --group=0 --replay="$ROOT/ev" ;;
	"a dev root that is a symlink"*)
		"$CAPI_DEVD" --root="$ROOT/linked" --group=0 --replay="$ROOT/ev" ;;
	"--verify with a devices.txt that cannot be used")
		"$CAPI_DEVD" --root="$ROOT" --group=0 --verify --devices-txt="$ROOT/nothing" ;;
	"--verify on a sysfs that cannot be scanned")
		"$CAPI_DEVD" --root="$ROOT/scan" --group=0 --verify --devices-txt="$SPEC" ;;
	"--verify on a dev tree that cannot be read")
		setpriv --reuid=65534 --regid=65534 --clear-groups -- \
			"$CAPI_DEVD" --root="$ROOT/unread" --group=0 --verify --devices-txt="$SPEC" ;;
	*) return 99 ;;
	esac
}
n=0
while IFS= read -r c; do
	n=$((n + 1))
	run "$c" >/dev/null 2>"$LOG" </dev/null
	rc=$?
	if [ $rc = 99 ]; then
		fail "exit 2 case \"$c\" of capi-devd(8) has a command in this test"
	elif [ $rc = 2 ]; then
		pass "exit 2: $c"
	else
		fail "exit 2: $c (got $rc)"
		diag <"$LOG"
	fi
done < <(cases)
check "capi-devd(8) lists the exit-2 cases ($n found)" test "$n" -ge 10
done_testing
