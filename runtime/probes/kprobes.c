/* kprobes.c - kprobe.function("sym") probes on kprobes and .return probes on
 * kretprobes.  Included by generated code that uses the kprobe family. */
#include <linux/kprobes.h>
#include "kprobe_batch.h"

struct stp_kprobe {
	const struct stp_probe_desc *desc;
	const char *symbol;
	kprobe_pre_handler_t entry;         /* kprobe.function(...) */
	kretprobe_handler_t ret;            /* kprobe.function(...).return */
	kretprobe_handler_t ret_entry;      /* .return saving @entry values at the call */
	int entry_size;                     /* bytes of those values per instance */
	int optional;                       /* '?': a symbol the kernel lacks is skipped */
	int registered;
	union {                             /* a site is one or the other */
		struct kprobe kp;
		struct kretprobe rp;        /* rp.kp is kp */
	};
};

/* One trampoline per probe point (n = its index in stp_descs[]): each hit
 * runs with its descriptor known at compile time.  As in SystemTap, the
 * handler sees the probed address as the instruction pointer (the kernel
 * leaves it past the breakpoint), and in a .return hit the function's entry,
 * the return address being kept for backtraces (core/symbols.h). */
#define STP_KPROBE_TRAMPOLINE(n)						\
	static int stp_kprobe_hit_##n(struct kprobe *kp, struct pt_regs *regs)	\
	{									\
		STP_RUN_AT_PROBED_ADDRESS(kp, regs, stp_descs[n].light,		\
					  stp_run_probe(&stp_descs[n], regs, false)); \
		return 0;							\
	}

#define STP_KRETPROBE_TRAMPOLINE(n)						\
	static int stp_kretprobe_hit_##n(struct kretprobe_instance *ri,	\
					 struct pt_regs *regs)			\
	{									\
		struct stp_return_site saved;					\
										\
		stp_return_site_enter(&saved, regs,				\
				      (unsigned long)get_kretprobe(ri)->kp.addr); \
		stp_run_probe(&stp_descs[n], regs, false);			\
		stp_return_site_leave(&saved, regs);				\
		return 0;							\
	}

/* The sites of one shared handler (a wildcard, the syscall.* aliases) share one trampoline: d =
 * the first site's descriptor (handler, locks, path known at compile time), the hit site's own
 * (for pp()) found from the kprobe. */
#define STP_KPROBE_TRAMPOLINE_SHARED(d)					\
	static int stp_kprobe_hit_shared_##d(struct kprobe *kp, struct pt_regs *regs) \
	{									\
		const struct stp_probe_desc *site =				\
			container_of(kp, struct stp_kprobe, kp)->desc;		\
										\
		STP_RUN_AT_PROBED_ADDRESS(kp, regs, stp_descs[d].light,		\
					  stp_run_probe_site(&stp_descs[d], site, regs)); \
		return 0;							\
	}

#define STP_KRETPROBE_TRAMPOLINE_SHARED(d)					\
	static int stp_kretprobe_hit_shared_##d(struct kretprobe_instance *ri, \
						struct pt_regs *regs)		\
	{									\
		struct kretprobe *rp = get_kretprobe(ri);			\
		struct stp_return_site saved;					\
										\
		stp_return_site_enter(&saved, regs, (unsigned long)rp->kp.addr); \
		stp_run_probe_site(&stp_descs[d], container_of(rp, struct stp_kprobe, rp)->desc, regs); \
		stp_return_site_leave(&saved, regs);				\
		return 0;							\
	}

/* A .return probe with @entry values (the syscall.*.return aliases' $fd...): the call side runs
 * stp_dwarf_entry_e (generated: e is the first probe sharing the body) to fill ri->data, and
 * nonzero when it could not run leaves the return unprobed; the return side reads ri->data. */
#define STP_KRETPROBE_ENTRY_TRAMPOLINE(n, e)					\
	static int stp_kretprobe_entry_##n(struct kretprobe_instance *ri,	\
					   struct pt_regs *regs)		\
	{									\
		return stp_run_entry(&stp_descs[n], stp_dwarf_entry_##e, regs,	\
				     (void *)ri->data) ? 0 : 1;			\
	}									\
	static int stp_kretprobe_hit_##n(struct kretprobe_instance *ri,	\
					 struct pt_regs *regs)			\
	{									\
		struct stp_return_site saved;					\
										\
		stp_return_site_enter(&saved, regs,				\
				      (unsigned long)get_kretprobe(ri)->kp.addr); \
		stp_run_probe_data(&stp_descs[n], regs, (void *)ri->data);	\
		stp_return_site_leave(&saved, regs);				\
		return 0;							\
	}

static struct kprobe *stp_kprobe_site(void *table, unsigned int i, bool ret)
{
	struct stp_kprobe *p = (struct stp_kprobe *)table + i;

	return p->registered && !p->ret == !ret ? &p->kp : NULL;
}

static void stp_kprobes_stop(struct stp_kprobe *probes, unsigned int n)
{
	unsigned int i;

	stp_kprobe_batch_unregister(probes, n, stp_kprobe_site);
	for (i = 0; i < n; i++)
		probes[i].registered = 0;
}

static const char *stp_kprobe_errtext(int rc)
{
	switch (rc) {
	case -ENOENT: return "no such symbol in the kernel";
	case -EINVAL: return "the kernel does not allow probing it (blacklisted, notrace or not a function)";
	case -EEXIST: return "already probed";
	default: return "registration failed";
	}
}

/* Fills entry i's kprobe (kretprobe for .return) afresh for registering; batch ops (kprobe_batch.h). */
static struct kprobe *stp_kprobe_prepare(void *table, unsigned int i, bool *ret)
{
	struct stp_kprobe *p = (struct stp_kprobe *)table + i;

	memset(&p->rp, 0, sizeof(p->rp));
	p->rp.kp.symbol_name = p->symbol;
	*ret = p->ret;
	if (p->ret) {
		p->rp.handler = p->ret;
		p->rp.entry_handler = p->ret_entry;
		p->rp.data_size = p->entry_size;
	} else {
		p->kp.pre_handler = p->entry;
	}
	return &p->rp.kp;
}

static void stp_kprobe_armed(void *table, unsigned int i)
{
	((struct stp_kprobe *)table)[i].registered = 1;
}

/* Registers entry i alone: an optional site the kernel refuses is skipped, any other refusal reported. */
static int stp_kprobe_single(void *table, unsigned int i)
{
	struct stp_kprobe *p = (struct stp_kprobe *)table + i;
	bool ret;
	struct kprobe *kp = stp_kprobe_prepare(table, i, &ret);
	int rc = ret ? register_kretprobe(&p->rp) : register_kprobe(kp);

	if (!rc)
		p->registered = 1;
	if (!rc || p->optional)
		return 0;
	stp_startup_error("probe point %s: kernel symbol '%s': %s (%d)", p->desc->pp, p->symbol,
			  stp_kprobe_errtext(rc), rc);
	return rc;
}

static const struct stp_kprobe_batch_ops stp_kprobe_batch_ops = {
	.prepare = stp_kprobe_prepare,
	.armed = stp_kprobe_armed,
	.single = stp_kprobe_single,
};

static int stp_kprobes_start(struct stp_kprobe *probes, unsigned int n)
{
	int rc = stp_kprobe_batch_register(probes, n, &stp_kprobe_batch_ops);

	if (rc)
		stp_kprobes_stop(probes, n);
	return rc;
}

#define STP_KPROBE_FAMILY(table) STP_FAMILY(kprobe, stp_kprobes_start, stp_kprobes_stop, table)
