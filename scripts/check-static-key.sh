#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/check-static-key.sh [--object FILE] [--quiet]
#:
#: Check, in the built kernel/sched/build_utility.o (x86_64; by default the
#: x86_64-guest build of KERNEL_SRC, or of the mainline tree), that the
#: performance-biased code in schedutil's update paths sits behind the
#: sugov_bias_key static branch: every jump-table entry of the key is mapped
#: to the function that contains it, and each update entry point
#: (sugov_update_single_freq, sugov_update_single_perf, sugov_update_shared)
#: must reach at least one through the direct calls in its code (the
#: compiler may keep helpers out of line). Prints each site with its
#: instruction as objdump -d shows it in the object: a jmp over the new code,
#: which jump_label_init() turns into a NOP at boot while the key is off.
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
if [ -z "$obj" ]; then
	# The guest build of the tree under test: KERNEL_SRC's, else mainline's.
	prefix=""
	[ -z "${KERNEL_SRC:-}" ] || prefix=$(tree_prefix "$(resolve_tree)")
	obj=$SPB_CACHE/wt/${prefix}x86_64-guest/_build/kernel/sched/build_utility.o
fi
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

# Direct calls (and tail jumps) between functions of the object.
calls = {}
cur = None
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True, check=True).stdout
for line in dis.splitlines():
    m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
    if m:
        cur = m[1]
        calls.setdefault(cur, set())
        continue
    m = re.search(r"\s(?:call|jmp)\s+[0-9a-f]+ <([^>+]+)(?:\+0x[0-9a-f]+)?>", line)
    if m and cur and m[1] != cur:
        calls[cur].add(m[1])

def reach(fn):
    seen, todo = set(), [fn]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        todo.extend(calls.get(f, ()))
    return seen

def insn(csec, caddr):
    d = subprocess.run(["objdump", "-d", "-j", csec, f"--start-address={caddr}",
                        f"--stop-address={caddr + 8}", obj], capture_output=True, text=True).stdout
    ins = [re.sub(r"\s+", " ", l.strip()) for l in d.splitlines() if re.match(r"^\s*[0-9a-f]+:", l)]
    return ins[0] if ins else hex(caddr)

# The same sites in vmlinux, where objtool has turned the jmp into a NOP.
import os
vmlinux = os.path.join(os.path.dirname(obj), "..", "..", "vmlinux")
vsyms = {}
if os.path.exists(vmlinux):
    for line in subprocess.run(["nm", vmlinux], capture_output=True, text=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] in sites:
            vsyms.setdefault(f[2], int(f[0], 16))

def vinsn(fn, off):
    if fn not in vsyms:
        return ""
    a = vsyms[fn] + off
    d = subprocess.run(["objdump", "-d", f"--start-address={a}", f"--stop-address={a + 8}", vmlinux],
                       capture_output=True, text=True).stdout
    ins = [re.sub(r"\s+", " ", l.strip()) for l in d.splitlines() if re.match(r"^\s*[0-9a-f]+:", l)]
    return f"  | vmlinux: {ins[0]}" if ins else ""

for fn in sorted(sites):
    start = syms[fn][1] if fn in syms else 0
    for csec, caddr in sites[fn]:
        print(f"SITE {fn}+{caddr - start:#x}: {insn(csec, caddr)}{vinsn(fn, caddr - start)}")
bad = 0
for fn in ENTRIES:
    if fn not in calls:
        print(f"FAIL {fn}: not in {obj}")
        bad = 1
        continue
    r = sorted(f for f in reach(fn) if f in sites)
    n = sum(len(sites[f]) for f in r)
    if n:
        print(f"PASS {fn}: {n} {KEY} branch(es) on its paths, in {', '.join(r)}")
    else:
        print(f"FAIL {fn}: no {KEY} branch on its paths")
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
