// SPDX-License-Identifier: GPL-2.0
/*
 * A cpuidle driver for test guests, with the idle states of a server, so
 * that the menu and teo governors decide at each idle entry whether to
 * stop the tick, as they do over intel_idle or acpi_idle. Without a
 * cpuidle driver the idle loop stops the tick at every idle entry, which
 * no server does for sleeps shorter than a tick: the count of idle entries
 * with the tick stopped, which schedutil's frequency hold reads, then moves
 * where it would not on a server.
 *
 *   POLL  cpuidle's polling state (where the architecture has one)
 *   C1    halt, exit latency 2 us, target residency 2 us
 *   C6    halt, exit latency and target residency from c6_latency_us and
 *         c6_residency_us (default 130 us and 600 us)
 *
 * Both halting states stop the vCPU until an interrupt (hlt on x86, wfi on
 * arm64): a guest has nothing deeper to enter, and the governors only go
 * by the table.
 */
#include <linux/cpuidle.h>
#include <linux/module.h>

static unsigned int c6_latency_us = 130;
module_param(c6_latency_us, uint, 0444);
MODULE_PARM_DESC(c6_latency_us, "Exit latency of the deepest state in us (default 130)");

static unsigned int c6_residency_us = 600;
module_param(c6_residency_us, uint, 0444);
MODULE_PARM_DESC(c6_residency_us, "Target residency of the deepest state in us (default 600)");

static __cpuidle int testidle_enter(struct cpuidle_device *dev,
				    struct cpuidle_driver *drv, int index)
{
#ifdef CONFIG_X86
	/* Halt with interrupts enabled; cpuidle wants them off on return. */
	raw_safe_halt();
	raw_local_irq_disable();
#else
	dsb(sy);
	wfi();
#endif
	return index;
}

static struct cpuidle_driver testidle_driver = {
	.name = "testidle",
	.owner = THIS_MODULE,
};

static void testidle_state(struct cpuidle_state *s, const char *name,
			   const char *desc, unsigned int latency,
			   unsigned int residency)
{
	strscpy(s->name, name, CPUIDLE_NAME_LEN);
	strscpy(s->desc, desc, CPUIDLE_DESC_LEN);
	s->exit_latency = latency;
	s->target_residency = residency;
	s->enter = testidle_enter;
}

static int __init testidle_init(void)
{
	struct cpuidle_driver *drv = &testidle_driver;
	int n = 0;

	if (c6_latency_us < 2 || c6_residency_us < c6_latency_us)
		return -EINVAL;

#ifdef CONFIG_ARCH_HAS_CPU_RELAX
	cpuidle_poll_state_init(drv);
	n = 1;
#endif
	testidle_state(&drv->states[n++], "C1", "halt, 2 us", 2, 2);
	testidle_state(&drv->states[n++], "C6", "halt, as deep as a server's C6",
		       c6_latency_us, c6_residency_us);
	drv->state_count = n;

	return cpuidle_register(drv, NULL);
}
module_init(testidle_init);

static void __exit testidle_exit(void)
{
	cpuidle_unregister(&testidle_driver);
}
module_exit(testidle_exit);

MODULE_DESCRIPTION("cpuidle driver with a server's idle states, for test guests");
MODULE_LICENSE("GPL");
