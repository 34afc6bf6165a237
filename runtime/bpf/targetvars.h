/* targetvars.h - target variables on the BPF runtime (core/dwarf_vars.h's names): the hit's registers and
 * arguments copied into the context, fault-safe reads of kernel and user memory; pass 3's code reads them. */
#ifndef STP_BPF_TARGETVARS_H
#define STP_BPF_TARGETVARS_H

#include "core/dwbits.h"

/* "what at 0xADDR" as the hit's error (core/deref.h's message) */
static __always_inline void stp_deref_fault(struct stp_context *c, const char *what, unsigned long addr)
{
	static const char fmt[] = "%s at 0x%lx";
	u64 args[2] = { (u64)what, addr };

	if (c->last_error)
		return;
	if (bpf_snprintf(c->error_buf, sizeof(c->error_buf), fmt, args, sizeof(args)) < 0)
		c->error_buf[0] = 0;
	c->last_error = c->error_buf;
}

static __always_inline int64_t stp_dw_read_mem(struct stp_context *c, unsigned long addr, int size, bool is_signed,
					       bool user)
{
	u64 v = 0;
	long rc;

	if (size < 1 || size > 8)
		return 0;
	rc = user ? bpf_probe_read_user(&v, size & 15, (const void *)addr)
		  : bpf_probe_read_kernel(&v, size & 15, (const void *)addr);
	if (rc < 0) {
		stp_deref_fault(c, user ? "user read fault" : "read fault", addr);
		return 0;
	}
	return stp_dw_extract(v, 0, size, is_signed);
}

#define stp_dw_read(c, addr, size, is_signed) stp_dw_read_mem((c), (addr), (size), (is_signed), false)
#define stp_dw_uread(c, addr, size, is_signed) stp_dw_read_mem((c), (addr), (size), (is_signed), true)

#define STP_DW_READ(t, c, addr, size, is_signed, where, label)				\
	do {										\
		(t) = stp_dw_read_mem((c), (addr), (size), (is_signed), false);		\
		if (unlikely((c)->last_error)) {					\
			(c)->last_stmt = (where);					\
			goto label;							\
		}									\
	} while (0)

/* The conversions' reads (tapset/linux/conversions.stp, uconversions.stp: core/deref.h's names): a string of
 * at most maxlen bytes, a fault the hit's error; numbers, a fault the error and 0 (stp_user_quiet: 0 alone) */
static __always_inline void stp_copy_str(struct stp_context *c, char *dst, unsigned long addr, int64_t maxlen, bool user)
{
	unsigned long n = maxlen < 0 ? 0 : maxlen > MAXSTRINGLEN - 1 ? MAXSTRINGLEN - 1 : (unsigned long)maxlen;
	long rc;

	n = STP_BOUND(n, MAXSTRINGLEN - 1) + 1;
	rc = user ? bpf_probe_read_user_str(dst, n, (const void *)addr) : bpf_probe_read_kernel_str(dst, n, (const void *)addr);
	if (rc < 0) {
		dst[0] = 0;
		stp_deref_fault(c, user ? "user string copy fault" : "kernel string copy fault", addr);
	}
}
#define stp_kernel_string(c, dst, addr, maxlen) stp_copy_str((c), (dst), (addr), (maxlen), false)
#define stp_user_string(c, dst, addr, maxlen) stp_copy_str((c), (dst), (addr), (maxlen), true)
#define stp_kernel_s8(c, a) stp_dw_read_mem((c), (a), 1, true, false)
#define stp_kernel_u8(c, a) stp_dw_read_mem((c), (a), 1, false, false)
#define stp_kernel_s16(c, a) stp_dw_read_mem((c), (a), 2, true, false)
#define stp_kernel_u16(c, a) stp_dw_read_mem((c), (a), 2, false, false)
#define stp_kernel_s32(c, a) stp_dw_read_mem((c), (a), 4, true, false)
#define stp_kernel_u32(c, a) stp_dw_read_mem((c), (a), 4, false, false)
#define stp_kernel_s64(c, a) stp_dw_read_mem((c), (a), 8, true, false)

static __always_inline int64_t stp_user_quiet(unsigned long addr, int size, bool is_signed)
{
	u64 v = 0;

	if (size < 1 || size > 8 || bpf_probe_read_user(&v, size & 15, (const void *)addr) < 0)
		return 0;
	return stp_dw_extract(v, 0, size, is_signed);
}

/* the kernel's atomic types, as atomic_read() names them */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
typedef unsigned long uintptr_t;

/* A kprobe's or uprobe's registers, a BTF tracepoint's arguments, into the context (the handlers read
 * c->regs->di and c->entry_data[i] as the module's do) */
static __always_inline void stp_save_regs(struct stp_context *c, void *ctx)
{
	if (bpf_probe_read_kernel(c->regs, sizeof(c->regs), ctx) < 0)
		__builtin_memset(c->regs, 0, sizeof(c->regs));
}

static __always_inline void stp_save_args(struct stp_context *c, void *ctx)
{
	if (bpf_probe_read_kernel(c->entry_data, sizeof(c->entry_data), ctx) < 0)
		__builtin_memset(c->entry_data, 0, sizeof(c->entry_data));
}

#endif
