/* hwbkpt.c - kernel.data(ADDRESS|"SYMBOL")[.length(N)].write|.rw probes: a hardware watchpoint on every
 * CPU (register_wide_hw_breakpoint) whose hit runs the handler just after the access, in the debug
 * exception.  Included by generated code (translator/providers/hwbkpt.c). */
#include <linux/hw_breakpoint.h>
#include <linux/kprobes.h>

struct stp_hwbkpt_probe {
	const struct stp_probe_desc *desc;
	perf_overflow_handler_t fire;
	const char *symbol;                 /* NULL: addr as written */
	unsigned long addr;
	int len;                            /* 1, 2, 4 or 8 bytes */
	int rw;                             /* reads too, else writes only */
	int optional;                       /* '?': a watchpoint the kernel refuses is skipped */
	struct perf_event * __percpu *bp;   /* NULL until armed */
};

/* The kernel's address of a symbol, data included: through kallsyms_lookup_name, which modules
 * cannot call by name, found as the address a kprobe on it gets (process context, at start). */
static unsigned long stp_hwbkpt_lookup(const char *name)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long (*lookup)(const char *);

	if (register_kprobe(&kp) < 0)
		return 0;
	lookup = (unsigned long (*)(const char *))kp.addr;
	unregister_kprobe(&kp);
	return lookup ? lookup(name) : 0;
}

/* In the debug exception: the access has happened (x86 data breakpoints trap after it) */
static __always_inline void stp_hwbkpt_fire(struct pt_regs *regs, const struct stp_probe_desc *d)
{
	stp_run_probe(d, regs, false);
}

/* p armed; 0, or the error (said unless p is optional: a '?' point is skipped quietly) */
static int stp_hwbkpt_arm(struct stp_hwbkpt_probe *p)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;

	if (p->symbol) {
		p->addr = stp_hwbkpt_lookup(p->symbol);
		if (!p->addr) {
			if (!p->optional)
				stp_startup_error("probe point %s: no kernel symbol '%s'", p->desc->pp, p->symbol);
			return -ENOENT;
		}
	}
	if (p->addr & (p->len - 1)) {
		if (!p->optional)
			stp_startup_error("probe point %s: address 0x%lx is not aligned to %d bytes", p->desc->pp,
					  p->addr, p->len);
		return -EINVAL;
	}
	hw_breakpoint_init(&attr);
	attr.bp_addr = p->addr;
	attr.bp_len = p->len == 1 ? HW_BREAKPOINT_LEN_1 : p->len == 2 ? HW_BREAKPOINT_LEN_2 :
		      p->len == 4 ? HW_BREAKPOINT_LEN_4 : HW_BREAKPOINT_LEN_8;
	attr.bp_type = p->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
	bp = register_wide_hw_breakpoint(&attr, p->fire, p);
	if (IS_ERR((void __force *)bp)) {
		int rc = PTR_ERR((void __force *)bp);

		if (!p->optional)
			stp_startup_error("probe point %s: the kernel refused a watchpoint at 0x%lx (%d bytes): %s (%d)",
					  p->desc->pp, p->addr, p->len,
					  rc == -ENOSPC ? "no free debug register" : "error", rc);
		return rc;
	}
	p->bp = bp;
	return 0;
}

static void stp_hwbkpts_stop(struct stp_hwbkpt_probe *probes, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (probes[i].bp) {
			unregister_wide_hw_breakpoint(probes[i].bp);
			probes[i].bp = NULL;
		}
	}
	synchronize_rcu();   /* no handler of this module still runs */
}

static int stp_hwbkpts_start(struct stp_hwbkpt_probe *probes, unsigned int n)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		rc = stp_hwbkpt_arm(&probes[i]);
		if (rc && probes[i].optional)
			rc = 0;
		else if (rc)
			break;
	}
	if (rc)
		stp_hwbkpts_stop(probes, n);
	return rc;
}

/* One trampoline per probe (n = its index in stp_descs[]). */
#define STP_HWBKPT_TRAMPOLINE(n)						\
	static void stp_hwbkpt_hit_##n(struct perf_event *bp,			\
				       struct perf_sample_data *data,		\
				       struct pt_regs *regs)			\
	{									\
		stp_hwbkpt_fire(regs, &stp_descs[n]);				\
	}
