#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/apply.sh [--check] [--force] [--series-dir DIR]
#:
#: Apply the series to the base kernel tree (the fetched one, or KERNEL_SRC)
#: as the branch $SPB_BRANCH (default schedutil-perf-bias), with git am. The
#: branch is where developers edit the series: commit there, then run
#: scripts/export.sh. An existing branch that differs from patches/ is kept
#: unless --force is given.
#:
#:   --check          do not touch the branch: apply with git am on a
#:                    scratch branch and with quilt push -a on a copy of the
#:                    files the series touches, and fail on any conflict,
#:                    fuzz or offset
#:   --force          recreate the branch even if it has other commits
#:   --series-dir DIR where series and patches/ live (default: chosen from
#:                    the tree's kernel version)
#:
#: Environment: KERNEL_SRC (a git kernel tree to use instead of the fetched
#: one), SPB_BASE (its base commit, default: the import tag or HEAD).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

check=0 force=0 sdir=""
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1; shift ;;
	--force) force=1; shift ;;
	--series-dir) sdir=$2; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

resolve_series require
mapfile -t patches < <(series_patches "$sdir")
[ ${#patches[@]} -gt 0 ] || die "$sdir/series lists no patches"

# git am refuses a dirty tree; say so instead of failing obscurely.
if [ -n "$(git -C "$tree" status --porcelain --untracked-files=no)" ]; then
	die "$tree has uncommitted changes: commit or stash them first"
fi

# git am onto the base, as BRANCH, or on a detached HEAD without one (the
# scratch applications: no branch of the tree's owner is touched, which
# matters with scripts/submit.sh --onto).
am() {
	local branch=${1:-} amlog
	amlog=$SPB_CACHE/$(tree_prefix "$tree")am.log
	if [ -n "$branch" ]; then
		git -C "$tree" checkout -q -B "$branch" "$base"
	else
		git -C "$tree" checkout -q --detach "$base"
	fi
	if ! git -C "$tree" -c user.name=spb -c user.email=spb@invalid am -q --no-3way \
		--committer-date-is-author-date "${patches[@]}" >"$amlog" 2>&1; then
		cat "$amlog" >&2
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		return 1
	fi
}

if [ $check = 1 ]; then
	orig=$(git -C "$tree" symbolic-ref -q --short HEAD || git -C "$tree" rev-parse HEAD)
	log "git am of ${#patches[@]} patches onto $(git -C "$tree" log -1 --format=%s "$base")"
	ok=1
	am || ok=0
	git -C "$tree" checkout -q "$orig"
	[ $ok = 1 ] || die "the series does not apply with git am to $tree (see above)"

	# quilt on a copy of the files the series touches, at the base.
	log "quilt push -a (no fuzz, no offset)"
	q=$(mktemp -d "${TMPDIR:-/tmp}/spb-quilt.XXXXXX")
	trap 'rm -rf "$q"' EXIT
	mapfile -t files < <(cat "${patches[@]}" | sed -n 's|^--- a/||p; s|^+++ b/||p' | sort -u)
	for f in "${files[@]}"; do
		if git -C "$tree" cat-file -e "$base:$f" 2>/dev/null; then
			mkdir -p "$q/$(dirname "$f")"
			git -C "$tree" show "$base:$f" >"$q/$f"
		fi
	done
	mkdir -p "$q/patches"
	cp "${patches[@]}" "$q/patches/"
	series_patches "$sdir" | xargs -n1 basename >"$q/patches/series"
	if ! (cd "$q" && QUILT_PATCHES=patches quilt push -a --fuzz=0) >"$q/quilt.log" 2>&1; then
		cat "$q/quilt.log" >&2
		die "quilt push -a fails (see above)"
	fi
	if grep -E 'offset|fuzz' "$q/quilt.log" >&2; then
		die "quilt applies with offsets or fuzz (above): regenerate the patches with scripts/export.sh"
	fi
	log "applies cleanly with git am and quilt"
	exit 0
fi

if git -C "$tree" rev-parse -q --verify "refs/heads/$SPB_BRANCH" >/dev/null && [ $force = 0 ]; then
	cur=$(git -C "$tree" rev-parse "$SPB_BRANCH")
	am || die "the series does not apply with git am (see above)"
	new=$(git -C "$tree" rev-parse HEAD)
	git -C "$tree" checkout -q "$SPB_BRANCH"
	if [ "$(git -C "$tree" rev-parse "$cur^{tree}")" = "$(git -C "$tree" rev-parse "$new^{tree}")" ] &&
	   [ "$(git -C "$tree" rev-list --count "$base..$cur")" = "${#patches[@]}" ]; then
		log "branch $SPB_BRANCH in $tree already matches the series"
		exit 0
	fi
	die "branch $SPB_BRANCH in $tree differs from the series: export it (scripts/export.sh) or recreate it (--force)"
fi
am "$SPB_BRANCH" || die "the series does not apply with git am (see above)"
log "applied ${#patches[@]} patches: branch $SPB_BRANCH in $tree"
