#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/vm-test.sh [--tree DIR] [--arch ARCH] [--configs LIST] [--rev REV]
#:        scripts/vm-test.sh --response-table [--arch ARCH] [--configs CONFIG] [--reps N]
#:
#: Run the schedutil kselftests in QEMU, once per test-driver configuration:
#: build the guest kernel (scripts/build-kernel.sh, configs/ARCH-guest.config),
#: the test cpufreq driver (selftests/testdrv) against it and the cpufreq
#: kselftests of the series branch (make install, statically linked), boot
#: with them in a busybox initramfs and a null_blk device, load the
#: driver and run them with run_kselftest.sh. The function profiler counts
#: which of schedutil's update paths ran in each guest. The guest turns the
#: global trace buffer on and leaves a mark in it first; the tests must
#: leave both, and no tracefs instance, behind. Every guest then runs the
#: kernel's own cpufreq kselftest, main.sh (basic mode), under Debian's
#: static bash: it must pass on the base and with the series alike.
#: One PASS/FAIL line
#: per configuration and one for the paths; the guest's console log is in
#: $SPB_CACHE/vm-test/<rev>-<arch>-<config>.log.
#:
#:   --arch ARCH     x86_64 (default), arm64 or all
#:   --configs LIST  comma-separated, from: fast, fast-shared, slow,
#:                   slow-shared, perf, perf-shared, fast-gov-per-policy,
#:                   fast-cap, fast-boost, fast-cppc, perf-hwp, perf-amd,
#:                   perf-amd-guided, fast-menu, fast-teo,
#:                   slow-shared-menu (the test driver), acpi-hw, acpi-sw,
#:                   acpi-turbo (x86_64 only: the real acpi-cpufreq
#:                   driver, see below). *-menu, *-teo: the cpuidle test
#:                   driver's server-like states (POLL, C1, C6) under that
#:                   governor, which decides at each idle entry whether
#:                   the tick stops; every other configuration has no
#:                   cpuidle driver. fast-cap: a firmware-like cap at
#:                   2.8 GHz, lifted after the tests (no limit of theirs
#:                   may stay); fast-boost: cpuinfo_max_freq at 3.6 GHz,
#:                   above the table; fast-cppc: CPUFREQ_NEED_UPDATE_LIMITS
#:                   as cppc_cpufreq sets it (requests repeated after limit
#:                   changes); perf-hwp, perf-amd, perf-amd-guided: requests
#:                   reported only as intel_cpufreq with HWP and amd-pstate
#:                   passive and guided report them, in their own events.
#:                   Default on x86_64: all but fast-cppc and perf-*; on
#:                   arm64, where each boot takes twice as long: fast,
#:                   slow-shared, perf, fast-cppc, perf-* and fast-teo, the paths an
#:                   x86 TCG guest cannot take (fast switching with
#:                   frequency invariance, adjust_perf, which needs it) and
#:                   the kthread with a shared policy
#:   --rev REV       kernel to test: branch (default), base, or a commit of
#:                   the series branch before its first tunable (the
#:                   machinery patches), tested as the base is. On the base
#:                   the tests must fail or skip: none may pass vacuously.
#:   --response-table  instead of the kselftests, measure the responses to a
#:                   synchronous I/O loop, a wakeup after idle and a CPU hog
#:                   with the defaults and with performance_bias=1 (N runs
#:                   each, default 5; configuration fast unless --configs)
#:                   and print them side by side
#:   The acpi-* configurations boot an Intel CPU model with an SSDT from
#:   scripts/make-ssdt.sh that gives the vCPUs ACPI P-states (800..3200
#:   MHz, 10 us latency), and load no test driver: acpi-cpufreq binds.
#:   acpi-hw: one _PSD domain per CPU (a policy per CPU, fast switching,
#:   acpi_cpufreq_fast_switch must run); acpi-sw: one SW_ALL domain of
#:   both CPUs (a shared policy, the sugov kthread, acpi_cpufreq_target
#:   must run); acpi-turbo: acpi-hw with an Intel-style turbo P-state,
#:   3201 MHz over 3200.
#:   --icount SHIFT  QEMU's instruction counting (default 2: 4 ns of guest
#:                   time per instruction, idle time skipped): the guest's
#:                   clock follows the instructions it runs, so a host that
#:                   deschedules QEMU does not make a task seem to run for
#:                   those milliseconds (and raise its utilization); "off"
#:                   for plain TCG or KVM. Every configuration, shared
#:                   policies included, runs with it (see docs/harness.md
#:                   for the idle-boost decay that once made shared
#:                   policies fail under it)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree="" configs="" rev=branch arches=x86_64 table=0 reps=5 icount=2
vmjobs=${SPB_VM_JOBS:-$SPB_JOBS}
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=$2; shift 2 ;;
	--arch) arches=$2; shift 2 ;;
	--configs) configs=$2; shift 2 ;;
	--rev) rev=$2; shift 2 ;;
	--response-table) table=1; shift ;;
	--reps) reps=$2; shift 2 ;;
	--icount) icount=${2:?--icount needs a shift or off}; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$tree" ] || tree=$(resolve_tree)
[ "$arches" = all ] && arches=x86_64,arm64
case $rev in branch|base) ;; *)
	# A commit of the series that adds no tunable yet: the base's checks.
	git -C "$tree" rev-parse -q --verify "$rev^{commit}" >/dev/null ||
		die "--rev $rev: no such commit in $tree (branch, base or a commit of the series)"
	git -C "$tree" merge-base --is-ancestor "$rev" "${SPB_BRANCH}" ||
		die "--rev $rev is not on the series branch $SPB_BRANCH"
	! has_tunables "$tree" "$rev" ||
		die "--rev $rev already has the tunables: test it as the branch"
	;;
esac
# How the logs and messages name the kernel: branch, base, or prefix-HASH.
revlabel=$rev
revdesc=" on the base"
case $rev in
branch) revdesc="" ;;
base) ;;
*)
	revlabel=prefix-$(git -C "$tree" rev-parse --short "$rev")
	revdesc=" at $(git -C "$tree" log -1 --format='%h ("%s")' "$rev")" ;;
esac
icountargs=()
[ "$icount" = off ] || icountargs=(--icount "$icount")

declare -A params=(
	[fast]="mode=fast"
	[fast-shared]="mode=fast shared=1"
	[slow]="mode=slow latency_us=50"
	[slow-shared]="mode=slow shared=1 latency_us=50"
	[perf]="mode=perf"
	[perf-shared]="mode=perf shared=1"
	[fast-gov-per-policy]="mode=fast gov_per_policy=1"
	[fast-cap]="mode=fast cap_khz=2800000"
	[fast-boost]="mode=fast boost_khz=3600000"
	[fast-cppc]="mode=fast update_limits=1"
	[perf-hwp]="mode=perf report=pstate_sample"
	[perf-amd]="mode=perf report=amd_pstate"
	[perf-amd-guided]="mode=perf report=amd_pstate_guided"
	[acpi-hw]="acpi=hw_all"
	[acpi-sw]="acpi=sw_all"
	[acpi-turbo]="acpi=hw_all,turbo"
	[fast-menu]="mode=fast idle=menu"
	[fast-teo]="mode=fast idle=teo"
	[slow-shared-menu]="mode=slow shared=1 latency_us=50 idle=menu"
)
# The driver function that must have run in an acpi-* configuration.
declare -A acpi_path=([acpi-hw]=acpi_cpufreq_fast_switch [acpi-sw]=acpi_cpufreq_target
	[acpi-turbo]=acpi_cpufreq_fast_switch)
# What the response test must say of where it read the requests and what
# the highest one granted was: the emulated drivers' own events, the
# table's highest under a cpuinfo_max_freq above it, the turbo P-state.
declare -A expect=(
	[perf-hwp]="requests from pstate_sample: "
	[perf-amd]="requests from amd_pstate_perf: "
	[perf-amd-guided]="requests from amd_pstate_perf: "
	[fast-boost]="highest granted 3200000 kHz"
	[acpi-turbo]="highest granted 3201000 kHz"
)
order="fast fast-shared slow slow-shared perf perf-shared fast-gov-per-policy fast-cap fast-boost fast-menu fast-teo slow-shared-menu acpi-hw acpi-sw acpi-turbo"
arm64_order="fast slow-shared perf fast-cppc perf-hwp perf-amd perf-amd-guided fast-teo"
[ $table = 0 ] || order=fast arm64_order=fast
user_configs=$configs
# The I/O tests write to null_blk, whose requests complete from an hrtimer
# 50 us after submission (an NVMe SSD's latency) in guest time, instead of
# a virtio disk whose completions depend on the host's disk and load.
NULLB="null_blk.irqmode=2 null_blk.completion_nsec=50000"
PATHS="sugov_update_single_freq sugov_update_single_perf sugov_update_shared sugov_work cpufreq_driver_fast_switch cpufreq_driver_adjust_perf acpi_cpufreq_fast_switch acpi_cpufreq_target"

# The kselftests always come from the series branch, also for the base.
git -C "$tree" rev-parse -q --verify "$SPB_BRANCH^{commit}" >/dev/null ||
	die "branch $SPB_BRANCH not found in $tree: run scripts/apply.sh first"
work=$SPB_CACHE/$(tree_prefix "$tree")vm-test
mkdir -p "$work"

# The cpuidle governor of a configuration's PARAMS (idle=GOVERNOR: the
# cpuidle test driver's states under it), or none.
idle_of() {
	case " $1 " in
	*" idle="*) local g=${1##*idle=}; echo "${g%% *}" ;;
	*) echo none ;;
	esac
}

# The cpufreq driver's part of PARAMS (all but idle=).
drv_params() {
	local p=" $1 "
	p=${p/ idle=$(idle_of "$1") / }
	p=${p# }
	echo "${p% }"
}

# The guest's command: load the drivers (acpi=...: check that acpi-cpufreq
# bound; idle=GOVERNOR: the cpuidle test driver under that governor),
# profile schedutil's and the driver's paths, run the kselftests, report
# the path counts and the idle states used.
guest_cmd() {
	local load unload modtest=: idle
	idle=$(idle_of "$1")
	set -- "$(drv_params "$1")" "${2:-}"
	case $1 in
	acpi=*)
		load="d=\$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver 2>/dev/null)
[ \"\$d\" = acpi-cpufreq ] || { echo \"acpi-cpufreq did not bind (driver: \${d:-none})\"; exit 3; }"
		unload=: ;;
	*)
		load="insmod /payload/cpufreq_testdrv.ko $1 || exit 3"
		unload="rmmod cpufreq_testdrv || rc=1"
		# main.sh's module mode on the test driver, a module: loaded
		# and unloaded, with the non-boot CPUs online and offline.
		if [ "${2:-}" = modtest ]; then
			modtest="cd /payload/kselftest/cpufreq
bash ./main.sh -t modtest -d /payload/cpufreq_testdrv.ko >/tmp/mod.ktap 2>&1
echo \"SPB-MODTEST-RC \$?\"
sed 's/^/SPB-MODTEST /' /tmp/mod.ktap"
		fi ;;
	esac
	[ "$idle" = none ] || load="$load
insmod /payload/cpuidle_testdrv.ko || exit 3
echo $idle >/sys/devices/system/cpu/cpuidle/current_governor || exit 3"
	cat <<EOF
$SPB_KUNIT_DUMP
$load
# The idle driver and governor, and how often each CPU entered each state.
spb_idle() {
	D=/sys/devices/system/cpu/cpuidle
	echo "SPB-IDLE \$1 driver \$(cat \$D/current_driver 2>/dev/null || echo none) governor \$(cat \$D/current_governor_ro 2>/dev/null || echo none)"
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ -d \$c/cpuidle ] || continue
		u=
		for s in \$c/cpuidle/state*; do u="\$u \$(cat \$s/name)=\$(cat \$s/usage)"; done
		echo "SPB-IDLE-USAGE \$1 \${c##*/}\$u"
	done
}
spb_idle before
T=/sys/kernel/tracing
for f in $PATHS; do echo \$f >>\$T/set_ftrace_filter 2>/dev/null; done
echo 1 >\$T/function_profile_enabled
cd /payload/kselftest
# Someone else's tracing, which the tests must leave alone: the global
# buffer on, with a mark in it.
echo 1 >\$T/tracing_on
echo SPB-GLOBAL-MARK >\$T/trace_marker
SCHEDUTIL_IO_FILE=/dev/nullb0 ./run_kselftest.sh -t cpufreq:schedutil_tunables.sh -t cpufreq:schedutil_response.sh
rc=\$?
spb_idle after
if grep -q SPB-GLOBAL-MARK \$T/trace && [ "\$(cat \$T/tracing_on)" = 1 ] &&
   [ -z "\$(ls \$T/instances)" ]; then
	echo SPB-TRACE-KEPT
else
	echo "SPB-TRACE-CLOBBERED global mark \$(grep -c SPB-GLOBAL-MARK \$T/trace), tracing_on \$(cat \$T/tracing_on), instances left: \$(ls \$T/instances | tr '\n' ' ')"
fi
# A firmware-like cap (fast-cap): once it is lifted, no limit of the tests'
# may be left in its place.
C=/sys/module/cpufreq_testdrv/parameters/cap_khz
if [ -w \$C ] && [ "\$(cat \$C)" != 0 ]; then
	echo 0 >\$C
	sleep 1
	pinned=
	for p in /sys/devices/system/cpu/cpufreq/policy*; do
		[ "\$(cat \$p/scaling_max_freq)" = "\$(cat \$p/cpuinfo_max_freq)" ] ||
			pinned="\$pinned \${p##*/} at \$(cat \$p/scaling_max_freq)"
	done
	if [ -z "\$pinned" ]; then echo SPB-CAP-LIFTED; else echo "SPB-CAP-PINNED:\$pinned"; fi
fi
cat \$T/trace_stat/function* | awk '/^ *(sugov|cpufreq|acpi_cpufreq)_/ { h[\$1] += \$2 }
	END { for (f in h) print "SPB-PATH", f, h[f] }'
echo 0 >\$T/function_profile_enabled
# The kernel's own cpufreq kselftest (main.sh, basic mode: every file of
# every policy read and written, every governor and frequency stepped
# through), where a bash can run it; its KTAP is kept apart.
if [ -x /payload/bash ]; then
	ln -sf /payload/bash /bin/bash
	./run_kselftest.sh -t cpufreq:main.sh >/tmp/main.ktap 2>&1
	echo "SPB-MAINSH-RC \$?"
	sed 's/^/SPB-MAINSH /' /tmp/main.ktap
fi
$unload
$modtest
exit \$rc
EOF
}

# Boot once and print the side-by-side table of the responses.
response_table() {
	local arch=$1 c=$2 image=$3 payload=$4 logf rc
	logf=$work/table-$arch-$c.log
	log "booting $arch ($c: ${params[$c]}) for $reps runs of 3 workloads x 2 profiles (about $((reps * 15 + 20)) s under TCG)"
	set +e
	"$SPB_ROOT/scripts/vm-run.sh" --arch "$arch" --kernel "$image" \
		--payload "$payload" --cpus 2 --append "$NULLB" --timeout 900 --log "$logf" \
		"${icountargs[@]}" -- \
		"insmod /payload/cpufreq_testdrv.ko $(drv_params "${params[$c]}") || exit 3
SCHEDUTIL_IO_FILE=/dev/nullb0 REPS=$reps sh /payload/response-table.sh" >/dev/null 2>&1
	rc=$?
	set -e
	if [ $rc != 0 ] || ! grep -q '^SPB-ROW ' "$logf"; then
		tail -n 20 "$logf" | sed 's/^/      /'
		fail "response table ($arch $c): guest exit $rc (log: $logf)"
		return
	fi
	echo
	echo "schedutil responses, $arch guest, test driver ${params[$c]}: $(sed -n 's/^SPB-INFO //p' "$logf")"
	echo "median (min..max) of $reps runs; requests = changes of the frequency requested for the CPU (power:cpu_frequency)"
	echo
	sed -n 's/^SPB-ROW //p' "$logf" | awk -F'|' '
		BEGIN { printf "  %-50s  %-24s  %s\n", "metric", "default", "performance_bias=1" }
		{
			split($2, a, " "); split($3, b, " ")
			printf "  %-50s  %-24s  %s\n", $1, a[1] " (" a[2] ".." a[3] ")",
				b[1] " (" b[2] ".." b[3] ")"
		}'
	echo
	pass "response table ($arch $c)"
}

# Boot ARCH's IMAGE with PAYLOAD, console in LOG, running CMD, with more
# vm-run.sh options after those; the exit status goes to LOG.rc.
boot_config() {
	local arch=$1 image=$2 payload=$3 logf=$4 cmd=$5 rc
	shift 5
	set +e
	"$SPB_ROOT/scripts/vm-run.sh" --arch "$arch" --kernel "$image" \
		--payload "$payload" --cpus 2 --append "$NULLB" --timeout 600 \
		--log "$logf" "$@" ${icountargs[@]+"${icountargs[@]}"} -- "$cmd" >/dev/null 2>&1
	rc=$?
	set -e
	echo "$rc" >"$logf.rc"
}

# Boot the acpi-hw machine and run the hardware run kit in it: it must
# report the driver and both kselftests passed.
hw_kit() {
	local image=$1 payload=$2 kit=$work/kit logf=$work/branch-x86_64-hw-kit.log rc
	local bash_static=/bin/bash-static ssdt=$work/ssdt-2cpu-hw_all.aml
	[ -x "$bash_static" ] || die "$bash_static missing: run scripts/install-deps.sh (bash-static)"
	quiet "$work/ssdt.log" "$SPB_ROOT/scripts/make-ssdt.sh" --cpus 2 --coord hw_all --out "$ssdt"
	rm -rf "$kit" && mkdir -p "$kit"
	cp "$bash_static" "$kit/bash"
	cp "$SPB_ROOT/scripts/hw-run.sh" "$kit/"
	log "booting x86_64 (acpi-hw) with the hardware run kit"
	set +e
	"$SPB_ROOT/scripts/vm-run.sh" --kernel "$image" --payload "$payload" \
		--payload "$kit:kit" --cpus 2 --append "$NULLB" --timeout 600 \
		--log "$logf" --cpu "$SPB_ACPI_CPU" \
		--acpitable "$ssdt" \
		"${icountargs[@]}" -- \
		"PATH=/payload/kit:\$PATH; cd /tmp && bash /payload/kit/hw-run.sh --kselftest-dir /payload/kselftest --io-file /dev/nullb0 --out /tmp/report.txt; echo SPB-KIT-RC=\$?; cat /tmp/report.txt" \
		>/dev/null 2>&1
	rc=$?
	set -e
	if [ $rc = 0 ] && grep -q '^SPB-KIT-RC=0' "$logf" &&
	   grep -q '^  scaling_driver: acpi-cpufreq' "$logf" &&
	   grep -q '^# run_kselftest.sh exit status: 0' "$logf" &&
	   grep -q '^ok 1 selftests: cpufreq: schedutil_tunables.sh' "$logf" &&
	   grep -q '^ok 2 selftests: cpufreq: schedutil_response.sh' "$logf"; then
		pass "hardware run kit (scripts/hw-run.sh) in the acpi-cpufreq guest: report with the driver and both kselftests passed"
	else
		grep -m 5 -E '^SPB-KIT-RC|^ERROR|^not ok' "$logf" | sed 's/^/      /' || true
		fail "hardware run kit in the acpi-cpufreq guest (exit $rc; log: $logf)"
	fi
}

declare -A seen=()
IFS=, read -r -a alist <<<"$arches"
for arch in "${alist[@]}"; do
	case $arch in x86_64|arm64) ;; *) die "unknown --arch '$arch'" ;; esac
	configs=$user_configs
	if [ -z "$configs" ]; then
		configs=$order
		[ "$arch" = arm64 ] && configs=$arm64_order
		configs=${configs// /,}
	fi
	IFS=, read -r -a list <<<"$configs"
	for c in "${list[@]}"; do
		[ -n "${params[$c]:-}" ] || die "unknown configuration '$c' (see --help)"
		case $arch/$c in
		arm64/acpi-*) die "$c: the acpi-cpufreq configurations are x86_64 only" ;;
		esac
	done
	# Every kernel, the base and a prefix too, builds in the guest's own
	# worktree: only what differs from the last build there is rebuilt.
	out=$("$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" --rev "$rev" \
		--config "$arch-guest" --name "$arch-guest")
	wt=$(dirname "$out")
	export SPB_ARCH=$arch
	image=$(kernel_image "$out")

	log "building the test cpufreq driver against $(basename "$wt")"
	mod=$work/testdrv-$(basename "$wt")
	build_testdrv "$wt" "$out" "$mod"
	no_warnings() {
		! grep 'warning:' "$1"
	}
	check "test driver ($arch): W=1 build without warnings" no_warnings "$mod/build.log"
	[ "$arch" != x86_64 ] || check "test drivers: checkpatch --strict" \
		"$wt/scripts/checkpatch.pl" --strict --no-tree --quiet \
		-f "$SPB_ROOT/selftests/testdrv/cpufreq_testdrv.c" \
		"$SPB_ROOT/selftests/testdrv/cpuidle_testdrv.c"

	log "building the cpufreq kselftests for $arch"
	payload=$work/payload-$arch
	rm -rf "$payload" && mkdir -p "$payload"
	build_selftests "$tree" "$arch" "$payload/kselftest" "$work"
	check "cpufreq kselftests ($arch): build without warnings" no_warnings "$work/selftests-$arch.log"
	cp "$mod/cpufreq_testdrv.ko" "$mod/cpuidle_testdrv.ko" "$payload/"
	cp "$SPB_ROOT/selftests/response-table.sh" "$payload/"
	# The kernel's own cpufreq kselftest, main.sh, is a bash script.
	cp "$("$SPB_ROOT/scripts/get-busybox.sh" --arch "$arch" --bash)" "$payload/bash"
	# The guests' busybox, fetched here once rather than by the first
	# boots side by side.
	"$SPB_ROOT/scripts/get-busybox.sh" --arch "$arch" >/dev/null

	if [ $table = 1 ]; then
		for c in "${list[@]}"; do
			response_table "$arch" "$c" "$image" "$payload"
		done
		continue
	fi
	kunit_done=0
	if ! grep -qx 'CONFIG_CPU_FREQ_GOV_SCHEDUTIL_KUNIT_TEST=y' "$out/.config"; then
		kunit_done=1
		# The fragment asks for the suite and the series defines it: a
		# kernel without it would skip the KUnit check unnoticed.
		if [ "$rev" = branch ] &&
		   grep -qx 'CONFIG_CPU_FREQ_GOV_SCHEDUTIL_KUNIT_TEST=y' "$SPB_ROOT/configs/$arch-guest.config" &&
		   grep -rqx 'config CPU_FREQ_GOV_SCHEDUTIL_KUNIT_TEST' --include='Kconfig*' "$wt/drivers/cpufreq"; then
			fail "kunit in the $arch guest: the guest kernel lacks the suite ($out/.config)"
		fi
	fi
	# Boot every configuration, $vmjobs guests at a time: a TCG guest is
	# one host thread, and under instruction counting its clock follows
	# its own instructions, not the host's load. The first boot runs
	# alone when vm-run.sh has yet to find out whether KVM works here.
	# The tick of the guest kernel, for each configuration's header.
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$out/.config")
	tick="tick stopped in idle (NO_HZ_IDLE)"
	grep -qx 'CONFIG_NO_HZ_FULL=y' "$out/.config" && tick="NO_HZ_FULL"
	grep -qx 'CONFIG_HZ_PERIODIC=y' "$out/.config" && tick="periodic tick"
	running=0
	for c in "${list[@]}"; do
		logf=$work/$revlabel-$arch-$c.log
		rm -f "$logf" "$logf.rc"
		machine=()
		case ${params[$c]} in
		acpi=*)
			spec=${params[$c]#acpi=} ssdtargs=()
			[ "${spec#*,}" = turbo ] && ssdtargs=(--turbo)
			ssdt=$work/ssdt-2cpu-${spec/,/-}.aml
			quiet "$work/ssdt.log" "$SPB_ROOT/scripts/make-ssdt.sh" --cpus 2 \
				--coord "${spec%%,*}" ${ssdtargs[@]+"${ssdtargs[@]}"} --out "$ssdt"
			machine=(--cpu "$SPB_ACPI_CPU" --acpitable "$ssdt") ;;
		esac
		log "booting $arch ($c: ${params[$c]}; $revlabel${icountargs[*]:+, icount})"
		boot_config "$arch" "$image" "$payload" "$logf" "$(guest_cmd "${params[$c]}" \
			"$([ "$c" = fast ] && echo modtest)")" ${machine[@]+"${machine[@]}"} &
		running=$((running + 1))
		if [ $running -ge "$vmjobs" ] || { [ "$arch" = x86_64 ] && [ -z "${SPB_ACCEL:-}" ] &&
		   [ -w /dev/kvm ] && [ ! -f "$SPB_CACHE/kvm-usable" ]; }; then
			wait -n || true
			running=$((running - 1))
		fi
	done
	wait
	for c in "${list[@]}"; do
		logf=$work/$revlabel-$arch-$c.log
		rc=$(cat "$logf.rc" 2>/dev/null || echo 125)
		# The guest kernel may carry the KUnit suite, run at boot.
		if [ $kunit_done = 0 ]; then
			kunit_done=1
			kunit_in_guest "$tree" "$wt" "the $arch guest" "$logf" "$work/kunit-$arch-guest"
		fi
		# run_kselftest.sh: one top-level KTAP line per test, the
		# test's own KTAP prefixed with "# ".
		top_ok=$(grep -c '^ok .*selftests: cpufreq' "$logf" || true)
		top_skip=$(grep -c '^ok .*selftests: cpufreq.*# SKIP' "$logf" || true)
		top_fail=$(grep -c '^not ok .*selftests: cpufreq' "$logf" || true)
		sub_ok=$(grep -c '^# ok ' "$logf" || true)
		sub_skip=$(grep -c '^# ok .*# SKIP' "$logf" || true)
		sub_fail=$(grep -c '^# not ok ' "$logf" || true)
		paths=$(sed -n 's/^SPB-PATH //p' "$logf" | sort | tr '\n' ' ')
		for p in $PATHS; do
			n=$(sed -n "s/^SPB-PATH $p \([0-9]*\)$/\1/p" "$logf")
			[ "${n:-0}" -gt 0 ] && seen[$p]="${seen[$p]:-}$arch/$c "
		done
		summary="tests ok $((top_ok - top_skip)), skipped $top_skip, failed $top_fail; cases ok $((sub_ok - sub_skip)), skipped $sub_skip, failed $sub_fail"
		# The kernel's own main.sh must pass on the base and with the
		# series alike.
		on=$revdesc
		if grep -q '^SPB-MAINSH-RC' "$logf"; then
			if grep -q '^SPB-MAINSH ok 1 selftests: cpufreq: main.sh' "$logf"; then
				pass "vm $arch $c$on: the kernel's cpufreq main.sh (basic) passed"
			else
				grep -m 5 -E '^SPB-MAINSH (not ok|# not ok|Bail)' "$logf" | sed 's/^/      /' || true
				fail "vm $arch $c$on: the kernel's cpufreq main.sh (basic) failed (log: $logf)"
			fi
		fi
		if grep -q '^SPB-MODTEST-RC' "$logf"; then
			if grep -q '^SPB-MODTEST-RC 0$' "$logf" &&
			   grep -q '^SPB-MODTEST ok 1 Completed successfully' "$logf" &&
			   ! grep -q '^SPB-MODTEST .*failed' "$logf"; then
				pass "vm $arch $c$on: the kernel's cpufreq main.sh module mode passed on the test driver"
			else
				grep -m 5 -E '^SPB-MODTEST (not ok|.*failed|Bail)' "$logf" | sed 's/^/      /' || true
				fail "vm $arch $c$on: the kernel's cpufreq main.sh module mode failed (log: $logf)"
			fi
		fi
		# The header of the configuration: the guest's idle driver and
		# governor, its tick, and how often its CPUs entered each idle
		# state during the kselftests. Under an idle governor, a halting
		# state must have been entered.
		idle=$(idle_of "${params[$c]}")
		idle_hdr=$(sed -n 's/^SPB-IDLE before //p' "$logf" | head -n 1)
		usage=$(awk '$1 == "SPB-IDLE-USAGE" {
				for (i = 4; i <= NF; i++) {
					split($i, kv, "=")
					d[kv[1]] += ($2 == "after" ? kv[2] : -kv[2])
				}
			}
			END { for (s in d) printf "%s +%d\n", s, d[s] }' "$logf" | sort | tr '\n' ' ')
		note "      idle: ${idle_hdr:-not reported}; HZ $hz, $tick; state entries during the tests: ${usage:-none (no cpuidle states)}"
		idle_ok=1
		if [ "$idle" != none ]; then
			deep=$(echo "$usage" | tr ' ' '\n' | paste - - | awk '$1 != "POLL" { n += $2 } END { print n + 0 }')
			if [ "$idle_hdr" != "driver testidle governor $idle" ] || [ "$deep" = 0 ]; then
				idle_ok=0
				warn "$c: expected the testidle driver under $idle with halting states entered"
			fi
		fi
		if [ "$rev" != branch ]; then
			# Nothing may pass on a kernel without the series' tunables.
			if [ $((top_ok - top_skip)) = 0 ] && [ $((top_skip + top_fail)) -ge 2 ]; then
				pass "vm $arch $c$revdesc: no test passes ($summary)"
				grep -m 3 -E '^# (1\.\.0 # SKIP|not ok)' "$logf" | sed 's/^/      /'
			else
				fail "vm $arch $c$revdesc: a test passed without the series' tunables ($summary; log: $logf)"
			fi
			continue
		fi
		# The real driver's own path must have carried the requests.
		dpath_ok=1
		if [ -n "${acpi_path[$c]:-}" ]; then
			n=$(sed -n "s/^SPB-PATH ${acpi_path[$c]} \([0-9]*\)$/\1/p" "$logf")
			[ "${n:-0}" -gt 0 ] || { dpath_ok=0; warn "$c: ${acpi_path[$c]} never ran"; }
		fi
		# A cap lifted after the tests must leave the policies wide open.
		cap_ok=1
		case ${params[$c]} in
		*cap_khz=*)
			grep -q '^SPB-CAP-LIFTED' "$logf" || {
				cap_ok=0
				warn "$c: $(grep -m 1 '^SPB-CAP-PINNED' "$logf" || echo 'no cap check in the log')"
			} ;;
		esac
		expect_ok=1
		if [ -n "${expect[$c]:-}" ] && ! grep -q "^# # .*${expect[$c]}" "$logf"; then
			expect_ok=0
			warn "$c: the response test did not say '${expect[$c]}': $(grep -m 1 '^# # requests from' "$logf" || echo 'no calibration line')"
		fi
		# The global trace buffer must be as the guest left it.
		trace_ok=1
		grep -q '^SPB-TRACE-KEPT' "$logf" || {
			trace_ok=0
			warn "$c: $(grep -m 1 '^SPB-TRACE-CLOBBERED' "$logf" || echo 'no trace check in the log')"
		}
		if [ $rc = 0 ] && [ "$top_fail" = 0 ] && [ "$top_skip" = 0 ] &&
		   [ "$top_ok" -ge 2 ] && [ "$sub_fail" = 0 ] && [ $dpath_ok = 1 ] &&
		   [ $trace_ok = 1 ] && [ $cap_ok = 1 ] && [ $expect_ok = 1 ] &&
		   [ $idle_ok = 1 ]; then
			pass "vm $arch $c: $summary"
			note "      paths: $paths"
			grep -E '^# # (requests from|I/O loop|wakeup after|CPU hog)' "$logf" | sed 's/^# # /      /'
		else
			grep -m 20 -E '^not ok |^# not ok |# SKIP|^Bail out|SPB-GUEST-EXIT|Kernel panic|BUG:|WARNING:' "$logf" |
				sed 's/^/      /' || true
			fail "vm $arch $c: exit $rc, $summary (log: $logf)"
		fi
	done
	# The hardware run kit, on the real acpi-cpufreq driver: the guest
	# runs scripts/hw-run.sh under a static bash, as a user would on a
	# machine booted into the series.
	if [ "$rev" = branch ] && [ "$arch" = x86_64 ] &&
	   [[ " ${list[*]} " == *" acpi-hw "* ]]; then
		hw_kit "$image" "$payload"
	fi
done

# Every update path schedutil has must have run in some guest.
if [ "$rev" = branch ] && [ $table = 0 ] && [ -z "$user_configs" ] &&
   [ "$arches" = x86_64,arm64 ]; then
	covered() {
		local p missing=""
		for p in "$@"; do
			[ -n "${seen[$p]:-}" ] || missing="$missing $p"
			note "      $p ran in: ${seen[$p]:-none}"
		done
		[ -z "$missing" ] || { warn "never ran:$missing"; return 1; }
	}
	check "schedutil's paths all ran: fast switch, sugov kthread, shared, single_perf" \
		covered cpufreq_driver_fast_switch sugov_work sugov_update_shared \
		sugov_update_single_perf cpufreq_driver_adjust_perf
fi
[ "$SPB_FAILED" = 0 ]
