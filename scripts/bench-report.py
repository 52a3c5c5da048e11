#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Table, summary and checks of scripts/bench.sh.

Usage: bench-report.py OUTDIR TIMELINES INFO

Reads OUTDIR/results.csv (config,workload,rep,metric,value) and the
timelines (config,workload,"t_ms:MHz ..."), prints the table (median and
min..max of the runs), writes OUTDIR/summary.csv, OUTDIR/table.md and the
gnuplot scripts and data of the frequency plots, and prints one PASS/FAIL
line per check of the benchmark issue (also appended to $SPB_RESULTS).
Exits 1 if a check failed.
"""
import csv
import os
import statistics
import sys

outdir, timelines, info = sys.argv[1], sys.argv[2], sys.argv[3]
ORDER = ["base", "default", "profile", "iowait", "idle", "upthr", "performance",
         "powersave", "uclamp"]
LABEL = {"base": "base", "default": "default", "profile": "bias=1",
         "iowait": "iowait=max", "idle": "idle=100", "upthr": "upthr=33",
         "performance": "perf gov", "powersave": "powersave",
         "uclamp": "uclamp.min"}

samples = {}
for row in csv.DictReader(open(os.path.join(outdir, "results.csv"))):
    samples.setdefault((row["config"], row["workload"], row["metric"]), []).append(row["value"])
configs = [c for c in ORDER if any(k[0] == c for k in samples)]

INF = float("inf")


def values(c, w, m, scale=1.0):
    out = []
    for v in samples.get((c, w, m), []):
        if v in ("-", ""):
            out.append(INF)
        else:
            out.append(float(v) * scale)
    return out


def stat(vs):
    if not vs:
        return None
    s = sorted(vs)
    return s[(len(s) - 1) // 2], s[0], s[-1]


def fmt(x, prec):
    if x == INF:
        return "never"
    return ("%." + str(prec) + "f") % x


def cell(st, prec):
    if st is None:
        return "n/a"
    m, lo, hi = st
    return "%s (%s..%s)" % (fmt(m, prec), fmt(lo, prec), fmt(hi, prec))


# Derived per-run series: the hook's cost, performance per modelled joule.
def hook_cost(c):
    a, b = values(c, "pipe", "ns_per_round"), values(c, "pipe", "ns_per_round_nohook")
    return [x - y for x, y in zip(a, b)]


def per_joule(c, w, m):
    ops, mj = values(c, w, m), values(c, w, "mj")
    return [o / (e / 1000.0) for o, e in zip(ops, mj) if e > 0]


def build_per_joule(c):
    return [1000.0 / e for e in values(c, "build", "mj") if e > 0]


def per_s(c, w, m):
    """A trial's total as a rate over its wall time (spb_bench's ns)."""
    return [v / (ns / 1e9) for v, ns in zip(values(c, w, m), values(c, w, "ns")) if ns > 0]


def med_of(vs):
    st = stat(vs)
    return st[0] if st else None


def efficiency(c, w):
    """rt-app's governor efficiency for performance, per run: 100 x
    (T_powersave - T) / (T_powersave - T_performance), T the time the
    task took to do its work, the bounds the medians of those governors."""
    tps, tpf = med_of(values("powersave", w, "t_us")), med_of(values("performance", w, "t_us"))
    if tps is None or tpf is None or tps <= tpf:
        return []
    return [100.0 * (tps - t) / (tps - tpf) for t in values(c, w, "t_us")]


def energy_index(c, w):
    """The energy counterpart: 100 x (E - E_powersave) / (E_performance -
    E_powersave), E the modelled energy of the run: 0 costs what
    powersave costs, 100 what the performance governor costs."""
    eps, epf = med_of(values("powersave", w, "mj")), med_of(values("performance", w, "mj"))
    if eps is None or epf is None or epf <= eps:
        return []
    return [100.0 * (e - eps) / (epf - eps) for e in values(c, w, "mj")]


def ops_per_joule(c, w, m):
    """Work per modelled joule: a rate (per s) over the power (mJ per s)."""
    return [r / (p / 1000.0) for r, p in zip(values(c, w, m), per_s(c, w, "mj")) if p > 0]


def col(w, m, scale=1.0):
    """A getter of metric M of workload W, for the rows."""
    return lambda c: values(c, w, m, scale)


def by(f, w, *args):
    """A getter of F(config, W, ...), for the rows."""
    return lambda c: f(c, w, *args)


FIO = [("fio-rr", "fio randread"), ("fio-rw", "fio randwrite"),
       ("fio-rr-think", "fio randread, think"), ("fio-rw-think", "fio randwrite, think")]
RTAPP = [("rtapp-step", "rt-app step 10->80%"), ("rtapp-ramp", "rt-app ramp 10..90%")]

PROG_ROWS = []
for w, name in FIO:
    PROG_ROWS += [
        (None, "%s: IOPS" % name, col(w, "iops"), 0),
        (None, "%s: clat p50, us" % name, col(w, "clat_p50_us"), 0),
        (None, "%s: clat p99, us" % name, col(w, "clat_p99_us"), 0),
        (None, "%s: modelled mJ per s" % name, by(per_s, w, "mj"), 0),
        (None, "%s: I/Os per modelled J" % name,
         by(ops_per_joule, w, "iops"), 0),
    ]
PROG_ROWS += [
    (None, "dbench 2 clients: MB/s", lambda c: values(c, "dbench", "mb_per_s"), 1),
    (None, "dbench 2 clients: max latency, ms", lambda c: values(c, "dbench", "max_latency_ms"), 1),
    (None, "dbench 2 clients: modelled mJ per s", lambda c: per_s(c, "dbench", "mj"), 0),
    (None, "dbench 2 clients: MB per modelled J", lambda c: ops_per_joule(c, "dbench", "mb_per_s"), 2),
]
for w, name in RTAPP:
    PROG_ROWS += [
        (None, "%s: T, ms to do the work" % name,
         col(w, "t_us", 1e-3), 1),
        (None, "%s: governor efficiency, %%" % name, by(efficiency, w), 0),
        (None, "%s: modelled mJ" % name, col(w, "mj"), 0),
        (None, "%s: energy index, %%" % name, by(energy_index, w), 0),
    ]
TPS_ROWS = [(None, name, col(w, "tps"), 1)
            for w, name in FIO + [("dbench", "dbench (CPU 1)")] + RTAPP]
PROG_ROWS[0] = ("7. Programs (Debian's fio, dbench, rt-app)",) + PROG_ROWS[0][1:]

ROWS = [
    # (section, label, getter, precision, "lower"/"higher" is better)
    ("1. I/O response", "sync I/O: requests to fmax", lambda c: values(c, "io", "reqs"), 0),
    (None, "sync I/O: ms to fmax", lambda c: values(c, "io", "us", 1e-3), 1),
    ("2. Idle exit", "burst: MHz at wakeup", lambda c: values(c, "burst", "wake"), 0),
    (None, "burst: duration, us (2 ms at fmax)", lambda c: values(c, "burst", "median_us"), 0),
    ("3. Ramp", "CPU hog: requests to fmax", lambda c: values(c, "hog", "reqs"), 0),
    (None, "CPU hog: ms to fmax", lambda c: values(c, "hog", "us", 1e-3), 1),
    ("4. Frequency cost", "duty 1%: time-weighted MHz", lambda c: values(c, "duty", "avg"), 0),
    (None, "duty 1%: busy-weighted MHz", lambda c: values(c, "duty", "bavg"), 0),
    (None, "duty 1%: modelled mJ per s", lambda c: values(c, "duty", "mj"), 1),
    (None, "duty 1% long: time-weighted MHz", lambda c: values(c, "duty-long", "avg"), 0),
    (None, "duty 1% long: busy-weighted MHz", lambda c: values(c, "duty-long", "bavg"), 0),
    (None, "duty 1% long: modelled mJ per s", lambda c: values(c, "duty-long", "mj", 0.5), 1),
    (None, "duty 1%: other CPU, time-weighted MHz", lambda c: values(c, "duty", "oavg"), 0),
    (None, "sync I/O: time-weighted MHz", lambda c: values(c, "io", "avg"), 0),
    (None, "sync I/O: modelled mJ per s", lambda c: values(c, "io", "mj"), 0),
    (None, "sync I/O: writes per modelled J", lambda c: per_joule(c, "io", "ops"), 0),
    (None, "CPU hog: time-weighted MHz", lambda c: values(c, "hog", "avg"), 0),
    (None, "build: time-weighted MHz (CPU 1)", lambda c: values(c, "build", "avg"), 0),
    (None, "build: modelled mJ", lambda c: values(c, "build", "mj"), 0),
    (None, "build: jobs per modelled J", build_per_joule, 2),
    (None, "steady 10%: time-weighted MHz", lambda c: values(c, "steady-10", "avg"), 0),
    (None, "steady 10%: modelled mJ per s", lambda c: values(c, "steady-10", "mj", 1 / 3.0), 1),
    ("4b. Frequency transitions per s", "sync I/O", lambda c: values(c, "io", "tps"), 1),
    (None, "burst", lambda c: values(c, "burst", "tps"), 1),
    (None, "CPU hog", lambda c: values(c, "hog", "tps"), 1),
    (None, "duty 1%", lambda c: values(c, "duty", "tps"), 1),
    (None, "duty 1% long", lambda c: values(c, "duty-long", "tps"), 1),
    (None, "steady 10% (4 ms busy / 6 ms idle at fmin)", lambda c: values(c, "steady-10", "tps"), 1),
    (None, "build (CPU 1)", lambda c: values(c, "build", "tps"), 1),
] + TPS_ROWS + [
    ("5. Emulated throughput", "sync I/O: writes per s", lambda c: values(c, "io", "ops_per_s"), 0),
    (None, "build: wall ms (40 x 10 ms, -j2)", lambda c: values(c, "build", "ns", 1e-6), 0),
    ("6. Hot path (no emulation)", "pipe: ns per round", lambda c: values(c, "pipe", "ns_per_round"), 0),
    (None, "pipe: ns per round, no hook", lambda c: values(c, "pipe", "ns_per_round_nohook"), 0),
    (None, "hook cost: ns per round", hook_cost, 0),
] + PROG_ROWS

stats = {}
for sec, label, get, prec in ROWS:
    for c in configs:
        stats[(label, c)] = stat(get(c))

# Console table: median (min..max).
w0 = max(len(r[1]) for r in ROWS) + 2
cw = {c: max(len(LABEL[c]), max(len(cell(stats[(r[1], c)], r[3])) for r in ROWS)) + 2
      for c in configs}
print()
print("schedutil benchmark, x86_64 QEMU TCG guest, emulated DVFS: " + info)
print("median (min..max) of the runs; VM figures are relative, not hardware results")
print()
print("".ljust(w0) + "".join(LABEL[c].ljust(cw[c]) for c in configs))
for sec, label, get, prec in ROWS:
    if sec:
        print(sec)
    print(("  " + label).ljust(w0) + "".join(cell(stats[(label, c)], prec).ljust(cw[c])
                                           for c in configs))
print()

# summary.csv and table.md
with open(os.path.join(outdir, "summary.csv"), "w") as o:
    o.write("metric,config,median,min,max,runs\n")
    for sec, label, get, prec in ROWS:
        for c in configs:
            vs = get(c)
            st = stat(vs)
            if st:
                o.write('"%s",%s,%s,%s,%s,%d\n' % (label, c, fmt(st[0], 3), fmt(st[1], 3),
                                                   fmt(st[2], 3), len(vs)))
    # Residency per frequency, median over the runs, per workload.
    for w in ["io", "burst", "hog", "duty", "duty-long", "build"]:
        for c in configs:
            per = {}
            for r in samples.get((c, w, "res"), []):
                for kv in r.split(";"):
                    if "=" in kv:
                        k, v = kv.split("=")
                        per.setdefault(int(k), []).append(float(v))
            n = len(samples.get((c, w, "res"), []))
            for k in sorted(per):
                vs = per[k] + [0.0] * (n - len(per[k]))
                o.write('"%s residency %d MHz %%",%s,%.1f,%.1f,%.1f,%d\n' %
                        (w, k, c, statistics.median(vs), min(vs), max(vs), n))
with open(os.path.join(outdir, "table.md"), "w") as o:
    o.write("| metric | " + " | ".join(LABEL[c] for c in configs) + " |\n")
    o.write("|---|" + "---|" * len(configs) + "\n")
    for sec, label, get, prec in ROWS:
        o.write("| %s | " % label + " | ".join(cell(stats[(label, c)], prec)
                                              for c in configs) + " |\n")

# A narrow table for mail (the cover letter): medians, four configurations.
COVER = ["base", "default", "profile", "performance", "uclamp"]
CROWS = ["sync I/O: requests to fmax", "sync I/O: ms to fmax", "burst: MHz at wakeup",
         "burst: duration, us (2 ms at fmax)", "CPU hog: ms to fmax",
         "duty 1%: time-weighted MHz", "duty 1%: modelled mJ per s",
         "duty 1% long: time-weighted MHz", "duty 1% long: modelled mJ per s",
         "duty 1%: other CPU, time-weighted MHz",
         "sync I/O: writes per s", "sync I/O: modelled mJ per s",
         "sync I/O: writes per modelled J", "build: wall ms (40 x 10 ms, -j2)",
         "build: modelled mJ", "hook cost: ns per round",
         "fio randread: IOPS", "fio randread, think: IOPS", "fio randwrite, think: IOPS",
         "fio randread, think: modelled mJ per s", "dbench 2 clients: MB/s",
         "dbench 2 clients: modelled mJ per s",
         "rt-app step 10->80%: governor efficiency, %", "rt-app step 10->80%: energy index, %",
         "rt-app ramp 10..90%: governor efficiency, %", "rt-app ramp 10..90%: energy index, %"]
PREC = {r[1]: r[3] for r in ROWS}
with open(os.path.join(outdir, "cover-table.txt"), "w") as o:
    cs = [c for c in COVER if c in configs]
    o.write("%-44s" % "median of the runs" + "".join("%11s" % LABEL[c] for c in cs) + "\n")
    for label in CROWS:
        o.write("%-44s" % label + "".join(
            "%11s" % (fmt(stats[(label, c)][0], PREC[label]) if stats.get((label, c)) else "n/a")
            for c in cs) + "\n")

# Frequency plots: one per workload, one line per configuration.
tl = {}
for line in open(timelines):
    parts = line.rstrip("\n").split(",", 2)
    if len(parts) == 3:
        tl.setdefault(parts[1], {})[parts[0]] = parts[2]
TITLE = {"io": "synchronous I/O loop (4 KiB O_DIRECT write + fdatasync)",
         "burst": "wakeups after 50 ms idle, 2 ms bursts",
         "hog": "CPU hog", "duty": "1% duty cycle (100 us every 10 ms)",
         "duty-long": "1% duty cycle (5 ms every 500 ms)",
         "build": "build-like job, 40 processes, 2 at a time (CPU 1)"}
for w, per in tl.items():
    plots = []
    for c in [c for c in ORDER if c in per]:
        dat = "freq-%s-%s.dat" % (w, c)
        with open(os.path.join(outdir, dat), "w") as o:
            for tok in per[c].split():
                t, f = tok.split(":")
                o.write("%s %s\n" % (t, f))
        plots.append("'%s' using 1:2 with steps lw 2 title '%s'" % (dat, LABEL[c]))
    with open(os.path.join(outdir, "freq-%s.gp" % w), "w") as o:
        o.write("set terminal pngcairo size 1000,500 noenhanced\n" if os.system(
            "gnuplot -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1") == 0
            else "set terminal png size 1000,500 noenhanced\n")
        o.write("set output 'freq-%s.png'\n" % w)
        o.write("set title 'Requested frequency, first run: %s'\n" % TITLE.get(w, w))
        o.write("set xlabel 'ms from the workload start'\nset ylabel 'MHz'\n")
        o.write("set key outside right\nset grid\n")
        o.write("plot " + ", ".join(plots) + "\n")

# Performance against modelled energy, per workload, each relative to the
# performance governor's (1, 1): one panel per workload, a point per
# configuration.
TRADE = [("io", "sync I/O loop", lambda c: values(c, "io", "ops_per_s"),
          lambda c: values(c, "io", "mj"))]
TRADE += [(w, name, col(w, "iops"),
           by(per_s, w, "mj")) for w, name in FIO]
TRADE += [("dbench", "dbench 2 clients", lambda c: values(c, "dbench", "mb_per_s"),
           lambda c: per_s(c, "dbench", "mj"))]
TRADE += [(w, name, by(lambda c, w: [1.0 / t for t in values(c, w, "t_us") if t > 0], w),
           col(w, "mj")) for w, name in RTAPP]
TRADE += [("build", "build-like job", lambda c: [1.0 / t for t in values(c, "build", "ns") if t > 0],
           lambda c: values(c, "build", "mj"))]
panels = []
with open(os.path.join(outdir, "tradeoff.dat"), "w") as o:
    for w, name, perf, energy in TRADE:
        gp, ge = med_of(perf("performance")), med_of(energy("performance"))
        if not gp or not ge:
            continue
        o.write("# %s\n" % name)
        for c in configs:
            p, e = med_of(perf(c)), med_of(energy(c))
            if p is not None and e is not None:
                o.write('%.4f %.4f "%s"\n' % (e / ge, p / gp, LABEL[c]))
        o.write("\n\n")
        panels.append(name)
if panels:
    rows_ = (len(panels) + 2) // 3
    with open(os.path.join(outdir, "tradeoff.gp"), "w") as o:
        o.write("set terminal pngcairo size 1500,%d noenhanced\n" % (400 * rows_) if os.system(
            "gnuplot -e 'set terminal pngcairo' </dev/null >/dev/null 2>&1") == 0
            else "set terminal png size 1500,%d noenhanced\n" % (400 * rows_))
        o.write("set output 'tradeoff.png'\n")
        o.write("set multiplot layout %d,3 title 'Performance against modelled energy, "
                "both relative to the performance governor (median of the runs)'\n" % rows_)
        o.write("set xlabel 'energy / performance governor'\nset ylabel 'performance / "
                "performance governor'\nset grid\nunset key\nset offsets 0.05, 0.15, 0.05, 0.05\n")
        for i, name in enumerate(panels):
            o.write("set title '%s'\n" % name)
            o.write("plot 'tradeoff.dat' index %d using 1:2 with points pt 7 ps 1.5, "
                    "'' index %d using 1:2:3 with labels offset 0,1 font ',9'\n" % (i, i))
        o.write("unset multiplot\n")

# Checks.
failed = 0
results = os.environ.get("SPB_RESULTS")


def check(ok, msg):
    global failed
    line = ("PASS " if ok else "FAIL ") + msg
    print(("PASS  " if ok else "FAIL  ") + msg)
    if results:
        with open(results, "a") as r:
            r.write(line + "\n")
    if not ok:
        failed = 1


def med(label, c):
    st = stats.get((label, c))
    return st[0] if st else None


def have(*cs):
    return all(c in configs for c in cs)


if have("profile"):
    m = med("sync I/O: requests to fmax", "profile")
    check(m is not None and m <= 1,
          "profile: I/O response within one governor update (median %s requests to fmax)" % m)
if have("profile", "default", "performance"):
    for label in ["CPU hog: ms to fmax", "burst: MHz at wakeup", "burst: duration, us (2 ms at fmax)"]:
        p, d, g = med(label, "profile"), med(label, "default"), med(label, "performance")
        check(abs(p - g) < abs(p - d),
              "profile closer to the performance governor than to the default: %s "
              "(default %s, profile %s, performance %s)" % (label, fmt(d, 1), fmt(p, 1), fmt(g, 1)))
if have("base", "default"):
    # Same within noise: the medians differ by no more than the larger of
    # the two spreads (max - min), or 5% of the base's median.
    for label in ["sync I/O: requests to fmax", "sync I/O: ms to fmax", "burst: MHz at wakeup",
                  "burst: duration, us (2 ms at fmax)", "CPU hog: ms to fmax",
                  "duty 1%: time-weighted MHz", "sync I/O: writes per s",
                  "build: wall ms (40 x 10 ms, -j2)"] + \
            ["%s: IOPS" % n for w, n in FIO] + ["dbench 2 clients: MB/s"] + \
            ["%s: T, ms to do the work" % n for w, n in RTAPP]:
        b, d = stats[(label, "base")], stats[(label, "default")]
        if b is None or d is None:
            check(False, "defaults as the base: %s: no results (base %s, default %s)" %
                  (label, cell(b, 1), cell(d, 1)))
            continue
        if INF in b + d:
            check(b[0] == d[0], "defaults as the base: %s (base %s, default %s)" %
                  (label, cell(b, 1), cell(d, 1)))
            continue
        noise = max(b[2] - b[1], d[2] - d[1], 0.05 * abs(b[0]))
        check(abs(b[0] - d[0]) <= noise, "defaults as the base within noise: %s (base %s, default %s)"
              % (label, cell(b, 1), cell(d, 1)))
if have("profile", "performance"):
    p, g = med("duty 1%: time-weighted MHz", "profile"), med("duty 1%: time-weighted MHz", "performance")
    check(p <= 0.6 * g, "idle-dominated load: profile's time-weighted frequency far below the "
          "performance governor's (%.0f vs %.0f MHz, at most 60%%)" % (p, g))
    p, g = med("duty 1%: modelled mJ per s", "profile"), med("duty 1%: modelled mJ per s", "performance")
    check(p <= 0.6 * g, "idle-dominated load: profile's modelled energy far below the "
          "performance governor's (%.1f vs %.1f mJ/s, at most 60%%)" % (p, g))
    p, g = med("sync I/O: writes per s", "profile"), med("sync I/O: writes per s", "performance")
    d = med("sync I/O: writes per s", "default") if have("default") else None
    check(p >= 0.95 * g, "sync I/O throughput with the profile within 5%% of the performance "
          "governor's (%.0f vs %.0f writes/s)" % (p, g))
    if d:
        pe = med("sync I/O: modelled mJ per s", "profile")
        de = med("sync I/O: modelled mJ per s", "default")
        print("      profile vs default: %+.1f%% writes/s for %+.1f%% modelled energy" %
              (100 * (p - d) / d, 100 * (pe - de) / de))
        check(p >= d, "sync I/O throughput with the profile at least the defaults' "
              "(%.0f vs %.0f writes/s)" % (p, d))
if have("profile", "default"):
    # A steady load must not make the profile cycle between frequencies:
    # no more transitions per second than the defaults, plus one per
    # 100 ms of slack for the start of the trial.
    p, d = med("steady 10% (4 ms busy / 6 ms idle at fmin)", "profile"), \
        med("steady 10% (4 ms busy / 6 ms idle at fmin)", "default")
    check(p <= d + 10, "steady 10%% load: no oscillation under the profile (%.1f vs %.1f "
          "frequency transitions per s with the defaults)" % (p, d))
if have("profile", "performance"):
    # The goals of issue 17: the profile gets the performance governor's
    # ramp within 1.5 times its time to the highest frequency, and each of
    # the programs at least 0.95 of its performance for at most its energy.
    p, g = med("CPU hog: ms to fmax", "profile"), med("CPU hog: ms to fmax", "performance")
    check(p <= 1.5 * g, "CPU hog: the profile's time to the highest frequency at most 1.5 times the "
          "performance governor's (%s vs %s ms: %.1fx)" % (fmt(p, 1), fmt(g, 1),
                                                          p / g if g else INF))
    goals = [("%s" % n, "%s: IOPS" % n, "%s: modelled mJ per s" % n, False) for w, n in FIO]
    goals += [("dbench 2 clients", "dbench 2 clients: MB/s", "dbench 2 clients: modelled mJ per s",
               False)]
    goals += [(n, "%s: T, ms to do the work" % n, "%s: modelled mJ" % n, True) for w, n in RTAPP]
    for name, perf, energy, lower in goals:
        pp, gp = med(perf, "profile"), med(perf, "performance")
        pe, ge = med(energy, "profile"), med(energy, "performance")
        if None in (pp, gp, pe, ge):
            check(False, "%s: no results for the profile or the performance governor" % name)
            continue
        ratio = gp / pp if lower else pp / gp
        check(ratio >= 0.95, "%s: the profile's performance at least 0.95 of the performance "
              "governor's (%.3f: %s vs %s)" % (name, ratio, fmt(pp, 1), fmt(gp, 1)))
        check(pe <= ge, "%s: the profile's modelled energy at most the performance governor's "
              "(%s vs %s)" % (name, fmt(pe, 1), fmt(ge, 1)))
if have("profile", "default"):
    # Idle-dominated loads keep their cost: the 1% duty cycle at 10 ms
    # within the defaults' spread, or 5% of their median.
    p, d = med("duty 1%: modelled mJ per s", "profile"), stats[("duty 1%: modelled mJ per s", "default")]
    check(p <= max(d[2], 1.05 * d[0]), "duty 1%% at 10 ms: the profile's modelled energy the "
          "defaults' (%.1f vs %s mJ/s)" % (p, cell(d, 1)))
if have("base", "default"):
    b, d = stats[("hook cost: ns per round", "base")], stats[("hook cost: ns per round", "default")]
    spread = max(b[2] - b[1], d[2] - d[1])
    check(abs(d[0] - b[0]) <= spread,
          "hot path: the hook's cost with the defaults is the base's within the spread "
          "(base %s, default %s ns per round; spread %.0f)" % (cell(b, 0), cell(d, 0), spread))
sys.exit(failed)
