/* fentry.h - kernel function-entry sites armed through one ftrace_ops instead of one kprobe each: one ftrace
 * filter update arms them all, and a hit finds its site in a table of our own.  Included by probes/dwarf.c. */
#ifndef STP_FENTRY_H
#define STP_FENTRY_H
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <linux/uaccess.h>

/*
 * Why: a kprobe at a function's entry is already carried by ftrace (KPROBES_ON_FTRACE), but the kernel finds
 * the hit kprobe by walking one bucket of its fixed 64-bucket table, about 16 kprobes a bucket with 1,000 sites
 * (70 instructions a hit), and arms each site with its own ftrace filter update.  Here one ftrace_ops carries
 * every eligible site: the filter is set in batches before the ops is registered, so the kernel text is
 * patched once, and a hit looks its address up in a hash table sized for the sites (at most half full), whose
 * slot lists the sites of that address (several probes on one function all run, in table order).
 *
 * What is eligible: a kernel (not module) function entry, not .return, whose link-time address the translator
 * gave (.fentry).  That address is moved by the KASLR offset, measured on a symbol the module links against
 * (register_kprobe, whose link-time address the translator gives as STP_FENTRY_REF_ADDR), and checked before
 * use: kallsyms must name the site's symbol (or an alias of it) at offset 0 there, and ftrace's call site must
 * be there (a 5-byte nop or a call, after 4 bytes of ENDBR64 on IBT kernels), which ftrace checks again.  Anything else, and a site ftrace refuses, is
 * left to kprobes exactly as before.  The translator already left out what kprobes refuse (NOKPROBE_SYMBOL,
 * .kprobes.text, .noinstr.text, .entry.text), so the two paths probe the same functions.
 *
 * The handler sees what a kprobe's sees: the registers at the entry with the instruction pointer one past the
 * probed address (kprobe_ftrace_handler's convention), preemption disabled; a hit nested in one of our handlers
 * (recursion, or an interrupt on the same CPU) is refused and counted as a missed hit, as a kprobe's is.  -DSTP_NO_FENTRY leaves every site to kprobes.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && defined(STP_FENTRY_REF_ADDR) && \
	!defined(STP_NO_FENTRY)
#define STP_FENTRY 1
#else
#define STP_FENTRY 0
#endif

/* Sites per ftrace_set_filter_ips() call: the kernel takes a batch all or nothing (a refused one is set again
 * one by one, so each refused site is known). */
#ifndef STP_FENTRY_BATCH
#define STP_FENTRY_BATCH 64
#endif

/* A site armed here: its kprobe (never registered: what its handler takes) and handler; the next site of the
 * same address (several probes on one function), in table order. */
struct stp_fentry_site {
	struct kprobe *kp;
	kprobe_pre_handler_t hit;
	struct stp_fentry_site *next;
};

/* An address's first site is in its slot (a hit's usual case: no pointer to follow), its others
 * listed from first.next. */
struct stp_fentry_slot {
	unsigned long ip;                   /* ftrace's call site in the function; 0 = empty */
	struct stp_fentry_site first;
};

struct stp_fentry_table {
	struct stp_fentry_slot *slots;      /* 2^bits, at most half used: a lookup always meets an empty slot */
	struct stp_fentry_site *sites;      /* room for every site (a slot's second and later ones use it) */
	unsigned int bits;
	unsigned int used;                  /* sites */
	bool registered;
};

#if STP_FENTRY
static struct stp_fentry_table stp_fentry;
static atomic_long_t stp_fentry_missed;     /* hits refused as recursion in the same context */

static __always_inline const struct stp_fentry_slot *stp_fentry_find(unsigned long ip)
{
	unsigned int mask = (1U << stp_fentry.bits) - 1, i = hash_long(ip, stp_fentry.bits);
	const struct stp_fentry_slot *s;

	for (;; i = (i + 1) & mask) {
		s = &stp_fentry.slots[i];
		if (likely(s->ip == ip))
			return s;
		if (!s->ip)
			return NULL;
	}
}

static void notrace stp_fentry_hit(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	const struct stp_fentry_slot *s;
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);   /* and preemption off */

	/* a hit nested in one of our handlers on this CPU (a function the handler calls, an interrupt) is missed,
	 * as a kprobe's is while another kprobe runs (kprobe_running()), rather than skipped (MAXSKIPPED) */
	if (unlikely(bit < 0 || this_cpu_read(stp_busy))) {
		atomic_long_inc(&stp_fentry_missed);
		if (bit >= 0)
			ftrace_test_recursion_unlock(bit);
		return;
	}
	s = stp_fentry_find(ip);
	if (likely(s && regs)) {
		unsigned long saved = instruction_pointer(regs);
		const struct stp_fentry_site *site;

		instruction_pointer_set(regs, ip + sizeof(kprobe_opcode_t));
		s->first.hit(s->first.kp, regs);
		for (site = s->first.next; unlikely(site); site = site->next)
			site->hit(site->kp, regs);
		instruction_pointer_set(regs, saved);
	}
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops stp_fentry_ops = {
	.func = stp_fentry_hit,
	.flags = FTRACE_OPS_FL_SAVE_REGS,   /* recursion is handled above */
};

/* Whether kallsyms' "NAME+0x0/0xSIZE" (buf) names one of symbols ("a b c": the aliases of an address) at its
 * start. */
static bool stp_fentry_named(const char *buf, const char *symbols)
{
	const char *end = strstr(buf, "+0x0/");
	size_t len = end ? end - buf : 0;

	while (len && *symbols) {
		size_t n = strcspn(symbols, " ");

		if (n == len && !strncmp(symbols, buf, len))
			return true;
		symbols += n;
		symbols += *symbols == ' ';
	}
	return false;
}

/* Whether insn is ftrace's call site as the kernel leaves it: a call, or the 5-byte nop (nopl 0x0(%rax,%rax,1)). */
static bool stp_fentry_insn(const u8 *insn)
{
	return insn[0] == 0xe8 || (insn[0] == 0x0f && insn[1] == 0x1f && insn[2] == 0x44 && insn[3] == 0x00);
}

/* The running address of the function at link-time address link, when it is the entry of one of symbols
 * and carries ftrace's call site: that call site (what a hit's ip is), else 0.  The call is the function's
 * first instruction, or its second after the 4 bytes of ENDBR64 on an IBT kernel (which may have made them a
 * 4-byte nop); ftrace takes only the exact address of one of its call sites, so a wrong guess is refused there
 * and the site left to kprobes.  buf: KSYM_SYMBOL_LEN bytes. */
static unsigned long stp_fentry_site(unsigned long link, const char *symbols, char *buf)
{
	unsigned long a = link + ((unsigned long)&register_kprobe - (unsigned long)STP_FENTRY_REF_ADDR);
	u8 insn[9];

	sprint_symbol(buf, a);
	if (!stp_fentry_named(buf, symbols) || copy_from_kernel_nofault(insn, (void *)a, sizeof(insn)))
		return 0;
	if (stp_fentry_insn(insn))
		return a;
	return stp_fentry_insn(insn + 4) ? a + 4 : 0;
}

/* Adds a site at ip: a new slot, or the end of the list of the sites already there. */
static void stp_fentry_insert(unsigned long ip, struct kprobe *kp, kprobe_pre_handler_t hit)
{
	unsigned int mask = (1U << stp_fentry.bits) - 1, i = hash_long(ip, stp_fentry.bits);
	struct stp_fentry_slot *s;
	struct stp_fentry_site **end;

	while (stp_fentry.slots[i].ip && stp_fentry.slots[i].ip != ip)
		i = (i + 1) & mask;
	s = &stp_fentry.slots[i];
	stp_fentry.used++;
	kp->addr = (kprobe_opcode_t *)ip;   /* never registered: where the handler says it was hit (dwarf.c) */
	if (!s->ip) {
		s->ip = ip;
		s->first = (struct stp_fentry_site){ .kp = kp, .hit = hit };
		return;
	}
	for (end = &s->first.next; *end; end = &(*end)->next)
		;
	*end = &stp_fentry.sites[stp_fentry.used - 1];
	**end = (struct stp_fentry_site){ .kp = kp, .hit = hit };
}

static void stp_fentry_free(void)
{
	kvfree(stp_fentry.slots);
	kvfree(stp_fentry.sites);
	stp_fentry.slots = NULL;
	stp_fentry.sites = NULL;
	stp_fentry.used = 0;
}

/* A family's sites as fentry sees them: site(table, i, ...) gives entry i's link-time address (0: not for
 * fentry), symbol (or its aliases, "a b c"), kprobe and handler; taken(table, i) marks it armed here. */
struct stp_fentry_ops {
	unsigned long (*site)(void *table, unsigned int i, const char **symbol, struct kprobe **kp,
			      kprobe_pre_handler_t *hit);
	void (*taken)(void *table, unsigned int i);
};

/* Arms every eligible site of table[0..n) through stp_fentry_ops; the others (and all of them when ftrace
 * cannot be had) are left for kprobes.  Returns how many were armed here. */
static unsigned int stp_fentry_start(void *table, unsigned int n, const struct stp_fentry_ops *ops)
{
	unsigned long *ips = kvmalloc_array(n ? n : 1, sizeof(*ips), GFP_KERNEL);
	unsigned int *idx = kvmalloc_array(n ? n : 1, sizeof(*idx), GFP_KERNEL);
	char *buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	unsigned int i, k = 0, lo, accepted = 0;

	if (!ips || !idx || !buf || !n)
		goto out;
	for (i = 0; i < n; i++) {
		const char *symbol;
		struct kprobe *kp;
		kprobe_pre_handler_t hit;
		unsigned long link = ops->site(table, i, &symbol, &kp, &hit), ip;

		if (link && (ip = stp_fentry_site(link, symbol, buf))) {
			ips[k] = ip;
			idx[k++] = i;
		}
	}
	if (!k)
		goto out;
	stp_fentry.bits = max_t(unsigned int, 4, ilog2(roundup_pow_of_two(2 * k)));
	stp_fentry.slots = kvcalloc(1UL << stp_fentry.bits, sizeof(*stp_fentry.slots), GFP_KERNEL);
	stp_fentry.sites = kvcalloc(k, sizeof(*stp_fentry.sites), GFP_KERNEL);
	if (!stp_fentry.slots || !stp_fentry.sites)
		goto out;
	for (lo = 0; lo < k; lo += STP_FENTRY_BATCH) {
		unsigned int hi = min(k, lo + STP_FENTRY_BATCH);
		bool all = !ftrace_set_filter_ips(&stp_fentry_ops, ips + lo, hi - lo, 0, 0);

		for (i = lo; i < hi; i++) {
			const char *symbol;
			struct kprobe *kp;
			kprobe_pre_handler_t hit;

			if (!all && ftrace_set_filter_ip(&stp_fentry_ops, ips[i], 0, 0))
				continue;   /* not ftrace's: kprobes takes it */
			ops->site(table, idx[i], &symbol, &kp, &hit);
			stp_fentry_insert(ips[i], kp, hit);
			idx[accepted++] = idx[i];
		}
	}
	/* never registered with an empty filter, which would mean every function of the kernel */
	if (accepted && !register_ftrace_function(&stp_fentry_ops)) {
		stp_fentry.registered = true;
		for (i = 0; i < accepted; i++)
			ops->taken(table, idx[i]);
		goto out_free;
	}
	accepted = 0;
out:
	if (stp_fentry.used)
		ftrace_free_filter(&stp_fentry_ops);
	stp_fentry_free();
out_free:
	kvfree(ips);
	kvfree(idx);
	kfree(buf);
	return accepted;
}

/* Disarms what stp_fentry_start armed (waiting for hits in flight); returns the missed hits. */
static unsigned long stp_fentry_stop(void)
{
	if (stp_fentry.registered) {
		unregister_ftrace_function(&stp_fentry_ops);
		ftrace_free_filter(&stp_fentry_ops);
		stp_fentry.registered = false;
	}
	stp_fentry_free();
	return atomic_long_xchg(&stp_fentry_missed, 0);
}
#else
struct stp_fentry_ops;
static inline unsigned int stp_fentry_start(void *table, unsigned int n, const struct stp_fentry_ops *ops)
{
	return 0;
}
static inline unsigned long stp_fentry_stop(void)
{
	return 0;
}
#endif
#endif
