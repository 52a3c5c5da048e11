#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/bench.sh: one configuration of the schedutil
# benchmark, in a busybox guest with the test cpufreq driver. Prints
# "SPB-CSV config,workload,rep,metric,value" lines, one "SPB-TL" timeline
# per workload (first repetition: frequency over time on the measured CPU)
# and "SPB-DONE" at the end.
#
#   bench-guest.sh validate
#	DVFS emulation check and calibration: with the userspace governor at
#	each frequency of the table, the rate of a fixed loop
#   bench-guest.sh CONFIG
#	CONFIG: base or default (schedutil, default tunables), profile
#	(performance_bias=1), iowait (iowait_boost=max), idle (idle_boost=100),
#	upthr (up_threshold=33), performance (the performance governor),
#	powersave (the powersave governor: the lower bound of the governor
#	efficiency), uclamp (schedutil's defaults, every workload started with
#	a uclamp minimum of UCLAMP_MIN, default 1024, through sched_setattr)
#
# Other people's programs, Debian's binaries unmodified, come in
# /payload/sysroot (bin/, lib/ with their shared libraries and the dynamic
# loader, share/): fio and rt-app on the measured CPU, dbench on ext4 over
# a memory-backed null_blk device (DB_DEV) on every CPU.
#
# Environment: DRV (the driver module), DRV_PARAMS (its parameters, without
# emulate=), REPS (repetitions, default 5), ITERS_MS (loop iterations per ms
# at the highest frequency, from "validate"), PLOAD (rt-app's ns per loop
# at the highest frequency, from "validate"), IO_DEV (a scratch block device
# for the synchronous I/O loop and fio), DB_DEV (a block device for dbench's
# file system), B (the spb_bench binary).
#
# The energy model: a busy CPU at frequency f draws
#	P(f) = PMAX * (V(f) / VMAX)^2 * f / FMAX,
#	V(f) = VMIN + (VMAX - VMIN) * (f - FMIN) / (FMAX - FMIN)
# with PMAX = 10 W, VMIN = 0.75 V, VMAX = 1.20 V (the shape of a server
# core's voltage/frequency curve, not a measurement); an idle CPU draws
# nothing. Busy time comes from the power:cpu_idle events, frequency from
# power:cpu_frequency, both for every CPU.

CONFIG=$1
REPS=${REPS:-5}
B=${B:-/payload/spb_bench}
# The emulation's period: a busy CPU at f runs f/fmax of each period and
# spins the rest. 200 us slows the 50 us bursts of
# an I/O-bound task evenly rather than one in twenty by 750 us at fmin.
EMU_PERIOD_US=${EMU_PERIOD_US:-200}
T=/sys/kernel/tracing
CF=/sys/devices/system/cpu/cpufreq
PMAX=10 VMIN=0.75 VMAX=1.20

die() { echo "SPB-ERROR $*"; exit 1; }
csv() { echo "SPB-CSV $CONFIG,$1,$2,$3,$4"; }

# The driver, with or without the emulation.
load_driver()
{
	rmmod cpufreq_testdrv 2>/dev/null
	insmod "$DRV" $DRV_PARAMS "$@" || die "insmod $DRV $DRV_PARAMS $*"
	set -- $CF/policy*
	[ -d "$1" ] || die "no cpufreq policy after loading the driver"
}

set_governor()
{
	for p in $CF/policy*; do
		echo "$1" >"$p/scaling_governor" || die "governor $1 on $p"
	done
}

# The configuration's governor and tunables.
configure()
{
	case $CONFIG in
	performance|powersave)
		set_governor "$CONFIG"
		return ;;
	esac
	set_governor schedutil
	S=$CF/schedutil
	case $CONFIG in
	base|default|uclamp) ;;
	profile) echo 1 >$S/performance_bias || die "performance_bias" ;;
	iowait) echo max >$S/iowait_boost || die "iowait_boost" ;;
	idle) echo 100 >$S/idle_boost || die "idle_boost" ;;
	upthr) echo 33 >$S/up_threshold || die "up_threshold" ;;
	*) die "unknown configuration $CONFIG" ;;
	esac
}

cpu=$(tr ',' '\n' </sys/devices/system/cpu/online | tail -n 1)
cpu=${cpu##*-}
ncpu=$((cpu + 1))

load_driver
POL=$(readlink -f /sys/devices/system/cpu/cpu$cpu/cpufreq)
FMIN=$(cat $POL/cpuinfo_min_freq)
FMAX=$(cat $POL/cpuinfo_max_freq)
echo "SPB-INFO $(cat $POL/scaling_driver), $FMIN..$FMAX kHz, CPU $cpu of $ncpu, $REPS runs, $(uname -r)"

SYS=/payload/sysroot
if [ -d $SYS ]; then
	mkdir -p /lib64
	ln -sf $SYS/lib/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2
	export LD_LIBRARY_PATH=$SYS/lib
fi

# rt-app's calibration (ns per loop of its "run" event) at the frequency
# CPU $cpu runs at: one 100 ms "run" at a nominal 1000 ns per loop, scaled
# by the time it took. rt-app's own calibration ("calibration": "CPUn")
# retries until two measurements agree within 2%, and under TCG ran for
# more than 10 minutes without agreeing.
rtapp_calibrate()
{
	cat >/tmp/calib.json <<-EOF
	{ "tasks": { "c": { "cpus": [$cpu], "loop": 1,
	                    "phases": { "p": { "loop": 1, "run": 100000 } } } },
	  "global": { "calibration": 1000, "default_policy": "SCHED_OTHER",
	              "logdir": "/tmp", "log_basename": "calib", "log_size": 2 } }
	EOF
	$SYS/bin/rt-app /tmp/calib.json >/tmp/calib.out 2>&1 || die "rt-app calibration: $(tail -n 3 /tmp/calib.out)"
	awk '!/^#/ && NF >= 9 { t += $3 } END { if (t > 0) printf "%d\n", 1000 * t / 100000 + 0.5 }' /tmp/calib-c-0.log
}

if [ "$CONFIG" = validate ]; then
	load_driver emulate=1 emulate_period_us="$EMU_PERIOD_US"
	set_governor userspace
	echo "$FMAX" >$POL/scaling_setspeed || die "setspeed $FMAX"
	pload=$(rtapp_calibrate)
	[ -n "$pload" ] || die "rt-app printed no calibration"
	echo "SPB-PLOAD $pload"
	for f in $(cat $POL/scaling_available_frequencies); do
		echo "$f" >$POL/scaling_setspeed || die "setspeed $f"
		r=0
		while [ $r -lt 3 ]; do
			out=$("$B" -c "$cpu" -s 20 loop 300) || die "loop: $out"
			csv validate "$r" "rate_$f" "$(echo "$out" | sed -n 's/.*iters_per_s=\([0-9]*\).*/\1/p')"
			# Short bursts between idle periods (about 45 us of
			# work at the highest frequency after 1 ms of sleep,
			# an I/O-bound task's shape) must slow down as much.
			out=$("$B" -c "$cpu" -s 20 burst 1 2500 200) || die "burst: $out"
			csv validate "$r" "burst_$f" "$(echo "$out" | sed -n 's/.*mean_ns=\([0-9]*\).*/\1/p')"
			r=$((r + 1))
		done
	done
	echo SPB-DONE
	exit 0
fi

[ -n "$ITERS_MS" ] || die "ITERS_MS not set: run the validate configuration first"
[ -b "$IO_DEV" ] || die "IO_DEV=$IO_DEV is not a block device"
[ -n "$PLOAD" ] || die "PLOAD not set: run the validate configuration first"
[ -b "$DB_DEV" ] || die "DB_DEV=$DB_DEV is not a block device"
[ -x $SYS/bin/fio ] || die "no $SYS/bin/fio: the payload lacks the sysroot"
UCL=""
[ "$CONFIG" = uclamp ] && UCL="-U ${UCLAMP_MIN:-1024}"

# 1. Hot-path overhead, without the emulation: a pipe ping-pong on one CPU
# (two wakeups and two context switches per round, each an update of the
# governor's utilization hook), under the configuration and under the
# performance governor, which has no hook, in alternation; the difference
# is what the hook costs.
r=0
while [ $r -lt "$REPS" ]; do
	configure
	out=$("$B" -c "$cpu" -s 20 pipe 20000) || die "pipe: $out"
	csv pipe "$r" ns_per_round "$(echo "$out" | sed -n 's/.*ns_per_round=\([0-9]*\).*/\1/p')"
	set_governor performance
	out=$("$B" -c "$cpu" -s 20 pipe 20000) || die "pipe: $out"
	csv pipe "$r" ns_per_round_nohook "$(echo "$out" | sed -n 's/.*ns_per_round=\([0-9]*\).*/\1/p')"
	r=$((r + 1))
done

# 2. Everything else under emulated DVFS.
load_driver emulate=1 emulate_period_us="$EMU_PERIOD_US"
configure
echo 8192 >$T/buffer_size_kb
echo mono >$T/trace_clock
echo 0 >$T/tracing_on
echo 1 >$T/events/power/cpu_frequency/enable
echo 1 >$T/events/power/cpu_idle/enable

# The frequencies in effect on every CPU, "cpu:kHz ...".
freqs_now()
{
	c=0
	while [ $c -lt $ncpu ]; do
		printf '%s:%s ' $c "$(cat /sys/devices/system/cpu/cpu$c/cpufreq/scaling_cur_freq 2>/dev/null || echo $FMIN)"
		c=$((c + 1))
	done
}

# Metrics of one trial from the trace in $TR, between the "start" and "end"
# marks: REQS and US, the requests on CPU after the start up to the first
# for FMAX (0 if FMAX was in effect at the start) and the time to it; AVG,
# the time-weighted frequency on CPU; BAVG, the busy-time-weighted one;
# MJ, the modelled energy of all CPUs; RES, the residency per frequency on
# CPU; OAVG, the time-weighted frequency of the other CPUs (idle but for
# housekeeping); WAKE, the median frequency in effect at the "wake" marks; TPS,
# the frequency transitions per second on CPU (changes of the frequency in
# effect: on hardware each one costs time); with TL=1, the timeline of CPU.
analyse()
{
	awk -v cpu="$1" -v tl="$2" -v f0="$3" -v ncpu=$ncpu -v fmin=$FMIN -v fmax=$FMAX \
	    -v pmax=$PMAX -v vmin=$VMIN -v vmax=$VMAX '
	function pw(f, v) {
		v = vmin + (vmax - vmin) * (f - fmin) / (fmax - fmin)
		return pmax * (v / vmax) * (v / vmax) * f / fmax
	}
	function ts_of(line) {
		if (!match(line, /[0-9]+\.[0-9]+: /))
			return -1
		return substr(line, RSTART, RLENGTH - 2) + 0
	}
	# Account the time from "last" to t to every CPU.
	function advance(t, c, dt) {
		if (on && t > last) {
			dt = t - last
			for (c = 0; c < ncpu; c++) {
				if (busy[c])
					mj += dt * pw(f[c]) * 1000
				if (c != cpu) {
					osum += dt * f[c]
					otime += dt
				}
				if (c == cpu) {
					res[f[c]] += dt
					wsum += dt * f[c]
					tsum += dt
					if (busy[c]) {
						bsum += dt * f[c]
						btime += dt
					}
				}
			}
		}
		last = t
	}
	# Pass 1: the idle state of each CPU before its first cpu_idle event.
	FNR == NR {
		if ($0 ~ / cpu_idle: / && match($0, /cpu_id=[0-9]+/)) {
			c = substr($0, RSTART + 7, RLENGTH - 7) + 0
			if (!(c in first)) {
				first[c] = ($0 ~ /state=4294967295/) ? 0 : 1
			}
		}
		next
	}
	FNR == 1 {
		n = split(f0, a, " ")
		for (i = 1; i <= n; i++) {
			split(a[i], b, ":")
			f[b[1] + 0] = b[2] + 0
		}
		for (c = 0; c < ncpu; c++)
			busy[c] = (c in first) ? first[c] : (c == cpu)
		reqs = 0; found = 0; nw = 0
	}
	{
		t = ts_of($0)
		if (t < 0)
			next
	}
	/spb_bench: start/ {
		advance(t); on = 1; t0 = t
		if (f[cpu] >= fmax) { found = 1; us = 0 }
		if (tl) tls = sprintf("0:%d", f[cpu] / 1000)
		next
	}
	/spb_bench: end/ { advance(t); on = 0; t1 = t; next }
	/spb_bench: wake/ { if (on) wake[++nw] = f[cpu]; next }
	/ cpu_idle: / {
		match($0, /cpu_id=[0-9]+/); c = substr($0, RSTART + 7, RLENGTH - 7) + 0
		advance(t)
		busy[c] = ($0 ~ /state=4294967295/) ? 1 : 0
		next
	}
	/ cpu_frequency: / {
		match($0, /cpu_id=[0-9]+/); c = substr($0, RSTART + 7, RLENGTH - 7) + 0
		match($0, /state=[0-9]+/); v = substr($0, RSTART + 6, RLENGTH - 6) + 0
		advance(t)
		if (on && c == cpu && v != f[c])
			ntr++
		f[c] = v
		if (on && c == cpu) {
			if (!found) {
				reqs++
				if (v >= fmax) { found = 1; us = (t - t0) * 1000000 }
			}
			if (tl) tls = tls sprintf(" %.2f:%d", (t - t0) * 1000, v / 1000)
		}
	}
	END {
		if (!tsum) { print "ERROR no start/end marks in the trace"; exit 1 }
		if (!found) { reqs = "-"; us = "-" }
		if (tl) tls = tls sprintf(" %.2f:%d", (t1 - t0) * 1000, f[cpu] / 1000)
		rs = ""
		for (k in res)
			rs = rs sprintf("%s%d=%.1f", rs == "" ? "" : ";", k / 1000, 100 * res[k] / tsum)
		# median of the wake frequencies (insertion sort: a handful)
		for (i = 2; i <= nw; i++) {
			x = wake[i]
			for (j = i - 1; j >= 1 && wake[j] > x; j--)
				wake[j + 1] = wake[j]
			wake[j + 1] = x
		}
		wk = nw ? wake[int((nw + 1) / 2)] / 1000 : "-"
		printf "REQS %s\nUS %s\nAVG %.0f\nBAVG %.0f\nOAVG %.0f\nMJ %.3f\nRES %s\nWAKE %s\nBUSY_MS %.1f\nTPS %.1f\n",
			reqs, us, wsum / tsum / 1000, btime ? bsum / btime / 1000 : 0,
			otime ? osum / otime / 1000 : 0, mj, rs, wk, btime * 1000, ntr / tsum
		if (tl) print "TL " tls
	}' "$TR" "$TR"
}

# One trial: WORKLOAD NAME, REP, CPU to measure (and pin to, unless "all"),
# then spb_bench's workload arguments. Every policy starts clamped to its
# lowest frequency; the workload lifts the clamps after settling.
trial()
{
	name=$1 rep=$2 mcpu=$3
	shift 3
	pin="-c $mcpu"
	[ "$mcpu" = all ] && pin="" mcpu=$cpu
	unclamp=""
	for p in $CF/policy*; do
		echo "$FMIN" >"$p/scaling_max_freq"
		unclamp="$unclamp -u $p/scaling_max_freq=$FMAX"
	done
	echo 0 >$T/tracing_on
	echo >$T/trace
	f0=$(freqs_now)
	echo 1 >$T/tracing_on
	out=$("$B" $pin -m $T/trace_marker -s 200 $unclamp $UCL "$@")
	rc=$?
	echo 0 >$T/tracing_on
	for p in $CF/policy*; do
		echo "$FMAX" >"$p/scaling_max_freq"
	done
	[ $rc = 0 ] || die "$name: spb_bench exit $rc: $out"
	TR=/tmp/trace
	cat $T/trace >$TR
	tl=0
	[ "$rep" = 0 ] && tl=1
	analyse "$mcpu" $tl "$f0" >/tmp/metrics || die "$name: $(cat /tmp/metrics)"
	while read -r k v; do
		case $k in
		TL) echo "SPB-TL $CONFIG,$name,$v" ;;
		ERROR) die "$name: $v" ;;
		*) csv "$name" "$rep" "$(echo "$k" | tr 'A-Z' 'a-z')" "$v" ;;
		esac
	done </tmp/metrics
	# The workload's own figure (operations, duration).
	for kv in $(echo "$out" | tr ' ' '\n' | grep '='); do
		csv "$name" "$rep" "${kv%%=*}" "${kv#*=}"
	done
}

iters() { echo $((ITERS_MS * $1 / 1000)); }

# fio, psync 4 KiB random I/O at queue depth 1 on IO_DEV: NAME REP RW
# [fio options]. IOPS and completion latency p50/p99 (us) from its terse
# output (version 3: reads from field 6, writes from field 47).
fio_trial()
{
	fname=$1 frep=$2 rw=$3
	shift 3
	trial "$fname" "$frep" "$cpu" run /tmp/fio.out $SYS/bin/fio --name="$fname" \
		--filename="$IO_DEV" --size=64M --rw="$rw" --bs=4k --direct=1 \
		--ioengine=psync --iodepth=1 --thread --time_based --runtime=1 "$@" \
		--output-format=terse --terse-version=3
	first=6
	[ "$rw" = randwrite ] && first=47
	tail -n 1 /tmp/fio.out | tr ';' '\n' | awk -v f=$first -v n="$fname" -v r="$frep" -v c="$CONFIG" '
		NR == f + 2 { iops = $0 }
		NR >= f + 12 && NR < f + 32 && index($0, "%=") {
			split($0, kv, "%=")
			if (kv[1] + 0 == 50) p50 = kv[2]
			if (kv[1] + 0 == 99) p99 = kv[2]
		}
		END {
			if (iops == "" || p50 == "" || p99 == "") { print "SPB-ERROR " n ": fio output not understood"; exit 1 }
			printf "SPB-CSV %s,%s,%s,iops,%s\nSPB-CSV %s,%s,%s,clat_p50_us,%s\nSPB-CSV %s,%s,%s,clat_p99_us,%s\n",
				c, n, r, iops, c, n, r, p50, c, n, r, p99
		}' || die "$fname: $(tail -n 3 /tmp/fio.out)"
}

# rt-app, one periodic task on the measured CPU: NAME REP PERIOD_US, then
# PERIODS:DUTY_PERCENT phases. T, the time the task took to do its work
# (the sum of rt-app's "run" column, us), and the work asked for at the
# highest frequency (c_duration).
rtapp_trial()
{
	rname=$1 rrep=$2 period=$3
	shift 3
	phases="" i=0
	for ph in "$@"; do
		[ $i = 0 ] || phases="$phases,"
		phases="$phases \"p$i\": { \"loop\": ${ph%%:*}, \"run\": $((period * ${ph#*:} / 100)), \"timer\": { \"ref\": \"t\", \"period\": $period } }"
		i=$((i + 1))
	done
	rm -rf /tmp/rtlog && mkdir -p /tmp/rtlog
	cat >/tmp/rtapp.json <<-EOF
	{ "tasks": { "task": { "cpus": [$cpu], "loop": 1, "phases": { $phases } } },
	  "global": { "calibration": $PLOAD, "default_policy": "SCHED_OTHER",
	              "logdir": "/tmp/rtlog", "log_basename": "rt", "log_size": 2 } }
	EOF
	trial "$rname" "$rrep" "$cpu" run /tmp/rtapp.out $SYS/bin/rt-app /tmp/rtapp.json
	cat /tmp/rtlog/rt-task-*.log | awk -v n="$rname" -v r="$rrep" -v c="$CONFIG" '
		/^#/ { next }
		NF >= 9 { t += $3; w += $9; k++ }
		END {
			if (!k) { print "SPB-ERROR " n ": no rt-app log lines"; exit 1 }
			printf "SPB-CSV %s,%s,%s,t_us,%d\nSPB-CSV %s,%s,%s,work_us,%d\n", c, n, r, t, c, n, r, w
		}' || die "$rname: $(tail -n 3 /tmp/rtapp.out)"
}

# dbench, 2 clients on ext4 over DB_DEV, every CPU: MB/s and max latency.
dbench_trial()
{
	trial dbench "$1" all run /tmp/dbench.out $SYS/bin/dbench -c $SYS/share/client.txt \
		-D /mnt/db -t 2 2
	# shellcheck disable=SC2046 # two numbers
	set -- "$1" $(sed -n 's/^ *Throughput \([0-9.]*\) MB\/sec.*max_latency=\([0-9.]*\) ms.*/\1 \2/p' \
		/tmp/dbench.out | tail -n 1)
	[ $# = 3 ] || die "dbench: no throughput line: $(tail -n 3 /tmp/dbench.out)"
	csv dbench "$1" mb_per_s "$2"
	csv dbench "$1" max_latency_ms "$3"
}

$SYS/bin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 "$DB_DEV" >/tmp/mkfs.out 2>&1 ||
	die "mke2fs $DB_DEV: $(tail -n 3 /tmp/mkfs.out)"
mkdir -p /mnt && mount -t ext4 "$DB_DEV" /mnt || die "mount $DB_DEV"
mkdir -p /mnt/db

r=0
while [ $r -lt "$REPS" ]; do
	# Synchronous I/O loop (response and throughput).
	trial io $r $cpu io "$IO_DEV" 1000
	# Wakeups after 50 ms of idle, each a 2 ms burst at FMAX.
	trial burst $r $cpu burst 50 "$(iters 2000)" 8
	# CPU hog (ramp).
	trial hog $r $cpu hog 300
	# Idle-dominated, two shapes of a 1% duty cycle: 100 us at FMAX every
	# 10 ms, and 5 ms every 500 ms.
	trial duty $r $cpu duty 10000 "$(iters 100)" 1000
	trial duty-long $r $cpu duty 500000 "$(iters 5000)" 2000
	# A steady 10% of the highest frequency's capacity: 1 ms of work at
	# FMAX every 10 ms, 4 ms busy and 6 ms idle at the lowest frequency,
	# where a threshold on utilization that is not frequency-invariant
	# would see 40%; the transitions per second show any oscillation.
	trial steady-10 $r $cpu duty 10000 "$(iters 1000)" 3000
	# Build-like: 40 processes of 10 ms at FMAX, 2 at a time, fork + exec.
	trial build $r all build 2 40 "$(iters 10000)"
	# Other people's programs. fio: continuous, and bursts of 32 I/Os
	# with 5 ms of think time, which leaves the CPU idle for more than a
	# tick, so that the I/O-wait boost starts over at every burst.
	fio_trial fio-rr $r randread
	fio_trial fio-rw $r randwrite
	fio_trial fio-rr-think $r randread --thinktime=5000 --thinktime_blocks=32
	fio_trial fio-rw-think $r randwrite --thinktime=5000 --thinktime_blocks=32
	dbench_trial $r
	# rt-app, 16 ms periods: a step from 10% to 80% of the highest
	# frequency's capacity, 0.5 s each, and a ramp 10-30-50-70-90%.
	rtapp_trial rtapp-step $r 16000 32:10 32:80
	rtapp_trial rtapp-ramp $r 16000 16:10 16:30 16:50 16:70 16:90
	r=$((r + 1))
	echo "SPB-PROGRESS $CONFIG $r/$REPS"
done
echo SPB-DONE
