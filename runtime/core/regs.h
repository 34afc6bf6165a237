/* regs.h - the probed function's arguments and return value, read from the
 * pt_regs of a kprobe hit (x86_64 calling convention).  Used by the tapset. */
#ifndef STP_REGS_H
#define STP_REGS_H

#include <linux/ptrace.h>

/* The kprobe's registers, or NULL with a script error (begin, end and timer
 * probes have none). */
static __maybe_unused struct pt_regs *stp_probe_regs(struct stp_context *c, const char *what)
{
	if (likely(c->regs))
		return c->regs;
	if (!c->last_error) {
		scnprintf(c->error_buf, sizeof(c->error_buf), "cannot access %s in this probe (no registers)", what);
		stp_error(c, c->error_buf);
	}
	return NULL;
}

/* Argument n (1-based) of the probed function, as a raw 64-bit register or
 * stack slot: 1-6 in di, si, dx, cx, r8, r9; 7 on at sp + 8, sp + 16... (valid
 * at the function's entry, where sp points at the return address). */
static __maybe_unused uint64_t stp_func_arg(struct stp_context *c, int64_t n)
{
	struct pt_regs *regs = stp_probe_regs(c, "function arguments");

	if (!regs)
		return 0;
#ifdef CONFIG_X86_64
	switch (n) {
	case 1: return regs->di;
	case 2: return regs->si;
	case 3: return regs->dx;
	case 4: return regs->cx;
	case 5: return regs->r8;
	case 6: return regs->r9;
	}
	if (n > 6 && n <= 64)
		return (uint64_t)stp_kernel_s64(c, regs->sp + 8 * (n - 6));
#endif
	if (!c->last_error) {
		scnprintf(c->error_buf, sizeof(c->error_buf), "cannot access argument %lld", (long long)n);
		stp_error(c, c->error_buf);
	}
	return 0;
}

/* set_long_arg() and the like (guru mode): argument n of the probed function becomes v, in its
 * register (1-6) or stack slot (7 on: a fault-safe write); seen by the function when the
 * probe returns. */
static __maybe_unused void stp_set_func_arg(struct stp_context *c, int64_t n, uint64_t v)
{
	struct pt_regs *regs = stp_probe_regs(c, "function arguments");

	if (!regs)
		return;
#ifdef CONFIG_X86_64
	switch (n) {
	case 1: regs->di = v; return;
	case 2: regs->si = v; return;
	case 3: regs->dx = v; return;
	case 4: regs->cx = v; return;
	case 5: regs->r8 = v; return;
	case 6: regs->r9 = v; return;
	}
	if (n > 6 && n <= 64) {
		if (stp_dw_put_nofault(regs->sp + 8 * (n - 6), v, 8))
			stp_deref_fault(c, "kernel write fault", regs->sp + 8 * (n - 6));
		return;
	}
#endif
	if (!c->last_error) {
		scnprintf(c->error_buf, sizeof(c->error_buf), "cannot access argument %lld", (long long)n);
		stp_error(c, c->error_buf);
	}
}

/* Argument n (1-6) of the system call when the probe is at the entry of an
 * x86_64 syscall wrapper __x64_sys_NAME(const struct pt_regs *regs): the user's
 * registers are in the pt_regs its first argument points to. */
static __maybe_unused uint64_t stp_syscall_arg(struct stp_context *c, int64_t n)
{
#ifdef CONFIG_X86_64
	static const unsigned short offsets[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, r10),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	struct pt_regs *regs = stp_probe_regs(c, "system call arguments");

	if (!regs)
		return 0;
	if (n >= 1 && n <= 6)
		return (uint64_t)stp_kernel_s64(c, regs->di + offsets[n - 1]);
#endif
	if (!c->last_error) {
		scnprintf(c->error_buf, sizeof(c->error_buf), "cannot access system call argument %lld",
			  (long long)n);
		stp_error(c, c->error_buf);
	}
	return 0;
}

/* Register name (SystemTap's x86_64 names: "rax"/"eax"/"ax", "rip"/"ip", "rsp"/"sp", "rflags"/"flags",
 * "r8".."r15", "orig_rax", "cs", "ss"...) of the hit's registers: the kernel's in kernel probes, the
 * process's in user-space probes. A 32-bit name ("eax", "r8d") gives the low half, sign-extended
 * unless is_unsigned; an unknown name is a script error. */
static __maybe_unused int64_t stp_register(struct stp_context *c, const char *name, int is_unsigned)
{
#ifdef CONFIG_X86_64
	static const struct { char name[9]; unsigned char off; unsigned char half; } table[] = {
#define STP_REG(n64, n32, n16, f) { n64, offsetof(struct pt_regs, f), 0 }, { n32, offsetof(struct pt_regs, f), 1 }, \
		{ n16, offsetof(struct pt_regs, f), 0 }
		STP_REG("rax", "eax", "ax", ax), STP_REG("rbx", "ebx", "bx", bx), STP_REG("rcx", "ecx", "cx", cx),
		STP_REG("rdx", "edx", "dx", dx), STP_REG("rsi", "esi", "si", si), STP_REG("rdi", "edi", "di", di),
		STP_REG("rbp", "ebp", "bp", bp), STP_REG("rsp", "esp", "sp", sp), STP_REG("rip", "eip", "ip", ip),
		STP_REG("r8", "r8d", "r8", r8), STP_REG("r9", "r9d", "r9", r9), STP_REG("r10", "r10d", "r10", r10),
		STP_REG("r11", "r11d", "r11", r11), STP_REG("r12", "r12d", "r12", r12),
		STP_REG("r13", "r13d", "r13", r13), STP_REG("r14", "r14d", "r14", r14),
		STP_REG("r15", "r15d", "r15", r15), STP_REG("rflags", "eflags", "flags", flags),
		STP_REG("orig_rax", "orig_eax", "orig_ax", orig_ax),
#undef STP_REG
		{ "cs", offsetof(struct pt_regs, cs), 0 }, { "ss", offsetof(struct pt_regs, ss), 0 },
		{ "xcs", offsetof(struct pt_regs, cs), 0 }, { "xss", offsetof(struct pt_regs, ss), 0 },
	};
	struct pt_regs *regs = stp_probe_regs(c, "registers");
	size_t i;

	if (!regs)
		return 0;
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		unsigned long v;
		if (strcmp(table[i].name, name))
			continue;
		v = *(const unsigned long *)((const char *)regs + table[i].off);
		if (!table[i].half)
			return (int64_t)v;
		return is_unsigned ? (int64_t)(uint32_t)v : (int64_t)(int32_t)v;
	}
#endif
	if (!c->last_error) {
		scnprintf(c->error_buf, sizeof(c->error_buf), "Unknown register: %s", name);
		stp_error(c, c->error_buf);
	}
	return 0;
}

/* The return value register: meaningful in a .return probe. */
static __maybe_unused int64_t stp_return_value(struct stp_context *c)
{
	struct pt_regs *regs = stp_probe_regs(c, "the return value");

	return regs ? (int64_t)regs_return_value(regs) : 0;
}

#endif
