#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/check-apt-sources.sh
#:
#: Check that debian_archive (scripts/lib.sh), which the scripts' private
#: apt configurations take their archive from, reads the system's apt
#: configuration in each of its forms: deb822 .sources files, a classic
#: sources.list, .list files in sources.list.d; that it passes over
#: repositories that are not Debian's and disabled entries; and that it
#: fails with a message saying what to do when no Debian archive is
#: configured. Each case uses a throw-away APT_CONFIG; the system's apt is
#: only read, never changed. One PASS/FAIL line per case.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case ${1:-} in -h|--help) usage_from "$0"; exit 0 ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/spb-apt-sources.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# case NAME EXPECTED_MAIN EXPECTED_SECURITY: the files in $tmp/NAME/etc
# are the configuration; "die" means the lookup must fail with a message.
case_check() {
	local name=$1 want_main=$2 want_sec=$3 dir=$tmp/$1 kind want got rc
	mkdir -p "$dir/etc/sources.list.d" "$dir/lists"
	[ -f "$dir/etc/sources.list" ] || : >"$dir/etc/sources.list"
	cat >"$dir/apt.conf" <<EOF
Dir::Etc::sourcelist "$dir/etc/sources.list";
Dir::Etc::sourceparts "$dir/etc/sources.list.d";
Dir::State::Lists "$dir/lists";
EOF
	for kind in main security; do
		want=$want_main
		[ $kind = main ] || want=$want_sec
		set +e
		got=$(APT_CONFIG=$dir/apt.conf bash -c '. "$1/scripts/lib.sh"; debian_archive "$2"' _ "$SPB_ROOT" "$kind" 2>"$dir/err")
		rc=$?
		set -e
		if [ "$want" = die ]; then
			if [ $rc != 0 ] && grep -q "no Debian.*archive in the system's apt configuration" "$dir/err"; then
				pass "apt sources, $name: no $kind archive: '$(sed 's/^ERROR: //' "$dir/err" | cut -c1-60)...'"
			else
				fail "apt sources, $name: expected a failure for the $kind archive, got exit $rc and '$got'"
			fi
		elif [ $rc = 0 ] && [ "$got" = "$want" ]; then
			pass "apt sources, $name: $kind archive $got"
		else
			fail "apt sources, $name: $kind archive: expected $want, got '$got' (exit $rc: $(cat "$dir/err"))"
		fi
	done
}

# The host's form since Debian 12's images: deb822, with a foreign
# repository first and a disabled Debian entry that must not be taken.
mkdir -p "$tmp/deb822/etc/sources.list.d"
cat >"$tmp/deb822/etc/sources.list.d/00vendor.sources" <<'EOF'
Types: deb
URIs: http://vendor.invalid/node
Suites: nodistro
Components: main
EOF
cat >"$tmp/deb822/etc/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://old-mirror.invalid/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb deb-src
URIs: http://mirror.invalid/debian/
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://mirror.invalid/debian-security
Suites: bookworm-security
Components: main
EOF
case_check deb822 http://mirror.invalid/debian http://mirror.invalid/debian-security

# What mmdebstrap and older installs write: one classic sources.list,
# here through an apt proxy's URL form.
mkdir -p "$tmp/classic/etc"
cat >"$tmp/classic/etc/sources.list" <<'EOF'
# comment
deb [arch=amd64] http://proxy.invalid:3142/debian bookworm main contrib
deb http://proxy.invalid:3142/debian-security bookworm-security main
EOF
case_check classic http://proxy.invalid:3142/debian http://proxy.invalid:3142/debian-security

# A .list file in sources.list.d and no security archive.
mkdir -p "$tmp/list-d/etc/sources.list.d"
echo 'deb http://mirror.invalid/debian trixie main' >"$tmp/list-d/etc/sources.list.d/debian.list"
case_check list-d http://mirror.invalid/debian die

# Nothing but a foreign repository.
mkdir -p "$tmp/none/etc"
echo 'deb http://vendor.invalid/apt cloud-sdk main' >"$tmp/none/etc/sources.list"
case_check none die die

[ "$SPB_FAILED" = 0 ] || { warn "$SPB_FAILED check(s) failed"; exit 1; }
