#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/build-kernel.sh [--tree DIR] [--rev REV] [--config NAME]
#:                               [--name NAME] [--target T]... [--w1]
#:
#: Build a kernel from the cached tree (or KERNEL_SRC) into an out-of-tree
#: build directory in the cache, with ccache. The tree is checked out at REV
#: (default: the series branch) in a worktree of its own (cache/wt/NAME), so
#: the developer's checkout is never touched; the build directory is
#: cache/wt/NAME/_build. Prints the build directory.
#:
#:   --config NAME  fragment configs/NAME.config applied on allnoconfig
#:                  (default x86_64-guest; arm64-* names cross-compile
#:                  with aarch64-linux-gnu-gcc)
#:   --rev REV      commit to build (default: the series branch $SPB_BRANCH,
#:                  or 'base' for the pristine tree)
#:   --name NAME    worktree name (default: <config>, or <config>-base)
#:   --target T     build only this make target (an object, or a directory
#:                  with a slash, e.g. kernel/sched/); repeatable. Default:
#:                  all. i386-* configs build for 32-bit x86 (ARCH=i386)
#:   --w1           build with W=1 (the extra warnings kernel developers use)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree="" rev="" config=x86_64-guest name="" targets=() extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=$2; shift 2 ;;
	--rev) rev=$2; shift 2 ;;
	--config) config=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--w1) extra+=(W=1); shift ;;
	--target) targets+=("${2:?--target needs a make target}"); shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$tree" ] || tree=$(resolve_tree)
frag=$SPB_ROOT/configs/$config.config
case $config in
arm64-*) export SPB_ARCH=arm64 ;;
i386-*) export SPB_ARCH=i386 ;;
*) export SPB_ARCH=x86_64 ;;
esac
[ -f "$frag" ] || die "no config fragment $frag"

suffix=""
if [ -z "$rev" ] || [ "$rev" = branch ]; then
	rev=$SPB_BRANCH
	git -C "$tree" rev-parse -q --verify "$rev^{commit}" >/dev/null ||
		die "branch $rev not found in $tree: run scripts/apply.sh first"
elif [ "$rev" = base ]; then
	rev=$(tree_base "$tree")
	suffix=-base
fi
commit=$(git -C "$tree" rev-parse --verify "$rev^{commit}") || die "no commit $rev in $tree"
[ -n "$name" ] || name=$config$suffix

# One build at a time in a worktree (scripts/test.sh builds beside itself).
mkdir -p "$SPB_CACHE/wt"
exec 8>"$SPB_CACHE/wt/$(tree_prefix "$tree")$name.lock"
flock 8
wt=$(worktree_for "$tree" "$name" "$commit")
out=$wt/_build
mkdir -p "$out"
kbuild_config "$wt" "$out" "$frag"
log "building $name at $(git -C "$tree" log -1 --format='%h %s' "$commit")"
if [ ${#targets[@]} -gt 0 ]; then
	kmake "$wt" "$out" "$out/build.log" -j"$SPB_JOBS" ${extra[@]+"${extra[@]}"} "${targets[@]}"
	log "built ${targets[*]} in $out"
else
	kmake "$wt" "$out" "$out/build.log" -j"$SPB_JOBS" ${extra[@]+"${extra[@]}"} all
	log "built $(kernel_image "$out")"
fi
echo "$out"
