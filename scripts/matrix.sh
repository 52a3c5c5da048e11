#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/matrix.sh [--targets LIST] [--vm-configs LIST]
#:
#: The application matrix: for each target kernel, fetch Debian's source
#: package (scripts/fetch-kernel.sh), pick its series (the mainline one, or
#: backports/<version> where one exists), and check:
#:   applies     git am and quilt push -a, no fuzz, no offset
#:   builds      the x86_64 guest kernel with the series
#:   kunit       the schedutil KUnit suite, built into that kernel and run
#:               at boot in QEMU (results from debugfs)
#:   kselftests  the cpufreq kselftests in QEMU (scripts/vm-test.sh's x86_64
#:               configurations; see --vm-configs)
#: and print a table target x cell; exits non-zero if any cell fails.
#:
#:   --targets LIST  comma-separated SERIES[:CELLS] (default
#:                   7.3,7.2:applies+builds,6.12); CELLS is a +-separated
#:                   subset of applies, builds, kunit, kselftests
#:   --vm-configs L  configurations for the kselftests (default all of
#:                   vm-test.sh's x86_64 ones; scripts/test.sh runs
#:                   fast,slow-shared,perf: each driver mode once)
#:
#: The series branch in each tree is $SPB_BRANCH, made by scripts/apply.sh;
#: with SPB_FROM_PATCHES=1 (scripts/test.sh --from-patches) it is recreated
#: from the patch files.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

targets="7.3,7.2:applies+builds,6.12" vmconfigs=""
while [ $# -gt 0 ]; do
	case $1 in
	--targets) targets=${2:?--targets needs a list}; shift 2 ;;
	--vm-configs) vmconfigs=${2:?--vm-configs needs a list}; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done

S=$SPB_ROOT/scripts
declare -A cell
order=()
ALL="applies builds kunit kselftests"

# Run "$@" with its output in LOG; the last PASS/FAIL lines are shown.
run_cell() {
	local logf=$1
	shift
	if "$@" >"$logf" 2>&1; then
		return 0
	fi
	grep -E '^(FAIL|ERROR)|error:' "$logf" | tail -n 8 | sed 's/^/      /' >&2
	return 1
}

IFS=, read -r -a tlist <<<"$targets"
for t in "${tlist[@]}"; do
	series=${t%%:*} cells=$ALL
	[ "$series" != "$t" ] && cells=${t#*:} && cells=${cells//+/ }
	series_suite "$series" >/dev/null || die "unknown target '$series': use 7.3, 7.2 or 6.12"
	order+=("$series")
	for c in $ALL; do cell[$series,$c]="-"; done

	log "$series: fetching Debian's linux-source-$series"
	tree=$("$S/fetch-kernel.sh" --series "$series" --quiet) || {
		for c in $cells; do cell[$series,$c]=FAIL; done
		fail "matrix $series: fetch"
		continue
	}
	export KERNEL_SRC=$tree
	ver=$(tree_version "$tree")
	sdir=$(series_dir_for "$ver")
	pkg=$(cat "$tree/.spb-imported")
	note "$pkg; series $(realpath --relative-to="$SPB_ROOT" "$sdir")/series"
	logs=$SPB_CACHE/matrix-$series
	mkdir -p "$logs"

	for c in $cells; do
		case $c in
		applies)
			if run_cell "$logs/applies.log" "$S/apply.sh" --check; then
				cell[$series,applies]=ok
				# The branch the other cells use (an existing one that
				# differs from the series is a developer's: kept, and
				# the cell says so).
				if [ "${SPB_FROM_PATCHES:-0}" = 1 ]; then
					run_cell "$logs/branch.log" "$S/apply.sh" --force ||
						cell[$series,applies]="FAIL (branch)"
				else
					run_cell "$logs/branch.log" "$S/apply.sh" ||
						cell[$series,applies]="FAIL (branch)"
				fi
			else
				cell[$series,applies]=FAIL
			fi ;;
		builds)
			run_cell "$logs/builds.log" "$S/build-kernel.sh" &&
				cell[$series,builds]=ok || cell[$series,builds]=FAIL ;;
		kunit|kselftests)
			# One vm-test run gives both: the guest kernel runs the
			# KUnit suite at boot, then the kselftests.
			[ "${cell[$series,kselftests]}" = "-" ] && [ "${cell[$series,kunit]}" = "-" ] || continue
			if [ -n "$vmconfigs" ]; then
				nconf=$(echo "$vmconfigs" | tr ',' '\n' | grep -c .)
				run_cell "$logs/vm.log" "$S/vm-test.sh" --arch x86_64 --configs "$vmconfigs" || true
			else
				run_cell "$logs/vm.log" "$S/vm-test.sh" --arch x86_64 || true
				# vm-test.sh's own list: one boot line per configuration.
				nconf=$(grep -c '^==> booting x86_64 ([^:)]*:' "$logs/vm.log" || true)
			fi
			if grep -q '^PASS  kunit in the x86_64 guest' "$logs/vm.log"; then
				cell[$series,kunit]="ok ($(sed -n 's/^PASS  kunit in the x86_64 guest: \([0-9]*\) cases passed/\1/p' "$logs/vm.log") cases)"
			else
				cell[$series,kunit]=FAIL
			fi
			# One result line per configuration (the main.sh lines
			# are checks of their own).
			np=$(grep -c '^PASS  vm x86_64 [^ ]*: tests ok' "$logs/vm.log" || true)
			nf=$(grep -c '^FAIL' "$logs/vm.log" || true)
			if [ "$nf" = 0 ] && [ "$nconf" -gt 0 ] && [ "$np" = "$nconf" ]; then
				cell[$series,kselftests]="ok ($nconf configs)"
			else
				cell[$series,kselftests]="FAIL ($np/$nconf)"
			fi
			case " $cells " in *" kunit "*) ;; *) cell[$series,kunit]="-" ;; esac
			case " $cells " in *" kselftests "*) ;; *) cell[$series,kselftests]="-" ;; esac
			;;
		*) die "unknown cell '$c': use applies, builds, kunit, kselftests" ;;
		esac
	done
	for c in $cells; do
		case ${cell[$series,$c]} in
		ok*) pass "matrix $series: $c ${cell[$series,$c]#ok}" ;;
		*) fail "matrix $series: $c (log in $logs)" ;;
		esac
	done
	unset KERNEL_SRC
done

echo
printf '  %-7s %-22s %-14s %-16s %-16s %s\n' target package applies builds kunit kselftests
for s in "${order[@]}"; do
	pkg=$(cut -d' ' -f2 "$SPB_CACHE/src/linux-$s/.spb-imported" 2>/dev/null || echo "?")
	printf '  %-7s %-22s %-14s %-16s %-16s %s\n' "$s" "$pkg" "${cell[$s,applies]}" \
		"${cell[$s,builds]}" "${cell[$s,kunit]}" "${cell[$s,kselftests]}"
done
echo
[ "$SPB_FAILED" = 0 ]
