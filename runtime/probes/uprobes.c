/* uprobes.c - process("PATH").function(...) probes: uprobes and uretprobes on a file's inode at the
 * offsets the translator computed.  Included by generated code using the family (providers/uprobe.c). */
#include <linux/uprobes.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/dcache.h>
#include <linux/sched/task.h>
#include <linux/version.h>

#ifndef CONFIG_UPROBES
#error "process(...) probes need a kernel built with CONFIG_UPROBES"
#endif

/* One probed file: looked up by path when the first of its probes is armed, held (so that its
 * inode stays the one probed) until the last is disarmed. */
struct stp_uprobe_file {
	const char *path;
	struct path p;
	struct inode *inode;
	int held;
};

struct stp_uprobe {
	const struct stp_probe_desc *desc;
	struct stp_uprobe_file *file;
	loff_t offset;                      /* in the file */
	int is_return;                      /* a uretprobe: the handler runs at the function's return */
	int optional;                       /* '?': a file or location the kernel refuses is skipped */
	int registered;
	struct uprobe_consumer uc;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	struct uprobe *up;
#endif
};

/* With a target process (-c CMD / -x PID), process probes fire only in it and its descendants,
 * as SystemTap scopes them; without one, in every process running the file. */
static bool stp_uprobe_in_scope(void)
{
	struct task_struct *t;
	bool in = false;
	int depth;

	if (stp_target <= 0)
		return true;
	rcu_read_lock();
	for (t = current, depth = 0; t && depth < 4096; depth++) {
		struct task_struct *parent;

		if (task_tgid_nr(t) == stp_target) {
			in = true;
			break;
		}
		parent = rcu_dereference(t->real_parent);
		if (!parent || parent == t || task_pid_nr(t) <= 1)
			break;
		t = parent;
	}
	rcu_read_unlock();
	return in;
}

/* uprobe handlers run in the probed task, preemptible: the hit is pinned to this CPU's context. */
static void stp_uprobe_hit(struct uprobe_consumer *self, struct pt_regs *regs)
{
	struct stp_uprobe *p = container_of(self, struct stp_uprobe, uc);

	if (!stp_uprobe_in_scope())
		return;
	preempt_disable();
	stp_run_probe(p->desc, regs, false);
	preempt_enable();
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
static int stp_uprobe_entry(struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data)
{
	stp_uprobe_hit(self, regs);
	return 0;
}

static int stp_uprobe_return(struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs, __u64 *data)
{
	stp_uprobe_hit(self, regs);
	return 0;
}
#else
static int stp_uprobe_entry(struct uprobe_consumer *self, struct pt_regs *regs)
{
	stp_uprobe_hit(self, regs);
	return 0;
}

static int stp_uprobe_return(struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs)
{
	stp_uprobe_hit(self, regs);
	return 0;
}
#endif

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
	f->inode = inode;
	f->held = 1;
	return 0;
}

static void stp_uprobe_stop(struct stp_uprobe *probes, unsigned int n)
{
	unsigned int i;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	bool any = false;
#endif

	for (i = 0; i < n; i++) {
		struct stp_uprobe *p = &probes[i];

		if (!p->registered)
			continue;
		/* on return no handler of p runs any more (before 6.12: the uprobe's register_rwsem;
		 * 6.12 on: the SRCU grace period of uprobe_unregister_sync below) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
		uprobe_unregister_nosync(p->up, &p->uc);
		any = true;
#else
		uprobe_unregister(p->file->inode, p->offset, &p->uc);
#endif
		p->registered = 0;
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	if (any)
		uprobe_unregister_sync();
#endif
	for (i = 0; i < n; i++) {
		struct stp_uprobe_file *f = probes[i].file;

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
		if (p->is_return)
			p->uc.ret_handler = stp_uprobe_return;
		else
			p->uc.handler = stp_uprobe_entry;
		rc = stp_uprobe_hold(p->file);
		if (!rc) {
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
			p->up = uprobe_register(p->file->inode, p->offset, 0, &p->uc);
			rc = IS_ERR(p->up) ? PTR_ERR(p->up) : 0;
#else
			rc = uprobe_register(p->file->inode, p->offset, &p->uc);
#endif
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
