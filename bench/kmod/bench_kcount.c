/* bench_kcount.c - hand-written kprobes, tracepoint probes and uprobes doing by hand what the measured stap scripts do:
 * nothing, a per-CPU count, a comm-keyed count, a pid-keyed count, a per-CPU count/sum/min/max, a text line. Used by bench/run (insmod bench_kcount.ko
 * sym=SYMBOL mode=MODE, mode=tp-empty|tp-count tp=TRACEPOINT, or mode=u-empty|u-count path=FILE offset=OFFSET). */
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/uprobes.h>
#include <linux/version.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static char *sym = "__x64_sys_getppid";
module_param(sym, charp, 0444);
MODULE_PARM_DESC(sym, "kernel function to probe");

static char *mode = "count";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "empty (return at once), count (per-CPU counter: c++), "
		 "comm (count per current->comm: a[execname()]++), pid (count per current->tgid: a[pid()]++), stats (per-CPU count/sum/min/max of tgid: s <<< pid()); printf (one text line per hit, snprintf); "
		 "tp-empty, tp-count: the same as empty and count on the tracepoint tp instead of a kprobe; "
		 "u-empty, u-count: the same as a uprobe on path at offset");

static char *tp = "sys_enter";
module_param(tp, charp, 0444);
MODULE_PARM_DESC(tp, "kernel tracepoint of the tp-* modes (its probe takes two arguments: sys_enter, sys_exit)");

static char *path = "";
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "the executable of the u-* modes (u-empty, u-count: a uprobe returning at once, a per-CPU counter)");

static unsigned long offset;
module_param(offset, ulong, 0444);
MODULE_PARM_DESC(offset, "where the uprobe of the u-* modes goes: an offset in the file path");

/* ---- mode=empty ---- */

static int bench_pre_empty(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

/* ---- mode=count: c++ ---- */

static DEFINE_PER_CPU(unsigned long, bench_hits);

static int bench_pre_count(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(bench_hits);
	return 0;
}

/* ---- mode=comm: a[execname()]++ ----
 * One table shared by all CPUs, preallocated, open addressing with linear probing, keyed by the
 * 16 bytes of current->comm (the kernel NUL-pads comm), hashed with jhash2. A raw spinlock guards
 * it: the pre_handler runs with preemption disabled and kprobes do not nest on one CPU (a hit
 * while a kprobe is running counts as missed), so it cannot deadlock against itself. */

#define COMM_BITS 6
#define COMM_SLOTS (1U << COMM_BITS)

struct comm_slot {
	u32 key[TASK_COMM_LEN / sizeof(u32)];
	bool used;
	unsigned long count;
};

static struct comm_slot comm_table[COMM_SLOTS];
static DEFINE_RAW_SPINLOCK(comm_lock);
static unsigned long comm_dropped;      /* hits of a new key with the table full */

static int bench_pre_comm(struct kprobe *kp, struct pt_regs *regs)
{
	u32 key[TASK_COMM_LEN / sizeof(u32)];
	unsigned int i, n;

	BUILD_BUG_ON(sizeof(current->comm) != sizeof(key));
	memcpy(key, current->comm, sizeof(key));
	i = jhash2(key, ARRAY_SIZE(key), 0) & (COMM_SLOTS - 1);
	raw_spin_lock(&comm_lock);
	for (n = 0; n < COMM_SLOTS; n++, i = (i + 1) & (COMM_SLOTS - 1)) {
		struct comm_slot *s = &comm_table[i];

		if (!s->used) {
			memcpy(s->key, key, sizeof(key));
			s->used = true;
		} else if (memcmp(s->key, key, sizeof(key))) {
			continue;
		}
		s->count++;
		goto out;
	}
	comm_dropped++;
out:
	raw_spin_unlock(&comm_lock);
	return 0;
}

/* The count of the comm "hitloop" (bench/hitloop.c), the number of keys and of all hits. */
static void comm_report(void)
{
	unsigned long hitloop = 0, total = 0;
	unsigned int i, keys = 0;

	for (i = 0; i < COMM_SLOTS; i++) {
		if (!comm_table[i].used)
			continue;
		keys++;
		total += comm_table[i].count;
		if (!strncmp((const char *)comm_table[i].key, "hitloop", TASK_COMM_LEN))
			hitloop = comm_table[i].count;
	}
	pr_info("bench_kcount: %s comm: keys %u, all hits %lu, dropped %lu\n", sym, keys, total, comm_dropped);
	pr_info("bench_kcount: %s hits %lu\n", sym, hitloop);
}

/* ---- mode=pid: a[pid()]++ ----
 * The same discipline as mode=comm (one shared preallocated table, open addressing with linear
 * probing, a raw spinlock), keyed by current->tgid and hashed with hash_32 (as the kernel's
 * hashtable.h hashes an integer key). */

struct pid_slot {
	pid_t key;
	bool used;
	unsigned long count;
};

static struct pid_slot pid_table[COMM_SLOTS];
static DEFINE_RAW_SPINLOCK(pid_lock);
static unsigned long pid_dropped;       /* hits of a new key with the table full */

static int bench_pre_pid(struct kprobe *kp, struct pt_regs *regs)
{
	pid_t key = current->tgid;
	unsigned int i = hash_32(key, COMM_BITS), n;

	raw_spin_lock(&pid_lock);
	for (n = 0; n < COMM_SLOTS; n++, i = (i + 1) & (COMM_SLOTS - 1)) {
		struct pid_slot *s = &pid_table[i];

		if (!s->used) {
			s->key = key;
			s->used = true;
		} else if (s->key != key) {
			continue;
		}
		s->count++;
		goto out;
	}
	pid_dropped++;
out:
	raw_spin_unlock(&pid_lock);
	return 0;
}

/* The number of keys and the hits of all of them (as the stap variant's end probe sums them). */
static void pid_report(void)
{
	unsigned long total = 0;
	unsigned int i, keys = 0;

	for (i = 0; i < COMM_SLOTS; i++) {
		if (!pid_table[i].used)
			continue;
		keys++;
		total += pid_table[i].count;
	}
	pr_info("bench_kcount: %s pid: keys %u, dropped %lu\n", sym, keys, pid_dropped);
	pr_info("bench_kcount: %s hits %lu\n", sym, total);
}

/* ---- mode=stats: s <<< pid() ---- */

struct stats_acc {
	u64 count;
	s64 sum, min, max;
};

static DEFINE_PER_CPU(struct stats_acc, bench_acc);

static int bench_pre_stats(struct kprobe *kp, struct pt_regs *regs)
{
	struct stats_acc *a = this_cpu_ptr(&bench_acc);
	s64 v = current->tgid;

	if (!a->count) {
		a->min = a->max = v;
	} else {
		if (v < a->min)
			a->min = v;
		if (v > a->max)
			a->max = v;
	}
	a->count++;
	a->sum += v;
	return 0;
}

static void stats_report(void)
{
	struct stats_acc all = { 0 };
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct stats_acc *a = per_cpu_ptr(&bench_acc, cpu);

		if (!a->count)
			continue;
		if (!all.count || a->min < all.min)
			all.min = a->min;
		if (!all.count || a->max > all.max)
			all.max = a->max;
		all.count += a->count;
		all.sum += a->sum;
	}
	pr_info("bench_kcount: %s stats: count %llu sum %lld min %lld max %lld\n", sym,
		all.count, all.sum, all.min, all.max);
	pr_info("bench_kcount: %s hits %llu\n", sym, all.count);
}

/* ---- mode=printf: one text line per hit ----
 * printf("%d op: read execname: %s pid: %d fd: %d count: %d\n", gettimeofday_us(), execname(), pid(), tid(), cpu())
 * by hand: the kernel's snprintf into this CPU's line buffer, appended to this CPU's 16 KiB buffer (which wraps;
 * no reader: what a module formatting its own records pays before anyone reads them). */

#define BENCH_LINE_BUF 16384

struct bench_lines {
	unsigned int len;
	u64 records, bytes;
	char buf[BENCH_LINE_BUF];
};

static struct bench_lines __percpu *bench_lines;   /* alloc_percpu: too large for a static per-CPU variable */

static int bench_pre_printf(struct kprobe *kp, struct pt_regs *regs)
{
	struct bench_lines *l = this_cpu_ptr(bench_lines);
	int n;

	if (l->len > BENCH_LINE_BUF - 256)
		l->len = 0;
	n = snprintf(l->buf + l->len, 256, "%lld op: read execname: %s pid: %d fd: %d count: %d\n",
		     (long long)div_u64(ktime_get_real_ns(), NSEC_PER_USEC), current->comm, current->tgid,
		     current->pid, smp_processor_id());
	l->len += n;
	l->records++;
	l->bytes += n;
	return 0;
}

static void printf_report(void)
{
	u64 records = 0, bytes = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		records += per_cpu_ptr(bench_lines, cpu)->records;
		bytes += per_cpu_ptr(bench_lines, cpu)->bytes;
	}
	pr_info("bench_kcount: %s lines %llu bytes %llu\n", sym, records, bytes);
	pr_info("bench_kcount: %s hits %llu\n", sym, records);
	free_percpu(bench_lines);
}

/* ---- mode=tp-empty, tp-count: a probe on a kernel tracepoint ----
 * Found by name with for_each_kernel_tracepoint, as a tracepoint of the kernel (not of a module)
 * is found by stap's runtime. The probe's prototype is the tracepoint's, after the private data:
 * sys_enter(struct pt_regs *regs, long id), sys_exit(struct pt_regs *regs, long ret). Tracepoints
 * call their probes with preemption disabled; this_cpu_inc needs no more. */

static struct tracepoint *bench_tp;
static void *bench_tp_probe;

static void bench_tp_empty(void *data, struct pt_regs *regs, long arg)
{
}

static void bench_tp_count(void *data, struct pt_regs *regs, long arg)
{
	this_cpu_inc(bench_hits);
}

static void bench_tp_lookup(struct tracepoint *t, void *priv)
{
	if (!bench_tp && !strcmp(t->name, tp))
		bench_tp = t;
}

static int bench_tp_register(void *probe)
{
	int rc;

	for_each_kernel_tracepoint(bench_tp_lookup, NULL);
	if (!bench_tp) {
		pr_err("bench_kcount: no kernel tracepoint %s\n", tp);
		return -ENOENT;
	}
	rc = tracepoint_probe_register(bench_tp, probe, NULL);
	if (rc) {
		pr_err("bench_kcount: tracepoint_probe_register(%s): %d\n", tp, rc);
		return rc;
	}
	bench_tp_probe = probe;
	return 0;
}

static void bench_tp_unregister(void)
{
	tracepoint_probe_unregister(bench_tp, bench_tp_probe, NULL);
	/* no probe is still running in this module when this returns */
	tracepoint_synchronize_unregister();
}

/* ---- mode=u-empty, u-count: a uprobe on the file path at offset ----
 * What a kernel programmer writes for a user function: the inode looked up by path and held
 * while probed, uprobe_register on it and the offset, a handler that counts per CPU. Uprobe
 * handlers run in the probed task with preemption enabled: this_cpu_inc is one instruction. */

static unsigned long bench_count_total(void);

static struct path bench_upath;
static struct inode *bench_uinode;
static struct uprobe_consumer bench_uc;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static struct uprobe *bench_up;
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
static int bench_u_empty(struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data)
{
	return 0;
}

static int bench_u_count(struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data)
{
	this_cpu_inc(bench_hits);
	return 0;
}
#else
static int bench_u_empty(struct uprobe_consumer *self, struct pt_regs *regs)
{
	return 0;
}

static int bench_u_count(struct uprobe_consumer *self, struct pt_regs *regs)
{
	this_cpu_inc(bench_hits);
	return 0;
}
#endif

static int bench_u_register(void)
{
	int rc = kern_path(path, LOOKUP_FOLLOW, &bench_upath);

	if (rc) {
		pr_err("bench_kcount: %s: %d\n", path, rc);
		return rc;
	}
	bench_uinode = d_real_inode(bench_upath.dentry);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	bench_up = uprobe_register(bench_uinode, offset, 0, &bench_uc);
	rc = IS_ERR(bench_up) ? PTR_ERR(bench_up) : 0;
#else
	rc = uprobe_register(bench_uinode, offset, &bench_uc);
#endif
	if (rc) {
		pr_err("bench_kcount: uprobe_register(%s, 0x%lx): %d\n", path, offset, rc);
		path_put(&bench_upath);
		bench_uinode = NULL;
	}
	return rc;
}

static void bench_u_unregister(void)
{
	/* on return no handler runs any more */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_nosync(bench_up, &bench_uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(bench_uinode, offset, &bench_uc);
#endif
	path_put(&bench_upath);
	if (bench_uc.handler == bench_u_count)
		pr_info("bench_kcount: uprobe hits %lu\n", bench_count_total());
	bench_uinode = NULL;
}

/* ---- the module ---- */

static struct kprobe bench_kp;

static unsigned long bench_count_total(void)
{
	unsigned long total = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		total += per_cpu(bench_hits, cpu);
	return total;
}

static int __init bench_init(void)
{
	int rc;

	if (!strcmp(mode, "tp-empty"))
		return bench_tp_register(bench_tp_empty);
	if (!strcmp(mode, "tp-count"))
		return bench_tp_register(bench_tp_count);
	if (!strcmp(mode, "u-empty") || !strcmp(mode, "u-count")) {
		bench_uc.handler = strcmp(mode, "u-empty") ? bench_u_count : bench_u_empty;
		return bench_u_register();
	}
	if (!strcmp(mode, "empty"))
		bench_kp.pre_handler = bench_pre_empty;
	else if (!strcmp(mode, "count"))
		bench_kp.pre_handler = bench_pre_count;
	else if (!strcmp(mode, "comm"))
		bench_kp.pre_handler = bench_pre_comm;
	else if (!strcmp(mode, "pid"))
		bench_kp.pre_handler = bench_pre_pid;
	else if (!strcmp(mode, "stats"))
		bench_kp.pre_handler = bench_pre_stats;
	else if (!strcmp(mode, "printf")) {
		bench_lines = alloc_percpu(struct bench_lines);
		if (!bench_lines)
			return -ENOMEM;
		bench_kp.pre_handler = bench_pre_printf;
	}
	else {
		pr_err("bench_kcount: unknown mode '%s' (empty, count, comm, pid, stats, printf, tp-empty, tp-count, u-empty, u-count)\n", mode);
		return -EINVAL;
	}
	bench_kp.symbol_name = sym;
	rc = register_kprobe(&bench_kp);
	if (rc) {
		pr_err("bench_kcount: register_kprobe(%s): %d\n", sym, rc);
		free_percpu(bench_lines);
	}
	return rc;
}

static void __exit bench_exit(void)
{
	if (bench_uinode) {
		bench_u_unregister();
		return;
	}
	if (bench_tp_probe) {
		bench_tp_unregister();
		if (bench_tp_probe == bench_tp_count)
			pr_info("bench_kcount: tracepoint %s hits %lu\n", tp, bench_count_total());
		return;
	}
	/* waits for running handlers: the tables are quiet from here on */
	unregister_kprobe(&bench_kp);
	if (bench_kp.pre_handler == bench_pre_count) {
		pr_info("bench_kcount: %s hits %lu\n", sym, bench_count_total());
	} else if (bench_kp.pre_handler == bench_pre_comm) {
		comm_report();
	} else if (bench_kp.pre_handler == bench_pre_pid) {
		pid_report();
	} else if (bench_kp.pre_handler == bench_pre_stats) {
		stats_report();
	} else if (bench_kp.pre_handler == bench_pre_printf) {
		printf_report();
	}
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("per-hit references for bench/run: kprobes, tracepoint probes and uprobes doing by hand what the stap variants do");
