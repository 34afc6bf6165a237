/* deref.h - fault-safe reads of kernel and user memory in probe context: numbers,
 * bounded strings, C-quoted strings.  Used by the tapset's embedded C (conversions). */
#ifndef STP_DEREF_H
#define STP_DEREF_H

#include <linux/uaccess.h>
#include <linux/sched/task_stack.h>

/* Bytes read per step when quoting a string (a small stack buffer, no allocation). */
#define STP_QUOTE_CHUNK 64

/* Makes "<what> at 0x<addr>" this hit's error, unless the hit already has one. */
static __maybe_unused void stp_deref_fault(struct stp_context *c, const char *what, unsigned long addr)
{
	if (c->last_error)
		return;
	scnprintf(c->error_buf, sizeof(c->error_buf), "%s at 0x%lx", what, addr);
	stp_error(c, c->error_buf);
}

#if defined(CONFIG_X86_64) && defined(__get_kernel_nofault)
/* Whether addr may be read as kernel memory: what copy_from_kernel_nofault checks first on x86-64
 * (above user space and its guard page, not the vsyscall page, canonical once the CPU's virtual
 * address width is known). */
static __always_inline bool stp_kernel_addr_ok(unsigned long addr)
{
	if (addr < TASK_SIZE_MAX + PAGE_SIZE || (addr & PAGE_MASK) == (-10UL << 20))
		return false;
	return !boot_cpu_data.x86_virt_bits || __is_canonical_address(addr, boot_cpu_data.x86_virt_bits);
}

/* A read of 1, 2, 4 or 8 bytes of kernel memory as copy_from_kernel_nofault makes it, as a number
 * sign- or zero-extended into *out: the same checks, then one load with an exception-table entry
 * with page faults disabled (the kernel's call, its checks and its copy loop cost a read about a
 * hundred instructions).  False, or true when the memory could not be read.  Not inlined: gcc 12
 * crashes on this asm goto inlined into some callers (a constant address). */
static noinline __maybe_unused bool stp_kernel_load(unsigned long addr, int size, bool is_signed, int64_t *out)
{
	u8 b;
	u16 h;
	u32 w;
	u64 q;

	if (!stp_kernel_addr_ok(addr))
		return true;
	pagefault_disable();
	switch (size) {
	case 1:
		__get_kernel_nofault(&b, (const void *)addr, u8, fault);
		*out = is_signed ? (int64_t)(s8)b : (int64_t)b;
		break;
	case 2:
		__get_kernel_nofault(&h, (const void *)addr, u16, fault);
		*out = is_signed ? (int64_t)(s16)h : (int64_t)h;
		break;
	case 4:
		__get_kernel_nofault(&w, (const void *)addr, u32, fault);
		*out = is_signed ? (int64_t)(s32)w : (int64_t)w;
		break;
	default:
		__get_kernel_nofault(&q, (const void *)addr, u64, fault);
		*out = (int64_t)q;
		break;
	}
	pagefault_enable();
	return false;
fault:
	pagefault_enable();
	return true;
}
#define STP_KERNEL_READ_SMALL(size) ((size) == 1 || (size) == 2 || (size) == 4 || (size) == 8)

/* Whether the size bytes at addr lie within the current task's own task_struct or kernel stack:
 * memory that stays mapped while the task runs, whatever context the CPU is in (an interrupt
 * taken on another stack leaves current and its stack in place; a task's stack is freed only
 * after it last switched away).  Reads there need no exception table: a tracepoint's or
 * syscall's saved registers ($regs: task_pt_regs), task_current()'s own fields.  A task without
 * a stack (none while it runs; the test is kept) matches only its task_struct. */
static __always_inline bool stp_kernel_own(unsigned long addr, int size)
{
	struct task_struct *t = current;
	unsigned long stack = (unsigned long)task_stack_page(t);

	return addr - (unsigned long)t <= sizeof(struct task_struct) - size ||
	       (stack && addr - stack <= THREAD_SIZE - size);
}

/* The size bytes (1, 2, 4 or 8) at addr, which stp_kernel_own vouched for, sign- or zero-extended. */
static __always_inline int64_t stp_kernel_own_load(unsigned long addr, int size, bool is_signed)
{
	const volatile void *p = (const volatile void *)addr;

	switch (size) {
	case 1: return is_signed ? (int64_t)*(const volatile s8 *)p : (int64_t)*(const volatile u8 *)p;
	case 2: return is_signed ? (int64_t)*(const volatile s16 *)p : (int64_t)*(const volatile u16 *)p;
	case 4: return is_signed ? (int64_t)*(const volatile s32 *)p : (int64_t)*(const volatile u32 *)p;
	default: return (int64_t)*(const volatile u64 *)p;
	}
}

/* A small kernel read (size 1, 2, 4 or 8, a constant where inlined): the current task's own
 * memory is loaded directly (about 10 instructions), anything else by stp_kernel_load. */
static __always_inline bool stp_kernel_read_small(unsigned long addr, int size, bool is_signed, int64_t *out)
{
	if (likely(stp_kernel_own(addr, size))) {
		*out = stp_kernel_own_load(addr, size, is_signed);
		return false;
	}
	return stp_kernel_load(addr, size, is_signed, out);
}
#else
#define stp_kernel_read_small(addr, size, is_signed, out) true
#define stp_kernel_own(addr, size) false
#define stp_kernel_own_load(addr, size, is_signed) 0
#define STP_KERNEL_READ_SMALL(size) false
#endif

/* Copies size bytes from kernel (user = false) or user memory; 0 or -EFAULT.
 * Never sleeps and never oopses: a bad or unmapped address is just -EFAULT. */
static __maybe_unused long stp_copy_nofault(void *dst, unsigned long addr, size_t size, bool user)
{
	if (user)
		return copy_from_user_nofault(dst, (const void __user *)addr, size) ? -EFAULT : 0;
	if (STP_KERNEL_READ_SMALL(size)) {
		int64_t v;

		if (stp_kernel_read_small(addr, (int)size, false, &v))
			return -EFAULT;
		memcpy(dst, &v, size);	/* the low bytes: little-endian */
		return 0;
	}
	return copy_from_kernel_nofault(dst, (const void *)addr, size) ? -EFAULT : 0;
}

/* Typed reads: stp_kernel_s32(c, addr) etc. return the value sign- or
 * zero-extended to 64 bits; a fault sets "kernel read fault at 0x..." and
 * returns 0.  stp_user_* do the same for user memory ("user read fault"). */
#define STP_DEREF_READER(space, user, name, type)					\
	static __maybe_unused int64_t stp_##space##_##name(struct stp_context *c,	\
							  unsigned long addr)		\
	{										\
		type v;									\
											\
		if (unlikely(stp_copy_nofault(&v, addr, sizeof(v), user))) {		\
			stp_deref_fault(c, #space " read fault", addr);			\
			return 0;							\
		}									\
		return (int64_t)v;							\
	}

STP_DEREF_READER(kernel, false, s8, s8)
STP_DEREF_READER(kernel, false, u8, u8)
STP_DEREF_READER(kernel, false, s16, s16)
STP_DEREF_READER(kernel, false, u16, u16)
STP_DEREF_READER(kernel, false, s32, s32)
STP_DEREF_READER(kernel, false, u32, u32)
STP_DEREF_READER(kernel, false, s64, s64)
STP_DEREF_READER(user, true, s8, s8)
STP_DEREF_READER(user, true, u8, u8)
STP_DEREF_READER(user, true, s16, s16)
STP_DEREF_READER(user, true, u16, u16)
STP_DEREF_READER(user, true, s32, s32)
STP_DEREF_READER(user, true, u32, u32)
STP_DEREF_READER(user, true, s64, s64)

/* The value of size bytes (1, 2, 4, 8) at user address addr, sign- or zero-extended, into *val;
 * false (and *val 0) on a fault. */
static __maybe_unused bool stp_user_value(int64_t *val, unsigned long addr, size_t size, bool is_signed)
{
	union { s8 b; s16 h; s32 w; s64 q; } v;

	*val = 0;
	if (stp_copy_nofault(&v, addr, size, true))
		return false;
	switch (size) {
	case 1: *val = is_signed ? (int64_t)v.b : (int64_t)(u8)v.b; break;
	case 2: *val = is_signed ? (int64_t)v.h : (int64_t)(u16)v.h; break;
	case 4: *val = is_signed ? (int64_t)v.w : (int64_t)(u32)v.w; break;
	default: *val = v.q; break;
	}
	return true;
}

/* The same reads without an error: 0 on a fault (SystemTap's user_int and
 * friends return 0 for inaccessible user memory). */
static __maybe_unused int64_t stp_user_quiet(unsigned long addr, size_t size, bool is_signed)
{
	int64_t v;

	stp_user_value(&v, addr, size, is_signed);
	return v;
}

/* user_long_warn and friends: 0 and the warning "user read fault at 0x..." on a fault. */
static __maybe_unused int64_t stp_user_warned(struct stp_context *c, unsigned long addr, size_t size, bool is_signed)
{
	char msg[48];
	int64_t v;

	if (stp_user_value(&v, addr, size, is_signed))
		return v;
	snprintf(msg, sizeof(msg), "user read fault at 0x%lx", addr);
	stp_warn(c, msg);
	return 0;
}

/* Copies the NUL-terminated string at addr into dst (size >= 1 bytes, always
 * terminated), reading at most size - 1 bytes, page by page, so that a string
 * ending before an unmapped page is read whole.  Returns the length, or -EFAULT
 * (dst left empty) when a byte before the end could not be read. */
static __maybe_unused long stp_copy_string(char *dst, unsigned long addr, size_t size, bool user)
{
	size_t n = 0;

	while (n < size - 1) {
		size_t room = size - 1 - n;
		size_t to_page = PAGE_SIZE - ((addr + n) & ~PAGE_MASK);
		size_t chunk = min(room, to_page);
		size_t len;

		if (stp_copy_nofault(dst + n, addr + n, chunk, user)) {
			dst[0] = 0;
			return -EFAULT;
		}
		len = strnlen(dst + n, chunk);
		n += len;
		if (len < chunk)
			break;
	}
	dst[n] = 0;
	return n;
}

/* String reads for script functions: dst gets at most maxlen bytes of the
 * string (and its NUL; dst holds MAXSTRINGLEN bytes).  A fault leaves dst
 * empty and sets "kernel string copy fault at 0x..." (or "user ..."). */
static __maybe_unused void stp_kernel_string(struct stp_context *c, char *dst, unsigned long addr,
					     int64_t maxlen)
{
	size_t size = clamp_t(int64_t, maxlen, 0, MAXSTRINGLEN - 1) + 1;

	if (stp_copy_string(dst, addr, size, false) < 0)
		stp_deref_fault(c, "kernel string copy fault", addr);
}

static __maybe_unused void stp_user_string(struct stp_context *c, char *dst, unsigned long addr,
					   int64_t maxlen)
{
	size_t size = clamp_t(int64_t, maxlen, 0, MAXSTRINGLEN - 1) + 1;

	if (stp_copy_string(dst, addr, size, true) < 0)
		stp_deref_fault(c, "user string copy fault", addr);
}

/* user_string_warn: a fault is a warning ("user string copy fault at 0x..."), not an error, and
 * dst gets fallback (a script's string) instead. */
static __maybe_unused void stp_user_string_warn(struct stp_context *c, char *dst, unsigned long addr,
						int64_t maxlen, const char *fallback)
{
	size_t size = clamp_t(int64_t, maxlen, 0, MAXSTRINGLEN - 1) + 1;
	char msg[64];

	if (stp_copy_string(dst, addr, size, true) >= 0)
		return;
	snprintf(msg, sizeof(msg), "user string copy fault at 0x%lx", addr);
	stp_warn(c, msg);
	stp_strlcpy(dst, fallback, MAXSTRINGLEN);
}

/* Writes the C escape of ch into esc (at most 4 bytes plus NUL); returns its length. */
static __maybe_unused int stp_escape_char(char *esc, unsigned char ch)
{
	const char *simple = NULL;

	switch (ch) {
	case '"': simple = "\\\""; break;
	case '\\': simple = "\\\\"; break;
	case '\n': simple = "\\n"; break;
	case '\t': simple = "\\t"; break;
	case '\r': simple = "\\r"; break;
	case '\v': simple = "\\v"; break;
	case '\f': simple = "\\f"; break;
	case '\b': simple = "\\b"; break;
	case '\a': simple = "\\a"; break;
	}
	if (simple) {
		esc[0] = simple[0];
		esc[1] = simple[1];
		esc[2] = 0;
		return 2;
	}
	if (ch < 0x20 || ch >= 0x7f) {
		esc[0] = '\\';
		esc[1] = '0' + ((ch >> 6) & 7);
		esc[2] = '0' + ((ch >> 3) & 7);
		esc[3] = '0' + (ch & 7);
		esc[4] = 0;
		return 4;
	}
	esc[0] = ch;
	esc[1] = 0;
	return 1;
}

/* A quoted string being built in a string value: "...", escaped. */
struct stp_quoter {
	char *dst;
	size_t pos, size;
	bool full;
};

static __maybe_unused void stp_quote_begin(struct stp_quoter *q, char *dst, size_t size)
{
	q->dst = dst;
	q->size = size;
	q->pos = 0;
	q->full = false;
	dst[q->pos++] = '"';
}

/* Appends len bytes escaped; false once the value is full (room is kept for "... and NUL). */
static __maybe_unused bool stp_quote_add(struct stp_quoter *q, const char *s, size_t len)
{
	size_t i;
	char esc[5];

	for (i = 0; i < len && !q->full; i++) {
		int n = stp_escape_char(esc, s[i]);

		if (q->pos + n + 4 >= q->size) {
			q->full = true;
			break;
		}
		memcpy(q->dst + q->pos, esc, n);
		q->pos += n;
	}
	return !q->full;
}

/* Closes the quote: `"`, or `"...` when the string was cut. */
static __maybe_unused void stp_quote_end(struct stp_quoter *q, bool cut)
{
	const char *tail = (cut || q->full) ? "\"..." : "\"";

	q->dst[q->pos] = 0;
	stp_strlcat(q->dst + q->pos, tail, q->size - q->pos);
}

/* The quoted form of a string value (string_quoted). */
static __maybe_unused void stp_quote_str(char *dst, const char *s)
{
	struct stp_quoter q;

	stp_quote_begin(&q, dst, MAXSTRINGLEN);
	stp_quote_add(&q, s, strnlen(s, MAXSTRINGLEN - 1));
	stp_quote_end(&q, false);
}

/* The quoted form of the string at addr in dst (size >= 8 bytes), reading at
 * most maxlen bytes: "NULL" for address 0, the address itself ("0x...", no
 * quotes) when a needed byte cannot be read.  Never a script error.  Returns
 * the length written. */
static __maybe_unused size_t stp_quote_mem(char *dst, size_t size, unsigned long addr, int64_t maxlen,
					   bool user)
{
	struct stp_quoter q;
	size_t left = clamp_t(int64_t, maxlen, 0, MAXSTRINGLEN - 1);
	unsigned long p = addr;
	char buf[STP_QUOTE_CHUNK];

	if (addr == 0)
		return strscpy(dst, "NULL", size) < 0 ? size - 1 : 4;
	stp_quote_begin(&q, dst, size);
	for (;;) {
		size_t to_page = PAGE_SIZE - (p & ~PAGE_MASK);
		size_t chunk = min3(left, to_page, sizeof(buf));
		size_t len;

		if (chunk == 0) {
			/* maxlen reached: cut unless the string ends right here */
			char next;
			bool ends = !stp_copy_nofault(&next, p, 1, user) && next == 0;

			stp_quote_end(&q, !ends);
			return strlen(dst);
		}
		if (stp_copy_nofault(buf, p, chunk, user))
			break;
		len = strnlen(buf, chunk);
		if (!stp_quote_add(&q, buf, len) || len < chunk) {
			stp_quote_end(&q, false);
			return strlen(dst);
		}
		p += chunk;
		left -= chunk;
	}
	return scnprintf(dst, size, "0x%lx", addr);
}

#include "dwarf_vars.h"   /* target variables: reads of any size, bit fields, pretty printing */

#endif
