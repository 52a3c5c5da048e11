// SPDX-License-Identifier: GPL-2.0
/*
 * cpufreq_testdrv - a test-only cpufreq driver for virtual machines
 *
 * No cpufreq driver binds in a QEMU guest, so no governor runs there. This
 * driver gives every CPU a made-up frequency table and takes every request
 * at once, through the interface selected by the "mode" parameter, so that
 * schedutil and its tests run in a VM on each of the paths it has:
 *
 *   fast   ->fast_switch(): schedutil switches from scheduler context
 *   slow   ->target_index() only: schedutil defers to its sugov kthread
 *   perf   ->adjust_perf() (and ->fast_switch()): sugov_update_single_perf,
 *          taken where utilization is frequency-invariant
 *
 * with one policy per CPU, or one policy for all CPUs ("shared=1", which
 * makes schedutil use sugov_update_shared()), and governor tunables that
 * are global or, with "gov_per_policy=1", in each policy's directory. Requests show up as usual in
 * scaling_cur_freq, the stats directory and the power:cpu_frequency trace
 * event (adjust_perf requests in scaling_cur_freq and the trace event
 * only, as for other adjust_perf drivers).
 *
 * "cap_khz" stands for a firmware or thermal cap: a limit of the driver's
 * own on every policy (a frequency QoS request, as acpi-cpufreq makes for
 * _PPC), below the highest frequency; 0 lifts it. It can be changed at run
 * time through /sys/module/cpufreq_testdrv/parameters/cap_khz, so that a
 * test can check what is left of a user's limit once the cap is gone.
 *
 * "report" makes it report requests as a driver with ->adjust_perf()
 * does on current Intel and AMD servers, where the cpufreq core traces no
 * power:cpu_frequency for schedutil's requests and the driver traces its
 * own events, in its own units, on every request (mode=perf only; such
 * drivers also set CPUFREQ_NEED_UPDATE_LIMITS, and so does this one):
 *
 *   pstate_sample      as intel_cpufreq with HWP: power:pstate_sample with
 *                      the P-state ratio (100 MHz here) in "to", on the CPU
 *                      that makes the request; the first one after the
 *                      driver is loaded is not traced (no sample yet)
 *   amd_pstate         as amd-pstate in passive mode: amd_cpu:amd_pstate_perf
 *                      with the request in amd_des_perf (perf units, 255 at
 *                      cpuinfo_max_freq) for the CPU in cpu_id
 *   amd_pstate_guided  as amd-pstate in guided mode: the request in
 *                      amd_min_perf and amd_des_perf 0 under a governor
 *                      that switches dynamically
 *
 * so that tests can be run against that way of reporting. The built-in
 * pstate_sample tracepoint is not exported to modules: it is looked up by
 * name and called through its iterator. amd_pstate_perf is defined here
 * (cpufreq_testdrv_trace.h), for kernels without amd-pstate.
 *
 * "update_limits=1" sets CPUFREQ_NEED_UPDATE_LIMITS alone, as cppc_cpufreq
 * does: schedutil then requests an unchanged frequency again after each
 * change of the policy's limits.
 *
 * "boost_khz" puts cpuinfo_max_freq above the table's highest frequency, as
 * acpi-cpufreq does with a CPPC boost ratio: the policy can never be
 * granted cpuinfo_max_freq.
 *
 * By default it changes nothing about how fast the CPUs run. With
 * "emulate=1" it emulates DVFS on a machine without it: while a CPU is busy
 * at a requested frequency f below the highest, a per-CPU hrtimer takes
 * (1 - f / fmax) of every "emulate_period_us" away from it by spinning in
 * hard interrupt context, so work runs f / fmax as fast, as on hardware
 * without frequency invariance (the lost time counts as the interrupted
 * task's, so utilization rises at low frequency as it would there). The
 * timer is started when the CPU leaves idle and cancelled when it enters
 * idle (power:cpu_idle), so idle CPUs cost nothing; the run time left in
 * the period is carried over the idle period, so that work done in bursts
 * shorter than a period is slowed down too.
 *
 * Not for production use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pm_qos.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/power.h>

#define CREATE_TRACE_POINTS
#include "cpufreq_testdrv_trace.h"

static unsigned int min_khz = 800000;
module_param(min_khz, uint, 0444);
MODULE_PARM_DESC(min_khz, "Lowest frequency in kHz (default 800000)");

static unsigned int max_khz = 3200000;
module_param(max_khz, uint, 0444);
MODULE_PARM_DESC(max_khz, "Highest frequency in kHz (default 3200000)");

static unsigned int nr_freqs = 13;
module_param(nr_freqs, uint, 0444);
MODULE_PARM_DESC(nr_freqs, "Frequencies in the table, evenly spaced, 2..64 (default 13)");

static unsigned int latency_us;
module_param(latency_us, uint, 0444);
MODULE_PARM_DESC(latency_us,
		 "Transition latency in us: reported to cpufreq, and slept in slow mode (default 0)");

static char *mode = "fast";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "Request interface: fast, slow or perf (default fast)");

static char *report = "cpu_frequency";
module_param(report, charp, 0444);
MODULE_PARM_DESC(report,
		 "How requests are reported: cpu_frequency, pstate_sample, amd_pstate or amd_pstate_guided (default cpu_frequency)");

static bool update_limits;
module_param(update_limits, bool, 0444);
MODULE_PARM_DESC(update_limits,
		 "Set CPUFREQ_NEED_UPDATE_LIMITS (implied by every report but cpu_frequency) (default N)");

static unsigned int boost_khz;
module_param(boost_khz, uint, 0444);
MODULE_PARM_DESC(boost_khz,
		 "cpuinfo_max_freq in kHz above the table's highest frequency, 0 for none (default 0)");

static bool shared;
module_param(shared, bool, 0444);
MODULE_PARM_DESC(shared, "One policy for all CPUs instead of one per CPU (default N)");

static bool gov_per_policy;
module_param(gov_per_policy, bool, 0444);
MODULE_PARM_DESC(gov_per_policy,
		 "Governor tunables per policy (policyN/schedutil) instead of global (default N)");

static bool emulate;
module_param(emulate, bool, 0444);
MODULE_PARM_DESC(emulate,
		 "Emulate DVFS: busy CPUs lose (1 - f/fmax) of their time (default N)");

static unsigned int emulate_period_us = 1000;
module_param(emulate_period_us, uint, 0444);
MODULE_PARM_DESC(emulate_period_us,
		 "Emulation period in us, 100..100000: run f/fmax of it, spin the rest (default 1000)");

/* The cap's QoS request of each policy, by the policy's first CPU. */
static DEFINE_PER_CPU(struct freq_qos_request, testdrv_cap_req);
static DEFINE_MUTEX(testdrv_cap_lock);
static unsigned int cap_khz;

static s32 testdrv_cap_value(void)
{
	return cap_khz ? cap_khz : FREQ_QOS_MAX_DEFAULT_VALUE;
}

static int testdrv_cap_set(const char *val, const struct kernel_param *kp)
{
	unsigned int cap;
	int cpu, ret;

	ret = kstrtouint(val, 10, &cap);
	if (ret)
		return ret;

	mutex_lock(&testdrv_cap_lock);
	cap_khz = cap;
	for_each_possible_cpu(cpu) {
		struct freq_qos_request *req = &per_cpu(testdrv_cap_req, cpu);

		if (freq_qos_request_active(req) &&
		    freq_qos_update_request(req, testdrv_cap_value()) < 0)
			pr_warn("CPU%d: cannot update the cap\n", cpu);
	}
	mutex_unlock(&testdrv_cap_lock);
	return 0;
}

static const struct kernel_param_ops testdrv_cap_ops = {
	.set = testdrv_cap_set,
	.get = param_get_uint,
};
module_param_cb(cap_khz, &testdrv_cap_ops, &cap_khz, 0644);
MODULE_PARM_DESC(cap_khz,
		 "A firmware-like cap on every policy in kHz, 0 for none; writable (default 0)");

enum testdrv_mode { TESTDRV_FAST, TESTDRV_SLOW, TESTDRV_PERF };

static const char * const testdrv_modes[] = {
	[TESTDRV_FAST] = "fast",
	[TESTDRV_SLOW] = "slow",
	[TESTDRV_PERF] = "perf",
};

static enum testdrv_mode testdrv_mode;

enum testdrv_report {
	TESTDRV_REPORT_FREQ,
	TESTDRV_REPORT_PSTATE,
	TESTDRV_REPORT_AMD,
	TESTDRV_REPORT_AMD_GUIDED,
};

static const char * const testdrv_reports[] = {
	[TESTDRV_REPORT_FREQ] = "cpu_frequency",
	[TESTDRV_REPORT_PSTATE] = "pstate_sample",
	[TESTDRV_REPORT_AMD] = "amd_pstate",
	[TESTDRV_REPORT_AMD_GUIDED] = "amd_pstate_guided",
};

static enum testdrv_report testdrv_report_mode;
static struct cpufreq_frequency_table *testdrv_table;
static DEFINE_PER_CPU(unsigned int, testdrv_cur);

/*
 * DVFS emulation. The timer of a busy CPU alternates between letting it run
 * for period * f / fmax and spinning for the rest of the period.
 */
struct testdrv_emu {
	struct hrtimer timer;
	unsigned int cpu;
	bool started;		/* left_ns is set */
	u64 left_ns;		/* run time left in the current period */
	ktime_t run_start;	/* start of the current run */
};

static DEFINE_PER_CPU(struct testdrv_emu, testdrv_emu);
static bool testdrv_emulating;
static u64 testdrv_period_ns;

/* Nanoseconds of each period a CPU at @freq may run. */
static u64 testdrv_emu_run_ns(unsigned int freq)
{
	if (freq >= max_khz)
		return testdrv_period_ns;

	return div_u64(testdrv_period_ns * freq, max_khz);
}

static enum hrtimer_restart testdrv_emu_fn(struct hrtimer *timer)
{
	struct testdrv_emu *emu = container_of(timer, struct testdrv_emu, timer);
	unsigned int freq = READ_ONCE(per_cpu(testdrv_cur, emu->cpu));
	u64 run_ns = testdrv_emu_run_ns(freq);
	ktime_t now, end;

	/* Moved away by CPU hotplug, or the module is going: stop. */
	if (!READ_ONCE(testdrv_emulating) || emu->cpu != smp_processor_id())
		return HRTIMER_NORESTART;

	/* An idle CPU is not slowed down: it has no work to slow. */
	now = ktime_get();
	if (!is_idle_task(current) && run_ns < testdrv_period_ns) {
		end = ktime_add_ns(now, testdrv_period_ns - run_ns);
		while (ktime_before(now, end)) {
			cpu_relax();
			now = ktime_get();
		}
	}

	/* Run for run_ns from the end of the spin, not from the expiry. */
	emu->left_ns = run_ns;
	emu->run_start = now;
	hrtimer_set_expires(timer, ktime_add_ns(now, run_ns));
	return HRTIMER_RESTART;
}

/* power:cpu_idle probe: runs on the CPU entering or leaving idle. */
static void testdrv_emu_idle(void *data, unsigned int state, unsigned int cpu)
{
	struct testdrv_emu *emu = this_cpu_ptr(&testdrv_emu);
	unsigned int freq;

	if (!READ_ONCE(testdrv_emulating))
		return;

	if (state != PWR_EVENT_EXIT) {
		/* Keep what is left of the period for the next run. */
		if (hrtimer_try_to_cancel(&emu->timer) == 1) {
			u64 ran = ktime_to_ns(ktime_sub(ktime_get(), emu->run_start));

			emu->left_ns = ran < emu->left_ns ? emu->left_ns - ran : 0;
		}
		return;
	}

	if (hrtimer_active(&emu->timer))
		return;

	if (!emu->started) {
		freq = READ_ONCE(per_cpu(testdrv_cur, emu->cpu));
		emu->left_ns = testdrv_emu_run_ns(freq);
		emu->started = true;
	}
	emu->run_start = ktime_get();
	hrtimer_start(&emu->timer, ns_to_ktime(emu->left_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int testdrv_emu_start(void)
{
	unsigned int cpu;
	int ret;

	testdrv_period_ns = (u64)emulate_period_us * NSEC_PER_USEC;
	for_each_possible_cpu(cpu) {
		struct testdrv_emu *emu = per_cpu_ptr(&testdrv_emu, cpu);

		emu->cpu = cpu;
		emu->started = false;
#ifdef TESTDRV_HAVE_HRTIMER_SETUP
		hrtimer_setup(&emu->timer, testdrv_emu_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
#else
		hrtimer_init(&emu->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		emu->timer.function = testdrv_emu_fn;
#endif
	}

	WRITE_ONCE(testdrv_emulating, true);
	ret = register_trace_cpu_idle(testdrv_emu_idle, NULL);
	if (ret)
		WRITE_ONCE(testdrv_emulating, false);

	return ret;
}

static void testdrv_emu_stop(void)
{
	unsigned int cpu;

	WRITE_ONCE(testdrv_emulating, false);
	unregister_trace_cpu_idle(testdrv_emu_idle, NULL);
	tracepoint_synchronize_unregister();
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu(testdrv_emu, cpu).timer);
}

static void testdrv_set_cur(struct cpufreq_policy *policy, unsigned int freq)
{
	int cpu;

	for_each_cpu(cpu, policy->cpus)
		WRITE_ONCE(per_cpu(testdrv_cur, cpu), freq);
}

/*
 * Reporting as intel_cpufreq or amd-pstate do. Their events carry
 * APERF/MPERF/TSC deltas: here the time since the CPU's last report, with
 * APERF scaled by the frequency in effect.
 */
struct testdrv_rep {
	u64 last_ns;
	unsigned int pstate;	/* pstate_sample: the last request's ratio */
	bool sampled;		/* pstate_sample: a sample was taken before */
};

static DEFINE_PER_CPU(struct testdrv_rep, testdrv_rep);
static struct tracepoint *testdrv_pstate_tp;

#define TESTDRV_PSTATE_KHZ	100000
#define TESTDRV_PSTATE_TARGET	10	/* intel_pstate's trace types */
#define TESTDRV_PSTATE_FAST	90

typedef int (*testdrv_pstate_iter)(void *data, u32 core_busy, u32 scaled_busy,
				   u32 from, u32 to, u64 mperf, u64 aperf,
				   u64 tsc, u32 freq, u32 io_boost);

struct testdrv_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void testdrv_find_tp(struct tracepoint *tp, void *priv)
{
	struct testdrv_tp_lookup *lookup = priv;

	if (!strcmp(tp->name, lookup->name))
		lookup->tp = tp;
}

/* A tracepoint of the kernel proper, by name; NULL if it has none. */
static struct tracepoint *testdrv_kernel_tp(const char *name)
{
	struct testdrv_tp_lookup lookup = { .name = name };

	for_each_kernel_tracepoint(testdrv_find_tp, &lookup);
	return lookup.tp;
}

/* amd-pstate's perf units: 255 at cpuinfo_max_freq. */
static u8 testdrv_amd_perf(struct cpufreq_policy *policy, unsigned int freq)
{
	unsigned int fmax = policy->cpuinfo.max_freq;

	return min_t(u64, DIV_ROUND_UP_ULL((u64)freq * 255, fmax), 255);
}

/*
 * Report a request of @freq kHz for @policy, made from scheduler context
 * (@fast) or through ->target_index(), as report= says.
 */
static void testdrv_report(struct cpufreq_policy *policy, unsigned int freq,
			   bool fast)
{
	struct testdrv_rep *rep = per_cpu_ptr(&testdrv_rep, policy->cpu);
	unsigned int cur = READ_ONCE(per_cpu(testdrv_cur, policy->cpu));
	u64 now = ktime_get_ns(), tsc = now - rep->last_ns;
	u64 aperf = div_u64(tsc * cur, policy->cpuinfo.max_freq);
	u8 min_perf, des_perf;

	rep->last_ns = now;

	switch (testdrv_report_mode) {
	case TESTDRV_REPORT_PSTATE: {
		unsigned int old = rep->pstate;

		rep->pstate = DIV_ROUND_UP(freq, TESTDRV_PSTATE_KHZ);
		if (!rep->sampled) {
			rep->sampled = true;
			return;
		}
		if (!static_key_enabled(&testdrv_pstate_tp->key))
			return;

		guard(preempt_notrace)();
		((testdrv_pstate_iter)testdrv_pstate_tp->iterator)(NULL,
			fast ? TESTDRV_PSTATE_FAST : TESTDRV_PSTATE_TARGET, 0,
			old, rep->pstate, tsc, aperf, tsc, cur, 0);
		return;
	}
	case TESTDRV_REPORT_AMD:
	case TESTDRV_REPORT_AMD_GUIDED:
		min_perf = testdrv_amd_perf(policy, policy->min);
		des_perf = testdrv_amd_perf(policy, freq);
		if (testdrv_report_mode == TESTDRV_REPORT_AMD_GUIDED &&
		    policy->governor &&
		    (policy->governor->flags & CPUFREQ_GOV_DYNAMIC_SWITCHING)) {
			min_perf = des_perf;
			des_perf = 0;
		}
		trace_amd_pstate_perf(min_perf, des_perf,
				      testdrv_amd_perf(policy, policy->max),
				      cur, tsc, aperf, tsc, policy->cpu, fast);
		return;
	default:
		return;
	}
}

static int testdrv_init(struct cpufreq_policy *policy)
{
	int ret;

	if (shared)
		cpumask_copy(policy->cpus, cpu_possible_mask);

	policy->freq_table = testdrv_table;
	/* Kept by the cpufreq core, being above the table's highest. */
	if (boost_khz)
		policy->cpuinfo.max_freq = boost_khz;
	policy->cpuinfo.transition_latency = latency_us * NSEC_PER_USEC;
	policy->fast_switch_possible = testdrv_mode != TESTDRV_SLOW;
	policy->cur = min_khz;
	testdrv_set_cur(policy, min_khz);

	mutex_lock(&testdrv_cap_lock);
	ret = freq_qos_add_request(&policy->constraints,
				   &per_cpu(testdrv_cap_req, policy->cpu),
				   FREQ_QOS_MAX, testdrv_cap_value());
	mutex_unlock(&testdrv_cap_lock);

	return ret < 0 ? ret : 0;
}

static void testdrv_exit(struct cpufreq_policy *policy)
{
	struct freq_qos_request *req = &per_cpu(testdrv_cap_req, policy->cpu);

	mutex_lock(&testdrv_cap_lock);
	if (freq_qos_request_active(req))
		freq_qos_remove_request(req);
	mutex_unlock(&testdrv_cap_lock);
}

static int testdrv_target_index(struct cpufreq_policy *policy,
				unsigned int index)
{
	if (latency_us)
		usleep_range(latency_us, latency_us + latency_us / 8 + 1);

	testdrv_set_cur(policy, policy->freq_table[index].frequency);
	testdrv_report(policy, policy->freq_table[index].frequency, false);

	return 0;
}

static unsigned int testdrv_resolve(struct cpufreq_policy *policy,
				    unsigned int target_freq)
{
	int idx;

	idx = cpufreq_frequency_table_target(policy, target_freq, policy->min,
					     policy->max, CPUFREQ_RELATION_L);

	return policy->freq_table[idx].frequency;
}

static unsigned int testdrv_fast_switch(struct cpufreq_policy *policy,
					unsigned int target_freq)
{
	unsigned int freq = testdrv_resolve(policy, target_freq);

	testdrv_set_cur(policy, freq);
	testdrv_report(policy, freq, true);

	return freq;
}

/*
 * ->adjust_perf() takes the policy and a max_perf in 7.3, the policy
 * alone in 7.2 and the CPU in 6.12: the Makefile probes the header, as
 * distributions backport.
 */
#if defined(TESTDRV_ADJUST_PERF_MAX_PERF)
static void testdrv_adjust_perf(struct cpufreq_policy *policy,
				unsigned long min_perf,
				unsigned long target_perf,
				unsigned long max_perf,
				unsigned long capacity)
{
#elif defined(TESTDRV_ADJUST_PERF_POLICY)
static void testdrv_adjust_perf(struct cpufreq_policy *policy,
				unsigned long min_perf,
				unsigned long target_perf,
				unsigned long capacity)
{
	unsigned long max_perf = 0;
#else
static void testdrv_adjust_perf(unsigned int this_cpu,
				unsigned long min_perf,
				unsigned long target_perf,
				unsigned long capacity)
{
	struct cpufreq_policy *policy = cpufreq_cpu_get_raw(this_cpu);
	unsigned long max_perf = 0;
#endif
	unsigned long perf = max(target_perf, min_perf);
	unsigned int freq, fmax;
	int cpu;

#ifndef TESTDRV_ADJUST_PERF_POLICY
	if (!policy)
		return;
#endif

	if (max_perf && perf > max_perf)
		perf = max_perf;
	if (!capacity || perf > capacity)
		perf = capacity;

	fmax = policy->cpuinfo.max_freq;
	freq = capacity ? mult_frac(fmax, perf, capacity) : fmax;
	freq = testdrv_resolve(policy, freq);

	/* Reported on every request, not only when the frequency changes. */
	if (testdrv_report_mode != TESTDRV_REPORT_FREQ) {
		WRITE_ONCE(policy->cur, freq);
		testdrv_set_cur(policy, freq);
		testdrv_report(policy, freq, true);
		return;
	}

	if (freq == policy->cur)
		return;

	WRITE_ONCE(policy->cur, freq);
	testdrv_set_cur(policy, freq);

	for_each_cpu(cpu, policy->cpus)
		trace_cpu_frequency(freq, cpu);
}

static unsigned int testdrv_get(unsigned int cpu)
{
	return READ_ONCE(per_cpu(testdrv_cur, cpu));
}

static struct cpufreq_driver testdrv_driver = {
	.name		= "cpufreq-testdrv",
	.init		= testdrv_init,
	.exit		= testdrv_exit,
	.verify		= cpufreq_generic_frequency_table_verify,
	.target_index	= testdrv_target_index,
	.get		= testdrv_get,
};

static int __init testdrv_module_init(void)
{
	unsigned int i;
	int ret;

	ret = match_string(testdrv_modes, ARRAY_SIZE(testdrv_modes), mode);
	if (ret < 0) {
		pr_err("mode=%s: use fast, slow or perf\n", mode);
		return -EINVAL;
	}
	testdrv_mode = ret;

	ret = match_string(testdrv_reports, ARRAY_SIZE(testdrv_reports), report);
	if (ret < 0) {
		pr_err("report=%s: use cpu_frequency, pstate_sample, amd_pstate or amd_pstate_guided\n",
		       report);
		return -EINVAL;
	}
	testdrv_report_mode = ret;
	if (testdrv_report_mode != TESTDRV_REPORT_FREQ && testdrv_mode != TESTDRV_PERF) {
		pr_err("report=%s: the drivers it stands for take ->adjust_perf(): use mode=perf\n",
		       report);
		return -EINVAL;
	}
	if (testdrv_report_mode == TESTDRV_REPORT_PSTATE) {
		testdrv_pstate_tp = testdrv_kernel_tp("pstate_sample");
		if (!testdrv_pstate_tp) {
			pr_err("report=pstate_sample: no power:pstate_sample tracepoint in this kernel\n");
			return -ENODEV;
		}
	}
	if (testdrv_report_mode == TESTDRV_REPORT_AMD ||
	    testdrv_report_mode == TESTDRV_REPORT_AMD_GUIDED) {
		if (testdrv_kernel_tp("amd_pstate_perf")) {
			pr_err("report=%s: the kernel traces amd_cpu:amd_pstate_perf itself (CONFIG_X86_AMD_PSTATE): use a kernel without it\n",
			       report);
			return -EEXIST;
		}
	}

	if (!min_khz || max_khz <= min_khz || nr_freqs < 2 || nr_freqs > 64) {
		pr_err("need 0 < min_khz < max_khz and 2 <= nr_freqs <= 64\n");
		return -EINVAL;
	}
	if (boost_khz && boost_khz <= max_khz) {
		pr_err("boost_khz=%u: must be above max_khz=%u, or 0\n", boost_khz, max_khz);
		return -EINVAL;
	}

	testdrv_table = kcalloc(nr_freqs + 1, sizeof(*testdrv_table), GFP_KERNEL);
	if (!testdrv_table)
		return -ENOMEM;

	for (i = 0; i < nr_freqs; i++)
		testdrv_table[i].frequency = min_khz +
			(u64)(max_khz - min_khz) * i / (nr_freqs - 1);
	testdrv_table[nr_freqs].frequency = CPUFREQ_TABLE_END;

	if (testdrv_mode != TESTDRV_SLOW)
		testdrv_driver.fast_switch = testdrv_fast_switch;
	if (testdrv_mode == TESTDRV_PERF)
		testdrv_driver.adjust_perf = testdrv_adjust_perf;
	if (update_limits || testdrv_report_mode != TESTDRV_REPORT_FREQ)
		testdrv_driver.flags |= CPUFREQ_NEED_UPDATE_LIMITS;
	if (gov_per_policy)
		testdrv_driver.flags |= CPUFREQ_HAVE_GOVERNOR_PER_POLICY;

	if (emulate && (emulate_period_us < 100 || emulate_period_us > 100000)) {
		pr_err("emulate_period_us=%u: use 100..100000\n", emulate_period_us);
		kfree(testdrv_table);
		return -EINVAL;
	}

	ret = cpufreq_register_driver(&testdrv_driver);
	if (ret) {
		pr_err("cannot register (another cpufreq driver bound?): %d\n", ret);
		kfree(testdrv_table);
		return ret;
	}

	if (emulate) {
		ret = testdrv_emu_start();
		if (ret) {
			pr_err("cannot hook power:cpu_idle for the emulation: %d\n", ret);
			cpufreq_unregister_driver(&testdrv_driver);
			kfree(testdrv_table);
			return ret;
		}
	}

	pr_info("%u..%u kHz in %u steps (cpuinfo_max_freq %u), mode %s, reported as %s, %s policies, %s tunables, latency %u us, %s\n",
		min_khz, max_khz, nr_freqs, boost_khz ? boost_khz : max_khz,
		testdrv_modes[testdrv_mode], testdrv_reports[testdrv_report_mode],
		shared ? "shared" : "per-CPU",
		gov_per_policy ? "per-policy" : "global", latency_us,
		emulate ? "DVFS emulated" : "no DVFS emulation");
	return 0;
}
module_init(testdrv_module_init);

static void __exit testdrv_module_exit(void)
{
	if (emulate)
		testdrv_emu_stop();
	cpufreq_unregister_driver(&testdrv_driver);
	kfree(testdrv_table);
}
module_exit(testdrv_module_exit);

MODULE_DESCRIPTION("Test-only cpufreq driver for governor tests in virtual machines");
MODULE_LICENSE("GPL");
