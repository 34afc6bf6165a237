/* symbols.h - kernel addresses as symbols and the hit's kernel backtrace on the BPF runtime (core/symbols.h's names):
 * the kernel's %pS and %ps through bpf_snprintf, the stack as bpf_get_stack() saw it when the hit began. */
#ifndef STP_BPF_SYMBOLS_H
#define STP_BPF_SYMBOLS_H

#include "core/symstyle.h"

/* The kernel's %pS names a module's symbol "f+0x0/0x20 [mod]" and the kernel's "f+0x0/0x20": the line's
 * "]" before its last n bytes tells them apart */
static __always_inline int stp_sym_has_module(const char *buf, long len, long n)
{
	long at = len - n - 1;

	return at > 0 && buf[STP_BOUND(at, MAXSTRINGLEN - 1)] == ']';
}

/* sprint_backtrace()'s line out of symdata's in buf (n bytes): "/0xSIZE" taken out, "\n" after; the bytes scanned
 * are bounded where the verifier sees it */
static __always_inline long stp_sym_simple(char *buf, long n)
{
	long slash = -1, end = -1;

	for (int k = 0; k < 64 && k < n; k++)
		if (buf[k] == '/') {
			slash = k;
			break;
		}
	if (slash < 0)
		return n;
	for (int k = 0; k < 24; k++) {
		long at = STP_BOUND(slash + k, MAXSTRINGLEN - 1);

		if (buf[at] == ' ' || buf[at] == 0) {
			end = at;
			break;
		}
	}
	if (end < 0)
		return n;
	/* the rest moves down over the size: forward, from a higher address, word by word */
	if (bpf_probe_read_kernel_str(buf + STP_BOUND(slash, 63), MAXSTRINGLEN - 64, buf + STP_BOUND(end, 127)) < 0)
		buf[STP_BOUND(slash, 63)] = 0;
	n -= end - slash;
	if (n < 0 || n > MAXSTRINGLEN - 3)
		n = MAXSTRINGLEN - 3;
	n = STP_BOUND(n, MAXSTRINGLEN - 1);
	buf[n] = '\n';
	buf[n + 1] = 0;
	return n + 1;
}

/* addr written in style into buf (size bytes, MAXSTRINGLEN at most, always terminated); returns the length */
static __always_inline int stp_sym_format(char *buf, unsigned long size, unsigned long addr, enum stp_sym_style style)
{
	static const char name_fmt[] = "%ps", hex_fmt[] = "0x%016lx", data_fmt[] = "%pS", kdata_fmt[] = "%pS [kernel]";
	static const char full_fmt[] = " 0x%016lx : %pS\n", kfull_fmt[] = " 0x%016lx : %pS [kernel]\n";
	static const char nofull_fmt[] = " 0x%016lx : 0x%016lx\n", entry_fmt[] = "0x%016lx ", caller_fmt[] = "0x%lx";
	static const char more_fmt[] = " 0x%lx", nosimple_fmt[] = "0x%016lx\n";
	u64 arg[2] = { addr, addr };
	long n = 0;

	size = size > MAXSTRINGLEN ? MAXSTRINGLEN : size;
	switch (style) {
	case STP_SYM_HEX:
		n = bpf_snprintf(buf, size, entry_fmt, arg, 8);
		break;
	case STP_SYM_CALLER:
		n = bpf_snprintf(buf, size, caller_fmt, arg, 8);
		break;
	case STP_SYM_CALLER_MORE:
		n = bpf_snprintf(buf, size, more_fmt, arg, 8);
		break;
	case STP_SYM_NAME:
		n = bpf_snprintf(buf, size, name_fmt, arg, 8);
		if (n > 2 && buf[0] == '0' && buf[1] == 'x')   /* no symbol holds it */
			n = bpf_snprintf(buf, size, hex_fmt, arg, 8);
		break;
	case STP_SYM_DATA:
	case STP_SYM_SIMPLE:
		n = bpf_snprintf(buf, size, data_fmt, arg, 8);
		if (n > 2 && buf[0] == '0' && buf[1] == 'x') {
			n = bpf_snprintf(buf, size, style == STP_SYM_SIMPLE ? nosimple_fmt : hex_fmt, arg, 8);
			break;
		}
		if (n > 1 && !stp_sym_has_module(buf, n - 1, 0))
			n = bpf_snprintf(buf, size, kdata_fmt, arg, 8);
		if (style == STP_SYM_SIMPLE && n > 1 && n < MAXSTRINGLEN - 2)
			n = stp_sym_simple(buf, n - 1) + 1;
		break;
	case STP_SYM_FULL:
		n = bpf_snprintf(buf, size, full_fmt, arg, 16);
		if (n > 24 && buf[22] == '0' && buf[23] == 'x')
			n = bpf_snprintf(buf, size, nofull_fmt, arg, 16);
		else if (n > 2 && !stp_sym_has_module(buf, n - 1, 1))
			n = bpf_snprintf(buf, size, kfull_fmt, arg, 16);
		break;
	}
	return n > 0 ? (int)n - 1 : 0;
}

/* Whether c->sym_line starts with the n bytes of prefix (a constant) */
static __always_inline int stp_sym_line_starts(const struct stp_context *c, const char *prefix, int n)
{
#pragma unroll
	for (int i = 0; i < n; i++)
		if (c->sym_line[i] != prefix[i])
			return 0;
	return 1;
}

/* How many of the stack's first frames are the tracepoint's call into BPF (the kernel's bpf_trace_runN,
 * __bpf_trace_X, __traceiter_X, the program itself): the module's handler is called from the code that fired the
 * tracepoint, whose frame heads its stack */
static __always_inline int stp_kstack_tracing_frames(struct stp_context *c)
{
	static const char name_fmt[] = "%ps";
	int k;

	for (k = 0; k < 4 && k < c->kstack_n; k++) {
		if (bpf_snprintf(c->sym_line, sizeof(c->sym_line), name_fmt, (u64 *)&c->kstack[k], 8) <= 0)
			break;
		if (!stp_sym_line_starts(c, "bpf_trace_run", 13) && !stp_sym_line_starts(c, "__bpf_trace_", 12) &&
		    !stp_sym_line_starts(c, "__traceiter_", 12) && !stp_sym_line_starts(c, "bpf_prog_", 9))
			break;
	}
	return k;
}

/* modname(): the module holding addr, "kernel" for the kernel image, NULL when no symbol holds it: the "[MODULE]" the
 * kernel's %pS ends a module's symbol with, cut out in this CPU's context's line (core/symbols.h's name) */
static __always_inline const char *stp_sym_module(unsigned long addr)
{
	static const char data_fmt[] = "%pS";
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	u64 arg = addr;
	long n, close;

	if (!c)
		return NULL;
	n = bpf_snprintf(c->sym_line, sizeof(c->sym_line), data_fmt, &arg, 8);
	if (n <= 2 || (c->sym_line[0] == '0' && c->sym_line[1] == 'x'))
		return NULL;
	if (!stp_sym_has_module(c->sym_line, n - 1, 0))
		return STP_SYM_KERNEL;
	close = STP_BOUND(n - 2, MAXSTRINGLEN - 1);
	c->sym_line[close] = 0;
	for (int k = 1; k < 64; k++) {   /* a module's name is shorter */
		long at = close - k;

		if (at <= 0)
			break;
		if (c->sym_line[STP_BOUND(at, MAXSTRINGLEN - 1)] == '[')
			return c->sym_line + STP_BOUND(at + 1, MAXSTRINGLEN - 1);
	}
	return STP_SYM_KERNEL;
}

/* The hit's kernel stack into the context as it begins (the translator writes the call where a handler names a
 * backtrace): innermost first, the probed address (a .return's: where the function returns to) heading it; skip:
 * the frames of the program's own calls above it; tracepoint: the tracepoint's frames left out too.  Empty where
 * the kernel ran no code of the hit's (a uprobe, a timer interrupting user code) and in begin, end and timer probes. */
static __always_inline void stp_save_kstack(struct stp_context *c, void *ctx, int skip, int tracepoint)
{
	long n = bpf_get_stack(ctx, c->kstack, sizeof(c->kstack), skip & BPF_F_SKIP_FIELD_MASK);
	int k;

	c->kstack_n = n > 0 ? (long)((u64)n / 8) : 0;
	if (!tracepoint)
		return;
	/* the same walk again without them: the program calls from where it called the first time */
	k = stp_kstack_tracing_frames(c);
	if (k > 0) {
		n = bpf_get_stack(ctx, c->kstack, sizeof(c->kstack), (skip + k) & BPF_F_SKIP_FIELD_MASK);
		c->kstack_n = n > 0 ? (long)((u64)n / 8) : 0;
	}
}

/* A kprobe's registers and stack as the kernel hands them to its program: the instruction pointer past the
 * breakpoint (x86's int3, as the kernel emulates it where the probe is an ftrace call or a jump); the probed address,
 * as the module's handler sees it */
static __always_inline void stp_kprobe_at_int3(struct stp_context *c)
{
	c->regs->ip -= 1;
	if (c->kstack_n > 0)
		c->kstack[0] -= 1;
}

/* A backtrace written entry by entry (a bpf_loop callback): into c->sym_buf (dst) or the hit's output */
struct stp_sym_walk {
	struct stp_context *c;
	long style;
	long upto;              /* the last depth written; -1: all */
	int to_output;
};

static long stp_sym_frame(u64 i, void *data)
{
	struct stp_sym_walk *x = data;
	struct stp_context *c = x->c;
	long k, len = c->sym_len;

	if (i >= MAXBACKTRACE || (long)i >= c->kstack_n || (x->upto >= 0 && (long)i > x->upto))
		return 1;
	k = stp_sym_format(c->sym_line, sizeof(c->sym_line), c->kstack[i],
			   x->style == STP_SYM_CALLER && i ? STP_SYM_CALLER_MORE : x->style);
	k = STP_BOUND(k, MAXSTRINGLEN - 1);
	if (x->to_output) {
		if (i == 0 && c->ret_entry && x->style == STP_SYM_FULL) {
			/* a .return's: the function's line, then the return site's */
			long r;

			stp_out_str(&c->out, "Returning from: ");
			r = stp_sym_format(c->sym_buf, MAXSTRINGLEN, c->ret_entry, STP_SYM_FULL);
			stp_out_bytes(&c->out, c->sym_buf, STP_BOUND(r, MAXSTRINGLEN - 1));
			stp_out_str(&c->out, "Returning to  : ");
		}
		stp_out_bytes(&c->out, c->sym_line, k);
		return 0;
	}
	if (len < 0 || len + k > MAXSTRINGLEN - 1)
		return 1;
	if (bpf_probe_read_kernel_str(c->sym_buf + STP_BOUND(len, MAXSTRINGLEN - 1), k + 1, c->sym_line) < 0)
		return 1;
	c->sym_len = len + k;
	return 0;
}

static __always_inline void stp_sym_walk(struct stp_context *c, char *dst, enum stp_sym_style style, long upto)
{
	struct stp_sym_walk x = { .c = c, .style = style, .upto = upto, .to_output = !dst };

	c->sym_len = 0;
	c->sym_buf[0] = 0;
	bpf_loop(MAXBACKTRACE, stp_sym_frame, &x, 0);
	if (dst)
		stp_strlcpy(dst, c->sym_buf, MAXSTRINGLEN);
}

/* print_backtrace(): a print_backtrace() line per frame; a .return hit's starts with "Returning from: " and the
 * function's line, then "Returning to  : " before the return site's */
#define stp_print_backtrace(c) stp_sym_walk((c), NULL, STP_SYM_FULL, -1)

/* backtrace() (STP_SYM_HEX) or sprint_backtrace() (STP_SYM_SIMPLE): as many whole entries as fit */
#define stp_sprint_backtrace(c, dst, style) stp_sym_walk((c), (dst), (style), -1)

/* callers(n): depths 0 to n (all: -1) as "0x%lx" separated by spaces; false when the stack is not n deep */
static __always_inline bool stp_callers(struct stp_context *c, char *dst, int64_t n)
{
	if (n >= 0 && n >= c->kstack_n) {
		dst[0] = 0;
		return false;
	}
	stp_sym_walk(c, dst, STP_SYM_CALLER, n);
	return true;
}

/* stack(n): the address at depth n of the backtrace; 0 past its end */
static __always_inline unsigned long stp_backtrace_frame(const struct stp_context *c, int64_t depth)
{
	if (depth < 0 || depth >= MAXBACKTRACE || depth >= c->kstack_n)
		return 0;
	return c->kstack[depth];
}

/* print_stack()/sprint_stack(): a backtrace() string's hex addresses one a line, " TOKEN : " + symdata + "\n", the
 * token as written; a bpf_loop over the string's bytes (copied into c->sym_stk), the token's start and value in the
 * context */
struct stp_stk_walk {
	struct stp_context *c;
	int to_output;
};

static __always_inline int stp_hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static long stp_stk_byte(u64 i, void *data)
{
	struct stp_stk_walk *x = data;
	struct stp_context *c = x->c;
	long start = c->stk_start, len = c->sym_len, n, k;
	char ch;

	if (i >= MAXSTRINGLEN)
		return 1;
	ch = c->sym_stk[i];
	if (ch && ch != ' ') {
		if (start < 0) {
			c->stk_start = i;
			c->stk_value = 0;
			c->stk_digits = (ch == '0' && c->sym_stk[STP_BOUND(i + 1, MAXSTRINGLEN - 1)] == 'x') ? -2 : 0;
		}
		if (c->stk_digits < 0)
			c->stk_digits++;        /* "0x" */
		else if (c->stk_digits == 0 && stp_hex_digit(ch) >= 0)
			c->stk_value = (c->stk_value << 4) | stp_hex_digit(ch);
		else
			c->stk_digits = 1;      /* the value ends at the first other byte */
		return 0;
	}
	if (start >= 0) {
		n = STP_BOUND(i - start, MAXSTRINGLEN - 1);
		start = STP_BOUND(start, MAXSTRINGLEN - 1);
		k = stp_sym_format(c->sym_line, sizeof(c->sym_line), c->stk_value, STP_SYM_DATA);
		k = STP_BOUND(k, MAXSTRINGLEN - 1);
		if (x->to_output) {
			stp_out_bytes(&c->out, " ", 1);
			stp_out_bytes(&c->out, c->sym_stk + start, n);
			stp_out_bytes(&c->out, " : ", 3);
			stp_out_bytes(&c->out, c->sym_line, k);
			stp_out_bytes(&c->out, "\n", 1);
		} else {
			if (len < 0 || len + n + k + 5 > MAXSTRINGLEN - 1)
				return 1;
			len = STP_BOUND(len, MAXSTRINGLEN - 1);
			c->sym_buf[len] = ' ';
			bpf_probe_read_kernel(c->sym_buf + len + 1, n, c->sym_stk + start);
			len = STP_BOUND(len + 1 + n, MAXSTRINGLEN - 1);
			__builtin_memcpy(c->sym_buf + len, " : ", 3);
			len = STP_BOUND(len + 3, MAXSTRINGLEN - 1);
			bpf_probe_read_kernel(c->sym_buf + len, k, c->sym_line);
			len = STP_BOUND(len + k, MAXSTRINGLEN - 1);
			c->sym_buf[len] = '\n';
			c->sym_buf[len + 1] = 0;
			c->sym_len = len + 1;
		}
		c->stk_start = -1;
	}
	return ch ? 0 : 1;
}

static __always_inline void stp_sym_stack(struct stp_context *c, const char *stk, char *dst)
{
	struct stp_stk_walk x = { .c = c, .to_output = !dst };

	stp_strlcpy(c->sym_stk, stk, MAXSTRINGLEN);
	c->sym_len = 0;
	c->sym_buf[0] = 0;
	c->stk_start = -1;
	bpf_loop(MAXSTRINGLEN, stp_stk_byte, &x, 0);
	if (dst)
		stp_strlcpy(dst, c->sym_buf, MAXSTRINGLEN);
}

#endif
