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

/* The return value register: meaningful in a .return probe. */
static __maybe_unused int64_t stp_return_value(struct stp_context *c)
{
	struct pt_regs *regs = stp_probe_regs(c, "the return value");

	return regs ? (int64_t)regs_return_value(regs) : 0;
}

#endif
