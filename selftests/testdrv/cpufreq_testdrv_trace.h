/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace event through which amd-pstate reports its requests, defined
 * here for report=amd_pstate on kernels without amd-pstate (the test driver
 * refuses to load where the kernel has its own): same system, name, fields
 * and output, so that a test reads the emulation as it reads amd-pstate.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM amd_cpu

#if !defined(_CPUFREQ_TESTDRV_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CPUFREQ_TESTDRV_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(amd_pstate_perf,

	TP_PROTO(u8 min_perf, u8 target_perf, u8 capacity, u64 freq,
		 u64 mperf, u64 aperf, u64 tsc, unsigned int cpu_id,
		 bool fast_switch),

	TP_ARGS(min_perf, target_perf, capacity, freq, mperf, aperf, tsc,
		cpu_id, fast_switch),

	TP_STRUCT__entry(
		__field(u8, min_perf)
		__field(u8, target_perf)
		__field(u8, capacity)
		__field(unsigned long long, freq)
		__field(unsigned long long, mperf)
		__field(unsigned long long, aperf)
		__field(unsigned long long, tsc)
		__field(unsigned int, cpu_id)
		__field(bool, fast_switch)
	),

	TP_fast_assign(
		__entry->min_perf = min_perf;
		__entry->target_perf = target_perf;
		__entry->capacity = capacity;
		__entry->freq = freq;
		__entry->mperf = mperf;
		__entry->aperf = aperf;
		__entry->tsc = tsc;
		__entry->cpu_id = cpu_id;
		__entry->fast_switch = fast_switch;
	),

	TP_printk("amd_min_perf=%hhu amd_des_perf=%hhu amd_max_perf=%hhu freq=%llu mperf=%llu aperf=%llu tsc=%llu cpu_id=%u fast_switch=%s",
		  __entry->min_perf, __entry->target_perf, __entry->capacity,
		  __entry->freq, __entry->mperf, __entry->aperf, __entry->tsc,
		  __entry->cpu_id, __entry->fast_switch ? "true" : "false")
);

#endif /* _CPUFREQ_TESTDRV_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cpufreq_testdrv_trace
#include <trace/define_trace.h>
