# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test/debian/suite-lib.sh - Debian releases by name: the one reader of the
# host's apt sources, and what every chroot and image build shares.
# Sourced by kernel/suite.sh, kernel/stock.sh, test/debian/mkimage.sh,
# test/debian/chroot-debs.sh and test/debian/piuparts.sh.  Nothing here
# changes the host's apt state or installs anything on the host.
#
# The releases: one line each.  Adding a release is a line in this table.
#   codename  the suite name (SUITE-backports works for every release
#             whose pockets include backports)
#   libcapi20 the name of libcapi20's run-time package there
#   linux     the linux-source-SERIES whose packages kernel/suite.sh fetches
#             for a chroot's DKMS tree ("-": none chosen)
#   pockets   the archives besides SUITE itself, as the host's sources name
#             them for the host's release (SUITE-updates, SUITE-security),
#             plus backports; "-": none (sid has neither)
suite_table() {
	cat <<'EOF'
bookworm  libcapi20-3     6.1   updates,security,backports
trixie    libcapi20-3t64  6.12  updates,security,backports
sid       libcapi20-3t64  -     -
EOF
}

SUITE_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# suite_field SUITE libcapi20|linux|pockets: SUITE's column of the table
# (SUITE-backports: SUITE's); fails for a release that is not in it.
suite_field() {
	local col
	case $2 in libcapi20) col=2 ;; linux) col=3 ;; pockets) col=4 ;; *) return 2 ;; esac
	suite_table | awk -v s="${1%-backports}" -v c=$col '$1 == s { print $c; found = 1 } END { exit !found }'
}

# suite_known SUITE: SUITE is a release of the table (or its -backports).
suite_known() {
	case $1 in
	*-backports) suite_field "$1" pockets | grep -q backports ;;
	*-*|"") return 1 ;;
	*) suite_field "$1" pockets >/dev/null ;;
	esac
}

# suite_host_archives: the host's Debian archives as apt sees them
# (apt-get indextargets reads every sources format): "URI RELEASE
# COMPONENT" a line.  The only place that reads the host's sources.
suite_host_archives() {
	apt-get indextargets 'Identifier: Packages' --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' | sort -u
}

# suite_sources SUITE: one-line apt sources for SUITE: each of the host's
# archives of its own release (VERSION_CODENAME of /etc/os-release; sid
# on a host whose sources name sid), the
# codename replaced by SUITE's (bookworm -> trixie, bookworm-updates ->
# trixie-updates, bookworm-security -> trixie-security), only the pockets
# SUITE has; for SUITE-backports, SUITE's and SUITE-backports from the
# URI of the host's release itself.  Signed by Debian's archive keyring.
suite_sources() {
	local suite=$1 base=${1%-backports} bp="" host pockets
	[ "$base" = "$suite" ] || bp=1
	host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	# sid's os-release names the release to come; its sources say sid
	suite_host_archives | awk '{ print $2 }' | grep -qx sid && host=sid
	[ -n "$host" ] || { echo "no VERSION_CODENAME in /etc/os-release" >&2; return 1; }
	pockets=$(suite_field "$suite" pockets) || { echo "$suite is not in the table of test/debian/suite-lib.sh" >&2; return 1; }
	suite_host_archives | awk -v host="$host" -v base="$base" -v bp="$bp" \
		-v pockets=",$pockets," -v key="$SUITE_KEYRING" '
		index($2, host) == 1 {
			rest = substr($2, length(host) + 1)
			if (rest != "" && index(pockets, "," substr(rest, 2) ",") == 0) next
			print "deb [signed-by=" key "] " $1 " " base rest " " $3
			if (bp && rest == "") print "deb [signed-by=" key "] " $1 " " base "-backports " $3
		}' | sort -u
}

# suite_uri SUITE [POCKET]: the archive URI of SUITE (or SUITE-POCKET) in
# suite_sources SUITE, without the trailing slash; empty when none.
suite_uri() {
	local r=$1
	[ -z "${2:-}" ] || r=${1%-backports}-$2
	suite_sources "$1" | awk -v r="$r" '$4 == r { sub("/$", "", $3); print $3; exit }'
}

# suite_cache: sets cache, the absolute cache root (CAPI_DEVD_CACHE, as
# kernel/build.sh).
suite_cache() {
	cache=${CAPI_DEVD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-devd}
	case "$cache" in /*) ;; *) cache="$PWD/$cache" ;; esac
}

# suite_lists SUITE: the Release files of SUITE's apt lists (the host's,
# else kernel/suite.sh's private ones, fetched first when this cache has
# none yet), hashed: they say which versions a build gets.
suite_lists() {
	local d=/var/lib/apt/lists
	if ! compgen -G "$d/*_dists_$1*_InRelease" >/dev/null; then
		d=$cache/apt/$1/lists
		[ -f "$cache/apt/$1/.updated" ] ||
			CAPI_DEVD_CACHE=$cache "$(dirname "${BASH_SOURCE[0]}")/../../kernel/suite.sh" \
				"$1" apt-cache policy >/dev/null || return 1
	fi
	cat "$d"/*_dists_"$1"*_InRelease | sha256sum
}

# What a chroot or image build does around mmdebstrap, with the caller's
# say() and die():
# suite_need CMD...: each CMD is installed (else die, naming install-deps.sh).
suite_need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || [ -x "/sbin/$c" ] ||
			die "$c not found. Fix: ./install-deps.sh"
	done
}
# suite_lock DIR WHAT: one build at a time in DIR (fd 9, DIR/lock).
suite_lock() {
	mkdir -p "$1"
	exec 9>"$1/lock"
	if ! flock -n 9; then
		say "waiting for another $2 (lock $1/lock)"
		flock 9
	fi
}
# suite_done OUT FORCE: with FORCE 0 and OUT complete (.done), say so,
# print OUT and end the script.
suite_done() {
	if [ "$2" = 0 ] && [ -f "$1/.done" ]; then
		say "up to date: $1"
		echo "$1"
		exit 0
	fi
}
# suite_build OUT WHAT: begin OUT's build in a fresh OUT.tmp: sets tmp,
# log (tmp/build.log) and t0.  build_fail MSG then prints "WHAT: error:
# MSG" with the log's last lines and ends the script; suite_built OUT
# puts the finished OUT.tmp in OUT's place, marked complete (.done).
suite_build() {
	tmp="$1.tmp" log="$1.tmp/build.log" suite_what=$2
	# shellcheck disable=SC2034 # the caller's start time
	t0=$(date +%s)
	rm -rf "$tmp"
	mkdir -p "$tmp"
}
build_fail() {
	echo "$suite_what: error: $*" >&2
	[ -s "$log" ] && { echo "---- last lines of $log" >&2; tail -n 30 "$log" >&2; }
	exit 1
}
suite_built() {
	rm -rf "$1"
	mv "$1.tmp" "$1"
	touch "$1/.done"
}
# suite_archive SUITE: sets suite_archive_opts, the mmdebstrap options that
# give the chroot SUITE's .debs kept in $cache/suite/SUITE/archives (after
# suite_cache) and keep there what it downloads, so that a run fetches each
# .deb once for every chroot, image and base tarball of SUITE.  Put them
# after the caller's customize hooks: the last one copies the archives out
# (essential/unlink skipped: the essential .debs stay there till then;
# mmdebstrap's cleanup empties the chroot's archives after it).  The copy
# out holds $cache/suite/SUITE/archives.lock and adds only the .debs the
# archive lacks, each by a rename: builds of SUITE side by side (the
# image, piuparts' base, a chroot build) never see half a .deb.  The copy
# in reads a snapshot (hard links, taken under the same lock): tar fails
# on a directory that another build adds to while it reads it ("file
# changed as we read it"), and mmdebstrap's next hook then failed too
# (seen: two builds of trixie side by side).  The snapshot goes right
# after the copy in; one left by a build that died is removed after two
# hours.
# mmdebstrap's apt reads none of the host's apt.conf: a disabled
# Valid-Until there (a frozen mirror, whose sid and -security Release
# files expire) is carried over too.
suite_archive() {
	local d="$cache/suite/$1" a="$cache/suite/$1/archives" snap
	mkdir -p "$a"
	find "$d" -maxdepth 1 -name 'snapshot.*' -mmin +120 -exec rm -rf {} + 2>/dev/null || true
	snap=$(mktemp -d "$d/snapshot.XXXXXX") &&
		flock "$d/archives.lock" cp -al "$a/." "$snap/" || return 1
	# shellcheck disable=SC2016,SC2034
	suite_archive_opts=(--skip=essential/unlink
		--setup-hook='mkdir -p "$1"/var/cache/apt/archives/'
		--setup-hook="sync-in $snap /var/cache/apt/archives/"
		--setup-hook="rm -rf '$snap'"
		--customize-hook="flock '$d/archives.lock' sh -c 'cd \"\$1\"/var/cache/apt/archives || exit 1
			for f in *.deb; do
				[ -f \"\$f\" ] && [ ! -e \"\$2/archives/\$f\" ] || continue
				cp \"\$f\" \"\$2/.\$f.tmp\" && mv \"\$2/.\$f.tmp\" \"\$2/archives/\$f\" || exit 1
			done' sync-out \"\$1\" '$d'")
	if apt-config dump Acquire::Check-Valid-Until | grep -q '"false"'; then
		suite_archive_opts+=(--aptopt='Acquire::Check-Valid-Until "false"')
	fi
}
# suite_keep DIR PREFIX: keep the two newest DIR/PREFIX-KEY/ (KEY: 16 hex
# digits, so that trixie's keep leaves trixie-backports' images alone).
suite_keep() {
	ls -1dt "$1/$2"-????????????????/ 2>/dev/null | tail -n +3 | while read -r d; do rm -rf "$d"; done
}
