/* output.h - printf's pieces on the BPF runtime (runtime/output/output.c's names): written into the
 * context's buffer, which leaves as one ring record (text and printf values) at the end of the hit or when full. */
#ifndef STP_BPF_OUTPUT_H
#define STP_BPF_OUTPUT_H

#define STP_OUT_MASK (STP_BPF_OUT_CAP - 1)
#define STP_PAD_MAX 128                 /* the widest field a conversion pads to here */

#define STP_FMT_WIDTH_MAX STP_PAD_MAX     /* a '*' field is padded as far as any here */
#include "output/fmtspec.h"

/* A sub-record's head at (a multiple of 8) in one store, and a value of 8 bytes at any offset in one: x86-64's BPF
 * takes a map value's unaligned access, which the compiler would otherwise write a byte at a time (the buffer's
 * type says nothing of its alignment) */
static __always_inline void stp_put_head(struct stp_out *o, unsigned int at, u32 type, u32 len)
{
	*(u64 *)(o->buf + (at & (STP_OUT_MASK & ~7u))) = (u64)type | (u64)len << 32;
}

/* The hit's output leaves as one ring record holding sub-records (records.h's heads, each at an 8-byte boundary): text
 * and printf's values in the order written, so that no other CPU's record comes between the pieces of a hit's lines.
 * The open text sub-record's head is at text_at, its bytes after it up to len. */
static __always_inline void stp_out_begin(struct stp_out *o)
{
	o->text_at = 0;
	o->len = sizeof(struct stp_bpf_rec_head);
}

/* the open text sub-record closed: its head written, or, empty, taken back */
static __always_inline void stp_text_close(struct stp_out *o)
{
	unsigned int at = o->text_at & STP_OUT_MASK, len = o->len & (2 * STP_BPF_OUT_CAP - 1);

	if (len <= at + sizeof(struct stp_bpf_rec_head)) {
		o->len = at;
		return;
	}
	stp_put_head(o, at, STP_BPF_REC_TEXT, len - at - sizeof(struct stp_bpf_rec_head));
	o->len = (len + 7) & ~7u;
}

static __always_inline void stp_flush(struct stp_out *o)
{
	unsigned int n;

	if (o->is_str) {   /* a string is cut at MAXSTRINGLEN: what follows is written past it, then dropped */
		if (o->len > MAXSTRINGLEN)
			o->len = MAXSTRINGLEN;
		return;
	}
	stp_text_close(o);
	n = STP_BOUND(o->len, 2 * STP_BPF_OUT_CAP - 1);
	if (n && bpf_ringbuf_output(&stp_ring, o->buf, n, 0))
		stp_lost(n);
	stp_out_begin(o);
}

static __always_inline void stp_out_direct(struct stp_out *o, unsigned long need)
{
	(void)o;
	(void)need;
}

static __always_inline bool stp_out_fits(const struct stp_out *o, unsigned long need)
{
	return need <= STP_BPF_OUT_CAP && (o->len & STP_OUT_MASK) + need <= STP_BPF_OUT_CAP;
}

static __always_inline char *stp_out_at(struct stp_out *o)
{
	return o->buf + (o->len & STP_OUT_MASK);
}

static __always_inline void stp_out_done(struct stp_out *o, const char *end)
{
	o->len = (unsigned int)(end - o->buf) & (2 * STP_BPF_OUT_CAP - 1);
	if (o->len >= STP_BPF_OUT_CAP)
		stp_flush(o);
}

static __always_inline char *stp_put_lit_at(char *p, const char *s, unsigned int n)
{
	__builtin_memcpy(p, s, n);
	return p + n;
}

/* A length the verifier cannot follow: a loop's count, stored and loaded again.  Each of a loop's exits
 * would otherwise be a state of its own for the rest of the program, multiplied by every later one. */
static __always_inline unsigned int stp_forget(unsigned int n)
{
	u32 cpu = bpf_get_smp_processor_id();
	volatile unsigned int *slot = bpf_map_lookup_elem(&stp_scratch_n, &cpu);

	if (!slot)
		return 0;
	*slot = n;
	return *slot;
}

/* v's decimal digits at p (a minus first), room for 20 bytes known; returns the end.  The kernel's
 * formatter: its length, a helper's result, is one state for the verifier. */
static __always_inline char *stp_put_sdec_at(char *p, int64_t v)
{
	static const char fmt[] = "%lld";
	u64 arg = (u64)v;
	long n = bpf_snprintf(p, 21, fmt, &arg, sizeof(arg));

	return p + (n > 0 ? STP_BOUND(n - 1, 31) : 0);
}

static __always_inline char *stp_put_sdec_lead_at(struct stp_dec_lead *lead, char *p, int64_t v)
{
	(void)lead;
	return stp_put_sdec_at(p, v);
}

static __always_inline char *stp_put_strz_at(char *p, const char *s)
{
	long n = bpf_probe_read_kernel_str(p, MAXSTRINGLEN, s);

	return p + (n > 0 ? (n - 1) & (MAXSTRINGLEN - 1) : 0);
}

static __always_inline char *stp_put_comm_at(char *p)
{
	long n;

	bpf_get_current_comm(p, 16);
	n = bpf_probe_read_kernel_str(p, 16, p);   /* its length (the copy onto itself changes nothing) */
	return p + (n > 0 ? STP_BOUND(n - 1, 15) : 0);
}

static __always_inline char *stp_execname(char *buf)
{
	bpf_get_current_comm(buf, 16);
	return buf;
}

/* the one-by-one forms, when the hit's buffer may not hold the whole format: what does not fit
 * goes out first as a record of its own */
static __always_inline void stp_out_room(struct stp_out *o, unsigned int need)
{
	if ((o->len & STP_OUT_MASK) + need > STP_BPF_OUT_CAP)
		stp_flush(o);
}

static __always_inline void stp_out_lit(struct stp_out *o, const char *s, unsigned int n)
{
	stp_out_room(o, n);
	stp_out_done(o, stp_put_lit_at(stp_out_at(o), s, n));
}

static __always_inline void stp_out_strz(struct stp_out *o, const char *s)
{
	stp_out_room(o, MAXSTRINGLEN);
	stp_out_done(o, stp_put_strz_at(stp_out_at(o), s));
}

static __always_inline void stp_out_dec(struct stp_out *o, int64_t v)
{
	stp_out_room(o, 21);
	stp_out_done(o, stp_put_sdec_at(stp_out_at(o), v));
}

/* bytes (at most MAXSTRINGLEN) from s: a string's, or a NUL-ended one's with stp_out_str */
static __always_inline void stp_out_bytes(struct stp_out *o, const char *s, unsigned int n)
{
	char *p;

	n &= MAXSTRINGLEN - 1;
	stp_out_room(o, MAXSTRINGLEN);
	p = stp_out_at(o);
	if (n && bpf_probe_read_kernel(p, n, s) < 0)
		n = 0;
	stp_out_done(o, p + n);
}

static __always_inline void stp_out_str(struct stp_out *o, const char *s)
{
	stp_out_strz(o, s);
}

/* n (at most STP_PAD_MAX) of ch: STP_PAD_MAX written (the room is there), n kept */
static __always_inline char *stp_put_pad_at(char *p, char ch, int n)
{
	if (n <= 0)
		return p;
	__builtin_memset(p, ch, STP_PAD_MAX);
	return p + STP_BOUND(n > STP_PAD_MAX ? STP_PAD_MAX : n, 2 * STP_PAD_MAX - 1);
}

/* a long under a conversion (d i u x X o c p, flags, width, precision), as output.c's stp_out_fmt_long */
static __always_inline void stp_out_fmt_long(struct stp_out *o, const struct stp_fmt *f, int64_t v)
{
	char digits[32];
	const char *prefix = "";
	int nd = 0, zeros = 0, len, pad, np, base = 10, i;
	u64 u = (u64)v;
	char *p;

	stp_out_room(o, 3 * STP_PAD_MAX + 32);
	p = stp_out_at(o);
	if (f->conv == 'c') {
		pad = f->width > 1 ? f->width - 1 : 0;
		if (!(f->flags & STP_FMT_LEFT))
			p = stp_put_pad_at(p, ' ', pad);
		*p++ = (char)v;
		if (f->flags & STP_FMT_LEFT)
			p = stp_put_pad_at(p, ' ', pad);
		stp_out_done(o, p);
		return;
	}
	if (f->conv == 'd' || f->conv == 'i') {
		if (v < 0)
			u = 0 - u;
		prefix = v < 0 ? "-" : (f->flags & STP_FMT_PLUS) ? "+" : (f->flags & STP_FMT_SPACE) ? " " : "";
	} else if (f->conv == 'o') {
		base = 8;
	} else if (f->conv == 'x' || f->conv == 'X' || f->conv == 'p') {
		base = 16;
		if (f->conv == 'p' || ((f->flags & STP_FMT_ALT) && u))
			prefix = f->conv == 'X' ? "0X" : "0x";
	}
	for (i = 0; i < 24; i++) {
		unsigned int d = base == 16 ? u & 15 : base == 8 ? u & 7 : u % 10;
		digits[i] = d < 10 ? '0' + d : (f->conv == 'X' ? 'A' : 'a') + d - 10;
		u = base == 16 ? u >> 4 : base == 8 ? u >> 3 : u / 10;
		nd = i + 1;
		if (!u)
			break;
	}
	if (f->conv == 'p' && f->prec < 0)
		zeros = 16 - nd;
	if (f->prec >= 0 && f->prec > nd)
		zeros = f->prec - nd;
	nd = stp_forget(nd) & 31;
	if (f->prec == 0 && v == 0 && f->conv != 'p')
		nd = 0;
	if (f->conv == 'o' && (f->flags & STP_FMT_ALT) && !zeros && (v || !nd))
		prefix = "0";
	np = prefix[0] ? (prefix[1] ? 2 : 1) : 0;
	len = np + zeros + nd;
	pad = f->width > len ? f->width - len : 0;
	if ((f->flags & STP_FMT_ZERO) && !(f->flags & STP_FMT_LEFT) && f->prec < 0) {
		zeros += pad;
		pad = 0;
	}
	if (!(f->flags & STP_FMT_LEFT))
		p = stp_put_pad_at(p, ' ', pad);
	for (i = 0; i < 2 && i < np; i++)
		*p++ = prefix[i];
	p = stp_put_pad_at(p, '0', zeros);
	for (i = 0; i < 24; i++) {
		if (i >= nd)
			break;
		p[i] = digits[(nd - 1 - i) & 31];
	}
	p += STP_BOUND(nd, 31);
	if (f->flags & STP_FMT_LEFT)
		p = stp_put_pad_at(p, ' ', pad);
	stp_out_done(o, p);
}

/* %b: the value's low bytes (1, 2, 4 or 8, a constant), in the machine's order */
static __always_inline char *stp_put_binary_at(char *p, int bytes, int64_t v)
{
	if (bytes == 1 || bytes == 2 || bytes == 4) {
		__builtin_memcpy(p, &v, 1);
		if (bytes >= 2)
			__builtin_memcpy(p + 1, (char *)&v + 1, 1);
		if (bytes == 4)
			__builtin_memcpy(p + 2, (char *)&v + 2, 2);
		return p + bytes;
	}
	__builtin_memcpy(p, &v, 8);
	return p + 8;
}

static __always_inline void stp_out_binary(struct stp_out *o, int bytes, int64_t v)
{
	stp_out_room(o, 8);
	stp_out_done(o, stp_put_binary_at(stp_out_at(o), bytes, v));
}

static __always_inline void stp_out_long(struct stp_out *o, const struct stp_fmt *f, int64_t v)
{
	stp_out_fmt_long(o, f, v);
}

static __always_inline void stp_out_udec(struct stp_out *o, int64_t v)
{
	stp_out_fmt_long(o, STP_FMT(0, -1, -1, 'u'), v);
}

static __always_inline char *stp_put_udec_at(char *p, int64_t v)
{
	static const char fmt[] = "%llu";
	u64 arg = (u64)v;
	long n = bpf_snprintf(p, 21, fmt, &arg, sizeof(arg));

	return p + (n > 0 ? STP_BOUND(n - 1, 31) : 0);
}

/* a string under a conversion (%10s, %-5.3s) */
static __always_inline void stp_out_fmt_str(struct stp_out *o, const struct stp_fmt *f, const char *s)
{
	char *p;
	long n;
	int len, pad;

	stp_out_room(o, 2 * STP_PAD_MAX + MAXSTRINGLEN);
	p = stp_out_at(o);
	/* the string first, where it would go unpadded, to learn its length */
	n = bpf_probe_read_kernel_str(p + STP_PAD_MAX, MAXSTRINGLEN, s);
	len = n > 0 ? (int)(n - 1) & (MAXSTRINGLEN - 1) : 0;
	if (f->prec >= 0 && f->prec < len)
		len = f->prec;
	pad = f->width > len ? f->width - len : 0;
	if (pad > STP_PAD_MAX)
		pad = STP_PAD_MAX;
	if (!(f->flags & STP_FMT_LEFT))
		p = stp_put_pad_at(p, ' ', pad);
	if (len && bpf_probe_read_kernel(p, STP_BOUND(len, MAXSTRINGLEN - 1), s) < 0)
		len = 0;
	p += STP_BOUND(len, MAXSTRINGLEN - 1);
	if (f->flags & STP_FMT_LEFT)
		p = stp_put_pad_at(p, ' ', pad);
	stp_out_done(o, p);
}

/* printf's values, formatted by stapio (translator/bpfprog/printf.c, records.h's STP_BPF_REC_PRINTF): a sub-record
 * after what the hit wrote before, of the format's number and the values (at most max bytes: when they may not fit,
 * what the buffer holds leaves first).  Offsets in the buffer are masked below STP_BPF_OUT_CAP, which the translator
 * made sure the values fit. */
static __always_inline unsigned int stp_vals_begin(struct stp_out *o, unsigned int format, unsigned int max)
{
	unsigned int at;
	u64 end;

	stp_text_close(o);
	/* (the sum kept in a register compared with the constant: 6.1's verifier, given the constant first, walks the
	 * branch no length takes with bounds that contradict, and then refuses the buffer's pointer) */
	end = (o->len & (2 * STP_BPF_OUT_CAP - 1)) + sizeof(struct stp_bpf_rec_head) + max;
	asm volatile("" : "+r"(end));
	if (end > STP_BPF_OUT_CAP) {
		stp_flush(o);
		stp_text_close(o);
	}
	o->rec_at = at = o->len & STP_OUT_MASK;
	*(u32 *)(o->buf + at + sizeof(struct stp_bpf_rec_head)) = format;
	return at + sizeof(struct stp_bpf_rec_head) + 4;
}

static __always_inline unsigned int stp_val_long(struct stp_out *o, unsigned int at, int64_t v)
{
	at &= STP_OUT_MASK;
	*(u64 *)(o->buf + at) = (u64)v;   /* (unaligned after a string: see stp_put_head) */
	return at + 8;
}

static __always_inline unsigned int stp_val_str(struct stp_out *o, unsigned int at, const char *s)
{
	long n;

	at &= STP_OUT_MASK;
	n = bpf_probe_read_kernel_str(o->buf + at, MAXSTRINGLEN, s);
	if (n <= 0) {
		o->buf[at] = 0;
		n = 1;
	}
	return at + STP_BOUND(n, 2 * MAXSTRINGLEN - 1);
}

/* execname(), straight from the task */
static __always_inline unsigned int stp_val_comm(struct stp_out *o, unsigned int at)
{
	char *p;
	long n;

	at &= STP_OUT_MASK;
	p = o->buf + at;
	bpf_get_current_comm(p, 16);
	n = bpf_probe_read_kernel_str(p, 16, p);
	if (n <= 0) {
		p[0] = 0;
		n = 1;
	}
	return at + STP_BOUND(n, 31);
}

static __always_inline void stp_vals_send(struct stp_out *o, unsigned int at)
{
	unsigned int rec = o->rec_at & STP_OUT_MASK, end = at & (2 * STP_BPF_OUT_CAP - 1);

	stp_put_head(o, rec, STP_BPF_REC_PRINTF, end - rec - sizeof(struct stp_bpf_rec_head));
	/* the next text's sub-record, where room is left for it; else the buffer leaves now */
	o->text_at = (end + 7) & ~7u;
	o->len = o->text_at + sizeof(struct stp_bpf_rec_head);
	if (o->len >= STP_BPF_OUT_CAP)
		stp_flush(o);
}

/* sprintf's output (translator/codegen/emit.c's STP_OUT_STR): one of the context's string outputs while the
 * arguments are evaluated (a sprintf among them takes the next), into dst at the end */
#define STP_OUT_STR(o) struct stp_out *o
#define STP_OUT_STR_OPEN(o, dst) ((o) = stp_out_str_open(c))
#define STP_OUT_STR_CLOSE(o, dst) stp_out_str_close(c, (o), (dst))

static __always_inline struct stp_out *stp_out_str_open(struct stp_context *c)
{
	int d = c->sout_depth++;
	struct stp_out *o;

	if (d >= STP_OUT_STR_DEPTH && !c->last_error)
		c->last_error = "sprintf nested too deep";
	o = &c->sout[d & (STP_OUT_STR_DEPTH - 1)];
	o->len = 0;
	o->is_str = 1;
	return o;
}

static __always_inline void stp_out_str_close(struct stp_context *c, struct stp_out *o, char *dst)
{
	unsigned int n = o->len < MAXSTRINGLEN - 1 ? o->len : MAXSTRINGLEN - 1;

	n = STP_BOUND(n, MAXSTRINGLEN - 1);
	if (n && bpf_probe_read_kernel(dst, n, o->buf) < 0)
		n = 0;
	dst[n] = 0;
	c->sout_depth--;
}

#endif
