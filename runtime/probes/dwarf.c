/* dwarf.c - kernel.function/statement and module(...).function probes: kprobes at symbol+offset
 * (or an absolute address), kretprobes for .return.  Included by generated code using the family. */
#include <linux/kprobes.h>
#include "kprobe_batch.h"
#include "fentry.h"

/* KRETACTIVE, the instances per .return probe: core/limits.h */

struct stp_dwarf_probe {
	const struct stp_probe_desc *desc;
	const char *symbol;                 /* "vfs_read", "_stext", "ext4:ext4_file_open"; NULL = .addr */
	unsigned long offset;
	unsigned long addr;                 /* kernel.statement(ADDR).absolute */
	unsigned long fentry;               /* a kernel function's entry: its link-time address (fentry.h) */
	const char *fentry_names;           /* ... and its symbols, when it has aliases ("a b c"); NULL: symbol */
	const char *module;                 /* module("name") probes: the module, which must be loaded */
	kprobe_pre_handler_t entry;         /* function/statement probes */
	kretprobe_handler_t ret;            /* .return */
	kretprobe_handler_t ret_entry;      /* .return saving @entry values at the call */
	int entry_size;                     /* bytes of those values per instance */
	int maxactive;
	int optional;                       /* '?': a location the kernel refuses is skipped */
	int unchecked;                      /* a BTF wildcard's site: a refusal is skipped with a warning */
	int registered;                     /* 1: its kprobe, 2: through fentry.h's ftrace_ops */
	union {                             /* a site is one or the other: half the table */
		struct kprobe kp;
		struct kretprobe rp;        /* rp.kp is kp */
	};
};

/* The handler sees the probed address as the instruction pointer (addr(), a backtrace's first frame), as
 * kprobes.c's do. */
#define STP_DWARF_KPROBE(n)							\
	static int stp_dwarf_hit_##n(struct kprobe *kp, struct pt_regs *regs)	\
	{									\
		STP_RUN_AT_PROBED_ADDRESS(kp, regs, stp_descs[n].light,		\
					  stp_run_probe(&stp_descs[n], regs, false)); \
		return 0;							\
	}

#define STP_DWARF_KRETPROBE(n)							\
	static int stp_dwarf_ret_##n(struct kretprobe_instance *ri,		\
				     struct pt_regs *regs)			\
	{									\
		stp_run_probe(&stp_descs[n], regs, false);			\
		return 0;							\
	}

/* The sites of a wildcard point that share one handler share one trampoline too: d = the first
 * site's descriptor, known at compile time (handler, locks, path); the hit site's own (its pp())
 * comes from the kprobe, so a site costs no code of its own and a hit the same as a lone probe's. */
#define STP_DWARF_KPROBE_SHARED(d)						\
	static int stp_dwarf_hit_shared_##d(struct kprobe *kp, struct pt_regs *regs) \
	{									\
		const struct stp_probe_desc *site =				\
			container_of(kp, struct stp_dwarf_probe, kp)->desc;	\
										\
		STP_RUN_AT_PROBED_ADDRESS(kp, regs, stp_descs[d].light,		\
					  stp_run_probe_site(&stp_descs[d], site, regs)); \
		return 0;							\
	}

#define STP_DWARF_KRETPROBE_SHARED(d)						\
	static int stp_dwarf_ret_shared_##d(struct kretprobe_instance *ri,	\
					    struct pt_regs *regs)		\
	{									\
		stp_run_probe_site(&stp_descs[d],				\
				   container_of(get_kretprobe(ri), struct stp_dwarf_probe, rp)->desc, regs); \
		return 0;							\
	}

/* The call side runs stp_dwarf_entry_n (generated with the target variables) to fill ri->data;
 * when it could not run (reentrant, not running, an error), nonzero leaves the return unprobed. */
#define STP_DWARF_KRETPROBE_ENTRY(n)						\
	static int stp_dwarf_ret_entry_##n(struct kretprobe_instance *ri,	\
					   struct pt_regs *regs)		\
	{									\
		return stp_run_entry(&stp_descs[n], stp_dwarf_entry_##n, regs,	\
				     (void *)ri->data) ? 0 : 1;			\
	}									\
	static int stp_dwarf_ret_##n(struct kretprobe_instance *ri,		\
				     struct pt_regs *regs)			\
	{									\
		stp_run_probe_data(&stp_descs[n], regs, (void *)ri->data);	\
		return 0;							\
	}

static struct kprobe *stp_dwarf_site(void *table, unsigned int i, bool ret)
{
	struct stp_dwarf_probe *p = (struct stp_dwarf_probe *)table + i;

	return p->registered == 1 && !p->ret == !ret ? &p->kp : NULL;
}

static void stp_dwarf_stop(struct stp_dwarf_probe *probes, unsigned int n)
{
	unsigned long missed = 0, kmissed = 0;
	unsigned int i;

	kmissed = stp_fentry_stop();
	stp_kprobe_batch_unregister(probes, n, stp_dwarf_site);
	for (i = 0; i < n; i++) {
		struct stp_dwarf_probe *p = &probes[i];

		if (p->registered != 1) {
			p->registered = 0;
			continue;
		}
		if (p->ret) {
			missed += p->rp.nmissed;
			kmissed += p->rp.kp.nmissed;
		} else {
			kmissed += p->kp.nmissed;
		}
		p->registered = 0;
	}
	if (missed)
		stp_report_line("WARNING: Missed .return probe hits: %lu (more calls in flight than"
				" kretprobe instances; -DKRETACTIVE=N raises them)\n", missed);
	if (kmissed)
		stp_report_line("WARNING: Missed kprobe hits: %lu (hit while another kprobe ran)\n", kmissed);
}

static const char *stp_dwarf_errtext(const struct stp_dwarf_probe *p, int rc)
{
	switch (rc) {
	case -ENOENT:
		return "no such symbol in the running kernel";
	case -EINVAL: return "the kernel does not allow probing there (blacklisted, notrace, not an instruction boundary)";
	case -EILSEQ: return "not an instruction boundary";
	case -EEXIST: return "already probed";
	case -EBUSY: return "busy (reserved by jump labels, static calls or another tracer)";
	case -ENOMEM: return "out of memory";
	default: return "registration failed";
	}
}

/* Fills entry i's kprobe (kretprobe for .return) afresh for registering; batch ops (kprobe_batch.h).  NULL for
 * a site armed through ftrace. */
static struct kprobe *stp_dwarf_prepare(void *table, unsigned int i, bool *ret)
{
	struct stp_dwarf_probe *p = (struct stp_dwarf_probe *)table + i;
	struct kprobe *kp = &p->rp.kp;

	if (p->registered == 2)
		return NULL;
	memset(&p->rp, 0, sizeof(p->rp));
	if (p->symbol) {
		kp->symbol_name = p->symbol;
		kp->offset = p->offset;
	} else {
		kp->addr = (kprobe_opcode_t *)p->addr;
	}
	*ret = p->ret;
	if (p->ret) {
		p->rp.handler = p->ret;
		p->rp.entry_handler = p->ret_entry;
		p->rp.data_size = p->entry_size;
		p->rp.maxactive = p->maxactive > 0 ? p->maxactive : KRETACTIVE;
	} else {
		p->kp.pre_handler = p->entry;
	}
	return kp;
}

static void stp_dwarf_armed(void *table, unsigned int i)
{
	((struct stp_dwarf_probe *)table)[i].registered = 1;
}

/* Registers entry i alone: an optional site the kernel refuses is skipped, any other refusal reported. */
static int stp_dwarf_single(void *table, unsigned int i)
{
	struct stp_dwarf_probe *p = (struct stp_dwarf_probe *)table + i;
	bool ret = false;
	struct kprobe *kp = stp_dwarf_prepare(table, i, &ret);
	int rc;

	if (!kp)
		return 0;   /* armed through ftrace */
	rc = ret ? register_kretprobe(&p->rp) : register_kprobe(kp);

	if (!rc)
		p->registered = 1;
	if (!rc || p->optional)
		return 0;
	if (p->unchecked) {
		/* a wildcard's site typed from BTF, which no symbol table checked: skipped, said once */
		stp_report_line("WARNING: %s (%d): %s not probed for %s\n", stp_dwarf_errtext(p, rc), rc, p->symbol,
				p->desc->pp);
		return 0;
	}
	/* the reason first: a long probe point may not fit the line */
	if (p->module && rc == -ENOENT)
		stp_startup_error("module %s is not loaded (load it before starting the probes): "
				  "cannot probe %s+0x%lx for %s", p->module, p->symbol, p->offset,
				  p->desc->pp);
	else if (p->symbol)
		stp_startup_error("%s (%d): cannot probe %s+0x%lx for %s", stp_dwarf_errtext(p, rc), rc,
				  p->symbol, p->offset, p->desc->pp);
	else
		stp_startup_error("%s (%d): cannot probe address 0x%lx for %s", stp_dwarf_errtext(p, rc),
				  rc, p->addr, p->desc->pp);
	return rc;
}

static const struct stp_kprobe_batch_ops stp_dwarf_batch_ops = {
	.prepare = stp_dwarf_prepare,
	.armed = stp_dwarf_armed,
	.single = stp_dwarf_single,
};

#if STP_FENTRY
/* Entry i for fentry.h: a kernel function entry's link-time address, its symbol, kprobe and handler. */
static unsigned long stp_dwarf_fentry_site(void *table, unsigned int i, const char **symbol, struct kprobe **kp,
					   kprobe_pre_handler_t *hit)
{
	struct stp_dwarf_probe *p = (struct stp_dwarf_probe *)table + i;

	if (!p->fentry || p->ret || p->module || !p->symbol || p->offset)
		return 0;
	*symbol = p->fentry_names ? p->fentry_names : p->symbol;
	*kp = &p->kp;
	*hit = p->entry;
	return p->fentry;
}

static void stp_dwarf_fentry_taken(void *table, unsigned int i)
{
	((struct stp_dwarf_probe *)table)[i].registered = 2;
}

static const struct stp_fentry_ops stp_dwarf_fentry_ops = {
	.site = stp_dwarf_fentry_site,
	.taken = stp_dwarf_fentry_taken,
};
#define STP_DWARF_FENTRY_OPS (&stp_dwarf_fentry_ops)
#else
#define STP_DWARF_FENTRY_OPS NULL
#endif

static int stp_dwarf_start(struct stp_dwarf_probe *probes, unsigned int n)
{
	int rc;

	stp_fentry_start(probes, n, STP_DWARF_FENTRY_OPS);
	rc = stp_kprobe_batch_register(probes, n, &stp_dwarf_batch_ops);

	if (rc)
		stp_dwarf_stop(probes, n);
	return rc;
}

#define STP_DWARF_FAMILY(table) STP_FAMILY(kernel, stp_dwarf_start, stp_dwarf_stop, table)
