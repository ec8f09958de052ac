#!/bin/bash
# capi-devd --verify against devices.txt: the real one from the kernel
# source, and one of our own to test "..." ranges.
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

SRC=/usr/src/linux-source-6.1.tar.xz
if [ ! -r "$SRC" ]; then
	echo "Bail out! $SRC is missing: apt-get install linux-source-6.1"
	exit 99
fi
tar -xJf "$SRC" -C "$ROOT" --strip-components=3 \
	linux-source-6.1/Documentation/admin-guide/devices.txt
SPEC="$ROOT/devices.txt"

sysdev() {
	mkdir -p "$ROOT/sys/class/$1/$2"
	printf 'MAJOR=%s\nMINOR=%s\nDEVNAME=%s\n' "$3" "$4" "$5" >"$ROOT/sys/class/$1/$2/uevent"
}
verify() { "$CAPI_DEVD" --root="$ROOT" --group="$GID" --mode=0660 --devices-txt="$SPEC" --verify >"$ROOT/out" 2>&1; }

sysdev capi capi20 68 0 capi20
{ ev add capi20 68 0; for n in 0 7 19 24; do sysdev tty "capi!$n" 240 $n capi/$n; ev add capi/$n 240 $n; done; } | devd --replay=-
verify
rc=$?
if [ $rc = 0 ] && grep -q "^verify: OK" "$ROOT/out"; then pass "a tree made by capi-devd verifies"
else fail "a tree made by capi-devd verifies (exit $rc)"; diag <"$ROOT/out"; fi

rm "$ROOT/dev/capi20.07"
ln -s capi/8 "$ROOT/dev/capi20.19.bak"	# not a name of ours: reported too
ln -sfn capi/0 "$ROOT/dev/capi20.24"
chmod 0666 "$ROOT/dev/capi20"
ln -s capi/30 "$ROOT/dev/capi20.30"
verify
rc=$?
[ $rc = 1 ] && pass "deviations: exit 1" || fail "deviations: exit 1 (got $rc)"
grep -q "^DEVIATION: $ROOT/dev/capi20.07: No such file or directory" "$ROOT/out" && pass "a missing devices.txt name is reported" || { fail "a missing devices.txt name is reported"; diag <"$ROOT/out"; }
grep -q "^DEVIATION: $ROOT/dev/capi20.24: resolves to char 240:0, not char 240:24" "$ROOT/out" && pass "a link to the wrong tty is reported" || fail "a link to the wrong tty is reported"
grep -q "^DEVIATION: $ROOT/dev/capi20: mode 0666, not 0660" "$ROOT/out" && pass "a wrong mode is reported" || fail "a wrong mode is reported"
grep -q "^DEVIATION: $ROOT/dev/capi20.30: exists, but no tty 30 is live" "$ROOT/out" && pass "a name of a gone unit is reported" || fail "a name of a gone unit is reported"
grep -q "^verify: 5 deviation(s)" "$ROOT/out" && pass "each deviation counted once" || { fail "each deviation counted once"; diag <"$ROOT/out"; }

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
rm -rf "$ROOT/dev" "$ROOT/sys/class/tty/capi!"* && mkdir "$ROOT/dev"
sysdev tty 'capi!3' 240 3 capi/3
{ ev add capi20 68 0; ev add capi/3 240 3; } | devd --replay=-
SPEC="$ROOT/spec.txt" verify && pass "a spec with a short range verifies" || { fail "a spec with a short range verifies"; diag <"$ROOT/out"; }
sed -i 's|capi20.08|capi20-08|' "$ROOT/spec.txt"
SPEC="$ROOT/spec.txt" verify
rc=$?
[ $rc = 2 ] && grep -q 'cannot expand a "..." range' "$ROOT/out" && pass "an unparsable range: exit 2 with the reason" || { fail "an unparsable range: exit 2 with the reason (got $rc)"; diag <"$ROOT/out"; }
SPEC="$ROOT/none.txt" verify
rc=$?
[ $rc = 2 ] && grep -q "pass --devices-txt" "$ROOT/out" && pass "a missing devices.txt: exit 2, says what to pass" || fail "a missing devices.txt: exit 2 (got $rc)"

done_testing
