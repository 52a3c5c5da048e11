#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/vm-stress.sh [--seconds N] [--config NAME] [--writers N] [--cpus N]
#:
#: Reliability run of the series in a QEMU guest (selftests/stress.sh):
#: checks the tunables' hotplug semantics, then for N seconds (default 45)
#: writes valid and hostile values to every schedutil tunable from several
#: processes while switching governors, hot-unplugging CPUs, running the
#: I/O, idle-wakeup and CPU-hog workloads and reloading the test cpufreq
#: driver in each mode. Fails on any splat in the guest's console (lockdep,
#: KASAN, UBSAN, KCSAN, KFENCE, WARN, BUG, RCU stall, hung task, soft
#: lockup, Oops), on a tunable left with a value never validly written, on
#: a hostile write that was taken, and on a KUnit suite built into the
#: kernel that did not pass at boot, under the same debug facilities;
#: prints the count of each action.
#: The guest boots with schedutil.performance_bias=1, so the profile is the
#: default a re-initialised policy must come back with; before it, a bad
#: value (=maybe) that the kernel must report and keep from init.
#:
#:   --seconds N   length of the stress phase (default 45)
#:   --config NAME guest configuration: x86_64-guest (default) or
#:                 x86_64-debug (x86_64-guest plus lockdep, KASAN, UBSAN,
#:                 KFENCE, DEBUG_OBJECTS: configs/x86_64-debug.config)
#:   --writers N   tunable writers (default 3)
#:   --cpus N      vCPUs (default 3: one policy keeps a CPU while another
#:                 loses its only one)
#:   --rev REV     kernel commit to test (default: the series branch), for
#:                 example a branch with a bug seeded to see the run catch it
set -euo pipefail
. "$(dirname "$0")/lib.sh"

seconds=45 config=x86_64-guest writers=3 cpus=3 rev=branch
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--config) config=$2; shift 2 ;;
	--writers) writers=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--rev) rev=$2; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
case $seconds$writers$cpus in *[!0-9]*) die "--seconds, --writers and --cpus take numbers" ;; esac

tree=$(resolve_tree)
work=$SPB_CACHE/vm-stress
mkdir -p "$work"
out=$("$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" --config "$config" --rev "$rev")
wt=$(dirname "$out")
export SPB_ARCH=x86_64
image=$(kernel_image "$out")

# The payload: the test driver for this kernel, the cpufreq kselftests
# (for schedutil_load) and the stress script.
log "building the test cpufreq driver and the cpufreq kselftests"
payload=$work/payload
rm -rf "$payload" && mkdir -p "$payload"
build_selftests "$tree" x86_64 "$payload/kselftest" "$work"
build_testdrv "$wt" "$out" "$work/testdrv-$config"
cp "$work/testdrv-$config/cpufreq_testdrv.ko" "$SPB_ROOT/selftests/stress.sh" "$payload/"

logf=$work/$config-$seconds.log
log "booting $config with $cpus vCPUs: hotplug checks, then ${seconds}s of stress"
set +e
"$SPB_ROOT/scripts/vm-run.sh" --kernel "$image" --payload "$payload" --cpus "$cpus" \
	--mem 1024 --timeout $((seconds * 4 + 300)) --log "$logf" \
	--append "schedutil.performance_bias=maybe schedutil.performance_bias=1" -- \
	"$SPB_KUNIT_DUMP
STRESS_SECONDS=$seconds STRESS_WRITERS=$writers sh /payload/stress.sh" >/dev/null 2>&1
rc=$?
set -e

sed -n 's/^STRESS-COUNT /      /p' "$logf"
# A kernel with the KUnit suite built in ran it at boot, with the debug
# facilities of this configuration watching: judged as vm-test.sh does.
if grep -qx 'CONFIG_CPU_FREQ_GOV_SCHEDUTIL_KUNIT_TEST=y' "$out/.config"; then
	kunit_in_guest "$tree" "$wt" "the $config stress guest" "$logf" "$work/kunit-$config"
fi
grep -E '^STRESS(: ok|-BAD)' "$logf" | sed 's/^/      /' || true
# Splats: everything the kernel's debug facilities print when they trip.
splats=$(grep -m 20 -E 'WARNING:|BUG:|Oops|Kernel panic|general protection|KASAN|UBSAN|KFENCE|KCSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|rcu: INFO|self-detected stall|blocked for more than|soft lockup|hard LOCKUP|ODEBUG|sleeping function called from invalid context|scheduling while atomic|Call Trace' "$logf" || true)
if [ -n "$splats" ]; then
	echo "$splats" | sed 's/^/      /'
	fail "stress ($config, ${seconds}s): splats in the guest log ($logf)"
elif [ $rc != 0 ]; then
	fail "stress ($config, ${seconds}s): guest exit $rc (log: $logf)"
else
	pass "stress ($config, ${seconds}s): no splat, every tunable validly written, $(sed -n 's/^STRESS-COUNT valid-writes //p' "$logf") valid and $(sed -n 's/^STRESS-COUNT rejected-writes //p' "$logf") rejected writes, $(sed -n 's/^STRESS-COUNT hotplug-cycles //p' "$logf") hotplug cycles, $(sed -n 's/^STRESS-COUNT driver-reloads //p' "$logf") driver reloads"
fi
[ "$SPB_FAILED" = 0 ]
