/* targetvars.h - target variables on the BPF runtime (core/dwarf_vars.h's names): the hit's registers and
 * arguments copied into the context, fault-safe reads of kernel and user memory; pass 3's code reads them. */
#ifndef STP_BPF_TARGETVARS_H
#define STP_BPF_TARGETVARS_H

#include "core/dwbits.h"

/* The byte offset of member in type, a holder's copy the translator declared (bpfprog/corereloc.c): a field
 * relocation libbpf resolves at load against the running kernel's BTF (BPF_FIELD_BYTE_OFFSET, 0) */
#define STP_CORE_OFFSET(type, member) ((unsigned long)__builtin_preserve_field_info(((type *)0)->member, 0))

/* The anchor of a kernel global's address as this release placed it (translator/dwarf/loc.c: its link address plus
 * KASLR's shift, _printk's run-time address less its link address), found by libbpf in /proc/kallsyms at load */
extern const void _printk __ksym;

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

/* size bytes at addr, sign- or zero-extended; a fault the hit's error, "read fault at 0x..." as a target variable's
 * (core/dwarf_vars.h), "kernel read fault" as the conversions' typed reads (typed: core/deref.h's stp_kernel_*) */
static __always_inline int64_t stp_read_mem(struct stp_context *c, unsigned long addr, int size, bool is_signed,
					    bool user, bool typed)
{
	u64 v = 0;
	long rc;

	if (size < 1 || size > 8)
		return 0;
	rc = user ? bpf_probe_read_user(&v, size & 15, (const void *)addr)
		  : bpf_probe_read_kernel(&v, size & 15, (const void *)addr);
	if (rc < 0) {
		stp_deref_fault(c, user ? "user read fault" : typed ? "kernel read fault" : "read fault", addr);
		return 0;
	}
	return stp_dw_extract(v, 0, size, is_signed);
}
#define stp_dw_read_mem(c, addr, size, is_signed, user) stp_read_mem((c), (addr), (size), (is_signed), (user), false)

/* The same read for pretty printers: *bad set on a fault, no error */
static __always_inline int64_t stp_dw_peek_mem(unsigned long addr, int size, bool is_signed, bool *bad, bool user)
{
	u64 v = 0;
	long rc;

	if (size < 1 || size > 8) {
		*bad = true;
		return 0;
	}
	rc = user ? bpf_probe_read_user(&v, size & 15, (const void *)addr)
		  : bpf_probe_read_kernel(&v, size & 15, (const void *)addr);
	if (rc < 0) {
		*bad = true;
		return 0;
	}
	return stp_dw_extract(v, 0, size, is_signed);
}
#define stp_dw_peek(addr, size, is_signed, bad) stp_dw_peek_mem((addr), (size), (is_signed), (bad), false)
#define stp_dw_upeek(addr, size, is_signed, bad) stp_dw_peek_mem((addr), (size), (is_signed), (bad), true)

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

/* core/deref.h's: at most size bytes with the NUL, the string's or "" and -1 on a fault, no error raised */
static __always_inline long stp_copy_string(char *dst, unsigned long addr, size_t size, bool user)
{
	unsigned long n = size < 1 ? 1 : size > MAXSTRINGLEN ? MAXSTRINGLEN : size;
	long rc;

	n = STP_BOUND(n - 1, MAXSTRINGLEN - 1) + 1;
	rc = user ? bpf_probe_read_user_str(dst, n, (const void *)addr) : bpf_probe_read_kernel_str(dst, n, (const void *)addr);
	if (rc < 0) {
		dst[0] = 0;
		return -1;
	}
	return 0;
}
#define stp_user_string(c, dst, addr, maxlen) stp_copy_str((c), (dst), (addr), (maxlen), true)
#define stp_kernel_s8(c, a) stp_read_mem((c), (a), 1, true, false, true)
#define stp_kernel_u8(c, a) stp_read_mem((c), (a), 1, false, false, true)
#define stp_kernel_s16(c, a) stp_read_mem((c), (a), 2, true, false, true)
#define stp_kernel_u16(c, a) stp_read_mem((c), (a), 2, false, false, true)
#define stp_kernel_s32(c, a) stp_read_mem((c), (a), 4, true, false, true)
#define stp_kernel_u32(c, a) stp_read_mem((c), (a), 4, false, false, true)
#define stp_kernel_s64(c, a) stp_read_mem((c), (a), 8, true, false, true)

static __always_inline int64_t stp_user_quiet(unsigned long addr, int size, bool is_signed)
{
	u64 v = 0;

	if (size < 1 || size > 8 || bpf_probe_read_user(&v, size & 15, (const void *)addr) < 0)
		return 0;
	return stp_dw_extract(v, 0, size, is_signed);
}

/* A register name of at most 8 bytes as the little-endian word its bytes make (zeros after its end) */
#define STP_REG_WORD(s)                                                                                  \
	((u64)(sizeof(s) > 1 ? (unsigned char)(s)[0] : 0) | (u64)(sizeof(s) > 2 ? (unsigned char)(s)[1] : 0) << 8 |  \
	 (u64)(sizeof(s) > 3 ? (unsigned char)(s)[2] : 0) << 16 | (u64)(sizeof(s) > 4 ? (unsigned char)(s)[3] : 0) << 24 | \
	 (u64)(sizeof(s) > 5 ? (unsigned char)(s)[4] : 0) << 32 | (u64)(sizeof(s) > 6 ? (unsigned char)(s)[5] : 0) << 40 | \
	 (u64)(sizeof(s) > 7 ? (unsigned char)(s)[6] : 0) << 48 | (u64)(sizeof(s) > 8 ? (unsigned char)(s)[7] : 0) << 56)
/* a register's 64-bit, 32-bit (the low half) and other name (the whole register, as core/regs.h has it) */
#define STP_REG3(w, n64, n32, n16, f)                                   \
	if ((w) == STP_REG_WORD(n64) || (w) == STP_REG_WORD(n16))       \
		return (int64_t)r->f;                                   \
	if ((w) == STP_REG_WORD(n32))                                   \
		return is_unsigned ? (int64_t)(uint32_t)r->f : (int64_t)(int32_t)r->f;

/* register("name") and u_register(): core/regs.h's names and values, from the hit's registers (the name, at most 8
 * bytes, compared as one word) */
static __always_inline int64_t stp_register(struct stp_context *c, const char *name, int is_unsigned)
{
	const struct stp_regs *r = c->regs;
	u64 w[2] = { 0, 0 };

	/* a tenth byte read: a name of 9 bytes or more leaves one in w[1] */
	if (bpf_probe_read_kernel_str(w, 10, name) > 0 && !w[1]) {
		STP_REG3(w[0], "rax", "eax", "ax", ax) STP_REG3(w[0], "rbx", "ebx", "bx", bx)
		STP_REG3(w[0], "rcx", "ecx", "cx", cx) STP_REG3(w[0], "rdx", "edx", "dx", dx)
		STP_REG3(w[0], "rsi", "esi", "si", si) STP_REG3(w[0], "rdi", "edi", "di", di)
		STP_REG3(w[0], "rbp", "ebp", "bp", bp) STP_REG3(w[0], "rsp", "esp", "sp", sp)
		STP_REG3(w[0], "rip", "eip", "ip", ip) STP_REG3(w[0], "r8", "r8d", "r8", r8)
		STP_REG3(w[0], "r9", "r9d", "r9", r9) STP_REG3(w[0], "r10", "r10d", "r10", r10)
		STP_REG3(w[0], "r11", "r11d", "r11", r11) STP_REG3(w[0], "r12", "r12d", "r12", r12)
		STP_REG3(w[0], "r13", "r13d", "r13", r13) STP_REG3(w[0], "r14", "r14d", "r14", r14)
		STP_REG3(w[0], "r15", "r15d", "r15", r15) STP_REG3(w[0], "rflags", "eflags", "flags", flags)
		STP_REG3(w[0], "orig_rax", "orig_eax", "orig_ax", orig_ax)
		if (w[0] == STP_REG_WORD("cs") || w[0] == STP_REG_WORD("xcs"))
			return (int64_t)r->cs;
		if (w[0] == STP_REG_WORD("ss") || w[0] == STP_REG_WORD("xss"))
			return (int64_t)r->ss;
	}
	if (!c->last_error) {
		static const char fmt[] = "Unknown register: %s";   /* bpf_snprintf's format: read-only data */
		u64 arg = (u64)name;
		stp_error_fmt(c, fmt, &arg, sizeof(arg));
	}
	return 0;
}
#undef STP_REG3

/* A kprobe's or uprobe's arguments and return value (core/regs.h's names, x86-64): from the hit's registers
 * (its program copies them when a handler names c->regs or one of these: translator/bpfprog/object.c) */
static __always_inline uint64_t stp_func_arg(struct stp_context *c, int64_t n)
{
	switch (n) {
	case 1: return c->regs->di;
	case 2: return c->regs->si;
	case 3: return c->regs->dx;
	case 4: return c->regs->cx;
	case 5: return c->regs->r8;
	case 6: return c->regs->r9;
	}
	if (n > 6 && n <= 64)   /* on the stack, as the module reads them */
		return (uint64_t)stp_dw_read_mem(c, c->regs->sp + 8 * (n - 6), 8, true, false);
	stp_error(c, "cannot access argument");
	return 0;
}

static __always_inline int64_t stp_return_value(struct stp_context *c)
{
	return (int64_t)c->regs->ax;
}

/* argument n of the system call at the entry of an x86-64 wrapper __x64_sys_NAME(const struct pt_regs *):
 * the user's registers where its first argument points */
static __always_inline uint64_t stp_syscall_arg(struct stp_context *c, int64_t n)
{
	unsigned long off;

	switch (n) {
	case 1: off = __builtin_offsetof(struct stp_regs, di); break;
	case 2: off = __builtin_offsetof(struct stp_regs, si); break;
	case 3: off = __builtin_offsetof(struct stp_regs, dx); break;
	case 4: off = __builtin_offsetof(struct stp_regs, r10); break;
	case 5: off = __builtin_offsetof(struct stp_regs, r8); break;
	case 6: off = __builtin_offsetof(struct stp_regs, r9); break;
	default:
		stp_error(c, "cannot access system call argument");
		return 0;
	}
	return (uint64_t)stp_dw_read_mem(c, c->regs->di + off, 8, true, false);
}

/* addresses (tapset/linux/ip.stp: the kernel's names) */
#define AF_INET 2
#define AF_INET6 10
struct in6_addr {
	unsigned char s6_addr[16];
};
/* size bytes at addr into dst: 0, or non-zero when they cannot be read (core/deref.h's name) */
#define stp_copy_nofault(dst, addr, size, user)                                                        \
	((user) ? bpf_probe_read_user((dst), (size), (const void *)(addr)) :                           \
		  bpf_probe_read_kernel((dst), (size), (const void *)(addr)))

/* byte order (tapset/linux/byteorder.stp: the kernel's names) */
#define __force
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
#define be16_to_cpu(x) __builtin_bswap16(x)
#define be32_to_cpu(x) __builtin_bswap32(x)
#define be64_to_cpu(x) __builtin_bswap64(x)
#define cpu_to_be16(x) __builtin_bswap16(x)
#define cpu_to_be32(x) __builtin_bswap32(x)
#define cpu_to_be64(x) __builtin_bswap64(x)

/* remote_id(), remote_uri(): staprun -r N:URI's, which stapio writes into the object before it loads (records.h) */
#define stp_remote_id (stp_run_vars.remote_id)
#define stp_remote_uri ((const char *)stp_run_vars.remote_uri)

/* The quoted form of the string at addr (core/deref.h's stp_quote_mem: user_string_quoted and the like):
 * "NULL" for 0, the address when it cannot be read, else the text between quotes with \" \\ \n ... and \ooo
 * escapes, `"...` when cut (at maxlen bytes read, or dst's size).  The bytes are read into the context's
 * scratch, each escaped by a bpf_loop callback. */
static long stp_quote_one(u64 i, void *data)
{
	struct stp_context *c = *(struct stp_context **)data;
	struct stp_quoting *q = &c->quoting;   /* in the map: the verifier follows no count from step to step */
	unsigned char ch;
	char e1 = 0;
	long pos = q->pos;
	int n;

	if ((long)i >= q->len)
		return 1;
	ch = c->cat[STP_BOUND(i, 2 * MAXSTRINGLEN - 1)];
	e1 = stp_escape_letter(ch, '"');
	n = e1 ? 2 : (ch < 0x20 || ch >= 0x7f) ? 4 : 1;
	if (pos + n + 4 >= q->size) {
		q->full = 1;
		return 1;
	}
	q->out[STP_BOUND(pos, MAXSTRINGLEN - 1)] = n == 1 ? (char)ch : '\\';
	if (n == 2)
		q->out[STP_BOUND(pos + 1, MAXSTRINGLEN - 1)] = e1;
	if (n == 4) {
		q->out[STP_BOUND(pos + 1, MAXSTRINGLEN - 1)] = '0' + ((ch >> 6) & 7);
		q->out[STP_BOUND(pos + 2, MAXSTRINGLEN - 1)] = '0' + ((ch >> 3) & 7);
		q->out[STP_BOUND(pos + 3, MAXSTRINGLEN - 1)] = '0' + (ch & 7);
	}
	q->pos = pos + n;
	return 0;
}

static __always_inline long stp_quote_mem(char *dst, long size, unsigned long addr, int64_t maxlen, bool user)
{
	static const char fmt[] = "0x%lx";
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	unsigned long left = maxlen < 0 ? 0 : maxlen > MAXSTRINGLEN - 1 ? MAXSTRINGLEN - 1 : (unsigned long)maxlen;
	struct stp_quoting *q;
	long n, pos;

	if (!c)
		return 0;
	q = &c->quoting;
	if (addr == 0) {
		__builtin_memcpy(dst, "NULL", 5);
		return 4;
	}
	/* one byte past maxlen tells a string cut there from one ending there */
	left = STP_BOUND(left, MAXSTRINGLEN - 1);
	n = user ? bpf_probe_read_user_str(c->cat, left + 2, (const void *)addr)
		 : bpf_probe_read_kernel_str(c->cat, left + 2, (const void *)addr);
	if (n < 0) {   /* the address instead (bpf_snprintf counts the NUL) */
		u64 arg = addr;
		n = bpf_snprintf(dst, 24, fmt, &arg, sizeof(arg));
		return n > 0 ? n - 1 : 0;
	}
	n = n > 0 ? n - 1 : 0;
	q->cut = n > (long)left;
	q->len = q->cut ? (long)left : n;
	q->size = size > MAXSTRINGLEN ? MAXSTRINGLEN : size;
	q->pos = 1;
	q->full = 0;
	q->out[0] = '"';
	bpf_loop(MAXSTRINGLEN, stp_quote_one, &c, 0);
	pos = STP_BOUND(q->pos, MAXSTRINGLEN - 1);   /* at most MAXSTRINGLEN - 5: the steps keep 4 bytes and the NUL */
	if (pos > MAXSTRINGLEN - 5)
		pos = MAXSTRINGLEN - 5;
	if (q->cut || q->full)
		__builtin_memcpy(q->out + pos, "\"...", 5);
	else
		__builtin_memcpy(q->out + pos, "\"", 2);
	if (bpf_probe_read_kernel_str(dst, MAXSTRINGLEN, q->out) < 0)
		dst[0] = 0;
	return pos + (q->cut || q->full ? 4 : 1);   /* the length written, as core/deref.h's */
}
#define clamp_t(t, v, lo, hi) ((t)(v) < (t)(lo) ? (t)(lo) : (t)(v) > (t)(hi) ? (t)(hi) : (t)(v))

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

/* Where the kernel puts a kprobe on the function at func (the module's addr()): past its ENDBR64 on an IBT kernel, or
 * one of the 4-byte nops the kernel seals an ENDBR64 with where no indirect call lands */
static __always_inline u64 stp_kprobe_address(u64 func)
{
	u32 insn = 0;

	if (func && bpf_probe_read_kernel(&insn, 4, (const void *)func) == 0 &&
	    (insn == 0xfa1e0ff3 || insn == 0xd6401f0f || insn == 0x001f0f66))
		return func + 4;
	return func;
}

/* A kretprobe's point, its function's entry (stapio's address from /proc/kallsyms, runtime/bpf/records.h's
 * STP_BPF_FUNCS_SECTION; 0: unknown), as the module's handler sees it: addr(), print_backtrace()'s "Returning from";
 * the return site stays the stack's first frame */
static __always_inline void stp_kretprobe_entry(struct stp_context *c, u64 func)
{
	if (!func)
		return;
	c->ret_entry = stp_kprobe_address(func);
	c->regs->ip = c->ret_entry;
}

/* A trampoline's (fentry, fexit) registers: the arguments where the calling convention passes them, the return value
 * (is_return), the function's address and the kernel's mode; it knows no other register, and the translator leaves a
 * function to its kprobe when the object reads one (translator/bpfprog/object.c's trampoline_regs_ok) */
static __always_inline void stp_save_trampoline_regs(struct stp_context *c, void *ctx, bool is_return)
{
	u64 v[6] = { 0 };

#pragma unroll
	for (int i = 0; i < 6; i++)
		if (bpf_get_func_arg(ctx, i, &v[i]) < 0)
			v[i] = 0;
	c->regs->di = v[0];
	c->regs->si = v[1];
	c->regs->dx = v[2];
	c->regs->cx = v[3];
	c->regs->r8 = v[4];
	c->regs->r9 = v[5];
	c->regs->ax = 0;
	if (is_return && bpf_get_func_ret(ctx, &v[0]) == 0)
		c->regs->ax = v[0];
	c->regs->ip = stp_kprobe_address(bpf_get_func_ip(ctx));
	c->regs->cs = 0;
}

/* the hit's registers when the kernel was running (core/regs.h's), NULL in user mode; their instruction pointer;
 * the tapsets' C names their type as the kernel's (after the BPF headers, which declare only pointers to it) */
#define pt_regs stp_regs
#define stp_kernel_regs(c) (((c)->regs->cs & 3) ? NULL : (c)->regs)
#define user_mode(regs) (((regs)->cs & 3) != 0)
#define instruction_pointer(regs) ((regs)->ip)

/* a perf_event program's registers: its context's first member, read a word at a time as the verifier rewrites
 * such reads (the context handed over is the kernel's own structure, which points to them) */
static __always_inline void stp_save_perf_regs(struct stp_context *c, void *ctx)
{
	const u64 *r = ctx;
	u64 *d = (u64 *)c->regs;

#pragma unroll
	for (int i = 0; i < (int)(sizeof(c->regs) / 8); i++)
		d[i] = r[i];
}

static __always_inline void stp_save_args(struct stp_context *c, void *ctx)
{
	if (bpf_probe_read_kernel(c->entry_data, 8 * STP_BPF_ARGS, ctx) < 0)
		__builtin_memset(c->entry_data, 0, 8 * STP_BPF_ARGS);
}

#ifdef STP_BPF_ENTRY_BYTES
/* @entry (translator/bpfprog/entryvals.c): the values a .return probe's entry program evaluated into c->entry_data, kept
 * by thread, stack pointer at the entry and probe until its return program takes them back, where the stack
 * pointer is a word above (the return address popped); a return never seen leaves its values to the LRU */
#ifndef STP_BPF_ENTRY_SAVED
#define STP_BPF_ENTRY_SAVED 16384       /* calls in progress with values saved */
#endif
struct stp_entry_key {
	u64 pid_tgid, sp;
	u32 probe, pad;
};
struct stp_entry_saved {
	char bytes[STP_BPF_ENTRY_BYTES];
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, STP_BPF_ENTRY_SAVED);
	__type(key, struct stp_entry_key);
	__type(value, struct stp_entry_saved);
} stp_entries SEC(".maps");

static __always_inline void stp_entry_save(struct stp_context *c, u32 probe)
{
	struct stp_entry_key k = { .pid_tgid = bpf_get_current_pid_tgid(), .sp = c->regs->sp, .probe = probe };

	bpf_map_update_elem(&stp_entries, &k, c->entry_data, BPF_ANY);
}

static __always_inline void stp_entry_take(struct stp_context *c, u32 probe)
{
	struct stp_entry_key k = { .pid_tgid = bpf_get_current_pid_tgid(), .sp = c->regs->sp - 8, .probe = probe };
	struct stp_entry_saved *v = bpf_map_lookup_elem(&stp_entries, &k);

	if (v) {
		__builtin_memcpy(c->entry_data, v->bytes, STP_BPF_ENTRY_BYTES);
		bpf_map_delete_elem(&stp_entries, &k);
	} else {
		__builtin_memset(c->entry_data, 0, STP_BPF_ENTRY_BYTES);
	}
}
#endif

/* ---- pretty printing into a string value (codegen/targetvars.c's $var$, $$vars: core/dwarf_vars.h's names) ---- */

static __always_inline void stp_dw_put_dec(struct stp_out *o, int64_t v)
{
	stp_out_fmt_long(o, STP_FMT(0, -1, -1, 'd'), v);
}

static __always_inline void stp_dw_put_udec(struct stp_out *o, int64_t v)
{
	stp_out_fmt_long(o, STP_FMT(0, -1, -1, 'u'), v);
}

/* $$vars style: 0x prefix, no padding ("0x0" for zero) */
static __always_inline void stp_dw_put_hex(struct stp_out *o, int64_t v)
{
	stp_out_lit(o, "0x", 2);
	stp_out_fmt_long(o, STP_FMT(0, -1, -1, 'x'), v);
}

/* a pointer as %p prints it: 0x and 16 digits */
static __always_inline void stp_dw_put_ptr(struct stp_out *o, int64_t v)
{
	stp_out_fmt_long(o, STP_FMT(0, -1, -1, 'p'), v);
}

/* a character in single quotes, escaped like a C literal (core/deref.h's stp_escape_char, ' escaped, " not) */
static __always_inline void stp_dw_put_char(struct stp_out *o, int64_t v)
{
	unsigned char ch = (unsigned char)v;
	char esc[8];
	char e1 = 0;
	int n;

	e1 = stp_escape_letter(ch, '\'');
	esc[0] = '\'';
	if (e1) {
		esc[1] = '\\';
		esc[2] = e1;
		n = 3;
	} else if (ch < 0x20 || ch >= 0x7f) {
		esc[1] = '\\';
		esc[2] = '0' + ((ch >> 6) & 7);
		esc[3] = '0' + ((ch >> 3) & 7);
		esc[4] = '0' + (ch & 7);
		n = 5;
	} else {
		esc[1] = (char)ch;
		n = 2;
	}
	esc[n & 7] = '\'';
	stp_out_bytes(o, esc, (n + 1) & 7);
}

/* the string at addr, quoted (at most maxlen bytes; "NULL" for 0, the address when it cannot be read), into what is
 * left of the string value */
static __always_inline void stp_dw_put_string(struct stp_out *o, unsigned long addr, int64_t maxlen)
{
	long room = MAXSTRINGLEN - (long)(o->len & STP_OUT_MASK), n;
	char *p;

	if (room < 8)
		return;
	stp_out_room(o, MAXSTRINGLEN);
	p = stp_out_at(o);
	n = stp_quote_mem(p, room, addr, maxlen, false);
	stp_out_done(o, p + (n > 0 ? STP_BOUND(n, MAXSTRINGLEN - 1) : 0));
}

/* __bio_total()'s sum of the lengths of the n bio_vecs at vec (tapset/linux/ioblock.stp has the module's): a bpf_loop,
 * the sum in the context (no count the verifier follows from one iteration to the next) */
struct stp_bio_sum {
	struct stp_context *c;
	struct bio_vec *vec;
	u64 n;
};

static long stp_bio_vec_add(u64 i, void *data)
{
	struct stp_bio_sum *x = data;

	if (i >= x->n || x->c->last_error)
		return 1;
	x->c->loop_sum += stp_kernel_u32(x->c, (unsigned long)&x->vec[STP_BOUND(i, BIO_MAX_VECS - 1)].bv_len);
	return 0;
}

static __always_inline int64_t stp_bio_vecs_bytes(struct stp_context *c, struct bio_vec *vec, unsigned int n)
{
	struct stp_bio_sum x = { .c = c, .vec = vec, .n = n < BIO_MAX_VECS ? n : BIO_MAX_VECS };

	c->loop_sum = 0;
	bpf_loop(BIO_MAX_VECS, stp_bio_vec_add, &x, 0);
	return c->loop_sum;
}

/* __get_argv() (tapset/linux/aux_syscalls.stp has the module's): the strings of the user argv array at argv from
 * element skip on, as ["a", "b"], ", ..." ending a list that does not fit, an unreadable array or string shown by its
 * address.  A bpf_loop over the elements, the list built in c->argv_buf (room for a quoted string past any length
 * so far), its length in the context. */
struct stp_argv_walk {
	struct stp_context *c;
	unsigned long argv;
	int64_t skip;
};

static long stp_argv_one(u64 i, void *data)
{
	static const char addr_fmt[] = "0x%lx";
	struct stp_argv_walk *x = data;
	struct stp_context *c = x->c;
	long len = STP_BOUND(c->argv_len, MAXSTRINGLEN - 1), n;
	unsigned long p = 0;
	u64 arg;

	if (bpf_probe_read_user(&p, sizeof(p), (const void *)(x->argv + i * sizeof(p))) < 0) {
		if (len > 1) {
			__builtin_memcpy(c->argv_buf + len, ", ", 3);
			len += 2;
		}
		arg = x->argv + i * sizeof(p);
		n = bpf_snprintf(c->argv_buf + STP_BOUND(len, MAXSTRINGLEN - 1), 24, addr_fmt, &arg, sizeof(arg));
		c->argv_len = len + (n > 0 ? n - 1 : 0);
		return 1;
	}
	if (!p)
		return 1;
	if ((int64_t)i < x->skip)
		return 0;
	if (len + 16 >= MAXSTRINGLEN - 2) {
		__builtin_memcpy(c->argv_buf + len, ", ...", 6);
		c->argv_len = len + 5;
		return 1;
	}
	if (len > 1) {
		__builtin_memcpy(c->argv_buf + len, ", ", 3);
		len += 2;
	}
	len += stp_quote_mem(c->argv_buf + STP_BOUND(len, MAXSTRINGLEN - 1), MAXSTRINGLEN - 2 - len, p, MAXSTRINGLEN - 1, true);
	c->argv_len = len;
	return 0;
}

static __always_inline void stp_get_argv(struct stp_context *c, char *dst, unsigned long argv, int64_t skip)
{
	struct stp_argv_walk x = { .c = c, .argv = argv, .skip = skip };
	long len;

	if (!argv) {
		stp_strlcpy(dst, "NULL", MAXSTRINGLEN);
		return;
	}
	c->argv_buf[0] = '[';
	c->argv_len = 1;
	bpf_loop(4096, stp_argv_one, &x, 0);
	len = STP_BOUND(c->argv_len, MAXSTRINGLEN - 1);
	if (len > MAXSTRINGLEN - 2)
		len = MAXSTRINGLEN - 2;
	__builtin_memcpy(c->argv_buf + len, "]", 2);
	stp_strlcpy(dst, c->argv_buf, MAXSTRINGLEN);
}

/* __count_envp() (tapset/linux/aux_syscalls.stp has the module's): the count of the user array at envp as a C comment, its
 * address when it cannot be read, NULL; a bpf_loop over at most 4096 entries, the count in the context (loop_sum,
 * -1 on a fault) */
struct stp_envp_walk {
	struct stp_context *c;
	unsigned long envp;
};

static long stp_envp_one(u64 i, void *data)
{
	struct stp_envp_walk *x = data;
	unsigned long p = 0;

	if (bpf_probe_read_user(&p, sizeof(p), (const void *)(x->envp + i * sizeof(p))) < 0) {
		x->c->loop_sum = -1;
		return 1;
	}
	if (!p)
		return 1;
	x->c->loop_sum++;
	return 0;
}

static __always_inline void stp_count_envp(struct stp_context *c, char *dst, unsigned long envp)
{
	static const char addr_fmt[] = "0x%lx", count_fmt[] = "[/* %ld var%s */]";
	struct stp_envp_walk x = { .c = c, .envp = envp };
	u64 args[2];

	if (!envp) {
		stp_strlcpy(dst, "NULL", MAXSTRINGLEN);
		return;
	}
	c->loop_sum = 0;
	bpf_loop(4096, stp_envp_one, &x, 0);
	args[0] = c->loop_sum < 0 ? envp : (u64)c->loop_sum;
	args[1] = (u64)(c->loop_sum == 1 ? "" : "s");
	if ((c->loop_sum < 0 ? bpf_snprintf(dst, MAXSTRINGLEN, addr_fmt, args, 8)
			     : bpf_snprintf(dst, MAXSTRINGLEN, count_fmt, args, sizeof(args))) < 0)
		dst[0] = 0;
}

#endif
