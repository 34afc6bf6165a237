/* timer.c - timer.s/ms/us/ns/hz/jiffies probes on high-resolution timers
 * (hard irq context, also on PREEMPT_RT).  Included by generated code that uses timer probes. */
#include <linux/hrtimer.h>
#include <asm/irq_regs.h>

struct stp_timer_probe {
	const struct stp_probe_desc *desc;
	u64 period_ns;
	enum hrtimer_restart (*fire)(struct hrtimer *t);
	struct hrtimer timer;
};

static __always_inline enum hrtimer_restart stp_timer_fire(struct hrtimer *t, const struct stp_probe_desc *d)
{
	struct stp_timer_probe *p = container_of(t, struct stp_timer_probe, timer);

	stp_run_probe(d, get_irq_regs(), false);
	if (atomic_read(&stp_run_state) > STP_RUNNING)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(p->period_ns));
	return HRTIMER_RESTART;
}

static int stp_timers_start(struct stp_timer_probe *probes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* _HARD: on PREEMPT_RT the others expire in a preemptible softirq thread, and a handler
		 * needs preemption off (its CPU's context, the transport's writers) */
		hrtimer_init(&probes[i].timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		probes[i].timer.function = probes[i].fire;
		hrtimer_start(&probes[i].timer, ns_to_ktime(probes[i].period_ns), HRTIMER_MODE_REL_HARD);
	}
	return 0;
}

static void stp_timers_stop(struct stp_timer_probe *probes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		hrtimer_cancel(&probes[i].timer);
}

/* One trampoline per timer probe (n = its index in stp_descs[]). */
#define STP_TIMER_TRAMPOLINE(n)						\
	static enum hrtimer_restart stp_timer_hit_##n(struct hrtimer *t)	\
	{									\
		return stp_timer_fire(t, &stp_descs[n]);			\
	}

#define STP_TIMER_FAMILY(table) STP_FAMILY(timer, stp_timers_start, stp_timers_stop, table)
