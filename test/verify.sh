#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# capi-devd --verify against devices.txt: the 68 char block of the
# kernel's (test/fixtures/devices-68.txt; the VM checks the whole real
# file), and one of our own to test "..." ranges.
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

SPEC="$FIX/devices-68.txt"

verify() { "${DEVD[@]}" --devices-txt="$SPEC" --verify >"$ROOT/out" 2>&1; }
out_has() { grep -q -- "$1" "$ROOT/out"; }		# out_has REGEX
exit_says() { [ "$rc" = "$1" ] && out_has "$2"; }	# exit_says STATUS REGEX

sysdev capi capi20 68 0 capi20
{ ev add capi20 68 0; for n in 0 7 19 24; do sysdev tty "capi!$n" 240 $n capi/$n; ev add capi/$n 240 $n; done; } | devd --replay=-
verify
rc=$?
check "a tree made by capi-devd verifies (exit $rc)" exit_says 0 "^verify: OK" || diag <"$ROOT/out"

rm "$ROOT/dev/capi20.07"
ln -s capi/8 "$ROOT/dev/capi20.19.bak"	# not a name of ours: reported too
ln -sfn capi/0 "$ROOT/dev/capi20.24"
chmod 0666 "$ROOT/dev/capi20"
ln -s capi/30 "$ROOT/dev/capi20.30"
verify
rc=$?
check "deviations: exit 1 (got $rc)" test $rc = 1
check "a missing devices.txt name is reported" \
	out_has "^DEVIATION: $ROOT/dev/capi20.07: No such file or directory" || diag <"$ROOT/out"
check "a link to the wrong tty is reported" \
	out_has "^DEVIATION: $ROOT/dev/capi20.24: resolves to char 240:0, not char 240:24"
check "a wrong mode is reported" out_has "^DEVIATION: $ROOT/dev/capi20: mode 0666, not 0660"
check "a name of a gone unit is reported" out_has "^DEVIATION: $ROOT/dev/capi20.30: exists, but no tty 30 is live"
check "each deviation counted once" out_has "^verify: 5 deviation(s)" || diag <"$ROOT/out"

# capi/ a symlink to a directory with the right nodes: --verify does not
# read through it, and says so.
rm -rf "${ROOT:?}/sys/class/tty/capi!"* && fresh_dev
sysdev tty 'capi!3' 240 3 capi/3
{ ev add capi20 68 0; ev add capi/3 240 3; } | devd --replay=-
mv "$ROOT/dev/capi" "$ROOT/dev/capi.real" && ln -s capi.real "$ROOT/dev/capi"
verify
rc=$?
check "capi/ a symlink: exit 1 (got $rc)" test $rc = 1 || diag <"$ROOT/out"
check "... reported as a symlink" \
	out_has "^DEVIATION: $ROOT/dev/capi: a symlink, not the directory capi-devd(8) makes" ||
	diag <"$ROOT/out"
check "... the one deviation (the names resolve through it)" out_has "^verify: 1 deviation(s)"

# Our own spec with a range, checked against the parse.
cat >"$ROOT/spec.txt" <<'SPEC'
 67 char	Something else
		  0 = /dev/other

 68 char	CAPI-like test block
		  0 = /dev/capi20	Control
		  1 = /dev/capi20.00	First
		    ...
		  9 = /dev/capi20.08	Ninth

SPEC
rm -rf "${ROOT:?}/sys/class/tty/capi!"* && fresh_dev
sysdev tty 'capi!3' 240 3 capi/3
{ ev add capi20 68 0; ev add capi/3 240 3; } | devd --replay=-
SPEC="$ROOT/spec.txt" check "a spec with a short range verifies" verify || diag <"$ROOT/out"
sed -i 's|capi20.08|capi20-08|' "$ROOT/spec.txt"
SPEC="$ROOT/spec.txt" verify
rc=$?
check "an unparsable range: exit 2 with the reason (got $rc)" \
	exit_says 2 'cannot expand a "..." range' || diag <"$ROOT/out"
SPEC="$ROOT/none.txt" verify
rc=$?
check "a missing devices.txt: exit 2, says what to pass (got $rc)" \
	exit_says 2 "pass --devices-txt"

# --- issue 42 ---------------------------------------------------------
# Break 9: a devices.txt that never ends or never opens: exit 2, at once.
need timeout coreutils
mkfifo "$ROOT/fifo"
for spec in /dev/zero "$ROOT/fifo"; do
	SPEC=$spec timeout 10 "${DEVD[@]}" --devices-txt="$spec" --verify >"$ROOT/out" 2>&1
	rc=$?
	check "--devices-txt=$spec: exit 2, not a hang (got $rc)" \
		exit_says 2 "not a regular file" || diag <"$ROOT/out"
done

# Break 8: the pre-fix control device live, capi/ not a directory.
rm -rf "${ROOT:?}/sys/class/"* && fresh_dev
sysdev capi capi 68 0 capi
ev add capi 68 0 | devd --replay=-
verify
rc=$?
check "pre-fix control device, names made: verifies (exit $rc)" exit_says 0 "^verify: OK" || diag <"$ROOT/out"
rmdir "$ROOT/dev/capi"
mknod -m 0660 "$ROOT/dev/capi" c 68 0
verify
rc=$?
check "... /dev/capi still the unmoved 68:0 node: exit 1 (got $rc)" \
	exit_says 1 "^DEVIATION: $ROOT/dev/capi: a character device, expected a directory" || diag <"$ROOT/out"
rm "$ROOT/dev/capi"
echo x >"$ROOT/dev/capi"
verify
rc=$?
check "... /dev/capi a regular file: exit 1 (got $rc)" \
	exit_says 1 "^DEVIATION: $ROOT/dev/capi: a regular file, expected a directory" || diag <"$ROOT/out"

# Break 1: an ACL on a node is a deviation.
need setfacl acl
rm -rf "${ROOT:?}/sys/class/"* && fresh_dev
sysdev capi capi20 68 0 capi20
sysdev tty 'capi!3' 240 3 capi/3
{ ev add capi20 68 0; ev add capi/3 240 3; } | devd --replay=-
setfacl -m u:nobody:rw "$ROOT/dev/capi/3"
verify
rc=$?
check "an ACL on capi/3: exit 1 (got $rc)" \
	exit_says 1 "^DEVIATION: $ROOT/dev/capi/3: has an ACL" || diag <"$ROOT/out"
setfacl -b "$ROOT/dev/capi/3"

# Break 10: an ordinary user who cannot read capi/ cannot compare it: a
# stale capi/5 there is not "OK", it is exit 2, with the name.
need setpriv util-linux
mknod -m 0660 "$ROOT/dev/capi/5" c 240 5
chmod 0755 "$ROOT"
chmod 0700 "$ROOT/dev/capi"
setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	"${DEVD[@]}" --devices-txt="$SPEC" --verify >"$ROOT/out" 2>&1
rc=$?
check "capi/ unreadable to the user: exit 2, not OK (got $rc)" \
	exit_says 2 "cannot compare $ROOT/dev/capi: Permission denied" || diag <"$ROOT/out"
check "... and no OK is printed" not out_has "^verify: OK"
chmod 0755 "$ROOT/dev/capi"

done_testing
