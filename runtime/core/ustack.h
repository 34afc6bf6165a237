/* ustack.h - user-space symbols and backtraces of the current task (ubacktrace, usymname...):
 * addresses mapped to the embedded modules (core/umods.h) through the task's VMAs, stacks unwound
 * with core/unwind.h or frame pointers. Included by the generated C after its stp_umods table. */
#ifndef STP_USTACK_H
#define STP_USTACK_H

#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/namei.h>
#include <linux/uaccess.h>
#include <linux/sched/task_stack.h>
#include "unwind.h"

/*
 * Finding the module of an address needs the task's VMA holding it, so mm->mmap_lock: a probe
 * handler must not sleep, so the lock is only tried (mmap_read_trylock) once per lookup or
 * backtrace.  When the hit's own task holds it for writing (vm.mmap, vm.brk probes run inside
 * mmap/brk), the VMAs cannot change under us and are read without it.  When neither works (the
 * lock is contended, NMI context), addresses are written in hex: the "no symbols" output.
 */
struct stp_uwalk {
	struct mm_struct *mm;
	int locked;                     /* 0: no VMA access, 1: we took the read lock, 2: the task holds it */
	unsigned long lo, hi, pgoff;    /* the last VMA found */
	int mod;                        /* its module, -1: none */
};

static void stp_uwalk_begin(struct stp_uwalk *w)
{
	struct mm_struct *mm = current->mm;

	memset(w, 0, sizeof(*w));
	w->mod = -1;
	if (!mm || (current->flags & PF_KTHREAD) || in_nmi() || !STP_UMODS_N)
		return;
	w->mm = mm;
	if (stp_compat_mmap_trylock(mm)) {
		w->locked = 1;
		return;
	}
	if (stp_compat_mmap_write_locked_by_current(mm))
		w->locked = 2;
}

static void stp_uwalk_end(struct stp_uwalk *w)
{
	if (w->locked == 1)
		mmap_read_unlock(w->mm);
	w->locked = 0;
}

/* Once per session, as SystemTap does: the first executable file mapping that has no tables.
 * Only in task context: d_path() waits for a rename in progress, which an interrupt may have
 * stopped on this CPU. */
static atomic_t stp_umods_warned = ATOMIC_INIT(0);

static void stp_umods_warn_missing(struct vm_area_struct *vma)
{
	char buf[256];
	char *p;

	if (!(vma->vm_flags & VM_EXEC) || in_interrupt() || atomic_xchg(&stp_umods_warned, 1))
		return;
	p = d_path(&vma->vm_file->f_path, buf, sizeof(buf));
	if (!IS_ERR(p))
		stp_report_line("WARNING: Missing unwind data for a module, rerun with 'stap -d %s'\n", p);
}

/* The embedded module holding the run-time address addr (-1: none known) and its ELF address. */
static int stp_uwalk_find(struct stp_uwalk *w, unsigned long addr, unsigned long *vaddr)
{
	unsigned long off;
	unsigned int i;

	if (!(addr >= w->lo && addr < w->hi)) {
		struct vm_area_struct *vma;

		if (!w->locked)
			return -1;
		vma = find_vma(w->mm, addr);
		if (!vma || addr < vma->vm_start)
			return -1;
		w->lo = vma->vm_start;
		w->hi = vma->vm_end;
		w->pgoff = vma->vm_pgoff;
		w->mod = -1;
		if (vma->vm_file) {
			struct inode *ino = file_inode(vma->vm_file);

			for (i = 0; i < STP_UMODS_N; i++)
				if (stp_umods[i].found && stp_umods[i].ino == ino->i_ino && stp_umods[i].dev == ino->i_sb->s_dev) {
					w->mod = i;
					break;
				}
			if (w->mod < 0)
				stp_umods_warn_missing(vma);
		}
	}
	if (w->mod < 0)
		return -1;
	off = addr - w->lo + (w->pgoff << PAGE_SHIFT);
	for (i = 0; i < stp_umods[w->mod].nsegs; i++) {
		const struct stp_useg *s = &stp_umods[w->mod].segs[i];

		if (off >= s->off && off - s->off < s->filesz) {
			*vaddr = s->vaddr + (off - s->off);
			return w->mod;
		}
	}
	return -1;
}

/* The symbol of module m holding ELF address vaddr, or NULL. */
static const struct stp_usym *stp_usym_at(const struct stp_umod *m, unsigned long vaddr)
{
	unsigned int lo = 0, hi = m->nsyms;
	const struct stp_usym *s;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &m->syms[lo - 1];
	return vaddr - s->addr < s->size || vaddr == s->addr ? s : NULL;
}

/* The line table row of module m covering ELF address vaddr, or NULL (no table, before its first
 * row, or past the end of a sequence). */
static const struct stp_uline *stp_uline_at(const struct stp_umod *m, unsigned long vaddr)
{
	unsigned int lo = 0, hi = m->nlines;

	if (!m->lines)
		return NULL;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (m->lines[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && m->lines[lo - 1].line ? &m->lines[lo - 1] : NULL;
}

/* Session start: the file each embedded module's path names (process context: may sleep). */
static int stp_umods_start(void)
{
	unsigned int i;

	atomic_set(&stp_umods_warned, 0);
	for (i = 0; i < STP_UMODS_N; i++) {
		struct stp_umod *m = &stp_umods[i];
		struct path p;
		struct inode *inode;

		m->found = false;
		if (kern_path(m->path, LOOKUP_FOLLOW, &p))
			continue;
		inode = d_real_inode(p.dentry);
		if (inode) {
			m->ino = inode->i_ino;
			m->dev = inode->i_sb->s_dev;
			m->found = true;
		}
		path_put(&p);
	}
	return 0;
}

static void stp_umods_stop(void)
{
}

/* ---- backtraces ---- */

struct stp_ustack_work {
	unsigned long pcs[MAXBACKTRACE];
	int mods[MAXBACKTRACE];
	unsigned long vaddrs[MAXBACKTRACE];
	char line[KSYM_SYMBOL_LEN + PATH_MAX / 8 + 96];
};
static DEFINE_PER_CPU(struct stp_ustack_work, stp_ustack_work);

/* The user registers of the hit: a uprobe's own, else those the task entered the kernel with. */
static struct pt_regs *stp_user_regs(const struct stp_context *c)
{
	if (c->regs && user_mode(c->regs))
		return c->regs;
	if (!current->mm || (current->flags & PF_KTHREAD) || in_nmi())
		return NULL;
	return task_pt_regs(current);
}

static void stp_uw_from_pt(struct stp_uw_regs *u, const struct pt_regs *r)
{
#ifdef CONFIG_X86_64
	u->r[0] = r->ax; u->r[1] = r->dx; u->r[2] = r->cx; u->r[3] = r->bx;
	u->r[4] = r->si; u->r[5] = r->di; u->r[6] = r->bp; u->r[7] = r->sp;
	u->r[8] = r->r8; u->r[9] = r->r9; u->r[10] = r->r10; u->r[11] = r->r11;
	u->r[12] = r->r12; u->r[13] = r->r13; u->r[14] = r->r14; u->r[15] = r->r15;
	u->r[16] = r->ip;
#endif
	u->pc = instruction_pointer((struct pt_regs *)r);
}

/* Frame-pointer step for code without CFI: the caller's pc at bp + 8, its bp at bp. */
static bool stp_uw_fp_step(struct stp_uw_regs *u)
{
	unsigned long fr[2], bp = u->r[STP_UW_BP];

	if (!bp || bp & 7 || bp < u->r[STP_UW_SP] ||
	    copy_from_user_nofault(fr, (const void __user *)bp, sizeof(fr)))
		return false;
	u->r[STP_UW_BP] = fr[0];
	u->r[STP_UW_SP] = bp + 16;
	u->pc = fr[1];
	return true;
}

/*
 * The user backtrace of the hit into w (at most max frames, innermost first): the user pc (or
 * start's pc, unwinding from start's registers: print_ubacktrace(pc, sp, fp)), then each caller's
 * return address, unwound with the CFI of the embedded modules or frame pointers;
 * stops at MAXBACKTRACE, a failed read, or a stack pointer that does not move up.
 */
static unsigned int stp_ustack_pcs_from(const struct stp_context *c, struct stp_ustack_work *w, unsigned int max,
					const struct stp_uw_regs *start)
{
	struct pt_regs *regs = stp_user_regs(c);
	struct stp_uw_regs u;
	struct stp_uwalk walk;
	unsigned int n = 0;

	if (!regs || (start && (!current->mm || (current->flags & PF_KTHREAD) || in_nmi())))
		return 0;
	max = min_t(unsigned int, max, MAXBACKTRACE);
	if (start)
		u = *start;
	else
		stp_uw_from_pt(&u, regs);
	stp_uwalk_begin(&walk);
	while (n < max && u.pc) {
		unsigned long sp = u.r[STP_UW_SP], vaddr = 0, look = 0;
		bool outer = false, ok;
		int mod;

		w->pcs[n] = u.pc;
		w->mods[n] = stp_uwalk_find(&walk, u.pc, &vaddr);
		w->vaddrs[n] = vaddr;
		n++;
		/* a return address may be just past its call's function: look up the call */
		mod = n == 1 ? w->mods[0] : stp_uwalk_find(&walk, u.pc - 1, &look);
		if (n == 1)
			look = vaddr;
		ok = mod >= 0 && stp_uw_step(&stp_umods[mod], look, &u, &outer);
		if (outer)
			break;
		if (!ok && !stp_uw_fp_step(&u))
			break;
		if (u.r[STP_UW_SP] <= sp)
			break;
	}
	stp_uwalk_end(&walk);
	return n;
}

static unsigned int stp_ustack_pcs(const struct stp_context *c, struct stp_ustack_work *w, unsigned int max)
{
	return stp_ustack_pcs_from(c, w, max, NULL);
}

/* The run-time address addr of module mod (ELF address vaddr) written in style into buf; returns
 * the length it has or would have had. */
static int stp_usym_format(char *buf, size_t size, unsigned long addr, int mod, unsigned long vaddr,
			   enum stp_sym_style style)
{
	const struct stp_umod *m = mod >= 0 ? &stp_umods[mod] : NULL;
	const struct stp_usym *s = m ? stp_usym_at(m, vaddr) : NULL;

	if (style == STP_SYM_HEX)
		return snprintf(buf, size, "0x%016lx ", addr);
	if (!s) {
		const char *nl = style == STP_SYM_FULL || style == STP_SYM_SIMPLE ? "\n" : "";
		const char *pre = style == STP_SYM_FULL ? " " : "";

		if (style == STP_SYM_NAME)
			return snprintf(buf, size, "0x%016lx", addr);
		if (!m)
			return style == STP_SYM_FULL ? snprintf(buf, size, " 0x%016lx : 0x%016lx\n", addr, addr) :
				snprintf(buf, size, "0x%016lx%s", addr, nl);
		if (style == STP_SYM_FULL)
			return snprintf(buf, size, "%s0x%016lx : 0x%016lx [%s+%#lx]%s", pre, addr, addr, m->path, vaddr, nl);
		return snprintf(buf, size, "0x%016lx [%s+%#lx]%s", addr, m->path, vaddr, nl);
	}
	switch (style) {
	case STP_SYM_NAME:
		return snprintf(buf, size, "%s", m->names + s->name);
	case STP_SYM_DATA:
		return snprintf(buf, size, "%s+%#lx/%#x [%s]", m->names + s->name, vaddr - s->addr, s->size, m->path);
	case STP_SYM_FULL:
		return snprintf(buf, size, " 0x%016lx : %s+%#lx/%#x [%s]\n", addr, m->names + s->name, vaddr - s->addr,
				s->size, m->path);
	default:
		return snprintf(buf, size, "%s+%#lx [%s]\n", m->names + s->name, vaddr - s->addr, m->path);
	}
}

/* One address of the current task in style into dst (MAXSTRINGLEN); umodname's "<unknown>"
 * when style is STP_SYM_HEX + 1 (the module's path). */
#define STP_USYM_MODULE (STP_SYM_HEX + 1)
static void stp_usym_one(char *dst, unsigned long addr, int style)
{
	struct stp_uwalk walk;
	unsigned long vaddr = 0;
	int mod;

	stp_uwalk_begin(&walk);
	mod = stp_uwalk_find(&walk, addr, &vaddr);
	stp_uwalk_end(&walk);
	if (style == STP_USYM_MODULE)
		strscpy(dst, mod >= 0 ? stp_umods[mod].path : "<unknown>", MAXSTRINGLEN);
	else
		stp_usym_format(dst, MAXSTRINGLEN, addr, mod, vaddr, style);
}

/* What usymfileline (STP_ULINE_FILELINE: "file:line"), usymfile and usymline write into dst
 * (MAXSTRINGLEN) for the current task's address addr: from the module's DWARF line table, the
 * address in hex when it has none there. */
enum stp_uline_what { STP_ULINE_FILELINE, STP_ULINE_FILE, STP_ULINE_LINE };
static void stp_uline_one(char *dst, unsigned long addr, enum stp_uline_what what)
{
	struct stp_uwalk walk;
	unsigned long vaddr = 0;
	const struct stp_uline *r;
	int mod;

	stp_uwalk_begin(&walk);
	mod = stp_uwalk_find(&walk, addr, &vaddr);
	stp_uwalk_end(&walk);
	r = mod >= 0 ? stp_uline_at(&stp_umods[mod], vaddr) : NULL;
	if (!r)
		snprintf(dst, MAXSTRINGLEN, "0x%016lx", addr);
	else if (what == STP_ULINE_FILELINE)
		snprintf(dst, MAXSTRINGLEN, "%s:%u", stp_umods[mod].lfiles + r->file, r->line);
	else if (what == STP_ULINE_FILE)
		strscpy(dst, stp_umods[mod].lfiles + r->file, MAXSTRINGLEN);
	else
		snprintf(dst, MAXSTRINGLEN, "%u", r->line);
}

/* print_ubacktrace() (to c's output, dst NULL) or ubacktrace()/sprint_ubacktrace() into dst:
 * the whole entries that fit in MAXSTRINGLEN - 1 bytes. */
static void stp_ubacktrace(struct stp_context *c, char *dst, enum stp_sym_style style)
{
	struct stp_ustack_work *w = this_cpu_ptr(&stp_ustack_work);
	unsigned int i, n = stp_ustack_pcs(c, w, MAXBACKTRACE);
	size_t len = 0;

	if (dst)
		dst[0] = 0;
	for (i = 0; i < n; i++) {
		int k = stp_usym_format(w->line, sizeof(w->line), w->pcs[i], w->mods[i], w->vaddrs[i], style);

		k = min_t(int, k, sizeof(w->line) - 1);
		if (!dst)
			stp_out_bytes(&c->out, w->line, k);
		else if (!stp_sym_append(dst, &len, w->line, k))
			break;
	}
}

/* How print_ubacktrace_brief (STP_UBT_BRIEF: "inner+0x4", else the address) and
 * print_ubacktrace_fileline (STP_UBT_FILELINE: the print_ubacktrace line with " at FILE:LINE"
 * before " [MODULE]" when the line table has the address) write a frame. */
enum stp_ubt_form { STP_UBT_FULL, STP_UBT_BRIEF, STP_UBT_FILELINE };

static int stp_ubt_line(char *buf, size_t size, unsigned long addr, int mod, unsigned long vaddr,
			enum stp_ubt_form form)
{
	const struct stp_umod *m = mod >= 0 ? &stp_umods[mod] : NULL;
	const struct stp_usym *s = m ? stp_usym_at(m, vaddr) : NULL;
	const struct stp_uline *r;

	if (form == STP_UBT_BRIEF)
		return s ? snprintf(buf, size, "%s+%#lx\n", m->names + s->name, vaddr - s->addr) :
			snprintf(buf, size, "0x%016lx\n", addr);
	r = s && form == STP_UBT_FILELINE ? stp_uline_at(m, vaddr) : NULL;
	if (!r)
		return stp_usym_format(buf, size, addr, mod, vaddr, STP_SYM_FULL);
	return snprintf(buf, size, " 0x%016lx : %s+%#lx/%#x at %s:%u [%s]\n", addr, m->names + s->name,
			vaddr - s->addr, s->size, m->lfiles + r->file, r->line, m->path);
}

/* print_ubacktrace(pc, sp, fp), print_ubacktrace_brief(), print_ubacktrace_fileline([pc, sp, fp]):
 * the user backtrace of the hit, or (start) unwound from the given registers, to c's output. */
static void stp_ubacktrace_print(struct stp_context *c, const struct stp_uw_regs *start, enum stp_ubt_form form)
{
	struct stp_ustack_work *w = this_cpu_ptr(&stp_ustack_work);
	unsigned int i, n = stp_ustack_pcs_from(c, w, MAXBACKTRACE, start);

	for (i = 0; i < n; i++) {
		int k = stp_ubt_line(w->line, sizeof(w->line), w->pcs[i], w->mods[i], w->vaddrs[i], form);

		stp_out_bytes(&c->out, w->line, min_t(int, k, sizeof(w->line) - 1));
	}
}

/* The start of print_ubacktrace(pc, sp, fp): those three registers, the others unknown (0). */
static void stp_uw_regs_set(struct stp_uw_regs *u, unsigned long pc, unsigned long sp, unsigned long fp)
{
	memset(u, 0, sizeof(*u));
	u->pc = pc;
	u->r[STP_UW_SP] = sp;
	u->r[STP_UW_BP] = fp;
#ifdef CONFIG_X86_64
	u->r[16] = pc;
#endif
}

/* The address at depth of the user backtrace (0: the user pc), 0 past its end. */
static unsigned long stp_ustack_frame(const struct stp_context *c, int64_t depth)
{
	struct stp_ustack_work *w = this_cpu_ptr(&stp_ustack_work);
	unsigned int n;

	if (depth < 0 || depth >= MAXBACKTRACE)
		return 0;
	n = stp_ustack_pcs(c, w, depth + 1);
	return depth < n ? w->pcs[depth] : 0;
}

/* ucallers(n): depths 0 to n ("0x%x" separated by spaces; n = -1: all); false when the stack is
 * shallower than n + 1. */
static bool stp_ucallers(const struct stp_context *c, int64_t upto, char *dst)
{
	struct stp_ustack_work *w = this_cpu_ptr(&stp_ustack_work);
	unsigned int i, got = stp_ustack_pcs(c, w, MAXBACKTRACE);
	size_t len = 0;
	char buf[24];

	dst[0] = 0;
	if (upto >= 0 && upto >= got)
		return false;
	for (i = 0; i < got && (upto < 0 || i <= upto); i++) {
		int k = snprintf(buf, sizeof(buf), "%s0x%lx", i ? " " : "", w->pcs[i]);

		if (!stp_sym_append(dst, &len, buf, k))
			break;
	}
	return true;
}

/* print_usyms()/sprint_usyms(): each hex address of stk, " TOKEN : " + usymdata + "\n" (print,
 * dst NULL) or the sprint_ubacktrace line (dst). */
static void stp_usym_stack(struct stp_context *c, const char *stk, char *dst)
{
	struct stp_ustack_work *w = this_cpu_ptr(&stp_ustack_work);
	struct stp_uwalk walk;
	size_t len = 0;

	if (dst)
		dst[0] = 0;
	stp_uwalk_begin(&walk);
	while (*stk) {
		size_t n = strcspn(stk, " ");
		const char *tok = stk;
		unsigned long addr, vaddr = 0;
		int k, mod;

		stk += n;
		if (!n) {
			stk++;
			continue;
		}
		addr = stp_sym_parse_hex(tok, n);
		mod = stp_uwalk_find(&walk, addr, &vaddr);
		if (dst) {
			k = stp_usym_format(w->line, sizeof(w->line), addr, mod, vaddr, STP_SYM_SIMPLE);
			if (!stp_sym_append(dst, &len, w->line, min_t(int, k, sizeof(w->line) - 1)))
				break;
			continue;
		}
		k = stp_usym_format(w->line, sizeof(w->line), addr, mod, vaddr, STP_SYM_DATA);
		stp_out_bytes(&c->out, " ", 1);
		stp_out_bytes(&c->out, tok, n);
		stp_out_bytes(&c->out, " : ", 3);
		stp_out_bytes(&c->out, w->line, min_t(int, k, sizeof(w->line) - 1));
		stp_out_bytes(&c->out, "\n", 1);
	}
	stp_uwalk_end(&walk);
}

#endif
