/* perf_proc.h - perf.*.process("PATH"): an event on each process that runs PATH, those running it at
 * start and those that exec it later (their children through perf's inherit), each made in process
 * context: at start, or by a task work the exec queues in the process itself.  Included by probes/perf.c. */
#include <linux/tracepoint.h>
#include <linux/task_work.h>
#include <linux/swait.h>
#include <linux/binfmts.h>
#include <linux/namei.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>

/* Events per probe: the processes that run PATH during the run (their children share theirs). */
#ifndef STP_PERF_PROC_EVENTS
#define STP_PERF_PROC_EVENTS 256
#endif
/* Events waiting to be made at once (exec'd processes not yet back in user space). */
#ifndef STP_PERF_PROC_WORKS
#define STP_PERF_PROC_WORKS 64
#endif

struct stp_perf_proc_work {
	struct callback_head cb;            /* first: the task work */
	struct stp_perf_probe *p;
};

/* The family's exec hook and its task works: one set per module. */
static struct {
	struct stp_perf_probe *probes;
	unsigned int n;
	struct tracepoint *tp_exec;
	bool on_exec, stopping;
	atomic_t pending;                   /* task works queued and not yet finished */
	struct swait_queue_head wq;         /* stop waits there for pending == 0 (raw lock: RT-safe) */
	struct stp_perf_proc_work works[STP_PERF_PROC_WORKS];
	unsigned long used[BITS_TO_LONGS(STP_PERF_PROC_WORKS)];
	struct mutex lock;                  /* making events against stop releasing them */
	atomic_t overflow, no_work, failed;
	int last_error;
} stp_perf_proc;

static void stp_perf_attr(const struct stp_perf_probe *p, struct perf_event_attr *attr);

/* A new event of p on t (process context), kept for reading and release; false when the kernel
 * refused it (*rc) */
static bool stp_perf_proc_attach(struct stp_perf_probe *p, struct task_struct *t, int *rc)
{
	struct perf_event_attr attr;
	struct perf_event *e;
	int k;

	*rc = 0;
	stp_perf_attr(p, &attr);
	attr.inherit = 1;   /* its threads and children too */
	mutex_lock(&stp_perf_proc.lock);
	k = atomic_read(&p->nproc);
	if (stp_perf_proc.stopping || !p->proc_events) {   /* stopping, or p released (optional) */
		mutex_unlock(&stp_perf_proc.lock);
		return true;
	}
	if (k >= STP_PERF_PROC_EVENTS) {
		atomic_inc(&stp_perf_proc.overflow);
		mutex_unlock(&stp_perf_proc.lock);
		return true;
	}
	e = perf_event_create_kernel_counter(&attr, -1, t, p->fire, p);
	if (IS_ERR(e)) {
		*rc = PTR_ERR(e);
		mutex_unlock(&stp_perf_proc.lock);
		return false;
	}
	p->proc_events[k] = e;
	atomic_set_release(&p->nproc, k + 1);   /* readers see the pointer first */
	mutex_unlock(&stp_perf_proc.lock);
	return true;
}

/* In the process that exec'd PATH, on its way back to user space */
static void stp_perf_proc_work_run(struct callback_head *cb)
{
	struct stp_perf_proc_work *w = container_of(cb, struct stp_perf_proc_work, cb);
	unsigned long flags;
	int rc;

	if (!stp_perf_proc_attach(w->p, current, &rc)) {
		stp_perf_proc.last_error = rc;
		atomic_inc(&stp_perf_proc.failed);
	}
	clear_bit(w - stp_perf_proc.works, stp_perf_proc.used);
	/* the last instructions of this module the task runs: stop waits for the count, then an RCU
	 * grace period for this tail, run with interrupts off */
	local_irq_save(flags);
	if (atomic_dec_and_test(&stp_perf_proc.pending))
		swake_up_one(&stp_perf_proc.wq);
	local_irq_restore(flags);
}

static void stp_perf_proc_queue(struct stp_perf_probe *p)
{
	struct stp_perf_proc_work *w = NULL;
	unsigned int i;

	for (i = 0; i < STP_PERF_PROC_WORKS && !w; i++)
		if (!test_and_set_bit(i, stp_perf_proc.used))
			w = &stp_perf_proc.works[i];
	if (!w) {
		atomic_inc(&stp_perf_proc.no_work);
		return;
	}
	init_task_work(&w->cb, stp_perf_proc_work_run);
	w->p = p;
	atomic_inc(&stp_perf_proc.pending);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		clear_bit(w - stp_perf_proc.works, stp_perf_proc.used);
		if (atomic_dec_and_test(&stp_perf_proc.pending))
			swake_up_one(&stp_perf_proc.wq);
	}
}

/* sched_process_exec: current now runs bprm's file */
static void stp_perf_proc_exec(void *data, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	struct inode *ino = bprm->file ? file_inode(bprm->file) : NULL;
	unsigned int i;

	if (READ_ONCE(stp_perf_proc.stopping) || !ino || (current->flags & PF_KTHREAD))
		return;
	for (i = 0; i < stp_perf_proc.n; i++)
		if (stp_perf_proc.probes[i].inode == ino)
			stp_perf_proc_queue(&stp_perf_proc.probes[i]);
}

static void stp_perf_proc_lookup(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		stp_perf_proc.tp_exec = tp;
}

/* Whether process t (a thread group leader) runs the file of inode ino */
static bool stp_perf_proc_runs(struct task_struct *t, struct inode *ino)
{
	struct file *exe;
	bool yes = false;

	task_lock(t);
	if (t->mm) {
		rcu_read_lock();
		exe = rcu_dereference(t->mm->exe_file);
		yes = exe && file_inode(exe) == ino;
		rcu_read_unlock();
	}
	task_unlock(t);
	return yes;
}

/* p's events on the processes already running its PATH; the first the kernel refuses is the error */
static int stp_perf_proc_existing(struct stp_perf_probe *p)
{
	struct task_struct **found, *t;
	unsigned int n = 0, i;
	int rc = 0;

	found = kcalloc(STP_PERF_PROC_EVENTS, sizeof(*found), GFP_KERNEL);
	if (!found)
		return -ENOMEM;
	rcu_read_lock();
	for_each_process(t) {
		if ((t->flags & (PF_KTHREAD | PF_EXITING)) || !stp_perf_proc_runs(t, p->inode))
			continue;
		if (n == STP_PERF_PROC_EVENTS) {
			atomic_inc(&stp_perf_proc.overflow);
			continue;
		}
		get_task_struct(t);
		found[n++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		if (!rc && !stp_perf_proc_attach(p, found[i], &rc) && !rc)
			rc = -EINVAL;
		put_task_struct(found[i]);
	}
	kfree(found);
	return rc;
}

/* p's file and its event slots (process context, at start) */
static int stp_perf_proc_prepare(struct stp_perf_probe *p)
{
	struct perf_event **events = kcalloc(STP_PERF_PROC_EVENTS, sizeof(*events), GFP_KERNEL);
	int rc = events ? kern_path(p->path, LOOKUP_FOLLOW, &p->fpath) : -ENOMEM;

	if (rc) {
		kfree(events);
		return rc;
	}
	mutex_lock(&stp_perf_proc.lock);
	atomic_set(&p->nproc, 0);
	p->proc_events = events;
	mutex_unlock(&stp_perf_proc.lock);
	WRITE_ONCE(p->inode, d_real_inode(p->fpath.dentry));   /* the exec hook's key: last */
	return 0;
}

/* The exec hook, once the probes' files are prepared; 0 when no probe names a program */
static int stp_perf_proc_start(struct stp_perf_probe *probes, unsigned int n)
{
	unsigned int i;
	bool any = false;
	int rc;

	memset(&stp_perf_proc, 0, sizeof(stp_perf_proc));
	init_swait_queue_head(&stp_perf_proc.wq);
	mutex_init(&stp_perf_proc.lock);
	bitmap_zero(stp_perf_proc.used, STP_PERF_PROC_WORKS);
	atomic_set(&stp_perf_proc.pending, 0);
	atomic_set(&stp_perf_proc.overflow, 0);
	atomic_set(&stp_perf_proc.no_work, 0);
	atomic_set(&stp_perf_proc.failed, 0);
	stp_perf_proc.probes = probes;
	stp_perf_proc.n = n;
	for (i = 0; i < n; i++)
		any |= probes[i].path != NULL;
	if (!any)
		return 0;
	for_each_kernel_tracepoint(stp_perf_proc_lookup, NULL);
	if (!stp_perf_proc.tp_exec) {
		stp_startup_error("perf .process(\"PATH\") probes: the running kernel lacks the sched_process_exec tracepoint");
		return -ENOENT;
	}
	rc = tracepoint_probe_register(stp_perf_proc.tp_exec, (void *)stp_perf_proc_exec, NULL);
	if (rc) {
		stp_startup_error("perf .process(\"PATH\") probes: cannot probe sched_process_exec (%d)", rc);
		return rc;
	}
	stp_perf_proc.on_exec = true;
	return 0;
}

/* No more events made: the hook removed, every task work run */
static void stp_perf_proc_quiesce(void)
{
	long waited = 0;

	mutex_lock(&stp_perf_proc.lock);
	WRITE_ONCE(stp_perf_proc.stopping, true);
	mutex_unlock(&stp_perf_proc.lock);
	if (!stp_perf_proc.on_exec)
		return;
	tracepoint_probe_unregister(stp_perf_proc.tp_exec, (void *)stp_perf_proc_exec, NULL);
	stp_perf_proc.on_exec = false;
	tracepoint_synchronize_unregister();
	while (!swait_event_idle_timeout_exclusive(stp_perf_proc.wq, atomic_read(&stp_perf_proc.pending) == 0, 10 * HZ)) {
		waited += 10;
		pr_warn("%s: waiting %lds for %d processes to attach their perf events (stopped processes?)\n",
			STP_MODULE_NAME, waited, atomic_read(&stp_perf_proc.pending));
	}
	synchronize_rcu();
	if (atomic_read(&stp_perf_proc.overflow))
		stp_report_line("WARNING: perf .process(\"PATH\") probes: more than %d processes ran a program: %d "
				"without events (-DSTP_PERF_PROC_EVENTS=N raises the limit)\n", STP_PERF_PROC_EVENTS,
				atomic_read(&stp_perf_proc.overflow));
	if (atomic_read(&stp_perf_proc.no_work))
		stp_report_line("WARNING: perf .process(\"PATH\") probes: %d processes without events (more than %d "
				"exec'd at once; -DSTP_PERF_PROC_WORKS=N)\n", atomic_read(&stp_perf_proc.no_work),
				STP_PERF_PROC_WORKS);
	if (atomic_read(&stp_perf_proc.failed))
		stp_report_line("WARNING: perf .process(\"PATH\") probes: %d events refused by the kernel (%d)\n",
				atomic_read(&stp_perf_proc.failed), stp_perf_proc.last_error);
}

/* p's counter over every process running its program: each event with its exited children */
static u64 stp_perf_proc_sum(struct stp_perf_probe *p, bool final)
{
	u64 sum = 0, enabled, running;
	int k, n = atomic_read_acquire(&p->nproc);

	for (k = 0; k < n; k++) {
		struct perf_event *e = p->proc_events[k];

		if (final) {
			perf_event_disable(e);
			sum += perf_event_read_value(e, &enabled, &running);
		} else {
			if (READ_ONCE(e->oncpu) == smp_processor_id())
				e->pmu->read(e);
			sum += local64_read(&e->count) + atomic64_read(&e->child_count);
		}
	}
	return sum;
}

/* p's events and file (process context: at stop, or at start for an optional probe refused) */
static void stp_perf_proc_release(struct stp_perf_probe *p)
{
	struct perf_event **events;
	int k, n;

	mutex_lock(&stp_perf_proc.lock);
	events = p->proc_events;
	n = atomic_read(&p->nproc);
	p->proc_events = NULL;
	atomic_set(&p->nproc, 0);
	mutex_unlock(&stp_perf_proc.lock);
	for (k = 0; events && k < n; k++)
		perf_event_release_kernel(events[k]);
	kfree(events);
	if (p->inode) {
		WRITE_ONCE(p->inode, NULL);
		path_put(&p->fpath);
	}
}
