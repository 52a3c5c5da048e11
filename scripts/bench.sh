#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#: Usage: scripts/bench.sh [--reps N] [--out DIR] [--configs LIST]
#:
#: The schedutil benchmark, in QEMU guests whose test cpufreq driver
#: emulates DVFS (selftests/testdrv, emulate=1): build the base and the
#: series' guest kernels, the driver and the workloads (selftests/bench),
#: check the emulation (a fixed loop's rate at each frequency under the
#: userspace governor must rise with frequency, within 10% of
#: proportional), then boot each configuration in turn and run the
#: workloads N times (default 5):
#:   base         the unpatched base kernel, schedutil
#:   default      the series, default tunables
#:   profile      the series, performance_bias=1
#:   iowait, idle, upthr   one knob each: iowait_boost=max, idle_boost=100,
#:                up_threshold=33 (the profile's values)
#:   performance  the series, the performance governor (the upper bound)
#:   powersave    the series, the powersave governor (the lower bound of
#:                rt-app's governor efficiency)
#:   uclamp       the series with defaults, each workload started with
#:                uclamp.min 1024 (the per-task alternative)
#: Workloads: spb_bench's (an I/O loop, wakeups, a hog, duty cycles, a
#: build-like job, a pipe) and Debian's fio, dbench and rt-app, copied into
#: the guest unmodified with their shared libraries.
#: Prints one table (median, min..max), checks the results the series
#: promises (PASS/FAIL lines), and writes DIR/results.csv (every sample),
#: DIR/summary.csv, DIR/emulation.csv and DIR/freq-<workload>.png
#: (frequency over time in the first run, one line per configuration) and
#: DIR/tradeoff.png (per workload, performance against modelled energy).
#: VM figures are relative: they compare governors on an emulated CPU, not
#: hardware. About 50 minutes warm with 5 runs (docs/benchmark.md).
#:
#:   --reps N       runs of each workload per configuration (default 5)
#:   --out DIR      where to write (default $SPB_CACHE/bench/latest)
#:   --configs LIST comma-separated subset of the configurations
#:   --icount SHIFT QEMU's instruction counting (default 2: 4 ns per guest
#:                  instruction): guest time follows the instructions run,
#:                  not the host's clock, so the figures do not move with
#:                  the host's load; "off" for plain TCG
set -euo pipefail
. "$(dirname "$0")/lib.sh"

reps=5 outdir="" configs="base,default,profile,iowait,idle,upthr,performance,powersave,uclamp" icount=2
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=${2:?--reps needs a number}; shift 2 ;;
	--out) outdir=${2:?--out needs a directory}; shift 2 ;;
	--configs) configs=${2:?--configs needs a list}; shift 2 ;;
	--icount) icount=${2:?--icount needs a shift or off}; shift 2 ;;
	-h|--help) usage_from "$0"; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
case $reps in ''|*[!0-9]*|0) die "--reps needs a positive number" ;; esac
[ -n "$outdir" ] || outdir=$SPB_CACHE/bench/latest
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
IFS=, read -r -a clist <<<"$configs"
for c in "${clist[@]}"; do
	case $c in base|default|profile|iowait|idle|upthr|performance|powersave|uclamp) ;;
	*) die "unknown configuration '$c' (see --help)" ;;
	esac
done

icountargs=()
[ "$icount" = off ] || icountargs=(--icount "$icount")
tree=$(resolve_tree)
work=$SPB_CACHE/bench
mkdir -p "$work"
export SPB_ARCH=x86_64
DRV_PARAMS="mode=fast"
# The synchronous I/O goes to null_blk, whose requests complete from an
# hrtimer after this many nanoseconds of guest time (a fast NVMe device's
# order): a virtio disk's latency is the host's and moves with its load.
IO_LATENCY_NS=50000
# Two devices of 1 GiB, memory-backed so that the second holds dbench's
# ext4 file system.
NULL_BLK="null_blk.irqmode=2 null_blk.completion_nsec=$IO_LATENCY_NS null_blk.nr_devices=2"
NULL_BLK="$NULL_BLK null_blk.gb=1 null_blk.memory_backed=1"

# Debian's fio, dbench and rt-app (and mke2fs for dbench's file system),
# with their shared libraries and the dynamic loader, for the guest.
make_sysroot() {
	local d=$1 b path lib
	rm -rf "$d" && mkdir -p "$d/bin" "$d/lib" "$d/share"
	for b in fio dbench rt-app mke2fs; do
		path=$(PATH=$PATH:/usr/sbin:/sbin command -v "$b") ||
			die "$b not installed: run scripts/install-deps.sh"
		cp "$path" "$d/bin/$b"
		for lib in $(ldd "$path" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }'); do
			cp -L "$lib" "$d/lib/"
		done
	done
	[ -e "$d/lib/ld-linux-x86-64.so.2" ] || die "no dynamic loader among fio's libraries"
	cp /usr/share/dbench/client.txt "$d/share/" ||
		die "no /usr/share/dbench/client.txt: run scripts/install-deps.sh"
}

# Kernels, drivers and the payload.
declare -A image payload
for rev in branch base; do
	log "building the $rev guest kernel"
	out=$("$SPB_ROOT/scripts/build-kernel.sh" --tree "$tree" --rev "$rev" --config x86_64-bench)
	image[$rev]=$(kernel_image "$out")
	p=$work/payload-$rev
	rm -rf "$p" && mkdir -p "$p"
	build_testdrv "$(dirname "$out")" "$out" "$work/testdrv-$rev"
	cp "$work/testdrv-$rev/cpufreq_testdrv.ko" "$p/"
	payload[$rev]=$p
done
log "building the workloads (static)"
quiet "$work/spb_bench.log" gcc -O2 -Wall -Wextra -Werror -static \
	-o "$work/spb_bench" "$SPB_ROOT/selftests/bench/spb_bench.c"
log "copying fio, dbench and rt-app with their libraries"
make_sysroot "$work/sysroot"
note "sysroot: $(du -sh "$work/sysroot" | cut -f1)"
for rev in branch base; do
	cp "$work/spb_bench" "$SPB_ROOT/selftests/bench/bench-guest.sh" "${payload[$rev]}/"
	cp -a "$work/sysroot" "${payload[$rev]}/"
done

# Boot REV's kernel and run bench-guest.sh CONFIG; the console log is
# $work/CONFIG.log.
boot() {
	local rev=$1 config=$2 env=$3 logf=$work/$2.log rc
	set +e
	"$SPB_ROOT/scripts/vm-run.sh" --kernel "${image[$rev]}" --payload "${payload[$rev]}" "${icountargs[@]}" \
		--cpus 2 --mem 2048 --timeout 3600 --log "$logf" \
		--append "$NULL_BLK" -- \
		"DRV=/payload/cpufreq_testdrv.ko DRV_PARAMS='$DRV_PARAMS' REPS=$reps IO_DEV=/dev/nullb0 DB_DEV=/dev/nullb1 $env sh /payload/bench-guest.sh $config" \
		>/dev/null 2>&1
	rc=$?
	set -e
	if [ $rc != 0 ] || ! grep -q '^SPB-DONE' "$logf"; then
		grep -m 5 -E 'SPB-ERROR|Kernel panic|BUG:|WARNING:' "$logf" | sed 's/^/      /' || true
		tail -n 5 "$logf" | sed 's/^/      /'
		die "$config: the guest failed (exit $rc; log: $logf)"
	fi
}

start=$(date +%s)
log "checking the DVFS emulation (userspace governor, each frequency; about 1 minute)"
boot branch validate ""
sed -n 's/^SPB-CSV //p' "$work/validate.log" >"$outdir/emulation-raw.csv"
iters_ms=$(python3 - "$outdir/emulation-raw.csv" "$outdir/emulation.csv" <<'PY'
import csv, statistics, sys
rates, bursts = {}, {}
for cfg, wl, rep, metric, value in csv.reader(open(sys.argv[1])):
    kind, f = metric.split("_")
    # The loop's iterations per s; a burst's rate is 1 / its mean time.
    (rates if kind == "rate" else bursts).setdefault(int(f), []).append(
        int(value) if kind == "rate" else 1e9 / int(value))
fs = sorted(rates)
top = statistics.median(rates[fs[-1]])
btop = statistics.median(bursts[fs[-1]]) if fs[-1] in bursts else 0
with open(sys.argv[2], "w") as o:
    o.write("khz,iters_per_s_median,relative_rate,relative_freq,error_pct,"
            "burst_relative_rate,burst_error_pct\n")
    for f in fs:
        m = statistics.median(rates[f])
        rf = f / fs[-1]
        b = statistics.median(bursts[f]) / btop if btop and f in bursts else float("nan")
        o.write("%d,%d,%.3f,%.3f,%.1f,%.3f,%.1f\n" % (f, m, m / top, rf,
                100 * (m / top - rf) / rf, b, 100 * (b - rf) / rf))
print(int(top / 1000))
PY
)
note "loop rate at the highest frequency: $iters_ms iterations per ms"
pload=$(sed -n 's/^SPB-PLOAD \([0-9]*\).*/\1/p' "$work/validate.log" | head -n1)
[ -n "$pload" ] || die "the validate guest printed no rt-app calibration (log: $work/validate.log)"
note "rt-app calibration at the highest frequency: $pload ns per loop"
# Both a continuous loop and short bursts between idle periods (the shape
# of an I/O-bound task) must run at f/fmax of their speed at fmax.
emulation_ok() {
	python3 - "$outdir/emulation.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = 0
prev = prevb = 0
print("    %8s  %14s  %8s  %8s  %6s  %11s  %6s" % ("MHz", "iterations/s", "rate", "f/fmax", "error",
                                                "bursts rate", "error"))
for r in rows:
    rate, err = float(r["relative_rate"]), float(r["error_pct"])
    brate, berr = float(r["burst_relative_rate"]), float(r["burst_error_pct"])
    print("    %8d  %14s  %8s  %8s  %5s%%  %11s  %5s%%" % (int(r["khz"]) // 1000, r["iters_per_s_median"],
          r["relative_rate"], r["relative_freq"], r["error_pct"], r["burst_relative_rate"],
          r["burst_error_pct"]))
    if rate <= prev or abs(err) > 10 or math.isnan(brate) or brate <= prevb or abs(berr) > 10:
        bad = 1
    prev, prevb = rate, brate
sys.exit(bad)
PY
}
if emulation_ok; then
	pass "DVFS emulation: loop and short-burst rates rise with frequency, within 10% of proportional"
else
	fail "DVFS emulation: loop or short-burst rate not monotonic or off proportional by more than 10% ($outdir/emulation.csv)"
fi

: >"$outdir/results.csv.tmp"
: >"$work/timelines"
i=0
for c in "${clist[@]}"; do
	i=$((i + 1))
	rev=branch
	[ "$c" = base ] && rev=base
	log "[$(( $(date +%s) - start ))s] configuration $i/${#clist[@]}: $c ($reps runs of 14 workloads, about $((reps * 65 + 20)) s on an idle machine)"
	boot "$rev" "$c" "ITERS_MS=$iters_ms PLOAD=$pload"
	sed -n 's/^SPB-CSV //p' "$work/$c.log" >>"$outdir/results.csv.tmp"
	sed -n 's/^SPB-TL //p' "$work/$c.log" >>"$work/timelines"
done
{ echo "config,workload,rep,metric,value"; cat "$outdir/results.csv.tmp"; } >"$outdir/results.csv"
rm -f "$outdir/results.csv.tmp"
info=$(sed -n 's/^SPB-INFO //p' "$work/${clist[0]}.log" | head -n1)

# The table, the summary and the checks.
python3 "$SPB_ROOT/scripts/bench-report.py" "$outdir" "$work/timelines" "$info" || SPB_FAILED=1
if command -v gnuplot >/dev/null; then
	for g in "$outdir"/freq-*.gp "$outdir"/tradeoff.gp; do
		[ -e "$g" ] || continue
		(cd "$outdir" && gnuplot "$(basename "$g")") 2>"$work/gnuplot.log" ||
			warn "gnuplot failed on $g (see $work/gnuplot.log)"
	done
	note "plots: $(cd "$outdir" && ls freq-*.png tradeoff.png 2>/dev/null | tr '\n' ' ')"
else
	warn "gnuplot not installed (apt-get install gnuplot-nox): no PNG plots, only their data in $outdir"
fi
log "done in $(( $(date +%s) - start ))s; results in $outdir"
[ "$SPB_FAILED" = 0 ]
