#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/get-sparse.sh
#:
#: Print the path of a sparse that the kernel's scripts/checker-valid.sh
#: accepts. Debian 12's sparse 0.6.4 lacks __typeof_unqual__, so with it
#: kbuild silently turns C=1 off for Linux 7.x. The system's sparse is used
#: if it is new enough; otherwise sparse is built once from the source
#: package of Debian sid (a private apt configuration, in the cache) and
#: kept in $SPB_CACHE/tools.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case ${1:-} in -h|--help) usage_from "$0"; exit 0 ;; esac

valid() {
	local t f
	t=$(mktemp --suffix=.c)
	printf 'static inline int u(const int *q)\n{\n\t__typeof_unqual__(*q) v = *q;\n\treturn v;\n}\n' >"$t"
	f=$("$1" -m64 "$t" 2>&1 | grep -c error || true)
	rm -f "$t"
	[ "$f" = 0 ]
}

sys=$(command -v sparse || true)
if [ -n "$sys" ] && valid "$sys"; then
	echo "$sys"
	exit 0
fi
bin=$SPB_CACHE/tools/sparse/sparse
# One build at a time: scripts/test.sh checks two trees side by side.
mkdir -p "$SPB_CACHE/tools"
exec 9>"$SPB_CACHE/tools/sparse.lock"
flock 9
if [ -x "$bin" ] && valid "$bin"; then
	echo "$bin"
	exit 0
fi

log "building sparse from Debian sid's source package (once)"
aptdir=$SPB_CACHE/apt-sid-src
mkdir -p "$aptdir"/{lists/partial,src}
: >"$aptdir/status"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
archive=$(debian_archive)
echo "deb-src [signed-by=$keyring] $archive sid main" >"$aptdir/sources.list"
aptopts=(-o "Dir::Etc::sourcelist=$aptdir/sources.list" -o "Dir::Etc::sourceparts=-"
	-o "Dir::State::Lists=$aptdir/lists" -o "Dir::State::status=$aptdir/status"
	-o "Debug::NoLocking=1")
quiet "$aptdir/update.log" apt-get "${aptopts[@]}" update
rm -rf "$aptdir/src" && mkdir -p "$aptdir/src"
(cd "$aptdir/src" && quiet "$aptdir/source.log" apt-get "${aptopts[@]}" source --download-only sparse)
orig=$(ls "$aptdir"/src/sparse_*.orig.tar.* | head -n1)
[ -n "$orig" ] || die "no sparse source tarball downloaded (see $aptdir/source.log)"
rm -rf "$SPB_CACHE/tools/sparse"
mkdir -p "$SPB_CACHE/tools/sparse"
tar -C "$SPB_CACHE/tools/sparse" --strip-components=1 -xf "$orig"
quiet "$SPB_CACHE/tools/sparse.log" make -C "$SPB_CACHE/tools/sparse" -j"$SPB_JOBS" HAVE_LLVM=no HAVE_SQLITE=no HAVE_GTK=no HAVE_LIBXML=no sparse
valid "$bin" || die "the sparse built from sid does not pass the kernel's checker test"
log "sparse: $("$bin" --version)"
echo "$bin"
