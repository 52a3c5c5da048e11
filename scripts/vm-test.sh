#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/vm-test.sh [--tree DIR] [--configs LIST] [--rev REV]
#:
#: Run the schedutil kselftests in QEMU, once per test-driver configuration:
#: build the kernel (scripts/build-kernel.sh) and the test cpufreq driver
#: (selftests/testdrv) against it, boot with the kselftests of that kernel
#: tree in an initramfs, load the driver and run every schedutil_*.sh test.
#: One PASS/FAIL line per configuration; the KTAP output is in
#: $SPB_CACHE/vm-test/<config>.log.
#:
#:   --configs LIST  comma-separated, from: fast, fast-shared, slow,
#:                   slow-shared, perf, fast-gov-per-policy (default: all)
#:   --rev REV       kernel to test: branch (default) or base
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree="" configs="" rev=branch
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=$2; shift 2 ;;
	--configs) configs=$2; shift 2 ;;
	--rev) rev=$2; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$tree" ] || tree=$(resolve_tree)

declare -A params=(
	[fast]="mode=fast"
	[fast-shared]="mode=fast shared=1"
	[slow]="mode=slow latency_us=50"
	[slow-shared]="mode=slow shared=1 latency_us=50"
	[perf]="mode=perf"
	[fast-gov-per-policy]="mode=fast gov_per_policy=1"
)
order="fast fast-shared slow slow-shared perf fast-gov-per-policy"
[ -n "$configs" ] || configs=${order// /,}

out=$("$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" --rev "$rev")
wt=$(dirname "$out")
image=$out/arch/x86/boot/bzImage

log "building the test cpufreq driver against $(basename "$wt")"
mod=$SPB_CACHE/vm-test/testdrv-$(basename "$wt")
rm -rf "$mod" && mkdir -p "$mod"
cp "$SPB_ROOT"/selftests/testdrv/{Makefile,cpufreq_testdrv.c} "$mod/"
kmake "$wt" "$out" "$mod/build.log" M="$mod" W=1 modules
no_warnings() {
	! grep 'warning:' "$1"
}
check "test driver: W=1 build without warnings" no_warnings "$mod/build.log"
check "test driver: checkpatch --strict" "$wt/scripts/checkpatch.pl" \
	--strict --no-tree --quiet -f "$SPB_ROOT/selftests/testdrv/cpufreq_testdrv.c"

payload=$SPB_CACHE/vm-test/payload
rm -rf "$payload" && mkdir -p "$payload/selftests/cpufreq"
cp "$mod/cpufreq_testdrv.ko" "$payload/"
cp -r "$wt/tools/testing/selftests/kselftest" "$payload/selftests/"
tests=""
for t in "$wt"/tools/testing/selftests/cpufreq/schedutil_*.sh; do
	[ -e "$t" ] || continue
	cp "$t" "$payload/selftests/cpufreq/"
	case $t in *_lib.sh) ;; *) tests="$tests $(basename "$t")" ;; esac
done
[ -n "$tests" ] || warn "the kernel tree has no schedutil kselftests"

IFS=, read -r -a list <<<"$configs"
for c in "${list[@]}"; do
	[ -n "${params[$c]:-}" ] || die "unknown configuration '$c' (see --help)"
	logf=$SPB_CACHE/vm-test/$c.log
	log "booting ($c: ${params[$c]})"
	cmd="insmod /payload/cpufreq_testdrv.ko ${params[$c]} || exit 3
rc=0
for t in $tests; do
	echo \"# selftests: cpufreq: \$t\"
	sh selftests/cpufreq/\$t
	r=\$?
	echo \"# exit=\$r \$t\"
	[ \$r = 0 ] || rc=1
done
exit \$rc"
	set +e
	"$SPB_ROOT/scripts/vm-run.sh" --kernel "$image" --payload "$payload" \
		--cpus 2 --timeout 300 --log "$logf" -- "$cmd" >/dev/null 2>&1
	rc=$?
	set -e
	oks=$(grep -c '^ok ' "$logf" || true)
	noks=$(grep -c '^not ok ' "$logf" || true)
	if [ $rc = 0 ] && [ "$noks" = 0 ] && [ "$oks" -gt 0 ]; then
		pass "vm $c: $oks KTAP tests ok ($rev)"
	else
		grep -E '^not ok |^Bail out|^1\.\.0|SPB-GUEST-EXIT|Kernel panic|BUG:|WARNING:' "$logf" |
			head -n 20 | sed 's/^/      /'
		fail "vm $c: exit $rc, $oks ok, $noks not ok ($rev; log: $logf)"
	fi
done
[ "$SPB_FAILED" = 0 ]
