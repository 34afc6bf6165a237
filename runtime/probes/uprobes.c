/* uprobes.c - process("PATH").function(...) probes: uprobes and uretprobes on a file's inode at the
 * offsets the translator computed.  Included by generated code using the family (providers/uprobe.c). */
#ifndef STP_PROBES_UPROBES_C
#define STP_PROBES_UPROBES_C   /* included by the process("PATH").function and .mark families both */
#include <linux/uprobes.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/dcache.h>
#include <linux/sched/task.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/ptrace.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/cred.h>

#ifndef CONFIG_UPROBES
#error "process(...) probes need a kernel built with CONFIG_UPROBES"
#endif

/* One probed file: looked up by path when the first of its probes is armed, held (so that its
 * inode stays the one probed) until the last is disarmed. */
struct stp_uprobe_file {
	const char *path;
	/* its GNU build id as translated, and where it lies in the file (build_id_len 0: none) */
	loff_t build_id_offset;
	unsigned int build_id_len;
	const char *build_id;
	struct path p;
	struct inode *inode;
	int held;
};

/* Calls in flight at once (all threads, recursion included) whose entry values one .return probe
 * can keep; a return without its call's values is skipped and counted. */
#ifndef STP_URETPROBE_SLOTS
#define STP_URETPROBE_SLOTS 256
#endif

/* The entry values of one call in flight: found again at the return by task and stack pointer. */
struct stp_uprobe_slot {
	struct task_struct *task;           /* NULL: free */
	pid_t pid;
	bool valid;                         /* the call's handler ran: data holds its values */
	unsigned long sp;                   /* the call's CFA: the stack pointer once it returned */
	u64 data[];                         /* entry_size bytes: what stp_dwarf_entry_N saved */
};

struct stp_uprobe {
	const struct stp_probe_desc *desc;
	struct stp_uprobe_file *file;
	loff_t offset;                      /* in the file */
	loff_t ref_ctr_offset;              /* SDT: the marker's semaphore in the file, counted up by
	                                     * the kernel while armed; 0: none */
	int is_return;                      /* a uretprobe: the handler runs at the function's return */
	int optional;                       /* '?': a file or location the kernel refuses is skipped */
	pid_t pid;                          /* process(PID) probes: only that process (tgid); 0: any */
	/* the link-time addresses of offset and save_offset: the hit's address minus it is the file's
	 * load bias, which globals of position-independent code need (stp_ubias) */
	unsigned long link, save_link;
	/* .return with entry values ($param, @entry): a second uprobe at save_offset (where a .call
	 * probe would be) runs entry, which saves them; the call is known again at the return by its
	 * CFA there (cfa_reg: offset in pt_regs, + cfa_offset), the stack pointer after the return */
	void (*entry)(struct stp_context *c);
	int entry_size;
	loff_t save_offset;
	unsigned int cfa_reg;
	long cfa_offset;
	int registered, save_registered;
	/* the probe's own trampolines (NULL: the generic handlers) */
	typeof(((struct uprobe_consumer *)0)->handler) hit;
	typeof(((struct uprobe_consumer *)0)->ret_handler) ret_hit;
	struct uprobe_consumer uc, uc_save;
	struct stp_compat_uprobe reg, reg_save;   /* core/compat.h */
	/* entry values: STP_URETPROBE_SLOTS slots of slot_size bytes, allocated at start */
	char *slots;
	size_t slot_size;
	raw_spinlock_t lock;
	atomic_t missed;
};

/* While a handler runs: the load bias of the probed file, for stp_ubias (vaddr: where the probe hit
 * in the process, the entry for a return, link: the same place in the file's link-time addresses). */
static __always_inline void stp_uprobe_bias_set(struct stp_uprobe *p, unsigned long vaddr, unsigned long link)
{
	struct stp_ubias_state *u = this_cpu_ptr(&stp_ubias_state);

	u->path = p->file->path;
	u->bias = vaddr - link;
}

static __always_inline void stp_uprobe_bias_clear(void)
{
	this_cpu_ptr(&stp_ubias_state)->path = NULL;
}

/* Whether a hit of p in current counts: in target()'s tree (-c/-x), in its process (process(PID)). */
static __always_inline bool stp_uprobe_wanted(const struct stp_uprobe *p)
{
	return (!p->pid || task_tgid_nr(current) == p->pid) && stp_in_target_tree();
}

/* uprobe handlers run in the probed task, preemptible: the hit is pinned to this CPU's context.
 * Always inlined: into the per-probe trampolines (STP_UPROBE_TRAMPOLINE below), where d is known
 * at compile time (its light path chosen, its handler called directly, its lock loop unrolled),
 * and into the generic handler, which finds d at run time. */
static __always_inline void stp_uprobe_fire(struct uprobe_consumer *self, const struct stp_probe_desc *d,
					    struct pt_regs *regs, unsigned long vaddr)
{
	struct stp_uprobe *p = container_of(self, struct stp_uprobe, uc);

	if (!stp_uprobe_wanted(p))
		return;
	preempt_disable();
	stp_uprobe_bias_set(p, vaddr, p->link);
	stp_run_probe(d, regs, false);
	stp_uprobe_bias_clear();
	preempt_enable();
}

static void stp_uprobe_hit(struct uprobe_consumer *self, struct pt_regs *regs, unsigned long vaddr)
{
	stp_uprobe_fire(self, container_of(self, struct stp_uprobe, uc)->desc, regs, vaddr);
}

static struct stp_uprobe_slot *stp_uprobe_slot_at(struct stp_uprobe *p, unsigned int i)
{
	return (struct stp_uprobe_slot *)(p->slots + (size_t)i * p->slot_size);
}

/* The slot of the call of current whose CFA is sp: the one holding its values, or to claim (claim)
 * a free one (or the same call's, left by a call that never returned through the probe: one
 * entered before the return probe was armed, a longjmp); NULL when there is none.  The search
 * starts where the pair hashes to and may go round the table. */
static struct stp_uprobe_slot *stp_uprobe_slot_find(struct stp_uprobe *p, unsigned long sp, bool claim)
{
	unsigned int start = hash_long(sp ^ (unsigned long)current, 16) % STP_URETPROBE_SLOTS, k;
	struct stp_uprobe_slot *found = NULL, *free_slot = NULL;

	raw_spin_lock(&p->lock);
	for (k = 0; k < STP_URETPROBE_SLOTS; k++) {
		struct stp_uprobe_slot *sl = stp_uprobe_slot_at(p, (start + k) % STP_URETPROBE_SLOTS);

		if (sl->task == current && sl->pid == current->pid && sl->sp == sp) {
			found = sl;
			break;
		}
		if (claim && !sl->task && !free_slot)
			free_slot = sl;
	}
	if (claim && !found)
		found = free_slot;
	if (claim && found) {
		found->task = current;
		found->pid = current->pid;
		found->sp = sp;
		found->valid = false;
	}
	raw_spin_unlock(&p->lock);
	return found;
}

static void stp_uprobe_slot_free(struct stp_uprobe *p, struct stp_uprobe_slot *sl)
{
	raw_spin_lock(&p->lock);
	sl->task = NULL;
	raw_spin_unlock(&p->lock);
}

/* The call side of a .return probe with entry values: they are saved in a slot for the return;
 * with no free slot the return finds none (counted as missed at the end). */
static void stp_uprobe_call(struct uprobe_consumer *self, struct pt_regs *regs, unsigned long vaddr)
{
	struct stp_uprobe *p = container_of(self, struct stp_uprobe, uc_save);
	struct stp_uprobe_slot *sl;
	bool ok;

	if (!stp_uprobe_wanted(p))
		return;
	sl = stp_uprobe_slot_find(p, *(unsigned long *)((char *)regs + p->cfa_reg) + p->cfa_offset, true);
	if (!sl) {
		atomic_inc(&p->missed);
		return;
	}
	preempt_disable();
	stp_uprobe_bias_set(p, vaddr, p->save_link);
	ok = stp_run_entry(p->desc, p->entry, regs, sl->data);
	stp_uprobe_bias_clear();
	preempt_enable();
	/* when it did not run (skipped and counted, an error, not running) the return is not probed */
	WRITE_ONCE(sl->valid, ok);
}

/* The return side: the values the call saved (the return address was popped: sp is the call's
 * CFA), then the slot is free again. */
static void stp_uprobe_ret_saved(struct uprobe_consumer *self, struct pt_regs *regs, unsigned long vaddr)
{
	struct stp_uprobe *p = container_of(self, struct stp_uprobe, uc);
	struct stp_uprobe_slot *sl;

	if (!stp_uprobe_wanted(p))
		return;
	sl = stp_uprobe_slot_find(p, user_stack_pointer(regs), false);
	if (!sl) {
		atomic_inc(&p->missed);
		return;
	}
	if (READ_ONCE(sl->valid)) {
		preempt_disable();
		stp_uprobe_bias_set(p, vaddr, p->link);
		stp_run_probe_data(p->desc, regs, sl->data);
		stp_uprobe_bias_clear();
		preempt_enable();
	}
	stp_uprobe_slot_free(p, sl);
}

/* STP_UPROBE_HANDLER, STP_URETPROBE_HANDLER: core/compat.h */
STP_UPROBE_HANDLER(stp_uprobe_entry, stp_uprobe_hit)
STP_URETPROBE_HANDLER(stp_uprobe_return, stp_uprobe_hit)
STP_UPROBE_HANDLER(stp_uprobe_entry_save, stp_uprobe_call)
STP_URETPROBE_HANDLER(stp_uprobe_return_saved, stp_uprobe_ret_saved)

/* One handler per probe point (n = its index in stp_descs[]; generated by providers/uprobe.c and
 * providers/sdt.c for the table's .hit / .ret_hit), as for kprobes: the hit runs with its descriptor
 * known at compile time.  A probe without one (.return with entry values) takes the generic ones. */
#define STP_UPROBE_TRAMPOLINE(n)							\
	static __always_inline void stp_uprobe_fire_##n(struct uprobe_consumer *self, struct pt_regs *regs, \
							 unsigned long vaddr)			\
	{ stp_uprobe_fire(self, &stp_descs[n], regs, vaddr); }				\
	STP_UPROBE_HANDLER(stp_uprobe_hit_##n, stp_uprobe_fire_##n)
#define STP_URETPROBE_TRAMPOLINE(n)							\
	static __always_inline void stp_uretprobe_fire_##n(struct uprobe_consumer *self, struct pt_regs *regs, \
							    unsigned long vaddr)			\
	{ stp_uprobe_fire(self, &stp_descs[n], regs, vaddr); }				\
	STP_URETPROBE_HANDLER(stp_uretprobe_hit_##n, stp_uretprobe_fire_##n)

static int stp_uprobe_hold(struct stp_uprobe_file *f)
{
	struct inode *inode;
	int rc;

	if (f->held)
		return 0;
	rc = kern_path(f->path, LOOKUP_FOLLOW, &f->p);
	if (rc)
		return rc;
	inode = d_real_inode(f->p.dentry);
	if (!inode || !S_ISREG(inode->i_mode)) {
		path_put(&f->p);
		return -EINVAL;
	}
	if (f->build_id_len) {
		/* the offsets are the translated file's: a file rebuilt since would be probed anywhere */
		struct file *fp = dentry_open(&f->p, O_RDONLY, current_cred());
		char id[64];
		loff_t pos = f->build_id_offset;
		ssize_t got;

		if (IS_ERR(fp)) {
			path_put(&f->p);
			return PTR_ERR(fp);
		}
		got = f->build_id_len <= sizeof(id) ? kernel_read(fp, id, f->build_id_len, &pos) : -EINVAL;
		fput(fp);
		if (got != f->build_id_len || memcmp(id, f->build_id, f->build_id_len)) {
			path_put(&f->p);
			return -ENOEXEC;
		}
	}
	f->inode = inode;
	f->held = 1;
	return 0;
}

static void stp_uprobe_stop(struct stp_uprobe *probes, unsigned int n)
{
	unsigned int i;
	bool any = false;

	for (i = 0; i < n; i++) {
		struct stp_uprobe *p = &probes[i];

		/* on return no handler of p runs any more (before 6.12: the uprobe's register_rwsem;
		 * 6.12 on: the SRCU grace period of uprobe_unregister_sync below) */
		if (p->registered) {
			stp_compat_uprobe_unregister(&p->reg, &p->uc);
			any = true;
			p->registered = 0;
		}
		if (p->save_registered) {
			stp_compat_uprobe_unregister(&p->reg_save, &p->uc_save);
			any = true;
			p->save_registered = 0;
		}
	}
	if (any)
		stp_compat_uprobe_sync();
	for (i = 0; i < n; i++) {
		struct stp_uprobe_file *f = probes[i].file;
		unsigned long missed = atomic_xchg(&probes[i].missed, 0);

		if (missed)
			stp_report_line("WARNING: Missed .return probe hits: %lu for %s (calls in flight without"
					" saved entry values; -DSTP_URETPROBE_SLOTS=N raises the limit of %d)\n", missed,
					probes[i].desc->pp, STP_URETPROBE_SLOTS);
		kfree(probes[i].slots);
		probes[i].slots = NULL;
		if (f->held) {
			path_put(&f->p);
			f->inode = NULL;
			f->held = 0;
		}
	}
}

static const char *stp_uprobe_errtext(int rc)
{
	switch (rc) {
	case -ENOENT: return "no such file";
	case -ENOEXEC: return "the file changed since the script was translated (its build id differs)";
	case -EACCES: return "permission denied";
	case -EINVAL: return "not a regular file, or an offset past its end";
	case -EIO: return "the file system does not support uprobes";
	case -ENOMEM: return "out of memory";
	case -EBUSY: return "busy";
	default: return "registration failed";
	}
}

static int stp_uprobe_start(struct stp_uprobe *probes, unsigned int n)
{
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		struct stp_uprobe *p = &probes[i];

		memset(&p->uc, 0, sizeof(p->uc));
		raw_spin_lock_init(&p->lock);
		atomic_set(&p->missed, 0);
		if (p->is_return && p->entry) {
			p->slot_size = ALIGN(sizeof(struct stp_uprobe_slot) + p->entry_size, 8);
			p->slots = kcalloc(STP_URETPROBE_SLOTS, p->slot_size, GFP_KERNEL);
			if (!p->slots) {
				stp_uprobe_stop(probes, n);
				return -ENOMEM;
			}
			memset(&p->uc_save, 0, sizeof(p->uc_save));
			p->uc_save.handler = stp_uprobe_entry_save;
			p->uc.ret_handler = stp_uprobe_return_saved;
		} else if (p->is_return) {
			p->uc.ret_handler = p->ret_hit ? p->ret_hit : stp_uprobe_return;
		} else {
			p->uc.handler = p->hit ? p->hit : stp_uprobe_entry;
		}
		rc = stp_uprobe_hold(p->file);
		if (!rc && p->entry) {
			rc = stp_compat_uprobe_register(&p->reg_save, p->file->inode, p->save_offset, 0, &p->uc_save);
			p->save_registered = !rc;
		}
		if (!rc) {
			rc = stp_compat_uprobe_register(&p->reg, p->file->inode, p->offset, p->ref_ctr_offset, &p->uc);
		}
		if (rc && p->optional)
			continue;
		if (rc) {
			stp_startup_error("%s (%d): cannot probe %s at offset 0x%llx for %s", stp_uprobe_errtext(rc), rc,
					  p->file->path, (unsigned long long)p->offset, p->desc->pp);
			stp_uprobe_stop(probes, n);
			return rc;
		}
		p->registered = 1;
	}
	return 0;
}

#define STP_UPROBE_FAMILY(table) STP_FAMILY(uprobe, stp_uprobe_start, stp_uprobe_stop, table)
#endif
