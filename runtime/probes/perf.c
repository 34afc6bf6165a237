/* perf.c - perf.type(N).config(M) probes: one in-kernel perf event per online CPU whose overflow
 * runs the handler (NMI for hardware events, irq or the event's own context for software ones), one
 * on the target process (.process), or one on each process running a program (.process("PATH"):
 * perf_proc.h), and .counter("NAME") events read by @perf("NAME").  Included by generated code. */
#include <linux/perf_event.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/pid.h>
#include <linux/sched/task.h>

struct stp_perf_probe {
	const struct stp_probe_desc *desc;
	u32 type;
	u64 config;
	u64 period;                         /* events per hit (hits per second when freq); 0: counter */
	int freq;                           /* .hz(F) */
	int task;                           /* .process: one event on the target process, any CPU */
	const char *path;                   /* .process("PATH"): one on each process running PATH */
	int counter;                        /* .counter("NAME"): counts only, read by @perf */
	int optional;                       /* '?': an event the kernel refuses is skipped */
	perf_overflow_handler_t fire;
	struct perf_event **events;         /* nr_cpu_ids, NULL where not created */
	struct perf_event *task_event;      /* .process */
	u64 __percpu *final;                /* counters: each CPU's last count, once stopped */
	u64 task_final;                     /* counters: the process's last count, once stopped */
	int stopped;                        /* counters: @perf reads final / task_final */
	struct path fpath;                  /* .process("PATH"): the file, held from start to stop */
	struct inode *inode;
	struct perf_event **proc_events;    /* STP_PERF_PROC_EVENTS; the first nproc made */
	atomic_t nproc;
};

#include "perf_proc.h"

/* One hit.  May run in NMI context (hardware events) or under the scheduler's locks (context
 * switches, migrations): stp_run_probe takes no sleeping lock and does not wake anyone. */
static __always_inline void stp_perf_fire(struct pt_regs *regs, const struct stp_probe_desc *d)
{
	stp_run_probe(d, regs, false);
}

static const char *stp_perf_errtext(const struct stp_perf_probe *p, int rc)
{
	if (rc == -ENOENT && (p->type == PERF_TYPE_HARDWARE || p->type == PERF_TYPE_HW_CACHE))
		return "no PMU of this machine counts it (hardware events need a hardware PMU; "
		       "virtual machines often have none)";
	switch (rc) {
	case -ENOENT: return "the kernel knows no such event (type/config)";
	case -EOPNOTSUPP: return "this CPU or kernel does not support it (no hardware counter, or no sampling)";
	case -EINVAL: return "the kernel rejected the event's attributes";
	case -ENODEV: return "no such CPU or PMU";
	case -EBUSY: return "the counters are in use";
	case -EACCES: case -EPERM: return "not permitted";
	case -ESRCH: return "no target process (.process needs stap -c CMD or -x PID, and the process alive)";
	default: return "event creation failed";
	}
}

static void stp_perf_release(struct stp_perf_probe *p)
{
	int cpu;

	if (p->task_event) {
		perf_event_release_kernel(p->task_event);
		p->task_event = NULL;
	}
	if (p->path)
		stp_perf_proc_release(p);
	if (!p->events)
		return;
	for_each_possible_cpu(cpu) {
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	}
	kfree(p->events);
	p->events = NULL;
}

/* A counter's last values, kept for @perf in the end probes (which run after the families are
 * disarmed): each event stopped and read, then the readers switched to the kept values. */
static void stp_perf_keep_final(struct stp_perf_probe *p)
{
	u64 enabled, running;
	int cpu;

	if (p->task_event) {
		perf_event_disable(p->task_event);
		p->task_final = perf_event_read_value(p->task_event, &enabled, &running);
	}
	if (p->path)
		p->task_final = stp_perf_proc_sum(p, true);
	if (p->events) {
		for_each_possible_cpu(cpu) {
			if (!p->events[cpu])
				continue;
			perf_event_disable(p->events[cpu]);
			*per_cpu_ptr(p->final, cpu) = perf_event_read_value(p->events[cpu], &enabled, &running);
		}
	}
	smp_store_release(&p->stopped, 1);
}

/* Handlers and @perf readers run with preemption off (or in NMI): once synchronize_rcu() returns,
 * none still uses an event or the events array, and none runs in this module's handlers. */
static void stp_perfs_stop(struct stp_perf_probe *probes, unsigned int n)
{
	unsigned int i;

	stp_perf_proc_quiesce();
	for (i = 0; i < n; i++)
		if (probes[i].counter)
			stp_perf_keep_final(&probes[i]);
	synchronize_rcu();
	for (i = 0; i < n; i++)
		stp_perf_release(&probes[i]);
	synchronize_rcu();
}

/* .process: p's one event, on the target process (target()) wherever it runs. */
static int stp_perf_create_task(struct stp_perf_probe *p, struct perf_event_attr *attr)
{
	struct pid *pid = stp_target > 0 ? find_get_pid(stp_target) : NULL;
	struct task_struct *t = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	struct perf_event *e;

	put_pid(pid);
	if (!t)
		return -ESRCH;
	e = perf_event_create_kernel_counter(attr, -1, t, p->fire, p);
	put_task_struct(t);
	if (IS_ERR(e))
		return PTR_ERR(e);
	p->task_event = e;
	return 0;
}

/* The attributes of p's events */
static void stp_perf_attr(const struct stp_perf_probe *p, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = p->type;
	attr->size = sizeof(*attr);
	attr->config = p->config;
	attr->freq = p->freq;
	if (p->freq)
		attr->sample_freq = p->period;
	else
		attr->sample_period = p->period;
}

/* Creates p's event on every online CPU (or on the target process, or on each process running its
 * program).  Returns 0, or the error of the first event the kernel refused. */
static int stp_perf_create(struct stp_perf_probe *p)
{
	struct perf_event_attr attr;
	int cpu, rc;

	stp_perf_attr(p, &attr);
	if (p->path) {
		rc = stp_perf_proc_prepare(p);
		return rc ? rc : stp_perf_proc_existing(p);
	}
	if (p->task) {
		attr.inherit = 1;   /* the threads and children it starts once armed too */
		return stp_perf_create_task(p, &attr);
	}
	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct perf_event *e = perf_event_create_kernel_counter(&attr, cpu, NULL, p->fire, p);

		if (IS_ERR(e))
			return PTR_ERR(e);
		p->events[cpu] = e;
	}
	return 0;
}

static int stp_perfs_start(struct stp_perf_probe *probes, unsigned int n)
{
	unsigned int i;
	int rc = 0;

	rc = stp_perf_proc_start(probes, n);
	if (rc)
		return rc;
	cpus_read_lock();
	for (i = 0; i < n; i++) {
		struct stp_perf_probe *p = &probes[i];

		rc = stp_perf_create(p);
		if (rc && p->optional) {
			stp_perf_release(p);
			rc = 0;
			continue;
		}
		if (rc) {
			stp_startup_error("probe point %s: perf event type %u config %llu: %s (%d)", p->desc->pp,
					  p->type, (unsigned long long)p->config, stp_perf_errtext(p, rc), rc);
			break;
		}
	}
	cpus_read_unlock();
	if (rc)
		stp_perfs_stop(probes, i + 1);
	return rc;
}

/* @perf("NAME"): counter k's count: the target process's with its exited children and threads
 * (.process), else this CPU's (one event per CPU, counting whatever runs there).  What the kernel's perf_event_read_local() does (not exported to modules): a counter
 * active on this CPU is brought up to date by its PMU, then read.  Safe in any probe context,
 * NMI included. */
static int64_t stp_perf_counter_value(struct stp_context *c, struct stp_perf_probe *p)
{
	struct perf_event *e;
	unsigned long flags;
	u64 value;

	if (smp_load_acquire(&p->stopped))
		return p->task || p->path ? (int64_t)p->task_final : (int64_t)*this_cpu_ptr(p->final);
	if (p->path) {
		local_irq_save(flags);
		value = stp_perf_proc_sum(p, false);
		local_irq_restore(flags);
		return (int64_t)value;
	}
	e = p->task_event ? p->task_event : p->events ? p->events[smp_processor_id()] : NULL;
	if (!e) {
		stp_error(c, "@perf: the counter is not running (on this CPU)");
		return 0;
	}
	local_irq_save(flags);
	if (READ_ONCE(e->oncpu) == smp_processor_id())
		e->pmu->read(e);
	value = local64_read(&e->count) + atomic64_read(&e->child_count);   /* + exited children */
	local_irq_restore(flags);
	return (int64_t)value;
}

/* One trampoline per probe (n = its index in stp_descs[]), and its counter's kept values. */
#define STP_PERF_TRAMPOLINE(n)							\
	static DEFINE_PER_CPU(u64, stp_perf_final_##n);				\
	static void stp_perf_hit_##n(struct perf_event *event,			\
				     struct perf_sample_data *data,		\
				     struct pt_regs *regs)			\
	{									\
		stp_perf_fire(regs, &stp_descs[n]);			\
	}

#define STP_PERF_FAMILY(table)						\
	STP_FAMILY(perf, stp_perfs_start, stp_perfs_stop, table)	\
	static __maybe_unused int64_t stp_perf_counter_read(struct stp_context *c, unsigned int k) \
	{								\
		return stp_perf_counter_value(c, &table[k]);		\
	}
