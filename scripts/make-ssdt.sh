#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/make-ssdt.sh [--cpus N] [--coord hw_all|sw_all|sw_any]
#:                             [--latency US] [--turbo] [--cst] --out FILE.aml
#:
#: Write an ACPI SSDT that gives the vCPUs of a QEMU x86 "pc" machine
#: P-states, so that the real acpi-cpufreq driver binds in a TCG guest
#: (pass it with -acpitable file=FILE.aml, with an Intel CPU model such as
#: -cpu max,vendor=GenuineIntel,family=6,model=15; acpi-cpufreq refuses
#: I/O-port P-states on QEMU's default AMD family 15 model).
#:
#: Each of QEMU's processor objects \_SB.CPUS.C000, C001, ... gets
#:   _PCT  control and status on a SystemIO register at a port nothing
#:         decodes (writes are dropped; acpi-cpufreq then has no ->get and
#:         reports the frequency it last asked for);
#:   _PSS  seven P-states, 3200 MHz down to 800 MHz in 400 MHz steps, with
#:         the given transition latency (default 10 us: acpi-cpufreq then
#:         reports 10 us, and schedutil's rate limit is 10 ms as on many
#:         servers); with --turbo, an eighth on top as Intel firmware
#:         lists turbo: 3201 MHz, one MHz above the highest guaranteed
#:         frequency (acpi-cpufreq's boost needs a CPU feature TCG lacks,
#:         so here it is just the highest P-state);
#:   _PPC  0 (no firmware limit);
#:   _PSD  one coordination domain per CPU (hw_all, default: one policy per
#:         CPU), or one domain of all CPUs (sw_all or sw_any: one policy
#:         shared by all, changed through the governor's kthread).
#:   _CST  with --cst only: C1 (FFixedHW, which acpi_idle enters with
#:         hlt where the CPU has no MWAIT) and C2 (SystemIO: a read of a
#:         port nothing decodes, 100 us exit latency), so that acpi_idle
#:         binds. Under TCG that C2 does not halt: the read returns at
#:         once and the vCPU spins in its idle loop. That makes it an
#:         experiment, not a test configuration (see docs/harness.md,
#:         "acpi_idle under TCG"); the guests' cpuidle configurations use
#:         selftests/testdrv/cpuidle_testdrv.c.
#:
#: The table is compiled with iasl (Debian package acpica-tools).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cpus=1 coord=hw_all latency=10 out="" turbo=0 cst=0
while [ $# -gt 0 ]; do
	case $1 in
	--cpus) cpus=$2; shift 2 ;;
	--coord) coord=$2; shift 2 ;;
	--latency) latency=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--turbo) turbo=1; shift ;;
	--cst) cst=1; shift ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$out" ] || die "--out FILE.aml is required (see --help)"
case $cpus in
[1-9] | [1-9][0-9]) ;;
*) die "--cpus takes 1 to 99, not '$cpus'" ;;
esac
case $latency in
'' | *[!0-9]*) die "--latency takes microseconds, not '$latency'" ;;
esac
case $coord in
hw_all) ctype=0xFE ;;
sw_all) ctype=0xFC ;;
sw_any) ctype=0xFD ;;
*) die "--coord takes hw_all, sw_all or sw_any, not '$coord'" ;;
esac
command -v iasl >/dev/null ||
	die "iasl missing: run scripts/install-deps.sh (it installs acpica-tools)"

# An I/O port QEMU's pc machine leaves undecoded.
port=0x0EE0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
asl=$tmp/pstates.asl
{
	echo 'DefinitionBlock ("", "SSDT", 2, "SPBIAS", "PSTATES", 1)'
	echo '{'
	for ((i = 0; i < cpus; i++)); do
		printf '    External (\\_SB.CPUS.C%03X, ProcessorObj)\n' "$i"
	done
	for ((i = 0; i < cpus; i++)); do
		if [ "$coord" = hw_all ]; then
			domain=$i n=1
		else
			domain=0 n=$cpus
		fi
		printf '    Scope (\\_SB.CPUS.C%03X)\n    {\n' "$i"
		cat <<ASL
        Name (_PCT, Package (0x02)
        {
            ResourceTemplate () { Register (SystemIO, 0x10, 0x00, $port, ,) },
            ResourceTemplate () { Register (SystemIO, 0x10, 0x00, $((port + 2)), ,) }
        })
        Name (_PSS, Package ($((7 + turbo)))
        {
ASL
		p=0 table="3200 2800 2400 2000 1600 1200 800"
		[ $turbo = 0 ] || table="3201 $table"
		for mhz in $table; do
			sep=,
			[ "$mhz" = 800 ] && sep=
			printf '            Package (0x06) { %d, %d, %d, %d, 0x%02X, 0x%02X }%s\n' \
				"$mhz" $((mhz * 10)) "$latency" "$latency" "$p" "$p" "$sep"
			p=$((p + 1))
		done
		cat <<ASL
        })
        Method (_PPC, 0, NotSerialized)
        {
            Return (Zero)
        }
        Name (_PSD, Package (0x01)
        {
            Package (0x05) { 0x05, 0x00, $domain, $ctype, $n }
        })
ASL
		[ $cst = 0 ] || cat <<ASL
        Name (_CST, Package (0x03)
        {
            0x02,
            Package (0x04)
            {
                ResourceTemplate () { Register (FFixedHW, 0x01, 0x02, 0x0000000000000000, 0x01,) },
                0x01, 0x0001, 0x03E8
            },
            Package (0x04)
            {
                ResourceTemplate () { Register (SystemIO, 0x08, 0x00, $((port + 0x10)), ,) },
                0x02, 0x0064, 0x01F4
            }
        })
ASL
		echo '    }'
	done
	echo '}'
} >"$asl"

if ! iasl -p "$tmp/pstates" "$asl" >"$tmp/iasl.log" 2>&1; then
	cat "$tmp/iasl.log" >&2
	die "iasl could not compile the SSDT; the source was $asl"
fi
mkdir -p "$(dirname "$out")"
cp "$tmp/pstates.aml" "$out"
log "SSDT for $cpus CPU(s), $coord, ${latency} us$([ $turbo = 0 ] || echo ", turbo P0")$([ $cst = 0 ] || echo ", _CST C1 C2"): $out"
