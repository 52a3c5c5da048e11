#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/hw-run.sh (--kselftest-dir DIR | --kernel-tree DIR) [options]
#:
#: The hardware run kit: on a real machine booted into a kernel with the
#: series, record the cpufreq setup, run the schedutil kselftests with
#: run_kselftest.sh and write one report (environment plus KTAP) fit to
#: attach to a linux-pm posting. Run as root; the tests change governors,
#: limits and tunables and put them back, and trace in a tracefs instance
#: of their own. Self-contained: copy this one file to the machine.
#:
#:   --kselftest-dir DIR  an installed kselftest tree (run_kselftest.sh and
#:                        cpufreq/ in it), e.g. from
#:                        make -C tools/testing/selftests TARGETS=cpufreq \
#:                             INSTALL_PATH=DIR install
#:   --kernel-tree DIR    a kernel tree with the series: build and install
#:                        the cpufreq kselftests from it into a temporary
#:                        directory first (needs make and a C compiler)
#:   --io-dir DIR         where the I/O test writes its file (default
#:                        /var/tmp; it must be on a real disk, not tmpfs)
#:   --io-file FILE       or a file or scratch block device for it
#:   --out FILE           the report (default
#:                        ./schedutil-report-HOST-YYYYmmdd-HHMMSS.txt)
#:   --env-only           record the environment, run no test
#:
#: Exit status: run_kselftest.sh's (0 when every test passed or skipped),
#: 1 on a usage error or when the tests could not be started.
set -euo pipefail

die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }
log() { printf '==> %s\n' "$*" >&2; }

ksdir="" ktree="" iodir="" iofile="" out="" envonly=0
while [ $# -gt 0 ]; do
	case $1 in
	--kselftest-dir) ksdir=${2:?--kselftest-dir needs a directory}; shift 2 ;;
	--kernel-tree) ktree=${2:?--kernel-tree needs a directory}; shift 2 ;;
	--io-dir) iodir=${2:?--io-dir needs a directory}; shift 2 ;;
	--io-file) iofile=${2:?--io-file needs a file}; shift 2 ;;
	--out) out=${2:?--out needs a file}; shift 2 ;;
	--env-only) envonly=1; shift ;;
	-h|--help) sed -n 's/^#: \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
if [ $envonly = 0 ]; then
	[ -n "$ksdir$ktree" ] || die "give --kselftest-dir or --kernel-tree (see --help)"
	[ -z "$ksdir" ] || [ -z "$ktree" ] || die "give --kselftest-dir or --kernel-tree, not both"
	[ "$(id -u)" = 0 ] || die "run as root: the tests change cpufreq settings (and put them back)"
fi
[ -n "$out" ] || out=./schedutil-report-$(uname -n)-$(date +%Y%m%d-%H%M%S).txt

tmp=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# Print "NAME: VALUE" for a file, or nothing if it is absent.
show() {
	[ -r "$2" ] && printf '%s: %s\n' "$1" "$(tr '\n' ' ' <"$2" | sed 's/ *$//')"
	return 0
}

environment() {
	local p c f flags
	echo "# schedutil hardware report"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel: $(uname -r) ($(uname -m))"
	show "cmdline" /proc/cmdline
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')"
	echo "vendor: $(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | sort -u | tr '\n' ' ')"
	echo "online CPUs: $(cat /sys/devices/system/cpu/online)"
	flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	for f in hwp hwp_epp aperfmperf constant_tsc cppc; do
		case " $flags " in
		*" $f "*) echo "cpu flag $f: yes" ;;
		*) echo "cpu flag $f: no" ;;
		esac
	done
	show "intel_pstate status" /sys/devices/system/cpu/intel_pstate/status
	show "intel_pstate no_turbo" /sys/devices/system/cpu/intel_pstate/no_turbo
	show "intel_pstate hwp_dynamic_boost" /sys/devices/system/cpu/intel_pstate/hwp_dynamic_boost
	show "amd_pstate status" /sys/devices/system/cpu/amd_pstate/status
	show "cpufreq boost" /sys/devices/system/cpu/cpufreq/boost
	for c in /proc/config.gz "/boot/config-$(uname -r)"; do
		[ -r "$c" ] || continue
		echo "config ($c):"
		case $c in
		*.gz) zcat "$c" ;;
		*) cat "$c" ;;
		esac | grep -E '^(# )?CONFIG_(CPU_FREQ_GOV_SCHEDUTIL[A-Z_]*|X86_INTEL_PSTATE|X86_AMD_PSTATE|X86_ACPI_CPUFREQ|ACPI_CPPC_CPUFREQ|CPU_FREQ_DEFAULT_GOV_[A-Z]*|HZ|NO_HZ_[A-Z]*|UCLAMP_TASK|SCHED_CLASS_EXT)[= ]' |
			sed 's/^/  /'
		break
	done
	set -- /sys/devices/system/cpu/cpufreq/policy*
	if [ ! -d "$1" ]; then
		echo "cpufreq: no policy (no cpufreq driver bound)"
		return
	fi
	for p in "$@"; do
		echo "$(basename "$p"):"
		for f in affected_cpus related_cpus scaling_driver scaling_governor \
			 scaling_available_governors cpuinfo_min_freq cpuinfo_max_freq \
			 base_frequency bios_limit scaling_min_freq scaling_max_freq \
			 cpuinfo_transition_latency scaling_available_frequencies \
			 scaling_boost_frequencies energy_performance_preference \
			 energy_performance_available_preferences boost \
			 amd_pstate_highest_perf amd_pstate_max_freq amd_pstate_prefcore_ranking; do
			show "  $f" "$p/$f"
		done
		for f in "$p"/schedutil/*; do
			[ -f "$f" ] && show "  schedutil/$(basename "$f")" "$f"
		done
	done
	for f in /sys/devices/system/cpu/cpufreq/schedutil/*; do
		[ -f "$f" ] && show "global schedutil/$(basename "$f")" "$f"
	done
	return 0
}

log "recording the environment"
environment >"$tmp/env"
{
	cat "$tmp/env"
	echo
} >"$out"
if [ $envonly = 1 ]; then
	log "report: $out"
	exit 0
fi

if [ -n "$ktree" ]; then
	[ -d "$ktree/tools/testing/selftests/cpufreq" ] ||
		die "$ktree has no tools/testing/selftests/cpufreq: give the kernel tree with the series"
	[ -f "$ktree/tools/testing/selftests/cpufreq/schedutil_response.sh" ] ||
		die "$ktree lacks the series' kselftests (schedutil_response.sh): apply the series first"
	log "building the cpufreq kselftests from $ktree"
	make -s -C "$ktree/tools/testing/selftests" TARGETS=cpufreq \
		INSTALL_PATH="$tmp/kselftest" install >"$tmp/build.log" 2>&1 ||
		die "building the kselftests failed; see the output of: make -C $ktree/tools/testing/selftests TARGETS=cpufreq INSTALL_PATH=/tmp/ks install"
	ksdir=$tmp/kselftest
fi
[ -x "$ksdir/run_kselftest.sh" ] || die "$ksdir/run_kselftest.sh missing: install the kselftests there first (see --help)"
for t in schedutil_tunables.sh schedutil_response.sh; do
	[ -f "$ksdir/cpufreq/$t" ] || die "$ksdir/cpufreq/$t missing: that kselftest tree lacks the series' tests"
done

log "running the schedutil kselftests (a minute or more; the report gets the KTAP)"
set +e
(
	cd "$ksdir" || exit 1
	[ -z "$iodir" ] || export SCHEDUTIL_IO_DIR="$iodir"
	[ -z "$iofile" ] || export SCHEDUTIL_IO_FILE="$iofile"
	./run_kselftest.sh -t cpufreq:schedutil_tunables.sh -t cpufreq:schedutil_response.sh
) >"$tmp/ktap" 2>&1
rc=$?
set -e
{
	echo "# run_kselftest.sh exit status: $rc"
	echo "# KTAP"
	cat "$tmp/ktap"
	echo
	echo "# after the tests"
	environment | grep -E 'scaling_governor|scaling_(min|max)_freq|schedutil/'
} >>"$out"
grep -E '^(ok|not ok) ' "$tmp/ktap" >&2 || true
log "report: $out"
exit $rc
