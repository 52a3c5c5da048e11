#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/fetch-kernel.sh [--series 7.3|7.2|6.12] [--quiet]
#:
#: Fetch Debian's linux-source-<series> package into the cache with a private
#: apt configuration (the system's apt is never touched), extract it once and
#: make it a git repository whose first commit is the pristine tree, tagged
#: debian/linux-source-<series>_<package version>. Prints the tree's path.
#: A second run only checks that the tree is there and takes seconds.
#:
#:   --series S   7.3 (default, trixie-backports: the mainline base),
#:                7.2 (sid), 6.12 (bookworm-security: the LTS distro base)
#:   --refresh    ask the archive again for the newest package version
#:   --quiet      no progress lines, only the path
#:
#: Environment: SPB_CACHE (default ~/.cache/schedutil-perf-bias).
#: KERNEL_SRC is honoured by the other scripts, not by this one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=7.3 quietflag=0 refresh=0
while [ $# -gt 0 ]; do
	case $1 in
	--series) series=${2:?--series needs a value}; shift 2 ;;
	--quiet) quietflag=1; shift ;;
	--refresh) refresh=1; shift ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
suite=$(series_suite "$series") || die "unknown series '$series': use 7.3, 7.2 or 6.12"
[ $quietflag = 1 ] && log() { :; }

pkg=linux-source-$series
tree=$SPB_CACHE/src/linux-$series
if [ $refresh = 0 ] && [ -f "$tree/.spb-imported" ]; then
	log "kernel tree $tree ($(cat "$tree/.spb-imported")) already fetched"
	echo "$tree"
	exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: this script needs a Debian-based host"
for t in dpkg-deb git xz; do
	command -v $t >/dev/null || die "$t not found: install it (apt-get install dpkg git xz-utils)"
done

# Private apt configuration: our own sources list, state and cache.
aptdir=$SPB_CACHE/apt
archive=$(series_archive "$suite")
apt_private "$aptdir" "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive $suite main"
aptopts=("${APT_OPTS[@]}")

log "updating private apt lists for $suite"
quiet "$aptdir/update.log" apt-get "${aptopts[@]}" update
version=$(apt-cache "${aptopts[@]}" madison "$pkg" | awk -F'|' '{gsub(/ /,"",$2); print $2}' |
	sort -V | tail -n1)
[ -n "$version" ] || die "$pkg is not in $suite; the archive may have moved on: check 'apt-cache madison' and update series_suite in scripts/lib.sh"

tag=debian/${pkg}_$(printf '%s' "$version" | tr '~:' '_-')
if [ -f "$tree/.spb-imported" ] && [ "$(cat "$tree/.spb-imported")" = "$pkg $version" ]; then
	log "kernel tree $tree ($pkg $version) is current"
	echo "$tree"
	exit 0
fi

deb=$aptdir/debs/${pkg}_${version//:/%3a}_all.deb
if [ ! -s "$deb" ]; then
	log "downloading $pkg $version"
	(cd "$aptdir/debs" && quiet "$aptdir/download.log" apt-get "${aptopts[@]}" download "$pkg=$version")
fi
[ -s "$deb" ] || deb=$(ls -t "$aptdir"/debs/"${pkg}"_*.deb | head -n1)

stage=$SPB_CACHE/src/.stage-$series
rm -rf "$stage" "$tree"
mkdir -p "$stage"
log "extracting $(basename "$deb")"
dpkg-deb -x "$deb" "$stage/deb"
tarball=$(ls "$stage"/deb/usr/src/"$pkg".tar.* 2>/dev/null | head -n1)
[ -n "$tarball" ] || die "no /usr/src/$pkg.tar.* in $deb"
tar -C "$stage" -xf "$tarball"
mv "$stage/$pkg" "$tree"
rm -rf "$stage"

log "importing the pristine tree into git (takes a minute)"
# Fixed identity and date: the same package gives the same base commit id on
# every machine, so base-commit lines and b4 bases are reproducible.
export GIT_AUTHOR_NAME=$SPB_IMPORT_NAME GIT_COMMITTER_NAME=$SPB_IMPORT_NAME
export GIT_AUTHOR_EMAIL=$SPB_IMPORT_EMAIL GIT_COMMITTER_EMAIL=$SPB_IMPORT_EMAIL
export GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z'
git -C "$tree" init -q -b base
git -C "$tree" config core.autocrlf false
git -C "$tree" config gc.auto 0
# Debian's tarball ignores every top-level path (/*): add with -f.
git -C "$tree" add -f -A .
git -C "$tree" commit -q --no-verify -m "Import Debian $pkg $version (pristine)"
git -C "$tree" tag "$tag"
echo "$pkg $version" >"$tree/.spb-imported"
git -C "$tree" update-index -q --refresh || true
# The marker is ours, not the tree's.
echo ".spb-imported" >>"$tree/.git/info/exclude"
log "kernel tree ready: $tree ($tag)"
echo "$tree"
