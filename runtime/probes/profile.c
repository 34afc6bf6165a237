/* profile.c - timer.profile(.tick) and timer.profile.freq.hz(N): one hrtimer pinned to each online
 * CPU (hard irq context, the interrupted context's registers).  Included by generated code. */
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/cpu.h>
#include <asm/irq_regs.h>

struct stp_profile_probe;

struct stp_profile_cpu {
	struct hrtimer timer;
	const struct stp_profile_probe *probe;
	bool started;
};

struct stp_profile_probe {
	const struct stp_probe_desc *desc;
	u64 period_ns;                      /* 0: the scheduler tick (TICK_NSEC) */
	enum hrtimer_restart (*fire)(struct hrtimer *t);
	struct stp_profile_cpu __percpu *cpus;
};

static __always_inline u64 stp_profile_period(const struct stp_profile_probe *p)
{
	return p->period_ns ? p->period_ns : TICK_NSEC;
}

/* A hit: the registers are those the timer interrupt saved, so user_mode(), addr() and the
 * backtrace describe what the CPU was doing. */
static __always_inline enum hrtimer_restart stp_profile_fire(struct hrtimer *t, const struct stp_probe_desc *d)
{
	struct stp_profile_cpu *pc = container_of(t, struct stp_profile_cpu, timer);

	stp_run_probe(d, get_irq_regs(), false);
	if (atomic_read(&stp_run_state) > STP_RUNNING)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(stp_profile_period(pc->probe)));
	return HRTIMER_RESTART;
}

/* Runs on each online CPU (on_each_cpu, interrupts off): arms that CPU's timer there. */
static void stp_profile_arm_here(void *arg)
{
	struct stp_profile_probe *p = arg;
	struct stp_profile_cpu *pc = this_cpu_ptr(p->cpus);

	hrtimer_init(&pc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	pc->timer.function = p->fire;
	pc->probe = p;
	pc->started = true;
	hrtimer_start(&pc->timer, ns_to_ktime(stp_profile_period(p)), HRTIMER_MODE_REL_PINNED_HARD);
}

static void stp_profiles_stop(struct stp_profile_probe *probes, unsigned int n)
{
	unsigned int i;
	int cpu;

	for (i = 0; i < n; i++) {
		if (!probes[i].cpus)
			continue;
		for_each_possible_cpu(cpu) {
			struct stp_profile_cpu *pc = per_cpu_ptr(probes[i].cpus, cpu);

			if (pc->started)
				hrtimer_cancel(&pc->timer);
		}
		free_percpu(probes[i].cpus);
		probes[i].cpus = NULL;
	}
}

static int stp_profiles_start(struct stp_profile_probe *probes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		probes[i].cpus = alloc_percpu(struct stp_profile_cpu);
		if (!probes[i].cpus) {
			stp_startup_error("probe point %s: no memory for its per-CPU timers", probes[i].desc->pp);
			stp_profiles_stop(probes, i);
			return -ENOMEM;
		}
	}
	/* CPUs brought online later get no timer (as SystemTap's profile timer of old kernels). */
	cpus_read_lock();
	for (i = 0; i < n; i++)
		on_each_cpu(stp_profile_arm_here, &probes[i], 1);
	cpus_read_unlock();
	return 0;
}

/* One trampoline per probe (n = its index in stp_descs[]). */
#define STP_PROFILE_TRAMPOLINE(n)						\
	static enum hrtimer_restart stp_profile_hit_##n(struct hrtimer *t)	\
	{									\
		return stp_profile_fire(t, &stp_descs[n]);			\
	}

#define STP_PROFILE_FAMILY(table) STP_FAMILY(profile, stp_profiles_start, stp_profiles_stop, table)
