# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tap.sh - the TAP vocabulary of every shell test, on the host and in the
# test VM: one implementation.  The host's tests source it through
# test/lib.sh (or directly); mkinitramfs.sh copies it into the VM as
# /capi-test/tap.sh, where guest/scenario-lib.sh sources it.
#
#   pass DESC            one test that passed
#   fail DESC            one test that failed
#   check DESC CMD...    one test: passes when CMD succeeds; returns 1 when
#                        it failed, so that "check ... || diag ..." explains
#   not CMD...           succeeds when CMD fails: "check DESC not CMD..."
#   skip DESC WHY        one test that cannot run here: "ok N - DESC # SKIP WHY"
#   todo WHY             the next test is known to fail, for WHY: its "not
#                        ok" fails nothing; its "ok" (automake: XPASS) says
#                        that the todo can go
#   diag [TEXT...]       TEXT, or else stdin, as "# " lines
#   wait_for SECONDS CMD...
#                        run CMD every 0.1 s until it succeeds (0) or
#                        SECONDS pass (1).  CMD runs anew each time: a
#                        condition is a function or a command, never an
#                        expanded "$(...)" (that is evaluated once, before).
#   need CMD PACKAGE     CMD is installed: else one failed test that names
#                        the package (./install-deps.sh installs it) and
#                        the end of the test
#   plan N               announce N tests up front (else done_testing does)
#   skip_all WHY         the whole test cannot run here: "1..0 # SKIP WHY"
#   done_testing         the plan, if not announced; exit 0 when none failed
# TAP_PREFIX, when set, goes before each description: "PREFIX: DESC".

T_N=0
T_FAILED=0
T_PLANNED=0
T_TODO=""

t_line() {	# t_line ok|"not ok" DESC
	T_N=$((T_N + 1))
	echo "$1 $T_N - ${TAP_PREFIX:+$TAP_PREFIX: }$2${T_TODO:+ # TODO $T_TODO}"
	T_TODO=""
}
pass() { t_line ok "$*"; }
fail() {
	[ -n "$T_TODO" ] || T_FAILED=$((T_FAILED + 1))
	t_line "not ok" "$*"
}
check() {
	local desc=$1
	shift
	if "$@"; then
		pass "$desc"
	else
		fail "$desc"
		return 1
	fi
}
not() { ! "$@"; }
skip() { t_line ok "$1 # SKIP $2"; }
todo() { T_TODO=$1; }
diag() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$*" | sed 's/^/# /'
	else
		sed 's/^/# /'
	fi
}
wait_for() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.1
	done
}
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	fail "$1 is installed (package $2: run ./install-deps.sh)"
	done_testing
}
plan() { T_PLANNED=$1; echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() {
	[ "$T_PLANNED" != 0 ] || echo "1..$T_N"
	[ "$T_FAILED" = 0 ]
	exit
}
