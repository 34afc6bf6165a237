/* format.c - translate-time parser of printf format strings: flags, width,
 * precision and conversion, so the kernel never parses a format. */
#include "lib/format.h"

#include <string.h>

static void add_piece(Format *f, FormatPiece p)
{
	f->pieces = xrealloc(f->pieces, (size_t)(f->npieces + 1) * sizeof *f->pieces);
	f->pieces[f->npieces++] = p;
}

static void add_literal(Format *f, const char *s, size_t n)
{
	FormatPiece p = { 0 };
	if (!n)
		return;
	if (f->npieces && f->pieces[f->npieces - 1].conv == 0) {
		FormatPiece *last = &f->pieces[f->npieces - 1];
		char *t = xmalloc(last->len + n + 1);
		memcpy(t, last->text, last->len);
		memcpy(t + last->len, s, n);
		t[last->len + n] = 0;
		free(last->text);
		last->text = t;
		last->len += n;
		return;
	}
	p.text = xstrndup(s, n);
	p.len = n;
	add_piece(f, p);
}

static int read_number(const char **p)
{
	int v = 0;
	while (**p >= '0' && **p <= '9') {
		if (v < 100000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

int format_parse(const char *fmt, Format *out, const char **err)
{
	const char *p = fmt;

	memset(out, 0, sizeof *out);
	while (*p) {
		const char *start = p;
		FormatPiece piece = { .width = -1, .prec = -1 };

		while (*p && *p != '%')
			p++;
		add_literal(out, start, (size_t)(p - start));
		if (!*p)
			break;
		p++;
		if (*p == '%') {
			add_literal(out, "%", 1);
			p++;
			continue;
		}
		for (;; p++) {
			if (*p == '-') piece.flags |= FMT_LEFT;
			else if (*p == '+') piece.flags |= FMT_PLUS;
			else if (*p == ' ') piece.flags |= FMT_SPACE;
			else if (*p == '#') piece.flags |= FMT_ALT;
			else if (*p == '0') piece.flags |= FMT_ZERO;
			else break;
		}
		if (*p == '*') {
			piece.width_star = 1;
			p++;
		} else if (*p >= '0' && *p <= '9') {
			piece.width = read_number(&p);
		}
		if (*p == '.') {
			p++;
			if (*p == '*') {
				piece.prec_star = 1;
				p++;
			} else {
				piece.prec = read_number(&p);
			}
		}
		if (piece.width > 1024 || piece.prec > 1024) {
			*err = "format width or precision larger than 1024";
			return -1;
		}
		/* length modifiers are accepted and ignored: every integer is 64-bit */
		while (*p == 'l' || *p == 'h' || *p == 'L' || *p == 'z' || *p == 'j')
			p++;
		if (!*p) {
			*err = "incomplete conversion at the end of the format";
			return -1;
		}
		if (!strchr("diuxXocspb", *p)) {
			*err = "unsupported conversion in the format";
			return -1;
		}
		piece.conv = *p++;
		if (piece.conv == 'b' && (piece.width_star || piece.prec_star ||
					  (piece.width != -1 && piece.width != 1 && piece.width != 2 &&
					   piece.width != 4 && piece.width != 8))) {
			*err = "%b takes a width of 1, 2, 4 or 8 bytes";
			return -1;
		}
		add_piece(out, piece);
		out->nargs += 1 + piece.width_star + piece.prec_star;
	}
	return 0;
}

Type format_arg_type(char conv)
{
	return conv == 's' ? TY_STRING : TY_LONG;
}
