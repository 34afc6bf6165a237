/* symbols.h - kernel addresses as symbols ("vfs_read+0x0/0x1a0 [kernel]") and
 * kernel stack backtraces of a probe hit.  Used by the tapset's embedded C
 * (context-symbols.stp, context-unwind.stp, context.stp) and by the kprobe
 * family's trampolines (the return site of a .return hit). */
#ifndef STP_SYMBOLS_H
#define STP_SYMBOLS_H

#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/stacktrace.h>
#include "core/symstyle.h"
#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif
#ifdef CONFIG_X86_64
#include <asm/msr.h>
#include <asm/segment.h>
#include <asm/special_insns.h>
#endif


/* The module name SystemTap gives the kernel image itself. */

/*
 * Work space of the functions below, one per CPU.  Only probe handlers use it,
 * and a handler owns its CPU's probe context (stp_busy) until it ends: a hit
 * that would nest on the same CPU is skipped by stp_run_probe() before its
 * handler runs, so nothing else touches this CPU's copy meanwhile.
 */
/* Frames of this module a backtrace without registers may start with. */
#define STP_OWN_FRAMES 16

struct stp_sym_work {
	char text[KSYM_SYMBOL_LEN];             /* sprint_symbol() output */
	char line[KSYM_SYMBOL_LEN + 64];        /* one address, formatted */
	unsigned long pcs[MAXBACKTRACE];        /* a backtrace's addresses */
	unsigned long raw[MAXBACKTRACE + STP_OWN_FRAMES];
};
static DEFINE_PER_CPU(struct stp_sym_work, stp_sym_work);

/*
 * The return site of a .return hit.  A kretprobe handler runs after the
 * probed function returned: its registers are those of the caller at the
 * return address.  As in SystemTap, the trampoline shows the handler the
 * function's entry as the instruction pointer (so addr(), probefunc() and
 * print_regs() name the function) and records here where it returns to;
 * the backtrace starts there.  Saved and restored around the handler, so a
 * hit nested in an interrupt leaves it as it was.  Per CPU, keyed by the
 * hit's registers.
 */
struct stp_return_site {
	struct pt_regs *regs;
	unsigned long ret_addr;
};
static DEFINE_PER_CPU(struct stp_return_site, stp_return_site);

static __maybe_unused void stp_return_site_enter(struct stp_return_site *saved, struct pt_regs *regs,
						 unsigned long func)
{
	struct stp_return_site *site = this_cpu_ptr(&stp_return_site);

	*saved = *site;
	site->regs = regs;
	site->ret_addr = instruction_pointer(regs);
	instruction_pointer_set(regs, func);
}

static __maybe_unused void stp_return_site_leave(const struct stp_return_site *saved, struct pt_regs *regs)
{
	struct stp_return_site *site = this_cpu_ptr(&stp_return_site);

	instruction_pointer_set(regs, site->ret_addr);
	*site = *saved;
}

/* Where the function of a .return hit returns to; 0 in any other hit. */
static __maybe_unused unsigned long stp_return_address(const struct stp_context *c)
{
	const struct stp_return_site *site = this_cpu_ptr(&stp_return_site);

	return c->regs && site->regs == c->regs ? site->ret_addr : 0;
}

/* The hit's kernel registers; NULL in begin/end probes and when a timer
 * interrupted user code. */
static __maybe_unused struct pt_regs *stp_kernel_regs(const struct stp_context *c)
{
	return c->regs && !user_mode(c->regs) ? c->regs : NULL;
}

/* ---- one address ---- */

struct stp_sym {
	const char *name;       /* NULL: the address is in no known symbol */
	unsigned long offset;   /* from the symbol's start */
	unsigned long size;     /* of the symbol */
	const char *module;     /* STP_SYM_KERNEL for the kernel image */
};

/*
 * Looks addr up in the kernel's symbol tables (the kernel image, modules, BPF
 * and ftrace trampolines) through sprint_symbol(), whose text is
 * "name+0xOFF/0xSIZE", then " [module]" for a module's symbol, or "0xADDR"
 * when no symbol holds addr.  The strings point into this CPU's work space:
 * valid until the next lookup.  False when no symbol holds addr.
 */
static __maybe_unused bool stp_sym_lookup(unsigned long addr, struct stp_sym *s)
{
	char *text = this_cpu_ptr(&stp_sym_work)->text;
	char *mod, *plus, *slash;

	s->name = NULL;
	s->module = NULL;
	s->offset = s->size = 0;
	if (!addr)
		return false;
	sprint_symbol(text, addr);
	mod = strstr(text, " [");
	if (mod) {
		*mod = 0;
		mod += 2;
		mod[strcspn(mod, " ]")] = 0;    /* a build id may follow the name */
	}
	plus = strrchr(text, '+');
	if (!plus)
		return false;
	*plus++ = 0;
	slash = strchr(plus, '/');
	if (!slash)
		return false;
	*slash++ = 0;
	if (kstrtoul(plus, 16, &s->offset) || kstrtoul(slash, 16, &s->size))
		return false;
	s->name = text;
	s->module = mod && *mod ? mod : STP_SYM_KERNEL;
	return true;
}

/* addr written in style into buf (size bytes, always terminated; cut when it
 * does not fit); returns the length it has, or would have had. */
static __maybe_unused int stp_sym_format(char *buf, size_t size, unsigned long addr, enum stp_sym_style style)
{
	struct stp_sym s;

	if (style == STP_SYM_HEX)
		return snprintf(buf, size, "0x%016lx ", addr);
	if (!stp_sym_lookup(addr, &s)) {
		if (style == STP_SYM_FULL)
			return snprintf(buf, size, " 0x%016lx : 0x%016lx\n", addr, addr);
		return snprintf(buf, size, style == STP_SYM_SIMPLE ? "0x%016lx\n" : "0x%016lx", addr);
	}
	switch (style) {
	case STP_SYM_NAME:
		return snprintf(buf, size, "%s", s.name);
	case STP_SYM_DATA:
		return snprintf(buf, size, "%s+%#lx/%#lx [%s]", s.name, s.offset, s.size, s.module);
	case STP_SYM_FULL:
		return snprintf(buf, size, " 0x%016lx : %s+%#lx/%#lx [%s]\n", addr, s.name, s.offset, s.size,
				s.module);
	default:
		return snprintf(buf, size, "%s+%#lx [%s]\n", s.name, s.offset, s.module);
	}
}

/* The module holding addr ("kernel" for the kernel image), or NULL. */
static __maybe_unused const char *stp_sym_module(unsigned long addr)
{
	struct stp_sym s;

	return stp_sym_lookup(addr, &s) ? s.module : NULL;
}

/* ---- backtraces ---- */

/*
 * The kernel backtrace of the hit into pcs (at most max), innermost first;
 * returns how many.  With kernel registers: the probed address (for a .return
 * hit, the address the function returns to), then the return addresses the
 * kernel's unwinder finds above it.  Without (begin, end, a timer interrupting
 * user code): the current kernel stack as stack_trace_save() sees it, from
 * the first frame outside this module (the handler's own frames left out).
 */
static __maybe_unused unsigned int stp_backtrace_pcs(const struct stp_context *c, unsigned long *pcs,
						     unsigned int max)
{
	struct pt_regs *regs = stp_kernel_regs(c);
	unsigned int n = 0;

	if (!max)
		return 0;
	if (!regs) {
		unsigned long *raw = this_cpu_ptr(&stp_sym_work)->raw;
		unsigned int got, skip = 0;

		max = min_t(unsigned int, max, MAXBACKTRACE);
		got = stack_trace_save(raw, max + STP_OWN_FRAMES, 0);
		while (skip < got && within_module(raw[skip], THIS_MODULE))
			skip++;
		n = min_t(unsigned int, got - skip, max);
		memcpy(pcs, raw + skip, n * sizeof(*pcs));
		return n;
	}
#ifdef CONFIG_X86
	{
		struct unwind_state state;
		unsigned long ret = stp_return_address(c);
		unsigned long ip = instruction_pointer(regs);

		/* the unwinder starts from the registers as they are in the
		 * code that runs next: a .return hit's are at the return site */
		if (ret)
			instruction_pointer_set(regs, ret);
		pcs[n++] = instruction_pointer(regs);
		for (unwind_start(&state, current, regs, NULL); n < max && !unwind_done(&state);
		     unwind_next_frame(&state)) {
			unsigned long a = unwind_get_return_address(&state);

			if (!a)
				break;
			pcs[n++] = a;
		}
		instruction_pointer_set(regs, ip);
	}
#else
	pcs[n++] = stp_return_address(c) ? : instruction_pointer(regs);
#endif
	return n;
}

/*
 * The kernel stack of task t (task_backtrace()) into pcs, innermost first; returns how many.
 * The caller holds rcu_read_lock() and has checked t is a live task.  The kernel's unwinder
 * reads only inside t's stack, which stays allocated while the caller is in the RCU read
 * section (a task's stack is freed through RCU); a task whose stack is already released
 * (it exited) has none.  A task running on another CPU gives what its stack held as the
 * unwinder read it (as /proc/PID/stack).  The current task's frames start at the caller's.
 */
static __maybe_unused unsigned int stp_task_stack_pcs(struct task_struct *t, unsigned long *pcs, unsigned int max)
{
	unsigned int n = 0;
#ifdef CONFIG_X86
	struct unwind_state state;

	if (t != current && !refcount_read(&t->stack_refcount))
		return 0;
	for (unwind_start(&state, t, NULL, NULL); n < max && !unwind_done(&state); unwind_next_frame(&state)) {
		unsigned long a = unwind_get_return_address(&state);

		if (!a)
			break;
		pcs[n++] = a;
	}
#endif
	return n;
}

/* Appends s to the string value dst (MAXSTRINGLEN bytes) if it fits whole;
 * false when it does not (dst unchanged). */
static __maybe_unused bool stp_sym_append(char *dst, size_t *len, const char *s, size_t n)
{
	if (*len + n > MAXSTRINGLEN - 1)
		return false;
	memcpy(dst + *len, s, n);
	*len += n;
	dst[*len] = 0;
	return true;
}

/* print_backtrace(): one STP_SYM_FULL line per frame; a .return hit starts
 * with "Returning from: " and the function's line, then "Returning to  : "
 * before the return site's. */
static __maybe_unused void stp_print_backtrace(struct stp_context *c)
{
	struct stp_sym_work *w = this_cpu_ptr(&stp_sym_work);
	unsigned int i, n = stp_backtrace_pcs(c, w->pcs, MAXBACKTRACE);
	int len;

	for (i = 0; i < n; i++) {
		if (i == 0 && stp_return_address(c)) {
			stp_out_str(&c->out, "Returning from: ");
			len = stp_sym_format(w->line, sizeof(w->line), instruction_pointer(c->regs), STP_SYM_FULL);
			stp_out_bytes(&c->out, w->line, min_t(int, len, sizeof(w->line) - 1));
			stp_out_str(&c->out, "Returning to  : ");
		}
		len = stp_sym_format(w->line, sizeof(w->line), w->pcs[i], STP_SYM_FULL);
		stp_out_bytes(&c->out, w->line, min_t(int, len, sizeof(w->line) - 1));
	}
}

/* backtrace() (STP_SYM_HEX) or sprint_backtrace() (STP_SYM_SIMPLE) into the
 * string value dst: as many whole entries as fit in MAXSTRINGLEN - 1 bytes. */
static __maybe_unused void stp_sprint_backtrace(struct stp_context *c, char *dst, enum stp_sym_style style)
{
	struct stp_sym_work *w = this_cpu_ptr(&stp_sym_work);
	unsigned int i, n = stp_backtrace_pcs(c, w->pcs, MAXBACKTRACE);
	size_t len = 0;

	dst[0] = 0;
	for (i = 0; i < n; i++) {
		int k = stp_sym_format(w->line, sizeof(w->line), w->pcs[i], style);

		if (k >= (int)sizeof(w->line) || !stp_sym_append(dst, &len, w->line, k))
			break;
	}
}

/* callers(n): the addresses at depths 0 to n (all: -1) as "0x%lx" separated by spaces into the string value dst,
 * the whole ones that fit; false when the stack is not n deep. */
static __maybe_unused bool stp_callers(struct stp_context *c, char *dst, int64_t n)
{
	struct stp_sym_work *w = this_cpu_ptr(&stp_sym_work);
	unsigned int i, got = stp_backtrace_pcs(c, w->pcs, MAXBACKTRACE);
	size_t len = 0;
	char buf[24];

	dst[0] = 0;
	if (n >= 0 && n >= got)
		return false;
	for (i = 0; i < got && (n < 0 || i <= n); i++) {
		int k = snprintf(buf, sizeof(buf), "%s0x%lx", i ? " " : "", w->pcs[i]);

		if (!stp_sym_append(dst, &len, buf, k))
			break;
	}
	return true;
}

/* Frame depth of the backtrace (0 = the probed address); 0 past its end. */
static __maybe_unused unsigned long stp_backtrace_frame(const struct stp_context *c, int64_t depth)
{
	struct stp_sym_work *w = this_cpu_ptr(&stp_sym_work);
	unsigned int n;

	if (depth < 0 || depth >= MAXBACKTRACE)
		return 0;
	n = stp_backtrace_pcs(c, w->pcs, depth + 1);
	return depth < n ? w->pcs[depth] : 0;
}

/* The number a backtrace() token stands for: hex digits, "0x" allowed
 * before them, up to the first other byte (0 when none). */
static __maybe_unused unsigned long stp_sym_parse_hex(const char *s, size_t n)
{
	unsigned long v = 0;
	size_t i = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	for (; i < n && isxdigit(s[i]); i++)
		v = (v << 4) | hex_to_bin(s[i]);
	return v;
}

/*
 * print_stack()/sprint_stack(): the addresses of a backtrace() string (hex,
 * separated by spaces) one a line, " TOKEN : " + symdata + "\n", the token as
 * written.  To c's output (dst NULL) or into the string value dst, the whole
 * lines that fit in MAXSTRINGLEN - 1 bytes.
 */
static __maybe_unused void stp_sym_stack(struct stp_context *c, const char *stk, char *dst)
{
	struct stp_sym_work *w = this_cpu_ptr(&stp_sym_work);
	size_t len = 0;

	if (dst)
		dst[0] = 0;
	while (*stk) {
		size_t n = strcspn(stk, " ");
		const char *tok = stk;
		int k;

		stk += n;
		if (!n) {
			stk++;
			continue;
		}
		k = stp_sym_format(w->line, sizeof(w->line), stp_sym_parse_hex(tok, n), STP_SYM_DATA);
		k = min_t(int, k, sizeof(w->line) - 1);
		if (!dst) {
			stp_out_bytes(&c->out, " ", 1);
			stp_out_bytes(&c->out, tok, n);
			stp_out_bytes(&c->out, " : ", 3);
			stp_out_bytes(&c->out, w->line, k);
			stp_out_bytes(&c->out, "\n", 1);
		} else if (len + n + k + 5 > MAXSTRINGLEN - 1) {
			break;
		} else {
			stp_sym_append(dst, &len, " ", 1);
			stp_sym_append(dst, &len, tok, n);
			stp_sym_append(dst, &len, " : ", 3);
			stp_sym_append(dst, &len, w->line, k);
			stp_sym_append(dst, &len, "\n", 1);
		}
	}
}

/* ---- registers ---- */

/* print_regs(): the hit's registers, as SystemTap prints them on x86_64 (the
 * general registers from the hit, then the CPU's segment and control
 * registers); nothing when the hit has none. */
static __maybe_unused void stp_print_regs(struct stp_context *c)
{
#ifdef CONFIG_X86_64
	struct stp_sym_work *w = this_cpu_ptr(&stp_sym_work);
	const size_t size = sizeof(w->line);
	struct pt_regs *r = c->regs;
	unsigned long fs, gs, knlgs;
	unsigned int fsi, gsi, cs, ds, es;
	int k;

	if (!r)
		return;
	k = snprintf(w->line, size, "RIP: %016lx\nRSP: %016lx  EFLAGS: %08lx\n", r->ip, r->sp, r->flags);
	stp_out_bytes(&c->out, w->line, min_t(int, k, size - 1));
	k = snprintf(w->line, size, "RAX: %016lx RBX: %016lx RCX: %016lx\nRDX: %016lx RSI: %016lx RDI: %016lx\n",
		     r->ax, r->bx, r->cx, r->dx, r->si, r->di);
	stp_out_bytes(&c->out, w->line, min_t(int, k, size - 1));
	k = snprintf(w->line, size, "RBP: %016lx R08: %016lx R09: %016lx\nR10: %016lx R11: %016lx R12: %016lx\n",
		     r->bp, r->r8, r->r9, r->r10, r->r11, r->r12);
	stp_out_bytes(&c->out, w->line, min_t(int, k, size - 1));
	k = snprintf(w->line, size, "R13: %016lx R14: %016lx R15: %016lx\n", r->r13, r->r14, r->r15);
	stp_out_bytes(&c->out, w->line, min_t(int, k, size - 1));
	savesegment(cs, cs);
	savesegment(ds, ds);
	savesegment(es, es);
	savesegment(fs, fsi);
	savesegment(gs, gsi);
	rdmsrl(MSR_FS_BASE, fs);
	rdmsrl(MSR_GS_BASE, gs);
	rdmsrl(MSR_KERNEL_GS_BASE, knlgs);
	k = snprintf(w->line, size, "FS:  %016lx(%04x) GS:%016lx(%04x) knlGS:%016lx\n", fs, fsi, gs, gsi, knlgs);
	stp_out_bytes(&c->out, w->line, min_t(int, k, size - 1));
	k = snprintf(w->line, size, "CS:  %04x DS: %04x ES: %04x CR0: %016lx\nCR2: %016lx CR3: %016lx CR4: %016lx\n",
		     cs, ds, es, read_cr0(), read_cr2(), __read_cr3(), __read_cr4());
	stp_out_bytes(&c->out, w->line, min_t(int, k, size - 1));
#endif
}

#endif
