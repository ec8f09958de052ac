#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One configuration: without --group and --mode, capi-devd takes the
# group and mode from the permissions line of 50-capi.rules (the line
# with static_node=capi20), the file udevd reads, so that a change made
# there reaches /dev/capi20, /dev/capi/N and the static node, in a replay,
# in the daemon (and again on SIGHUP) and in --verify.  /etc/udev/rules.d
# comes before /run/udev/rules.d; a mask (a symlink to /dev/null) means
# the defaults; a file that cannot be used is refused with status 2.
# See FILES in capi-devd(8).
# shellcheck source=test/lib.sh
. "${TESTDIR:-$(dirname "$0")}/lib.sh"

ETC=$ROOT/etc/udev/rules.d
RUN=$ROOT/run/udev/rules.d
mkdir -p "$ETC" "$RUN"
# rules GROUP MODE [DIR]: the shipped rules with that group and mode.
rules() {
	sed -e "s/GROUP=\"dialout\"/GROUP=\"$1\"/" -e "s/MODE=\"0660\"/MODE=\"$2\"/" \
		"$TESTDIR/../rules/50-capi.rules" >"${3:-$ETC}/50-capi.rules"
}
# bare ARGS: capi-devd on the root without --group and --mode.
bare() { "$CAPI_DEVD" --root="$ROOT" "$@" 2>"$LOG"; }
perms() { stat -c '%a %g' "$ROOT/dev/$1" 2>&1; }
check "the shipped rules have one permissions line" \
	test "$(grep -v '^#' "$TESTDIR/../rules/50-capi.rules" | grep -c 'static_node=capi20')" = 1

rules 4243 0640
{ ev add capi20 68 0; ev add capi/0 240 0; ev add capi/7 240 7; } >"$ROOT/ev"
bare --replay="$ROOT/ev"
check "replay: exit 0" test $? = 0 || diag <"$LOG"
for n in capi20 capi/0 capi/7; do
	check "replay: /dev/$n has the rules' group and mode ($(perms "$n"))" test "$(perms "$n")" = "640 4243"
done
log_has "replaying" "the replay ran"

# --verify checks against the same line: OK now, a deviation once the
# rules say another group.
sysdev capi capi20 68 0 capi20
sysdev tty 'capi!0' 240 0 capi/0
sysdev tty 'capi!7' 240 7 capi/7
bare --verify --devices-txt="$FIX/devices-68.txt" >"$ROOT/out"
check "--verify with the rules' group: OK" test $? = 0 || diag <"$LOG"
rules 4244 0640
bare --verify --devices-txt="$FIX/devices-68.txt" >"$ROOT/out"
check "--verify after the rules changed the group: status 1" test $? = 1 || diag <"$LOG"

# The daemon, without udevd: the static node too, and SIGHUP re-reads.
DEVNAME_DIR="$ROOT/lib/modules/$(uname -r)"
mkdir -p "$DEVNAME_DIR"
printf 'kernelcapi capi20 c68:0\n' >"$DEVNAME_DIR/modules.devname"
rm -rf "${ROOT:?}/dev" "$ROOT/sys/class/capi" && mkdir -p "$ROOT/dev"
mknod -m 0600 "$ROOT/dev/capi20" c 68 0
rules 4243 0640
"$CAPI_DEVD" --root="$ROOT" --source=kernel 2>"$LOG" & pid=$!
check "daemon: starts" wait_for 5 grep -q 'start: ' "$LOG" || diag <"$LOG"
log_has "group 4243, mode 0640 \($ETC/50-capi.rules\)" "daemon: the start line names the rules file"
check "daemon: the static node has the rules' group and mode ($(perms capi20))" test "$(perms capi20)" = "640 4243"
check "daemon: /dev/capi/7 has them ($(perms capi/7))" test "$(perms capi/7)" = "640 4243"
rules 4245 0600
kill -HUP $pid
check "SIGHUP: the new group is logged" wait_for 5 grep -q 'group 4245, mode 0600 now' "$LOG" || diag <"$LOG"
check "SIGHUP: the rescan ran" wait_for 5 grep -q 'SIGHUP rescan' "$LOG"
for n in capi20 capi/0 capi/7; do
	check "SIGHUP: /dev/$n has the new group and mode ($(perms "$n"))" test "$(perms "$n")" = "600 4245"
done
kill -TERM $pid
wait $pid

# Where the file is read: /etc before /run; a mask means the defaults.
rm -rf "${ROOT:?}/dev" && mkdir -p "$ROOT/dev"
rm "$ETC/50-capi.rules"
rules 4246 0640 "$RUN"
ev add capi20 68 0 | bare --replay=-
check "/run/udev/rules.d is read when /etc has none ($(perms capi20))" test "$(perms capi20)" = "640 4246"
rules 4247 0640
ev add capi20 68 0 | bare --replay=-
check "/etc/udev/rules.d comes before /run ($(perms capi20))" test "$(perms capi20)" = "640 4247"
ln -sf /dev/null "$ETC/50-capi.rules"
ev add capi20 68 0 | bare --replay=-
check "a mask in /etc: the defaults, dialout and 0660 ($(perms capi20))" \
	test "$(perms capi20)" = "660 $(getent group dialout | cut -d: -f3)"
ev add capi20 68 0 | "$CAPI_DEVD" --root="$ROOT" --group=4248 --mode=0600 --replay=- 2>"$LOG"
check "--group and --mode win over the rules ($(perms capi20))" test "$(perms capi20)" = "600 4248"

# A file that cannot be used: status 2, and why.
rm "$ETC/50-capi.rules"
refused() {	# refused DESC: the replay exits 2 and says why
	ev add capi20 68 0 | bare --replay=-
	check "$1: exit 2" test $? = 2 || diag <"$LOG"
	log_has "cannot take the group and mode from $ETC/50-capi.rules|$ETC/50-capi.rules is a symlink" \
		"$1: the log names the file"
}
rules 'a b' 0660
refused "a GROUP= that is no group name"
rules 4243 0999
refused "a MODE= that is not octal"
rules 4243 0660 "$ROOT"
rm "$ETC/50-capi.rules"
ln -s ../../../50-capi.rules "$ETC/50-capi.rules"
refused "a symlink to a file"
rm "$ETC/50-capi.rules"
mkfifo "$ETC/50-capi.rules"
refused "a FIFO"
rm "$ETC/50-capi.rules"
head -c 9000 /dev/zero | tr '\0' '#' >"$ETC/50-capi.rules"
refused "a file over 8 KiB"
rm "$ETC/50-capi.rules"
sed -e 's/GROUP="dialout"/GROUP="no-such-group-capi"/' "$TESTDIR/../rules/50-capi.rules" >"$ETC/50-capi.rules"
ev add capi20 68 0 | bare --replay=-
check "a GROUP= that does not exist: exit 2" test $? = 2
log_has "the group is the GROUP= of $ETC/50-capi.rules" "... the log names the rules file"
done_testing
