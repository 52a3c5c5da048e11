#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/test.sh [--from-patches] [--full]
#:
#: Run every test of the project, from a fresh Debian 12 machine: install
#: the packages it needs, fetch the base kernel, apply the series, run the
#: per-patch checks (headers, checkpatch, export, git am/quilt, bisect
#: builds with W=1 and sparse, kernel-doc), check the static key in the
#: built scheduler object, run the kselftests in QEMU with the test
#: cpufreq driver in each of its configurations, and run the KUnit suite on
#: x86_64 and arm64. The last line is
#: "N passed, N failed"; the exit status is non-zero if anything failed.
#:
#:   --from-patches  recreate the series branch from patches/ first (what
#:                   CI tests); without it, the branch in the cached tree is
#:                   checked against patches/ and must match
#:   --full          also the slower checks CI leaves out (see README.md)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

from_patches=0 full=0
while [ $# -gt 0 ]; do
	case $1 in
	--from-patches) from_patches=1; shift ;;
	--full) full=1; shift ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

# CI tests patches/ as committed, on a branch of its own so that a
# developer's branch in the same cache is never overwritten.
if [ $from_patches = 1 ]; then
	SPB_BRANCH=${SPB_BRANCH_FROM_PATCHES:-schedutil-perf-bias-from-patches}
	export SPB_BRANCH
fi

SPB_RESULTS=$(mktemp "${TMPDIR:-/tmp}/spb-results.XXXXXX")
export SPB_RESULTS
start=$(date +%s)
S=$SPB_ROOT/scripts

# A stage is one check unless it reports checks of its own; one that fails
# without reporting a failed check counts as one failed check.
stage() {
	local name=$1 before
	shift
	log "[$(( $(date +%s) - start ))s] $name"
	before=$(wc -l <"$SPB_RESULTS")
	if ! "$@"; then
		grep -q '^FAIL' <(tail -n +$((before + 1)) "$SPB_RESULTS") || fail "$name"
		return 1
	fi
	[ "$(wc -l <"$SPB_RESULTS")" != "$before" ] || pass "$name"
}

ok=1
stage "install packages" "$S/install-deps.sh" || ok=0
if [ $ok = 1 ]; then
	stage "fetch the base kernel" "$S/fetch-kernel.sh" --quiet >/dev/null || ok=0
fi
if [ $ok = 1 ]; then
	if [ $from_patches = 1 ]; then
		stage "apply the series" "$S/apply.sh" --force || ok=0
	else
		stage "apply the series" "$S/apply.sh" || ok=0
	fi
fi
if [ $ok = 1 ]; then
	stage "build the series tip" "$S/build-kernel.sh" >/dev/null || ok=0
fi
if [ $ok = 1 ]; then
	stage "per-patch checks" "$S/check-series.sh" || true
	stage "static key in the update paths" "$S/check-static-key.sh" || true
	stage "kselftests in QEMU" "$S/vm-test.sh" || true
	stage "KUnit on x86_64 and arm64" "$S/kunit.sh" --arch all || true
	stage "KUnit at every prefix from its patch" "$S/kunit.sh" --prefixes || true
	if [ $full = 1 ]; then
		stage "KUnit with NO_HZ_IDLE, uclamp and jump labels" "$S/kunit.sh" --arch x86_64 --variants || true
	fi
fi

passed=$(grep -c '^PASS' "$SPB_RESULTS" || true)
failed=$(grep -c '^FAIL' "$SPB_RESULTS" || true)
log "done in $(( $(date +%s) - start ))s"
if [ "$failed" != 0 ]; then
	echo "Failed checks:"
	sed -n 's/^FAIL /  /p' "$SPB_RESULTS"
fi
rm -f "$SPB_RESULTS"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
