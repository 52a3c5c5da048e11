#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the main job's side-by-side table (scripts/vm-test.sh
# --response-table): with the cpufreq kselftests of the series installed
# in $KSFT (default /payload/kselftest), measure how fast schedutil's
# frequency requests answer a synchronous I/O loop, a wakeup after idle
# and a CPU hog, with the default tunables and with performance_bias=1,
# REPS times each in alternation, and print one "SPB-ROW" line per
# metric: name, then the median, minimum and maximum for each profile.
# Uses the measurement helpers of schedutil_lib.sh, so that the table and
# the kselftests measure the same way.

KSFT=${KSFT:-/payload/kselftest}
REPS=${REPS:-5}
SUGOV_LOAD=$KSFT/cpufreq/schedutil_load
. "$KSFT"/kselftest/ktap_helpers.sh
. "$KSFT"/cpufreq/schedutil_lib.sh

sugov_require_schedutil
sugov_require_trace
sugov_save_state
trap sugov_restore_state EXIT
sugov_set_governor performance
sugov_set_governor schedutil || exit 1
cpu=$(sugov_pick_cpu)
[ -n "$cpu" ] || { echo "SPB-INFO no CPU with a cpufreq policy to run on"; exit 1; }
sugov_setup_trial "$cpu"
sugov_require_bias_tunables "$SUGOV_DIR"
# The defaults (performance_bias=0 restores them only from the profile).
sugov_write "$SUGOV_DIR/iowait_boost" ramp
sugov_write "$SUGOV_DIR/idle_boost" 0
sugov_write "$SUGOV_DIR/up_threshold" 0
sugov_calibrate
echo "SPB-INFO CPU $cpu, $(cat "$SUGOV_POLICY/scaling_driver"), $SUGOV_FMIN..$SUGOV_FMAX kHz, rate_limit_us $(cat "$SUGOV_DIR/rate_limit_us"), $REPS runs each"

i=0
while [ $i -lt "$REPS" ]; do
	for p in 0 1; do
		sugov_write "$SUGOV_DIR/performance_bias" $p
		sugov_trial io "${SCHEDUTIL_IO_FILE:?}" >>"$SUGOV_TMP/io$p" || exit 1
		sugov_trial burst >>"$SUGOV_TMP/burst$p" || exit 1
		sugov_trial hog >>"$SUGOV_TMP/hog$p" || exit 1
	done
	i=$((i + 1))
	echo "SPB-PROGRESS $i/$REPS"
done
sugov_write "$SUGOV_DIR/performance_bias" 0

# Median, minimum and maximum of column N of FILE, scaled by 1/DIV and
# printed with FMT; trials that counted no wakeup ("none") left out.
stats()
{
	awk -v n="$1" '$n != "none" { print $n }' "$2" | sed 's/^-$/999999999999/' | sort -n |
		awk -v d="$3" -v fmt="$4" '{ v[NR] = $1 }
		function f(x) { return x == 999999999999 ? "never" : sprintf(fmt, x / d) }
		END {
			if (!NR) { printf "none none none"; exit }
			printf "%s %s %s", f(v[int((NR + 1) / 2)]), f(v[1]), f(v[NR])
		}'
}

# One row: NAME, then column N of the WORKLOAD's results / DIV with FMT.
row()
{
	echo "SPB-ROW $1|$(stats "$2" "$SUGOV_TMP/${3}0" "$4" "$5")|$(stats "$2" "$SUGOV_TMP/${3}1" "$4" "$5")"
}

row "sync I/O loop: requests to the highest frequency" 1 io 1 %d
row "sync I/O loop: ms to the highest frequency" 2 io 1000 %.1f
row "wakeup after idle: MHz in its first update period" 1 burst 1000 %d
row "CPU hog: requests to the highest frequency" 1 hog 1 %d
row "CPU hog: ms to the highest frequency" 2 hog 1000 %.1f
