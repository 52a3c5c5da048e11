#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/test.sh [--from-patches] [--full]
#:
#: Run every test of the project, from a fresh Debian 12 machine: install
#: the packages it needs (and check that every external command the
#: scripts and the kselftest make target run comes from one of them, and
#: that the archive is read from the system's apt configuration in each of
#: its forms), fetch the base kernel, apply the series, run the
#: per-patch checks (headers, checkpatch, export, git am/quilt, bisect
#: builds with W=1 and sparse, kernel-doc), check the static key in the
#: built scheduler object, build the touched documentation with Sphinx,
#: run the kselftests in x86_64 and arm64 QEMU guests with the test
#: cpufreq driver in each of its configurations and with the real
#: acpi-cpufreq driver (and on the base kernel, where none may pass, at
#: the machinery patches, likewise, and on this host, where they must
#: skip), run the stress test in a guest, run the KUnit suite (at the
#: boot of both guests, at every prefix of the series, with the profile
#: as the boot default under acpi-cpufreq; a 32-bit x86 build with W=1
#: and -Werror), the 6.12 backport's per-patch checks (applied, each
#: prefix's objects built with W=1 and sparse), and the README's main
#: command, scripts/main.sh --reps 1, in a pristine minimal Debian 12 root
#: (scripts/check-pristine-root.sh). Work that shares no kernel worktree
#: with the rest (the arm64 guest kernel's build, the documentation, the
#: 6.12 and i386 checks, the pristine root) runs beside it. The last lines are the time
#: of each stage and "N passed, N failed"; the exit status is non-zero if
#: anything failed.
#:
#:   --from-patches  recreate the series branch from patches/ first (what
#:                   CI tests); without it, the branch in the cached tree is
#:                   checked against patches/ and must match
#:   --full          also the slower checks CI leaves out (see
#:                   docs/harness.md): kunit.py's own kernels (x86_64,
#:                   i386, arm64, the variants, the profile as the Kconfig
#:                   default), every arm64 configuration, the debug-kernel
#:                   stress run, the whole application matrix (7.3, 7.2,
#:                   6.12 built and booted) and the 7.2 and 6.12 per-patch
#:                   checks on full builds
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
	SPB_FROM_PATCHES=1
	export SPB_BRANCH SPB_FROM_PATCHES
fi

SPB_RESULTS=$(mktemp "${TMPDIR:-/tmp}/spb-results.XXXXXX")
export SPB_RESULTS
start=$(date +%s)
S=$SPB_ROOT/scripts

# How long each stage took, printed one line each at the end.
SPB_TIMINGS=$(mktemp "${TMPDIR:-/tmp}/spb-timings.XXXXXX")

# A stage is one check unless it reports checks of its own; one that fails
# without reporting a failed check counts as one failed check.
stage() {
	local name=$1 before t0 rc=0
	shift
	t0=$(date +%s)
	log "[$((t0 - start))s] ${lane:+$lane: }$name"
	before=$(wc -l <"$SPB_RESULTS")
	"$@" || rc=$?
	printf '%5ds  %s%s\n' "$(($(date +%s) - t0))" "${lane:+($lane) }" "$name" >>"$SPB_TIMINGS"
	if [ $rc != 0 ]; then
		grep -q '^FAIL' <(tail -n +$((before + 1)) "$SPB_RESULTS") || fail "$name"
		return 1
	fi
	[ "$(wc -l <"$SPB_RESULTS")" != "$before" ] || pass "$name"
}

# A lane: FUNCTION's stages run in the background, beside the main ones,
# for work that shares no kernel worktree with them (the two cores are
# then both busy while the main stages boot guests or check one object at
# a time). Its output and results are kept apart until lane_join.
lane="" lane_pid="" lane_out="" lane_results=""
lane_start() {
	local name=$1 fn=$2
	lane_out=$(mktemp "${TMPDIR:-/tmp}/spb-lane.XXXXXX")
	lane_results=$(mktemp "${TMPDIR:-/tmp}/spb-lane-results.XXXXXX")
	log "[$(($(date +%s) - start))s] starting the $name lane beside the rest (its output comes at the end)"
	(lane=$name SPB_RESULTS=$lane_results; export SPB_RESULTS; "$fn") >"$lane_out" 2>&1 &
	lane_pid=$!
}
lane_join() {
	[ -n "$lane_pid" ] || return 0
	log "[$(($(date +%s) - start))s] waiting for the lane beside"
	wait "$lane_pid" || true
	echo "---- the lane beside, as it ran ----"
	cat "$lane_out"
	echo "---- end of the lane beside ----"
	cat "$lane_results" >>"$SPB_RESULTS"
	rm -f "$lane_out" "$lane_results"
	lane_pid=""
}

# Every external command is installed by the project: the scripts', the
# guest scripts' and the kselftest install target's (scripts/check-commands.py).
commands_check() {
	local tree src rc=0
	tree=$(resolve_tree)
	src=$(mktemp -d "${TMPDIR:-/tmp}/spb-commands.XXXXXX")
	git -C "$tree" archive "$SPB_BRANCH" tools scripts Makefile | tar -x -C "$src"
	"$S/check-commands.py" --kselftest-tree "$src" || rc=$?
	rm -rf "$src"
	return $rc
}

# Run shellcheck on the kselftests' shell files at the series tip, as the POSIX
# sh that busybox runs them with: no finding, except where a directive in
# the file names it and a comment says why.
shellcheck_kselftests() {
	local tree src rc=0
	tree=$(resolve_tree)
	src=$(mktemp -d "${TMPDIR:-/tmp}/spb-shellcheck.XXXXXX")
	git -C "$tree" archive "$SPB_BRANCH" tools/testing/selftests/cpufreq \
		tools/testing/selftests/kselftest | tar -x -C "$src"
	(cd "$src/tools/testing/selftests/cpufreq" &&
		shellcheck -s sh -x schedutil_*.sh) || rc=$?
	rm -rf "$src"
	return $rc
}

# The installed kselftests, run on this host: without a cpufreq policy
# each must print a KTAP skip and exit 4 (with one, this check is skipped:
# it would change the host's governors).
host_skips() {
	local d=$SPB_CACHE/vm-test/payload-x86_64/kselftest/cpufreq t rc out
	set -- /sys/devices/system/cpu/cpufreq/policy*
	if [ -e "$1" ]; then
		note "this host has cpufreq policies: not running the kselftests on it"
		return 0
	fi
	for t in schedutil_tunables.sh schedutil_response.sh; do
		[ -x "$d/$t" ] || { warn "$d/$t not built"; return 1; }
		set +e
		out=$("$d/$t" 2>&1)
		rc=$?
		set -e
		if [ $rc = 4 ] && echo "$out" | grep -q '^1\.\.0 # SKIP'; then
			pass "host: $t: $(echo "$out" | grep '^1\.\.0 # SKIP'), exit 4"
		else
			echo "$out" | sed 's/^/      /'
			fail "host: $t: exit $rc, expected a KTAP skip and exit 4"
		fi
	done
}

# The kselftests on the kernel at the last patch before the first tunable
# (the machinery patches, which must change no behaviour): as on the base.
machinery_prefix() {
	local tree base c first=""
	tree=$(resolve_tree)
	base=$(tree_base "$tree")
	for c in $(git -C "$tree" rev-list --reverse "$base..$SPB_BRANCH"); do
		if has_tunables "$tree" "$c"; then
			first=$c
			break
		fi
	done
	[ -n "$first" ] || { warn "no patch of $SPB_BRANCH adds the iowait_boost tunable"; return 1; }
	if [ "$(git -C "$tree" rev-parse "$first^")" = "$(git -C "$tree" rev-parse "$base")" ]; then
		note "the series has no patch before its first tunable"
		return 0
	fi
	"$S/vm-test.sh" --rev "$first^" --configs fast
}

# The lane beside the main stages: nothing here uses the 7.3 tree's
# x86_64 guest worktree, which the main stages walk (the documentation
# builds in worktrees of its own). The arm64 kernel comes first: the main
# stages need it once the x86_64 guests have run.
beside() {
	stage "build the arm64 guest kernel (for the arm64 kselftests)" \
		"$S/build-kernel.sh" --config arm64-guest >/dev/null || true
	stage "documentation: Sphinx build of the touched pages, no new warning" "$S/check-docs.sh" || true
	stage "the 6.12 backport: fetched, applies with git am and quilt" \
		"$S/matrix.sh" --targets 6.12:applies || true
	stage "per-patch checks of the 6.12 backport (each prefix's objects with W=1 and sparse)" \
		env KERNEL_SRC="$SPB_CACHE/src/linux-6.12" "$S/check-series.sh" --objects-only || true
	stage "KUnit suite and governor on i386 (32-bit longs): built with W=1 and -Werror" \
		"$S/kunit.sh" --compile-i386 || true
	stage "pristine Debian 12 root: the main job, scripts/main.sh --reps 1" \
		"$S/check-pristine-root.sh" || true
}

ok=1
stage "install packages" "$S/install-deps.sh" || ok=0
stage "the Debian archive from the system's apt configuration (deb822, classic, none)" \
	"$S/check-apt-sources.sh" || true
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
	lane_start beside beside
	stage "external commands: each from a package install-deps.sh installs" commands_check || true
	stage "per-patch checks" "$S/check-series.sh" || true
	stage "shellcheck: the schedutil kselftests, no unexplained finding" shellcheck_kselftests || true
	stage "static key in the update paths" "$S/check-static-key.sh" || true
	stage "kselftests in QEMU, x86_64 and arm64 (and KUnit at both guests' boot)" \
		"$S/vm-test.sh" --arch all || true
	stage "kselftests on this host without cpufreq: KTAP skip, exit 4" host_skips || true
	stage "stress: hostile tunable writes, governor switches, hotplug, reloads" \
		"$S/vm-stress.sh" --seconds 45 || true
	stage "KUnit with the profile as the boot default (acpi-cpufreq policies hold the key)" \
		"$S/kunit.sh" --boot-default || true
	stage "kselftests on the base kernel: none passes" "$S/vm-test.sh" --rev base --configs fast || true
	stage "kselftests at the machinery patches (no tunable yet): as on the base" machinery_prefix || true
	stage "KUnit at every prefix from its patch" "$S/kunit.sh" --prefixes || true
	lane_join
	if [ $full = 1 ]; then
		stage "KUnit on x86_64 with kunit.py's own configuration" "$S/kunit.sh" --arch x86_64 || true
		stage "KUnit on i386 (32-bit longs), booted" "$S/kunit.sh" --arch i386 || true
		stage "KUnit on arm64 with kunit.py's own configuration" "$S/kunit.sh" --arch arm64 || true
		stage "KUnit with the profile as the boot default through its Kconfig option" \
			"$S/kunit.sh" --boot-default-kconfig || true
		stage "KUnit with NO_HZ_IDLE, uclamp and jump labels" "$S/kunit.sh" --arch x86_64 --variants || true
		stage "kselftests in the arm64 guest, every configuration" "$S/vm-test.sh" --arch arm64 \
			--configs fast,fast-shared,slow,slow-shared,perf,perf-shared,fast-gov-per-policy,fast-cap,fast-boost,fast-cppc,perf-hwp,perf-amd,perf-amd-guided,fast-menu,fast-teo,slow-shared-menu || true
		stage "stress under lockdep, KASAN, UBSAN, KFENCE and debug objects" \
			"$S/vm-stress.sh" --config x86_64-debug --seconds 120 || true
		stage "application matrix: 7.3, 7.2 (applies, builds), 6.12, all seven configurations" \
			"$S/matrix.sh" || true
		stage "per-patch checks of the 6.12 backport on its full guest build" \
			env KERNEL_SRC="$SPB_CACHE/src/linux-6.12" "$S/check-series.sh" || true
		stage "per-patch checks of the 7.2 backport" \
			env KERNEL_SRC="$SPB_CACHE/src/linux-7.2" "$S/check-series.sh" || true
	fi
fi
lane_join

passed=$(grep -c '^PASS' "$SPB_RESULTS" || true)
failed=$(grep -c '^FAIL' "$SPB_RESULTS" || true)
log "done in $(( $(date +%s) - start ))s"
echo "Stage timings (seconds; a lane's stages ran beside the others):"
sed 's/^/  /' "$SPB_TIMINGS"
echo "  $(( $(date +%s) - start ))s in all"
if [ "$failed" != 0 ]; then
	echo "Failed checks:"
	sed -n 's/^FAIL /  /p' "$SPB_RESULTS"
fi
rm -f "$SPB_RESULTS" "$SPB_TIMINGS"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
