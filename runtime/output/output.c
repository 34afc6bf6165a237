/* output.c - print and sprintf for generated code: literal bytes, and longs
 * and strings under a conversion spec parsed at translate time. */

struct stp_fmt {
	unsigned char flags;    /* STP_FMT_LEFT ... as the translator's format.h */
	char conv;              /* d i u x X o c s p */
	short width;            /* -1 = none */
	short prec;             /* -1 = none */
};

#define STP_FMT_LEFT  1
#define STP_FMT_PLUS  2
#define STP_FMT_SPACE 4
#define STP_FMT_ALT   8
#define STP_FMT_ZERO  16

#define STP_FMT(flags, width, prec, conv) \
	(&(const struct stp_fmt){ (flags), (conv), (width), (prec) })

static const struct stp_fmt stp_fmt_d = { 0, 'd', -1, -1 };

static void stp_flush(struct stp_context *c);

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
			stp_flush_lines(o);         /* print buffer: record boundary */
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

static void stp_out_pad(struct stp_out *o, char ch, int n)
{
	static const char spaces[] = "                                ";
	static const char zeros[] = "00000000000000000000000000000000";
	const char *fill = ch == '0' ? zeros : spaces;

	while (n > 0) {
		int k = n < 32 ? n : 32;

		stp_out_bytes(o, fill, k);
		n -= k;
	}
}

/* Digits of v in base, most significant first, into the end of buf. */
static int stp_digits(char *end, uint64_t v, int base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	do {
		*--end = digits[v % base];
		v /= base;
		n++;
	} while (v);
	return n;
}

static __maybe_unused void stp_out_fmt_long(struct stp_out *o, const struct stp_fmt *f, int64_t v)
{
	char buf[72], *end = buf + sizeof(buf);
	const char *prefix = "";
	int ndigits, zeros = 0, len, pad;
	bool neg = false;
	uint64_t u = (uint64_t)v;
	int base = 10;

	switch (f->conv) {
	case 'c': {
		char ch = (char)v;

		pad = f->width > 1 ? f->width - 1 : 0;
		if (!(f->flags & STP_FMT_LEFT))
			stp_out_pad(o, ' ', pad);
		stp_out_bytes(o, &ch, 1);
		if (f->flags & STP_FMT_LEFT)
			stp_out_pad(o, ' ', pad);
		return;
	}
	case 'd': case 'i':
		if (v < 0) {
			neg = true;
			u = 0 - u;
		}
		prefix = neg ? "-" : (f->flags & STP_FMT_PLUS) ? "+" : (f->flags & STP_FMT_SPACE) ? " " : "";
		break;
	case 'u':
		break;
	case 'o':
		base = 8;   /* '#': the first digit is a 0, added below when needed */
		break;
	case 'x': case 'X':
		base = 16;
		if ((f->flags & STP_FMT_ALT) && u)
			prefix = f->conv == 'x' ? "0x" : "0X";
		break;
	case 'p':
		base = 16;
		prefix = "0x";
		break;
	}
	ndigits = stp_digits(end, u, base, f->conv == 'X');
	if (f->conv == 'p' && f->prec < 0)
		zeros = 16 - ndigits;
	if (f->prec >= 0 && f->prec > ndigits)
		zeros = f->prec - ndigits;
	if (f->prec == 0 && u == 0 && f->conv != 'p')
		ndigits = 0;                /* printf: %.0d of 0 prints nothing */
	if (f->conv == 'o' && (f->flags & STP_FMT_ALT) && !zeros && (u || !ndigits))
		prefix = "0";               /* %#o: a leading 0 unless one is there */
	len = strlen(prefix) + zeros + ndigits;
	pad = f->width > len ? f->width - len : 0;
	if ((f->flags & STP_FMT_ZERO) && !(f->flags & STP_FMT_LEFT) && f->prec < 0) {
		zeros += pad;
		pad = 0;
	}
	if (!(f->flags & STP_FMT_LEFT))
		stp_out_pad(o, ' ', pad);
	stp_out_bytes(o, prefix, strlen(prefix));
	stp_out_pad(o, '0', zeros);
	stp_out_bytes(o, end - ndigits, ndigits);
	if (f->flags & STP_FMT_LEFT)
		stp_out_pad(o, ' ', pad);
}

static __maybe_unused void stp_out_fmt_str(struct stp_out *o, const struct stp_fmt *f, const char *s)
{
	int len = strnlen(s, f->prec >= 0 ? f->prec : MAXSTRINGLEN);
	int pad = f->width > len ? f->width - len : 0;

	if (!(f->flags & STP_FMT_LEFT))
		stp_out_pad(o, ' ', pad);
	stp_out_bytes(o, s, len);
	if (f->flags & STP_FMT_LEFT)
		stp_out_pad(o, ' ', pad);
}

static __maybe_unused void stp_out_long(struct stp_out *o, const struct stp_fmt *f, int64_t v)
{
	stp_out_fmt_long(o, f, v);
}

/* A spec whose width or precision is '*': the argument's value, as C does
 * it (a negative width left-justifies, a negative precision is none),
 * bounded like the translator bounds literal ones. */
static __maybe_unused void stp_fmt_dynamic(struct stp_fmt *f, int flags, int64_t width, int width_star, int64_t prec,
					   int prec_star, char conv)
{
	f->flags = flags;
	f->conv = conv;
	f->width = width;
	f->prec = prec;
	if (width_star) {
		if (width < 0) {
			f->flags |= STP_FMT_LEFT;
			width = width == S64_MIN ? 1024 : -width;
		}
		f->width = width > 1024 ? 1024 : width;
	}
	if (prec_star)
		f->prec = prec < 0 ? -1 : prec > 1024 ? 1024 : prec;
}

/* %b, %1b, %2b, %4b, %8b: the value's low bytes, in the machine's byte order. */
static __maybe_unused void stp_out_binary(struct stp_out *o, int bytes, int64_t v)
{
	u8 b1 = v;
	u16 b2 = v;
	u32 b4 = v;

	switch (bytes) {
	case 1: stp_out_bytes(o, (const char *)&b1, 1); break;
	case 2: stp_out_bytes(o, (const char *)&b2, 2); break;
	case 4: stp_out_bytes(o, (const char *)&b4, 4); break;
	default: stp_out_bytes(o, (const char *)&v, 8); break;
	}
}

/* sprintf: format into a MAXSTRINGLEN string value. */
static __maybe_unused void stp_out_init_str(struct stp_out *o, char *dst, unsigned int size)
{
	o->buf = dst;
	o->len = 0;
	o->cap = size - 1;
	o->ctx = NULL;
}

static __maybe_unused void stp_out_end_str(struct stp_out *o)
{
	o->buf[o->len] = 0;
}
