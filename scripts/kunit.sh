#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/kunit.sh [--arch x86_64|arm64|i386|all] [--rev REV] [--variants]
#:        scripts/kunit.sh --prefixes | --boot-default | --compile-i386
#:        scripts/kunit.sh --boot-default-kconfig
#:
#: Run the schedutil KUnit suite and check its results: every case
#: passed, none is missing (at least the cases kunit/expected-cases gives
#: for the latest of its patches in the tested commit).
#:
#: With the kernel's kunit.py (an out-of-tree build directory of a
#: worktree at REV, default the series branch, under QEMU; built with
#: CONFIG_WERROR=y, so a compiler warning fails the run):
#:
#:   --arch A     x86_64, arm64, i386 (32-bit: time and capacity
#:                arithmetic in 32-bit longs), or all (default: the three)
#:   --rev REV    commit to test (default: the branch $SPB_BRANCH)
#:   --variants   also the configurations in kunit/*.kunitconfig (x86_64)
#:   --boot-default-kconfig  the suite with the performance_bias profile as
#:                the boot default through its Kconfig option
#:                (kunit/profile-boot-default.config) and the real
#:                acpi-cpufreq driver; judged as --boot-default
#:
#: In the x86_64 QEMU guest kernel (scripts/build-kernel.sh, which builds
#: the suite in and runs it at boot; no kernel of kunit.py's is built):
#:
#:   --prefixes   the suite at every prefix of the series from the patch
#:                that adds it, each prefix built in the guest's worktree
#:                (only what changed is rebuilt) and booted; a prefix that
#:                changes no C file, header or Kconfig (outside tools/)
#:                since the last one run builds the same kernel and is
#:                reported as such. The worktree is left at the tip
#:   --boot-default  the suite with the performance_bias profile as the
#:                boot default (schedutil.performance_bias=1, which sets
#:                what the Kconfig option sets) under the real acpi-cpufreq
#:                driver, bound to the two vCPUs through an SSDT
#:                (scripts/make-ssdt.sh) with schedutil as their governor,
#:                so that real policies hold the static key when the suite
#:                runs. Cases that need the key off, or a CPU no policy
#:                governs, must skip saying so, at least one must find the
#:                key held, and every other case must pass
#:
#: Without booting:
#:
#:   --compile-i386  build kernel/sched/ (the governor and the suite) for
#:                32-bit x86 with W=1 and CONFIG_WERROR=y
#:                (configs/i386-kunit.config): a warning fails it
#:
#: Every run has two vCPUs, for the case of a policy shared by two CPUs.
#:
#: kunit.py asks QEMU for KVM first; where KVM is unusable (see
#: scripts/vm-run.sh) a QEMU wrapper on PATH drops that request so that
#: TCG is used.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arches=all rev="" variants=0 prefixes=0 boot_default=0 boot_default_kconfig=0 i386=0
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arches=$2; shift 2 ;;
	--rev) rev=$2; shift 2 ;;
	--variants) variants=1; shift ;;
	--boot-default) boot_default=1; shift ;;
	--boot-default-kconfig) boot_default_kconfig=1; shift ;;
	--prefixes) prefixes=1; shift ;;
	--compile-i386) i386=1; shift ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ "$arches" = all ] && arches="x86_64 arm64 i386"

tree=$(resolve_tree)
[ -n "$rev" ] || rev=$SPB_BRANCH
commit=$(git -C "$tree" rev-parse -q --verify "$rev^{commit}") ||
	die "no commit $rev in $tree: run scripts/apply.sh first"
# The skips a run with real policies holding the static key allows: an
# extended regular expression their reasons must match.
SKIP_HELD='^(the static key is held by [0-9]+ tunables set\(s\) outside the test \(the performance_bias profile is the boot default\)|CPU[0-9]+( or CPU[0-9]+)? is governed by schedutil)$'
skip_ok=""

# Check the skips in kunit.py's report REPORT of a run whose skips are
# allowed (skip_ok): print their number.
check_skips() {
	local logf=$1 reasons held
	reasons=$(sed -n 's/^\[[0-9:]*\] *\[SKIPPED\] [^(]* (\(.*\))$/\1/p' "$logf")
	if [ -n "$reasons" ] && printf '%s\n' "$reasons" | grep -Evq "$skip_ok"; then
		printf '%s\n' "$reasons" | grep -Ev "$skip_ok" | sed 's/^/      unexpected skip: /' >&2
		return 1
	fi
	held=$(printf '%s\n' "$reasons" | grep -c 'static key is held by [1-9]' || true)
	if [ "$held" = 0 ]; then
		note "no case found the static key held by a real policy: the profile was not the boot default"
		return 1
	fi
	printf '%s\n' "$reasons" | grep -c . || true
}

# Judge a run: RC its exit status, JSON kunit.py's results, REPORT its
# report, LABEL and AT how to name it, LOG where to look.
judge() {
	local rc=$1 json=$2 report=$3 label=$4 at=$5 logf=$6 n failed skipped=0
	# With skips allowed, the not-passed cases it lists are the skips.
	if [ -n "$skip_ok" ]; then
		read -r n failed < <(kunit_json_count "$json" 2>/dev/null)
	else
		read -r n failed < <(kunit_json_count "$json")
	fi
	if [ -n "$skip_ok" ]; then
		if ! skipped=$(check_skips "$report"); then
			fail "kunit $label: skips other than the allowed ones (log: $logf)"
			return
		fi
		failed=$((failed - skipped))
	fi
	if [ "$rc" = 0 ] && [ "$failed" = 0 ] && [ "$n" -ge "$expected" ] && [ "$skip_ok" ]; then
		pass "kunit $label: $((n - skipped)) cases passed, $skipped skipped as they must with real policies holding the key"
	elif [ "$rc" = 0 ] && [ "$failed" = 0 ] && [ "$n" -ge "$expected" ]; then
		pass "kunit $label${at:+ at '$at'}: $n cases passed"
	else
		fail "kunit $label${at:+ at '$at'}: exit $rc, $n cases ($expected expected), $failed not passed (log: $logf)"
	fi
}

# Boot the x86_64 guest kernel built in OUT (vm-run.sh options after the
# first three arguments) and judge the suite it ran at boot.
guest_run() {
	local out=$1 label=$2 at=$3 logf json report rc
	shift 3
	logf=$SPB_CACHE/$(tree_prefix "$tree")kunit-$label.log
	json=${logf%.log}.json report=${logf%.log}.report
	log "KUnit $label${at:+ at '$at'}: booting the guest kernel"
	set +e
	"$SPB_ROOT/scripts/vm-run.sh" --kernel "$(SPB_ARCH=x86_64 kernel_image "$out")" --cpus 2 \
		--timeout 300 --log "$logf" "$@" -- "$SPB_KUNIT_DUMP" >/dev/null 2>&1
	rc=$?
	set -e
	if ! kunit_parse_console "$(dirname "$out")" "$logf" "$json" "$report"; then
		grep -m 5 -E 'Kernel panic|BUG:|WARNING:|SPB-GUEST-EXIT' "$logf" | sed 's/^/      /' || true
		fail "kunit $label${at:+ at '$at'}: the guest printed no results (exit $rc; log: $logf)"
		return
	fi
	grep -E '\[(FAILED|CRASHED)\]|Testing complete' "$report" | tail -n 8 | sed 's/^/    /' >&2 || true
	judge "$rc" "$json" "$report" "$label" "$at" "$logf"
}

if [ $prefixes = 1 ]; then
	base=$(tree_base "$tree")
	first=$(git -C "$tree" log --reverse --format=%H --diff-filter=A "$base..$commit" \
		-- kernel/sched/tests/.kunitconfig | head -n1)
	[ -n "$first" ] || die "no commit in the series adds kernel/sched/tests/.kunitconfig"
	last=""
	for c in $(git -C "$tree" rev-list --reverse "$first^..$commit"); do
		subj=$(git -C "$tree" log -1 --format=%s "$c")
		if [ -n "$last" ] && [ -z "$(git -C "$tree" diff --name-only "$last" "$c" -- \
			'*.c' '*.h' '*Kconfig*' '*.kunitconfig' ':!tools')" ]; then
			pass "kunit prefix '$subj': no compiled file changed since the last prefix run"
			continue
		fi
		expected=$(kunit_expected "$tree" "$c")
		# The guest's own worktree: each step rebuilds what changed.
		out=$("$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" --rev "$c")
		guest_run "$out" "x86_64-guest-prefix-$(git -C "$tree" rev-parse --short "$c")" "$subj"
		last=$c
	done
	log "leaving the guest's build at the series tip"
	"$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" >/dev/null
	[ "$SPB_FAILED" = 0 ]
	exit
fi

if [ $boot_default = 1 ]; then
	ssdt=$SPB_CACHE/ssdt-2cpu-hw_all.aml
	quiet "$SPB_CACHE/ssdt.log" "$SPB_ROOT/scripts/make-ssdt.sh" --cpus 2 --coord hw_all --out "$ssdt"
	expected=$(kunit_expected "$tree" "$commit")
	out=$("$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" --rev "$commit")
	skip_ok=$SKIP_HELD
	guest_run "$out" x86_64-guest-profile-boot-default "" --cpu "$SPB_ACPI_CPU" \
		--acpitable "$ssdt" --append "cpufreq.default_governor=schedutil schedutil.performance_bias=1"
	[ "$SPB_FAILED" = 0 ]
	exit
fi

if [ $i386 = 1 ]; then
	log "i386: kernel/sched/ at $(git -C "$tree" log -1 --format='%h %s' "$commit") with W=1 and -Werror"
	if out=$("$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" --rev "$commit" \
		--config i386-kunit --w1 --target kernel/sched/); then
		if grep -qx 'CONFIG_CPU_FREQ_GOV_SCHEDUTIL_KUNIT_TEST=y' "$out/.config" &&
		   [ -f "$out/kernel/sched/build_utility.o" ]; then
			pass "i386 (32-bit longs): the governor and its KUnit suite build with W=1 and -Werror"
		else
			fail "i386: the suite was not built ($out/.config, $out/kernel/sched/build_utility.o)"
		fi
	else
		fail "i386 (32-bit longs): kernel/sched/ does not build with W=1 and -Werror (log: $SPB_CACHE/wt/$(tree_prefix "$tree")i386-kunit/_build/build.log)"
	fi
	[ "$SPB_FAILED" = 0 ]
	exit
fi

wt=$(worktree_for "$tree" kunit "$commit")
[ -f "$wt/kernel/sched/tests/.kunitconfig" ] ||
	die "$(git -C "$tree" log -1 --format='%h %s' "$commit") has no kernel/sched/tests/.kunitconfig"
expected=$(kunit_expected "$tree" "$commit")

# QEMU wrappers that drop kunit.py's -accel kvm/hvf where KVM does not work,
# and run TCG single-threaded (SPB_TCG_THREAD=multi to change), as
# scripts/vm-run.sh does: with two vCPUs, QEMU 7.2's multi-threaded TCG
# runs stale int3 instructions after the kernel patches a static branch,
# and a boot of the boot-default kernel hung after "PCI: Using
# configuration type 1" for over 10 minutes (a CI run; the run before had
# passed in 34 s).
shim=$SPB_CACHE/qemu-shim
mkdir -p "$shim"
accel=${SPB_ACCEL:-$(cat "$SPB_CACHE/kvm-usable" 2>/dev/null || echo probe)}
if [ "$accel" = probe ]; then
	# The probe needs an x86 kernel; without one, trust only TCG.
	accel=tcg
fi
for q in qemu-system-x86_64 qemu-system-i386 qemu-system-aarch64; do
	real=$(PATH=${PATH//$shim:/} command -v "$q" || true)
	[ -n "$real" ] || continue
	cat >"$shim/$q" <<SH
#!/bin/sh
# Generated by scripts/kunit.sh: run $real with TCG only ($SPB_TCG_ACCEL).
[ "$accel" = kvm ] && exec "$real" "\$@"
n=\$#
i=0
while [ \$i -lt \$n ]; do
	a=\$1; shift; i=\$((i + 1))
	if [ "\$a" = -accel ] && [ \$i -lt \$n ]; then
		v=\$1; shift; i=\$((i + 1))
		case \$v in
		kvm|hvf) continue ;;
		tcg) v=$SPB_TCG_ACCEL ;;
		esac
		set -- "\$@" -accel "\$v"
		continue
	fi
	set -- "\$@" "\$a"
done
exec "$real" "\$@"
SH
	chmod +x "$shim/$q"
done
export PATH=$shim:$PATH

# Extra QEMU arguments (--boot-default-kconfig).
qemu_extra=""

run_one() {
	local arch=$1 kconf=$2 label=$3 at=${4:-} bdir json logf cc cross=()
	bdir=$wt/_kunit_$label
	json=$SPB_CACHE/$(tree_prefix "$tree")kunit-$label.json
	logf=$SPB_CACHE/$(tree_prefix "$tree")kunit-$label.log
	cc="ccache gcc"
	if [ "$arch" = arm64 ]; then
		command -v aarch64-linux-gnu-gcc >/dev/null ||
			die "aarch64-linux-gnu-gcc missing: apt-get install gcc-aarch64-linux-gnu"
		cross=(--cross_compile aarch64-linux-gnu-)
		cc="ccache aarch64-linux-gnu-gcc"
	fi
	export CCACHE_DIR=${CCACHE_DIR:-$SPB_CACHE/ccache} CCACHE_BASEDIR=$SPB_CACHE CCACHE_NOHASHDIR=1
	export CCACHE_DEPEND=1
	log "KUnit $label: building and running (a cold build takes several minutes)"
	rm -f "$json"
	set +e
	(cd "$wt" && python3 tools/testing/kunit/kunit.py run --arch="$arch" "${cross[@]}" \
		--build_dir="$bdir" --kunitconfig="$kconf" --jobs="$SPB_JOBS" \
		--kconfig_add CONFIG_WERROR=y \
		--make_options "CC=$cc" --make_options HOSTCC=gcc --make_options RUSTC=false \
		--qemu_args="-smp 2${qemu_extra:+ $qemu_extra}" \
		--timeout 600 --json="$json" 'cpufreq_schedutil*') >"$logf" 2>&1
	local rc=$?
	set -e
	grep -E '^\[[0-9:]+\] (=|Testing complete|Ran|\[(PASSED|FAILED|CRASHED|SKIPPED)\])' "$logf" |
		grep -v '\[PASSED\]' | tail -n 8 | sed 's/^/    /' >&2 || true
	if [ ! -s "$json" ]; then
		tail -n 30 "$logf" | sed 's/^/      /'
		fail "kunit $label: kunit.py produced no results (exit $rc; log: $logf)"
		return
	fi
	judge "$rc" "$json" "$logf" "$label" "$at" "$logf"
}

if [ $boot_default_kconfig = 1 ]; then
	ssdt=$SPB_CACHE/ssdt-2cpu-hw_all.aml
	"$SPB_ROOT/scripts/make-ssdt.sh" --cpus 2 --coord hw_all --out "$ssdt"
	cp "$SPB_ROOT/kunit/profile-boot-default.config" "$wt/_profile-boot-default.kunitconfig"
	qemu_extra="-cpu $SPB_ACPI_CPU -acpitable file=$ssdt"
	skip_ok=$SKIP_HELD
	run_one x86_64 _profile-boot-default.kunitconfig x86_64-profile-boot-default
	[ "$SPB_FAILED" = 0 ]
	exit
fi

for arch in $arches; do
	run_one "$arch" kernel/sched/tests "$arch"
done
if [ $variants = 1 ]; then
	for k in "$SPB_ROOT"/kunit/*.kunitconfig; do
		cp "$k" "$wt/_$(basename "$k")"
		run_one x86_64 "_$(basename "$k")" "x86_64-$(basename "$k" .kunitconfig)"
	done
fi
[ "$SPB_FAILED" = 0 ]
