#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/check-pristine-root.sh [--keep] [--reps N]
#:
#: Prove that the README's main command works on a machine that has
#: nothing but a minimal Debian 12: build a minbase Debian 12 root with
#: mmdebstrap (once; cached as a tarball keyed by what determines its
#: package list), unpack a fresh copy, put a fresh clone of this
#: repository's HEAD in it, and run 'scripts/main.sh --reps N' (default 1)
#: there in a chroot with /proc, /sys and /dev (so /dev/kvm if present).
#: Nothing installed on this host is visible inside. Only caches are
#: shared, by bind mounts: ccache, the downloaded kernel source package,
#: and the .debs that apt downloads inside.
#:
#: The root's apt reaches the Debian archive the way this host's does: its
#: classic sources.list (what mmdebstrap writes) names the archive and
#: security archive of this host's apt configuration (deb822 or classic),
#: and the host's apt.conf files that set Acquire:: options (proxies,
#: release validity) are copied in. No archive host is named here.
#:
#: One PASS line, or a FAIL line naming the step of main.sh that failed
#: and the tail of its log ($SPB_CACHE/pristine/main.log). Needs root.
#:
#:   --keep    leave the unpacked root in $SPB_CACHE/pristine/root
#:   --reps N  runs per measurement in the main job (default 1)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

keep=0 reps=1
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1; shift ;;
	--reps) reps=${2:?--reps needs a number}; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ "$(id -u)" = 0 ] || die "the pristine-root check needs root (chroot and mounts)"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found: run scripts/install-deps.sh"

suite=bookworm
dir=$SPB_CACHE/pristine
root=$dir/root
mkdir -p "$dir/archives/partial"

# The root's sources: this host's Debian archive (and its security
# archive, if it has one) for Debian 12.
main_archive=$(debian_archive)
sources=("deb $main_archive $suite main" "deb $main_archive $suite-updates main")
if sec=$(debian_archive security 2>/dev/null); then
	sources+=("deb $sec $suite-security main")
fi
aptopts=()
for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
	[ -f "$f" ] && grep -q 'Acquire' "$f" && aptopts+=("--aptopt=$f")
done

key=$( { mmdebstrap --version; echo "$suite minbase"; printf '%s\n' "${sources[@]}"
	for f in "${aptopts[@]}"; do cat "${f#--aptopt=}"; done; } | sha1sum | cut -c1-12)
tarball=$dir/$suite-minbase-$key.tar

mounts_in_root() {
	awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts
}
# Unmount everything below the root, deepest first and lazily, so that a
# busy mount cannot keep the rest; die if anything is left, since the
# root is then removed and a bind mount (ccache, the host's /dev) would be
# removed through it.
unmount_root() {
	local m
	mounts_in_root | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
	[ -z "$(mounts_in_root)" ] ||
		die "still mounted below $root: $(mounts_in_root | paste -sd' '); unmount them before removing it"
}
cleanup() {
	unmount_root
	[ "$keep" = 1 ] || rm -rf "$root"
}

if [ ! -s "$tarball" ]; then
	log "building a minimal Debian 12 root with mmdebstrap (about a minute, once)"
	rm -f "$dir"/$suite-minbase-*.tar "$dir"/$suite-minbase-*.packages
	rm -rf "$dir/partial.tar"
	# mmdebstrap picks its output format from the name: keep .tar.
	quiet "$dir/mmdebstrap.log" mmdebstrap --variant=minbase "${aptopts[@]}" \
		"$suite" "$dir/partial.tar" "${sources[@]}"
	mv "$dir/partial.tar" "$tarball"
	tar -xOf "$tarball" ./var/lib/dpkg/status | sed -n 's/^Package: //p' | sort >"${tarball%.tar}.packages"
fi
log "unpacking a fresh Debian 12 root ($(wc -l <"${tarball%.tar}.packages") packages, $(basename "$tarball"))"
unmount_root
rm -rf "$root"
mkdir -p "$root"
trap cleanup EXIT
tar -C "$root" -xf "$tarball"
# mmdebstrap leaves the name service to the host's files at run time.
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
grep -q '^deb ' "$root/etc/apt/sources.list" ||
	die "the root has no classic sources.list: mmdebstrap changed its output"

commit=$(git -C "$SPB_ROOT" rev-parse HEAD)
[ -z "$(git -C "$SPB_ROOT" status --porcelain --untracked-files=no)" ] ||
	warn "uncommitted changes in $SPB_ROOT are not tested: the root gets a clone of HEAD ($(git -C "$SPB_ROOT" log -1 --format=%h))"
git clone -q --no-local --no-checkout "$SPB_ROOT" "$root/root/src"
git -C "$root/root/src" checkout -q --detach "$commit"

# Caches only: compiler results, the kernel source package, apt's .debs.
inner=$root/root/.cache/schedutil-perf-bias
mkdir -p "$inner/ccache" "$inner/apt/debs" "$SPB_CACHE/ccache" "$SPB_CACHE/apt/debs"
mount --bind "$SPB_CACHE/ccache" "$inner/ccache"
mount --bind "$SPB_CACHE/apt/debs" "$inner/apt/debs"
mount --bind "$dir/archives" "$root/var/cache/apt/archives"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"

in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "$1"
}

# The scripts' archive lookup reads the root's classic sources.list.
got=$(in_root '. /root/src/scripts/lib.sh; debian_archive; debian_archive security || true')
if [ "$got" != "$(printf '%s\n' "$main_archive" "${sec:-}" | sed '/^$/d')" ]; then
	fail "pristine root: the scripts read '$got' from the root's classic sources.list, expected $main_archive ${sec:-}"
	exit 1
fi
note "the root's classic sources.list gives the scripts the host's archives: $(echo "$got" | paste -sd' ')"

logf=$dir/main.log
log "running scripts/main.sh --reps $reps at $(git -C "$SPB_ROOT" log -1 --format=%h) in the root (log: $logf)"
start=$(date +%s)
set +e
in_root "cd /root/src && scripts/main.sh --reps $reps" 2>&1 | tee "$logf" |
	sed -u -n 's/^==> \(step .*\)/    root: \1/p' >&2
rc=${PIPESTATUS[0]}
set -e
took=$(( $(date +%s) - start ))
if [ "$rc" = 0 ] && grep -q '^PASS  response table' "$logf"; then
	pass "pristine Debian 12 root: scripts/main.sh --reps $reps installed what it needs and printed the table (${took}s)"
	exit 0
fi
step=$(sed -n 's/^==> \(step [0-9]*\/[0-9]*: .*\)/\1/p' "$logf" | tail -n 1)
tail -n 30 "$logf" | sed 's/^/      /'
fail "pristine Debian 12 root: scripts/main.sh failed at ${step:-its start} (exit $rc after ${took}s; log: $logf)"
exit 1
