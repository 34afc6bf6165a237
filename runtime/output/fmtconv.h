/* fmtconv.h - a printf conversion's bytes (a long under d i u x X o c p, a string under s, %b's bytes): written
 * through the includer's struct stp_out and stp_out_bytes(); the module's output.c and stapio's BPF formatter share it. */
#ifndef STP_FMTCONV_H
#define STP_FMTCONV_H

#include "fmtspec.h"

static __maybe_unused void stp_out_pad(struct stp_out *o, char ch, int n)
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
static __maybe_unused int stp_digits(char *end, uint64_t v, int base, bool upper)
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

/* %b, %1b, %2b, %4b, %8b at p (room known): the value's low bytes, in the machine's byte order;
 * bytes is the translator's constant, so a field is one store.  Returns the end. */
static __always_inline __maybe_unused char *stp_put_binary_at(char *p, int bytes, int64_t v)
{
	switch (bytes) {
	case 1: { u8 b = v; memcpy(p, &b, 1); return p + 1; }
	case 2: { u16 b = v; memcpy(p, &b, 2); return p + 2; }
	case 4: { u32 b = v; memcpy(p, &b, 4); return p + 4; }
	default: memcpy(p, &v, 8); return p + 8;
	}
}

#endif
