#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/vm-stress.sh (busybox sh, as root, in a VM with
# the test cpufreq driver at $TESTDRV and the cpufreq kselftests in $KSFT).
#
# 1. Hotplug semantics of the tunables: values survive the unplug of some
#    of a policy's CPUs; a policy whose last CPU went comes back with the
#    boot default (Kconfig / schedutil.performance_bias=) when its tunables
#    are per policy, and keeps the global values otherwise.
# 2. For $STRESS_SECONDS seconds, all at once: $STRESS_WRITERS processes
#    writing valid and hostile values to every schedutil tunable, governor
#    switches between schedutil and performance, CPU hot-unplug and
#    re-plug, the I/O, idle-wakeup and CPU-hog workloads, and reloads of
#    the test driver in each mode and layout.
#
# Then it checks that every tunable holds a value that was validly written
# (or its default) and that no hostile write was taken, and prints
# "STRESS-COUNT <action> <n>" lines. Exit status 0 if all checks held.
# The host checks the console for splats.

KSFT=${KSFT:-/payload/kselftest}
TESTDRV=${TESTDRV:-/payload/cpufreq_testdrv.ko}
STRESS_SECONDS=${STRESS_SECONDS:-30}
STRESS_WRITERS=${STRESS_WRITERS:-3}
LOAD=$KSFT/cpufreq/schedutil_load
CPUFREQ=/sys/devices/system/cpu/cpufreq
SYSCPU=/sys/devices/system/cpu
W=/tmp/stress
KNOBS="iowait_boost idle_boost up_threshold performance_bias rate_limit_us"
rm -rf "$W" && mkdir -p "$W"
fails=0

say() { echo "STRESS: $*"; }
bad() { echo "STRESS-BAD $*"; fails=$((fails + 1)); }
rnd() { echo $((RANDOM % $1)); }
ncpus=$(ls -d "$SYSCPU"/cpu[0-9]* | wc -l)

# The three knobs under performance_bias=1 (the series' profile), and
# their boot default.
PROFILE="max 100 33"
read -r P_IOWAIT P_IDLE P_UP <<EOF
$PROFILE
EOF
if grep -q 'schedutil.performance_bias=1' /proc/cmdline; then
	DEF=$PROFILE
else
	DEF="ramp 0 0"
fi

load_driver() {
	rmmod cpufreq_testdrv 2>/dev/null
	insmod "$TESTDRV" "$@" || return 1
	for p in "$CPUFREQ"/policy*; do
		echo schedutil >"$p/scaling_governor" 2>/dev/null
	done
	return 0
}

# The tunables directory of CPU N's policy.
tdir() {
	if [ -d "$CPUFREQ/schedutil" ]; then
		echo "$CPUFREQ/schedutil"
	else
		echo "$(readlink -f "$SYSCPU/cpu$1/cpufreq")/schedutil"
	fi
}

expect() {
	if [ "$2" = "$3" ]; then
		say "ok: $1 ($2)"
	else
		bad "hotplug: $1: read '$2', expected '$3'"
	fi
}

# --- 0. The boot parameter -------------------------------------------------
# scripts/vm-stress.sh passes schedutil.performance_bias=maybe before =1:
# the kernel must report the bad value, and it must not reach init (the
# kernel drops an unconsumed dotted parameter silently; an undotted one
# would go to init's environment).
if grep -q 'schedutil.performance_bias=maybe' /proc/cmdline; then
	if tr '\0' '\n' </proc/1/environ | grep -q '^schedutil.performance_bias='; then
		bad "boot: schedutil.performance_bias=maybe reached init's environment"
	else
		say "ok: boot: schedutil.performance_bias=maybe not passed to init"
	fi
	if dmesg | grep -q 'schedutil.performance_bias=maybe: not a boolean, ignored'; then
		say "ok: boot: schedutil.performance_bias=maybe reported as not a boolean"
	else
		bad "boot: no warning for schedutil.performance_bias=maybe in the kernel log"
	fi
fi

# --- 1. Hotplug semantics ---------------------------------------------------
last=$((ncpus - 1))
if [ "$last" -ge 1 ]; then
	load_driver shared=1 || bad "insmod shared=1 failed"
	echo 37 >"$(tdir 0)/idle_boost"
	echo 0 >"$SYSCPU/cpu$last/online"
	expect "shared policy, one CPU unplugged" "$(cat "$(tdir 0)/idle_boost")" 37
	echo 1 >"$SYSCPU/cpu$last/online"
	expect "shared policy, CPU back" "$(cat "$(tdir 0)/idle_boost")" 37

	load_driver || bad "insmod failed"
	echo 37 >"$(tdir "$last")/idle_boost"
	echo 0 >"$SYSCPU/cpu$last/online"
	echo 1 >"$SYSCPU/cpu$last/online"
	expect "global tunables, a policy's last CPU unplugged and back" \
		"$(cat "$(tdir "$last")/idle_boost")" 37

	load_driver gov_per_policy=1 || bad "insmod gov_per_policy=1 failed"
	echo 37 >"$(tdir 0)/idle_boost"
	echo 37 >"$(tdir "$last")/idle_boost"
	echo 0 >"$SYSCPU/cpu$last/online"
	echo 1 >"$SYSCPU/cpu$last/online"
	d=$(tdir "$last")
	expect "per-policy tunables, the policy's last CPU unplugged and back" \
		"$(cat "$d/iowait_boost") $(cat "$d/idle_boost") $(cat "$d/up_threshold")" "$DEF"
	expect "per-policy tunables, the other policy untouched" \
		"$(cat "$(tdir 0)/idle_boost")" 37
fi

# --- 2. Stress ----------------------------------------------------------------
load_driver || bad "insmod failed"
end=$(($(date +%s) + STRESS_SECONDS))
running() { [ "$(date +%s)" -lt "$end" ]; }

# Write a payload of CATEGORY for KNOB to FILE. Category 0 is a valid
# value; the others are hostile and must be rejected (must_reject=1), save
# for mainline's rate_limit_us, which takes a 5000-digit number cut into
# page-sized writes.
payload() {
	pf=$1 pknob=$2 pcat=$3
	must_reject=1
	case $pcat in
	0)
		must_reject=0
		case $pknob in
		iowait_boost) set -- off ramp max; shift "$(rnd 3)"; v=$1 ;;
		performance_bias) v=$(rnd 2) ;;
		rate_limit_us) v=$((500 + $(rnd 20000))) ;;
		*) v=$(rnd 101) ;;
		esac
		printf '%s\n' "$v" >"$pf" ;;
	1) printf 'garbage%s\n' "$(rnd 100)" >"$pf" ;;
	2) printf '99999999999999999999%s\n' "$(rnd 10)" >"$pf" ;;
	3) printf '%s\n' "-$(rnd 1000)" >"$pf" ;;
	4) printf '%05000d' 1 >"$pf"
	   [ "$pknob" = rate_limit_us ] && must_reject=0 ;;
	5) head -c $((1 + $(rnd 64))) /dev/urandom | tr '\000\n' xy >"$pf"
	   printf 'zz' >>"$pf" ;;
	6) case $pknob in
	   iowait_boost) printf 'maxi\n' ;;
	   performance_bias) printf '2\n' ;;
	   rate_limit_us) printf 'x12\n' ;;
	   *) printf '%s\n' "$((101 + $(rnd 1000)))" ;;
	   esac >"$pf" ;;
	7) printf '\n' >"$pf" ;;
	esac
}

writer() {
	id=$1 n=0
	while running; do
		for d in "$CPUFREQ"/schedutil "$CPUFREQ"/policy*/schedutil; do
			[ -d "$d" ] || continue
			for knob in $KNOBS; do
				f=$d/$knob
				cat=$(rnd 8)
				payload "$W/val.$id" "$knob" "$cat"
				if [ "$(rnd 10)" = 0 ]; then
					# An empty write: zero bytes, changes nothing.
					dd if=/dev/null of="$f" 2>/dev/null && echo x >>"$W/empty"
					continue
				fi
				if dd if="$W/val.$id" of="$f" bs=65536 count=1 2>/dev/null; then
					if [ "$must_reject" = 0 ]; then
						echo "$knob $(cat "$W/val.$id")" >>"$W/ok.$id"
					else
						echo "$f cat$cat '$(od -An -c "$W/val.$id" | tr -s ' ' | head -c 80)'" >>"$W/unexpected"
					fi
				else
					echo x >>"$W/rejected.$id"
				fi
				n=$((n + 1))
			done
		done
		# Partial writes: one byte per write(2).
		d=$CPUFREQ/schedutil
		[ -d "$d" ] || d=$(ls -d "$CPUFREQ"/policy*/schedutil 2>/dev/null | head -n 1)
		if [ -n "$d" ] && [ -d "$d" ]; then
			for c in 5 0 x; do
				if printf '%s' "$c" >"$d/idle_boost" 2>/dev/null; then
					echo "idle_boost $c" >>"$W/ok.$id"
				fi
			done
		fi
	done
}

switcher() {
	while running; do
		for p in "$CPUFREQ"/policy*; do
			g=schedutil
			[ "$(rnd 3)" = 0 ] && g=performance
			echo "$g" >"$p/scaling_governor" 2>/dev/null && echo x >>"$W/switch"
		done
		sleep 0.0$(rnd 5)
	done
}

plugger() {
	[ "$ncpus" -ge 2 ] || return 0
	while running; do
		c=$((1 + $(rnd $((ncpus - 1)))))
		if echo 0 >"$SYSCPU/cpu$c/online" 2>/dev/null; then
			sleep 0.0$(rnd 5)
			echo 1 >"$SYSCPU/cpu$c/online" && echo x >>"$W/hotplug"
		fi
		sleep 0.0$(rnd 5)
	done
}

reloader() {
	while running; do
		sleep 1.$(rnd 10)
		set -- "mode=fast" "mode=slow latency_us=50" "mode=perf"
		shift "$(rnd 3)"
		args=$1
		[ "$(rnd 2)" = 0 ] && args="$args shared=1"
		[ "$(rnd 3)" = 0 ] && args="$args gov_per_policy=1"
		if load_driver $args; then
			echo "$args" >>"$W/reload"
		else
			echo "$args" >>"$W/reload-failed"
		fi
	done
	load_driver
}

workloads() {
	while running; do
		c=$(rnd "$ncpus")
		case $(rnd 3) in
		0) "$LOAD" -c "$c" io "$W/io.dat" 100 >/dev/null 2>&1 ;;
		1) "$LOAD" -c "$c" burst 20 2000 5 >/dev/null 2>&1 ;;
		2) "$LOAD" -c "$c" hog 100 >/dev/null 2>&1 ;;
		esac
		echo x >>"$W/workload"
	done
}

say "stress for ${STRESS_SECONDS}s: $STRESS_WRITERS writers, governor switches, hotplug, driver reloads, workloads"
i=0
while [ $i -lt "$STRESS_WRITERS" ]; do
	writer $i &
	i=$((i + 1))
done
switcher &
plugger &
workloads &
workloads &
reloader
wait

# All CPUs back, the driver loaded (the reloader's last action), then the
# values: each must be a default or a value some writer validly wrote.
for c in $(seq 1 $((ncpus - 1))); do
	echo 1 >"$SYSCPU/cpu$c/online" 2>/dev/null
done
cat "$W"/ok.* 2>/dev/null | sort -u >"$W/ok"
set -- $DEF
printf 'iowait_boost %s\nidle_boost %s\nup_threshold %s\n' "$1" "$2" "$3" >>"$W/ok"
checked=0
for d in "$CPUFREQ"/schedutil "$CPUFREQ"/policy*/schedutil; do
	[ -d "$d" ] || continue
	for knob in iowait_boost idle_boost up_threshold; do
		v=$(cat "$d/$knob")
		# performance_bias=1 writes set the profile, =0 the defaults.
		case "$knob $v" in
		"iowait_boost $P_IOWAIT"|"idle_boost $P_IDLE"|"up_threshold $P_UP")
			grep -qx 'performance_bias 1' "$W/ok" && { checked=$((checked + 1)); continue; } ;;
		"iowait_boost ramp"|"idle_boost 0"|"up_threshold 0")
			grep -qx 'performance_bias 0' "$W/ok" && { checked=$((checked + 1)); continue; } ;;
		esac
		grep -qx "$knob $v" "$W/ok" || bad "$d/$knob is '$v', never validly written"
		checked=$((checked + 1))
	done
	pb=$(cat "$d/performance_bias")
	want=0
	[ "$(cat "$d/iowait_boost") $(cat "$d/idle_boost") $(cat "$d/up_threshold")" = "$PROFILE" ] && want=1
	[ "$pb" = "$want" ] || bad "$d/performance_bias reads $pb with $(cat "$d/iowait_boost") $(cat "$d/idle_boost") $(cat "$d/up_threshold")"
done
if [ -s "$W/unexpected" ]; then
	bad "hostile writes taken: $(wc -l <"$W/unexpected")"
	head -n 10 "$W/unexpected" | sed 's/^/STRESS-BAD   /'
fi

count() { cat "$@" 2>/dev/null | wc -l; }
echo "STRESS-COUNT valid-writes $(count "$W"/ok.*)"
echo "STRESS-COUNT rejected-writes $(count "$W"/rejected.*)"
echo "STRESS-COUNT empty-writes $(count "$W/empty")"
echo "STRESS-COUNT governor-switches $(count "$W/switch")"
echo "STRESS-COUNT hotplug-cycles $(count "$W/hotplug")"
echo "STRESS-COUNT driver-reloads $(count "$W/reload")"
echo "STRESS-COUNT driver-reloads-failed $(count "$W/reload-failed")"
echo "STRESS-COUNT workload-runs $(count "$W/workload")"
echo "STRESS-COUNT values-checked $checked"
[ "$checked" -gt 0 ] || bad "no tunable left to check"
[ "$fails" = 0 ]
