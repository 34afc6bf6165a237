/* output.c - print and sprintf for generated code: literal bytes, and longs
 * and strings under a conversion spec parsed at translate time. */

#include "fmtspec.h"

static void stp_flush(struct stp_context *c);

/*
 * Formatting in place (the compiled printf, translator/codegen/output.c): when a hit's print
 * buffer o is empty and this CPU's ring has need contiguous free bytes (the printf's longest
 * output), o's buffer becomes the ring's next record, so its bytes are written once, where
 * the reader takes them.  Nothing else changes: the record is committed where the print buffer
 * would be flushed (stp_out_direct_end, from stp_flush: the hit's end, switch_file()...), with
 * the same bytes; if it outgrows its space, or another record is written on this CPU first (an
 * error report: the ring's evict), its bytes move to the print buffer and go on from there
 * (stp_out_undirect).  So the records, and the losses counted, are the print buffer path's.
 * Probe context (one writer per ring: this CPU's hit).
 */

/* o's bytes so far from the ring to its print buffer, where it goes on. */
static void stp_out_undirect(struct stp_out *o)
{
	o->ring->direct = NULL;
	o->ring = NULL;
	memcpy(o->ctx->print_buf, o->buf, o->len);
	o->buf = o->ctx->print_buf;
	o->cap = STP_BUFSIZE;
}

static void stp_out_evict(void *direct)
{
	stp_out_undirect(direct);
}

static __maybe_unused void stp_out_direct_begin(struct stp_out *o, unsigned long need)
{
	struct stp_ring *r = stp_transport_this_ring();
	unsigned long cap;
	char *p;

	if (unlikely(!r))
		return;
	p = stp_ring_reserve(r, need, &cap);
	if (!p)
		return;
	o->buf = p;
	o->cap = min_t(unsigned long, cap, STP_BUFSIZE);
	o->ring = r;
	r->evict = stp_out_evict;
	r->direct = o;
}

/* The in-place record of o (o->ring set) published, or given back when empty. */
static void stp_out_direct_end(struct stp_out *o)
{
	struct stp_ring *r = o->ring;

	r->direct = NULL;
	if (o->len)
		stp_ring_commit(r, STP_REC_STDOUT, o->len);
	o->ring = NULL;
	o->buf = o->ctx->print_buf;
	o->cap = STP_BUFSIZE;
	o->len = 0;
}

/* A full print buffer becomes a record up to its last newline, so that a
 * record lost in transport never leaves half a line; the partial line moves
 * to the front.  A line longer than the buffer is cut. */
static void stp_flush_lines(struct stp_out *o)
{
	unsigned int len = o->len, keep = 0, i = len;

	while (i > 0 && o->buf[i - 1] != '\n')
		i--;
	if (i > 0)
		keep = len - i;
	o->len = len - keep;
	stp_flush(o->ctx);          /* sends buf[0, len - keep) and empties it */
	if (keep)
		memmove(o->buf, o->buf + len - keep, keep);
	o->len = keep;
}

static __maybe_unused void stp_out_bytes(struct stp_out *o, const char *s, unsigned int n)
{
	while (n) {
		unsigned int room = o->cap - o->len;

		if (!room) {
			if (!o->ctx)
				return;             /* string value: truncate */
			if (o->ring)
				stp_out_undirect(o);  /* in place, out of room: on in the print buffer */
			else
				stp_flush_lines(o); /* print buffer: record boundary */
			room = o->cap - o->len;
		}
		if (room > n)
			room = n;
		memcpy(o->buf + o->len, s, room);
		o->len += room;
		s += room;
		n -= room;
	}
}

static __maybe_unused void stp_out_str(struct stp_out *o, const char *s)
{
	stp_out_bytes(o, s, strnlen(s, MAXSTRINGLEN));
}

#include "fmtconv.h"

static __maybe_unused void stp_out_long(struct stp_out *o, const struct stp_fmt *f, int64_t v)
{
	stp_out_fmt_long(o, f, v);
}

/* %b into o: in place when it fits, else through stp_out_bytes (a record boundary). */
static __always_inline __maybe_unused void stp_out_binary(struct stp_out *o, int bytes, int64_t v)
{
	u8 b1 = v;
	u16 b2 = v;
	u32 b4 = v;
	unsigned int n = bytes == 1 || bytes == 2 || bytes == 4 ? bytes : 8;
	const char *p = n == 1 ? (const char *)&b1 : n == 2 ? (const char *)&b2 :
			n == 4 ? (const char *)&b4 : (const char *)&v;

	if (likely(o->cap - o->len >= n)) {
		o->len = stp_put_binary_at(o->buf + o->len, n, v) - o->buf;
		return;
	}
	stp_out_bytes(o, p, n);
}

/*
 * The compiled printf (translator/codegen/output.c): with a constant format, the translator emits
 * one call per piece, and these take the common pieces, a conversion without flags, width or
 * precision and the literal text between them, straight into the buffer when the piece's bytes
 * fit (every hit but the one that fills the print buffer), without the generic spec walk; when
 * they do not fit, they go through the generic functions above (record boundary, truncation),
 * which print the same bytes.
 */

#include "decimal.h"

/* printf's plain %d (and %i) into o: as stp_out_fmt_long with { 0, 'd', -1, -1 }, which takes
 * the last bytes of a full buffer. */
static __maybe_unused void stp_out_dec(struct stp_out *o, int64_t v)
{
	if (likely(o->cap - o->len >= STP_DEC_MAX)) {
		o->len = stp_put_sdec_at(o->buf + o->len, v) - o->buf;
		return;
	}
	stp_out_fmt_long(o, &stp_fmt_d, v);
}

/* printf's plain %u into o. */
static __maybe_unused void stp_out_udec(struct stp_out *o, int64_t v)
{
	static const struct stp_fmt stp_fmt_u = { 0, 'u', -1, -1 };

	if (likely(o->cap - o->len >= STP_DEC_MAX)) {
		o->len = stp_put_udec_at(o->buf + o->len, v) - o->buf;
		return;
	}
	stp_out_fmt_long(o, &stp_fmt_u, v);
}

/* Before a compiled printf of at most need bytes into o: format it in place in the trace
 * ring when nothing of the hit is waiting in the print buffer (transport.c). */
static __always_inline __maybe_unused void stp_out_direct(struct stp_out *o, unsigned long need)
{
	if (!o->len && !o->ring)
		stp_out_direct_begin(o, need);
}

/* Literal text of a format (n is a constant: the copy is inlined). */
static __always_inline __maybe_unused void stp_out_lit(struct stp_out *o, const char *s, unsigned int n)
{
	if (likely(o->cap - o->len >= n)) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
		return;
	}
	stp_out_bytes(o, s, n);
}

/* s's bytes up to its NUL (not copied) at d, at most lim (and MAXSTRINGLEN - 1): the count.  One
 * pass, no strnlen then memcpy for a short string: whole words while 8 bytes fit and the word lies
 * in one page (stp_str_word_ok; the bytes after the NUL land in the room, past the count), then
 * bytes. */
static __always_inline unsigned int stp_copy_strz(char *d, const char *s, unsigned int lim)
{
	unsigned int n = 0;
	char ch;

	while (n + 8 <= lim && n + 8 <= MAXSTRINGLEN - 1 && stp_str_word_ok(s, n)) {
		u64 w = get_unaligned((const u64 *)(s + n)), z = stp_word_zero_bytes(le64_to_cpu(w));

		put_unaligned(w, (u64 *)(d + n));
		if (z)
			return n + (__builtin_ctzll(z) >> 3);
		n += 8;
	}
	while (n < lim && (ch = s[n]) != 0)
		d[n++] = ch;
	return n;
}

/* printf's plain %s (and print's strings): up to MAXSTRINGLEN - 1 bytes, to its NUL; what does
 * not fit, as stp_out_bytes takes it. */
static __maybe_unused void stp_out_strz(struct stp_out *o, const char *s)
{
	unsigned int room = o->cap - o->len, lim = room < MAXSTRINGLEN ? room : MAXSTRINGLEN;
	unsigned int n = stp_copy_strz(o->buf + o->len, s, lim);

	o->len += n;
	if (unlikely(n == lim && n < MAXSTRINGLEN && s[n]))
		stp_out_bytes(o, s + n, strnlen(s + n, MAXSTRINGLEN - n));
}

/*
 * The compiled printf's one-check form (translator/codegen/output.c): when o has room for the
 * format's longest output, the pieces are written at a pointer, each with no check of its own,
 * and o's length is set once at the end; else the pieces go one by one through the functions
 * above (record boundaries, truncation), which write the same bytes.
 */
static __always_inline __maybe_unused bool stp_out_fits(const struct stp_out *o, unsigned long need)
{
	return o->cap - o->len >= need;
}

static __always_inline __maybe_unused char *stp_out_at(const struct stp_out *o)
{
	return o->buf + o->len;
}

static __always_inline __maybe_unused void stp_out_done(struct stp_out *o, const char *end)
{
	o->len = end - o->buf;
}

/* Literal text at p (n a constant: the copy is inlined). */
static __always_inline __maybe_unused char *stp_put_lit_at(char *p, const char *s, unsigned int n)
{
	memcpy(p, s, n);
	return p + n;
}

/* printf's plain %s at p, room for MAXSTRINGLEN - 1 bytes known. */
static __maybe_unused char *stp_put_strz_at(char *p, const char *s)
{
	return p + stp_copy_strz(p, s, MAXSTRINGLEN - 1);
}

/* printf's %s of execname() at p, room for MAXSTRINGLEN - 1 bytes known: current->comm read as
 * two words (byte 15 taken as its NUL, as stp_execname() does) and stored as they are, 16 bytes
 * (so with a MAXSTRINGLEN above 16 only); the end at the first NUL.  A rename racing with the
 * read gives the old name, the new one or a mix, always terminated. */
static __always_inline __maybe_unused char *stp_put_comm_at(char *p)
{
#if MAXSTRINGLEN > 16
	const char *comm = current->comm;
	u64 w0 = le64_to_cpu(get_unaligned((const __le64 *)comm));
	u64 w1 = le64_to_cpu(get_unaligned((const __le64 *)(comm + 8))) & 0x00ffffffffffffffULL;
	u64 z = stp_word_zero_bytes(w0);

	BUILD_BUG_ON(TASK_COMM_LEN != 16);
	put_unaligned(cpu_to_le64(w0), (u64 *)p);
	put_unaligned(cpu_to_le64(w1), (u64 *)(p + 8));
	if (z)
		return p + (__builtin_ctzll(z) >> 3);
	return p + 8 + (__builtin_ctzll(stp_word_zero_bytes(w1)) >> 3);
#else
	char name[MAXSTRINGLEN];

	return stp_put_strz_at(p, stp_execname(name));
#endif
}

/* sprintf: format into a MAXSTRINGLEN string value. */
static __maybe_unused void stp_out_init_str(struct stp_out *o, char *dst, unsigned int size)
{
	o->buf = dst;
	o->len = 0;
	o->cap = size - 1;
	o->ctx = NULL;
	o->ring = NULL;
}

static __maybe_unused void stp_out_end_str(struct stp_out *o)
{
	o->buf[o->len] = 0;
}

/* What the bodies' sprintf and sprint use (translator/codegen/emit.c): an output on the stack into dst. */
#define STP_OUT_STR(o) struct stp_out o##_ STP_NOINIT, *const o = &o##_
#define STP_OUT_STR_OPEN(o, dst) stp_out_init_str((o), (dst), MAXSTRINGLEN)
#define STP_OUT_STR_CLOSE(o, dst) stp_out_end_str(o)
