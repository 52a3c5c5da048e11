#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/check-static-key.sh [--object FILE] [--quiet]
#:
#: Check, in the built kernel/sched/build_utility.o (x86_64), that the
#: performance-biased code in schedutil's update paths sits behind the
#: sugov_bias_key static branch: every jump-table entry of the key is mapped
#: to the function that contains it, and each update entry point
#: (sugov_update_single_freq, sugov_update_single_perf, sugov_update_shared)
#: must contain at least one. Prints each site with its instruction, as
#: objdump -d shows it (a 5-byte NOP or a jmp while the key is off).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

obj="" quietflag=0
while [ $# -gt 0 ]; do
	case $1 in
	--object) obj=$2; shift 2 ;;
	--quiet) quietflag=1; shift ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$obj" ] || obj=$SPB_CACHE/wt/x86_64-guest/_build/kernel/sched/build_utility.o
[ -f "$obj" ] || die "$obj not found: build the kernel first (scripts/build-kernel.sh)"

report=$(python3 - "$obj" <<'PY'
import re, subprocess, sys
obj = sys.argv[1]
KEY = "sugov_bias_key"
ENTRIES = ["sugov_update_single_freq", "sugov_update_single_perf", "sugov_update_shared"]

syms = {}     # name -> (section, start, size)
funcs = []    # (section, start, end, name)
for line in subprocess.run(["objdump", "-t", obj], capture_output=True, text=True, check=True).stdout.splitlines():
    m = re.match(r"^([0-9a-f]+) (.{7}) (\S+)\s+([0-9a-f]+) (\S+)$", line)
    if not m:
        continue
    addr, flags, sect, size, name = int(m[1], 16), m[2], m[3], int(m[4], 16), m[5]
    syms.setdefault(name, (sect, addr, size))
    if "F" in flags:
        funcs.append((sect, addr, addr + size, name))
if KEY not in syms:
    print(f"FAIL {KEY} is not in {obj}: is the series applied and schedutil built in?")
    sys.exit(1)
ksect, kaddr, _ = syms[KEY]

def resolve(value):
    m = re.match(r"^(\S+?)(?:([+-])0x([0-9a-f]+))?$", value)
    base, sign, off = m[1], m[2], int(m[3] or "0", 16)
    off = -off if sign == "-" else off
    if base in syms and not base.startswith("."):
        s, a, _ = syms[base]
        return s, a + off
    return base, off

relocs = {}
hdrs = subprocess.run(["objdump", "-h", obj], capture_output=True, text=True, check=True).stdout
if "__jump_table" not in hdrs:
    print(f"FAIL {obj} has no __jump_table: the kernel is built without CONFIG_JUMP_LABEL, so static branches are memory reads")
    sys.exit(1)
out = subprocess.run(["objdump", "-r", "-j", "__jump_table", obj], capture_output=True, text=True, check=True).stdout
for line in out.splitlines():
    m = re.match(r"^([0-9a-f]+)\s+(\S+)\s+(\S+)$", line)
    if m:
        relocs[int(m[1], 16)] = resolve(m[3])

sites = {}
for off in sorted(relocs):
    if off % 16:
        continue
    code, key = relocs.get(off), relocs.get(off + 8)
    if not code or not key:
        continue
    ksec, kval = key
    if ksec != ksect or (kval & ~3) != kaddr:
        continue
    csec, caddr = code
    fn = next((n for s, a, e, n in funcs if s == csec and a <= caddr < e), f"{csec}+{caddr:#x}")
    sites.setdefault(fn, []).append((csec, caddr))

bad = 0
for fn in sorted(sites):
    for csec, caddr in sites[fn]:
        dis = subprocess.run(["objdump", "-d", "-j", csec, f"--start-address={caddr}",
                              f"--stop-address={caddr + 1}", obj], capture_output=True, text=True).stdout
        ins = [l.strip() for l in dis.splitlines() if re.match(r"^\s*[0-9a-f]+:", l)]
        print(f"SITE {fn}: {ins[0] if ins else hex(caddr)}")
for fn in ENTRIES:
    n = len(sites.get(fn, []))
    if n:
        print(f"PASS {fn}: {n} {KEY} site(s)")
    else:
        print(f"FAIL {fn}: no {KEY} site")
        bad = 1
print(f"TOTAL {sum(len(v) for v in sites.values())} sites in {len(sites)} functions")
sys.exit(bad)
PY
) && rc=0 || rc=$?
[ $quietflag = 1 ] || echo "$report" | grep -E '^(SITE|TOTAL)' | sed 's/^/    /' >&2
while read -r kind rest; do
	case $kind in
	PASS) pass "static key: $rest" ;;
	FAIL) fail "static key: $rest" ;;
	esac
done <<<"$report"
[ $rc = 0 ] && [ "$SPB_FAILED" = 0 ]
