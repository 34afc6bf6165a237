/* process.c - process life-cycle probes, process[(PATH|PID)].begin/.end/.thread.begin/.thread.end, on
 * the sched_process_fork/exec/exit tracepoints.  Included by generated code (providers/process.c). */
#include <linux/tracepoint.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/swait.h>
#include <linux/bitops.h>
#include <linux/delay.h>
#include <linux/binfmts.h>
#include <linux/vmalloc.h>

enum { STP_PROC_BEGIN, STP_PROC_END, STP_PROC_THREAD_BEGIN, STP_PROC_THREAD_END };

/* process("PATH"): the executable, held from start to stop so that its inode is the one compared. */
struct stp_proc_file {
	const char *path;
	struct path p;
	struct inode *inode;
	int held;
};

struct stp_proc_probe {
	const struct stp_probe_desc *desc;
	int kind;                           /* STP_PROC_* */
	int file;                           /* index in the files, -1: any executable */
	int pid;                            /* process(PID): that process, 0: any */
};

/* Processes seen running a probed PATH (bit i: file i), so that .end (after the exiting task lost its
 * memory map) and an exec to another program know what it ran. */
#ifndef STP_PROC_TRACKED
#define STP_PROC_TRACKED 4096
#endif

struct stp_proc_work {
	struct callback_head cb;            /* first: the task work */
	int kind;
};

/* Begin checks queued at once (one per task between its fork and its return to user space, and one
 * per task running at start): preallocated, as the fork tracepoint may not allocate (PREEMPT_RT). */
#ifndef STP_PROC_WORKS
#define STP_PROC_WORKS 4096
#endif

static struct {
	struct stp_proc_probe *probes;
	unsigned int n;
	struct stp_proc_file *files;
	unsigned int nfiles;
	unsigned int kinds;                 /* bit per STP_PROC_* that some probe has */
	struct tracepoint *tp_fork, *tp_exec, *tp_exit;
	bool on_fork, on_exec, on_exit, stopping;
	atomic_t pending;                   /* task works queued and not yet finished */
	struct swait_queue_head wq;         /* stop waits there for pending == 0 (raw lock: RT-safe) */
	struct stp_proc_work *works;        /* STP_PROC_WORKS of them */
	unsigned long *works_used;          /* a bit per work: queued */
	raw_spinlock_t lock;                /* the tracked set */
	struct { pid_t tgid; u32 files; } *tracked;
	atomic_t overflow;
	atomic_t no_work;                   /* begin checks not queued: no free work */
} stp_proc;

/* The probed files task t runs (its memory map's executable). */
static u32 stp_proc_exe_mask(struct task_struct *t)
{
	struct file *exe;
	struct inode *ino;
	u32 mask = 0;
	unsigned int i;

	if (!stp_proc.nfiles)
		return 0;
	/* current's mm changes only by current itself; another task's is read under its task lock
	 * (a spinlock_t, sleeping on PREEMPT_RT: only at start, in process context) */
	if (t != current)
		task_lock(t);
	if (t->mm) {
		rcu_read_lock();
		exe = rcu_dereference(t->mm->exe_file);
		ino = exe ? file_inode(exe) : NULL;
		for (i = 0; ino && i < stp_proc.nfiles; i++)
			if (stp_proc.files[i].held && stp_proc.files[i].inode == ino)
				mask |= 1u << i;
		rcu_read_unlock();
	}
	if (t != current)
		task_unlock(t);
	return mask;
}

/* The tracked set: files of tgid (0: not tracked); set replaces them (0 removes the entry). */
static u32 stp_proc_tracked(pid_t tgid, bool set, u32 files)
{
	unsigned int i, free_at = STP_PROC_TRACKED;
	u32 old = 0;

	if (!stp_proc.tracked)
		return 0;
	raw_spin_lock(&stp_proc.lock);
	for (i = 0; i < STP_PROC_TRACKED; i++) {
		if (stp_proc.tracked[i].tgid == tgid && stp_proc.tracked[i].files) {
			old = stp_proc.tracked[i].files;
			free_at = i;
			break;
		}
		if (!stp_proc.tracked[i].files && free_at == STP_PROC_TRACKED)
			free_at = i;
	}
	if (set && (files || old)) {
		if (free_at < STP_PROC_TRACKED) {
			stp_proc.tracked[free_at].tgid = tgid;
			stp_proc.tracked[free_at].files = files;
		} else {
			atomic_inc(&stp_proc.overflow);
		}
	}
	raw_spin_unlock(&stp_proc.lock);
	return old;
}

/* Runs the probes of kind that match current: any process, its pid, or a file in files (only_files:
 * the PATH probes alone).  Preemption disabled. */
static void stp_proc_fire(int kind, u32 files, bool only_files)
{
	unsigned int i;
	bool scoped = false, in = false;

	for (i = 0; i < stp_proc.n; i++) {
		const struct stp_proc_probe *p = &stp_proc.probes[i];

		if (p->kind != kind)
			continue;
		if (p->file >= 0 ? !(files & (1u << p->file)) :
		    only_files || (p->pid && p->pid != task_tgid_nr(current)))
			continue;
		if (!scoped) {
			in = stp_in_target_tree();
			scoped = true;
		}
		if (in)
			stp_run_probe(p->desc, NULL, false);
	}
}

/* A begin probe runs in the new process or thread itself: queued as a task work from the fork, or
 * at start for those already running, it runs when the task next returns to user space. */
static void stp_proc_work_run(struct callback_head *cb)
{
	struct stp_proc_work *w = container_of(cb, struct stp_proc_work, cb);
	unsigned long flags;
	int i;

	/* one queued at start, while other families are still being armed, waits for the run */
	for (i = 0; i < 10000 && atomic_read(&stp_run_state) == STP_STARTING; i++)
		msleep(1);
	if (!READ_ONCE(stp_proc.stopping)) {
		preempt_disable();
		stp_proc_fire(w->kind, stp_proc_exe_mask(current), false);
		preempt_enable();
	}
	clear_bit(w - stp_proc.works, stp_proc.works_used);
	/* the last instructions of this module a task runs: stop waits for the count, then an RCU
	 * grace period for this tail, run with interrupts off */
	local_irq_save(flags);
	if (atomic_dec_and_test(&stp_proc.pending))
		swake_up_one(&stp_proc.wq);
	local_irq_restore(flags);
}

/* Whether a probe of kind may match a task of tgid running files. */
static bool stp_proc_wanted(int kind, pid_t tgid, u32 files)
{
	unsigned int i;

	for (i = 0; i < stp_proc.n; i++) {
		const struct stp_proc_probe *p = &stp_proc.probes[i];

		if (p->kind == kind && (p->file >= 0 ? (files & (1u << p->file)) != 0 : !p->pid || p->pid == tgid))
			return true;
	}
	return false;
}

/* A free work, or NULL when all STP_PROC_WORKS are queued. */
static struct stp_proc_work *stp_proc_work_get(void)
{
	unsigned int i;

	for (i = find_first_zero_bit(stp_proc.works_used, STP_PROC_WORKS); i < STP_PROC_WORKS;
	     i = find_next_zero_bit(stp_proc.works_used, STP_PROC_WORKS, i + 1))
		if (!test_and_set_bit(i, stp_proc.works_used))
			return &stp_proc.works[i];
	return NULL;
}

static void stp_proc_queue(struct task_struct *t, int kind, u32 files, enum task_work_notify_mode how)
{
	struct stp_proc_work *w;

	if (!stp_proc_wanted(kind, task_tgid_nr(t), files) || (t->flags & (PF_KTHREAD | PF_EXITING)))
		return;
	w = stp_proc_work_get();
	if (!w) {
		atomic_inc(&stp_proc.no_work);
		return;
	}
	init_task_work(&w->cb, stp_proc_work_run);
	w->kind = kind;
	atomic_inc(&stp_proc.pending);
	if (task_work_add(t, &w->cb, how)) {
		clear_bit(w - stp_proc.works, stp_proc.works_used);
		if (atomic_dec_and_test(&stp_proc.pending))
			swake_up_one(&stp_proc.wq);
	}
}

static void stp_proc_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	if (READ_ONCE(stp_proc.stopping) || (child->flags & PF_KTHREAD))
		return;
	if (thread_group_leader(child)) {
		/* the child runs what its parent (current) runs */
		u32 files = stp_proc_exe_mask(current);

		if (files)
			stp_proc_tracked(task_tgid_nr(child), true, files);
		stp_proc_queue(child, STP_PROC_BEGIN, files, TWA_RESUME);
	} else {
		stp_proc_queue(child, STP_PROC_THREAD_BEGIN, stp_proc_exe_mask(current), TWA_RESUME);
	}
}

/* After an exec (current runs the new program): a PATH left is an end, a PATH entered a begin. */
static void stp_proc_exec(void *data, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	u32 now, before;

	if (READ_ONCE(stp_proc.stopping) || !stp_proc.nfiles)
		return;
	now = stp_proc_exe_mask(current);
	before = stp_proc_tracked(task_tgid_nr(current), true, now);
	if (before & ~now)
		stp_proc_fire(STP_PROC_END, before & ~now, true);
	if (now & ~before)
		stp_proc_fire(STP_PROC_BEGIN, now & ~before, true);
}

static void stp_proc_exit(void *data, struct task_struct *p)
{
	u32 files;
	bool last;

	if (READ_ONCE(stp_proc.stopping) || (current->flags & PF_KTHREAD))
		return;
	/* do_exit has counted this thread out of the group's live ones */
	last = atomic_read(&current->signal->live) == 0;
	files = stp_proc_tracked(task_tgid_nr(current), last, 0);
	if (!thread_group_leader(current))
		stp_proc_fire(STP_PROC_THREAD_END, files, false);
	if (last)
		stp_proc_fire(STP_PROC_END, files, false);
}

static void stp_proc_lookup(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		stp_proc.tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		stp_proc.tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		stp_proc.tp_exit = tp;
}

static void stp_proc_stop(void)
{
	unsigned int i;
	long waited = 0;

	WRITE_ONCE(stp_proc.stopping, true);
	if (stp_proc.on_fork)
		tracepoint_probe_unregister(stp_proc.tp_fork, (void *)stp_proc_fork, NULL);
	if (stp_proc.on_exec)
		tracepoint_probe_unregister(stp_proc.tp_exec, (void *)stp_proc_exec, NULL);
	if (stp_proc.on_exit)
		tracepoint_probe_unregister(stp_proc.tp_exit, (void *)stp_proc_exit, NULL);
	stp_proc.on_fork = stp_proc.on_exec = stp_proc.on_exit = false;
	tracepoint_synchronize_unregister();
	/* begin works still queued run this module's code: wait until each has run (a task stopped
	 * by a signal runs its own once continued or killed) */
	while (!swait_event_idle_timeout_exclusive(stp_proc.wq, atomic_read(&stp_proc.pending) == 0, 10 * HZ)) {
		waited += 10;
		pr_warn("%s: waiting %lds for %d processes to run their begin probe check (stopped processes?)\n",
			STP_MODULE_NAME, waited, atomic_read(&stp_proc.pending));
	}
	synchronize_rcu();
	if (atomic_read(&stp_proc.no_work))
		stp_report_line("WARNING: process probes: %d begin probes not run (more than %d tasks waiting"
				" for theirs; -DSTP_PROC_WORKS=N raises the limit)\n",
				atomic_read(&stp_proc.no_work), STP_PROC_WORKS);
	if (atomic_read(&stp_proc.overflow))
		stp_report_line("WARNING: process probes: more than %d processes running probed files at once:"
				" %d not tracked\n", STP_PROC_TRACKED, atomic_read(&stp_proc.overflow));
	vfree(stp_proc.tracked);
	stp_proc.tracked = NULL;
	vfree(stp_proc.works);
	stp_proc.works = NULL;
	bitmap_free(stp_proc.works_used);
	stp_proc.works_used = NULL;
	for (i = 0; i < stp_proc.nfiles; i++) {
		if (stp_proc.files[i].held) {
			path_put(&stp_proc.files[i].p);
			stp_proc.files[i].held = 0;
			stp_proc.files[i].inode = NULL;
		}
	}
}

static int stp_proc_start(struct stp_proc_probe *probes, unsigned int n, struct stp_proc_file *files,
			  unsigned int nfiles)
{
	struct task_struct *g, *t;
	unsigned int i;
	int rc = 0;

	memset(&stp_proc, 0, sizeof(stp_proc));
	stp_proc.probes = probes;
	stp_proc.n = n;
	stp_proc.files = files;
	stp_proc.nfiles = nfiles;
	init_swait_queue_head(&stp_proc.wq);
	raw_spin_lock_init(&stp_proc.lock);
	atomic_set(&stp_proc.pending, 0);
	atomic_set(&stp_proc.overflow, 0);
	atomic_set(&stp_proc.no_work, 0);
	for (i = 0; i < n; i++)
		stp_proc.kinds |= 1u << probes[i].kind;
	stp_proc.works = vzalloc(sizeof(*stp_proc.works) * STP_PROC_WORKS);
	stp_proc.works_used = bitmap_zalloc(STP_PROC_WORKS, GFP_KERNEL);
	if (!stp_proc.works || !stp_proc.works_used) {
		stp_proc_stop();
		return -ENOMEM;
	}
	if (nfiles > 32) {
		stp_startup_error("process probes: at most 32 executables (%u named)", nfiles);
		stp_proc_stop();
		return -E2BIG;
	}
	for (i = 0; i < nfiles; i++) {
		struct stp_proc_file *f = &files[i];
		struct inode *inode;

		rc = kern_path(f->path, LOOKUP_FOLLOW, &f->p);
		if (rc) {
			stp_startup_error("process(\"%s\") probes: cannot find the file (%d)", f->path, rc);
			stp_proc_stop();
			return rc;
		}
		inode = d_real_inode(f->p.dentry);
		f->inode = inode;
		f->held = 1;
	}
	if (nfiles) {
		stp_proc.tracked = vzalloc(sizeof(*stp_proc.tracked) * STP_PROC_TRACKED);
		if (!stp_proc.tracked) {
			stp_proc_stop();
			return -ENOMEM;
		}
	}
	for_each_kernel_tracepoint(stp_proc_lookup, NULL);
	if (!stp_proc.tp_fork || !stp_proc.tp_exec || !stp_proc.tp_exit) {
		stp_startup_error("the running kernel lacks the sched_process_fork/exec/exit tracepoints");
		stp_proc_stop();
		return -ENOENT;
	}
	rc = tracepoint_probe_register(stp_proc.tp_fork, (void *)stp_proc_fork, NULL);
	stp_proc.on_fork = !rc;
	if (!rc) {
		rc = tracepoint_probe_register(stp_proc.tp_exec, (void *)stp_proc_exec, NULL);
		stp_proc.on_exec = !rc;
	}
	if (!rc) {
		rc = tracepoint_probe_register(stp_proc.tp_exit, (void *)stp_proc_exit, NULL);
		stp_proc.on_exit = !rc;
	}
	if (rc) {
		stp_startup_error("cannot probe the sched_process_* tracepoints (%d)", rc);
		stp_proc_stop();
		return rc;
	}
	/* those already running: tracked, and their begin probes run in them (woken for it) */
	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (t->flags & (PF_KTHREAD | PF_EXITING))
			continue;
		if (thread_group_leader(t)) {
			u32 f = stp_proc_exe_mask(t);

			if (f && !stp_proc_tracked(task_tgid_nr(t), false, 0))
				stp_proc_tracked(task_tgid_nr(t), true, f);
			stp_proc_queue(t, STP_PROC_BEGIN, f, TWA_SIGNAL);
		} else {
			stp_proc_queue(t, STP_PROC_THREAD_BEGIN, stp_proc_exe_mask(t), TWA_SIGNAL);
		}
	}
	rcu_read_unlock();
	return 0;
}

#define STP_PROC_FAMILY(table, files, nfiles)						\
	static int stp_proclife_register(void)						\
	{										\
		return stp_proc_start(table, ARRAY_SIZE(table), files, nfiles);		\
	}										\
	static void stp_proclife_unregister(void)					\
	{										\
		stp_proc_stop();							\
	}
