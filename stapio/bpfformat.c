/* bpfformat.c - a BPF run's printf records (runtime/bpf/records.h's STP_BPF_REC_PRINTF) formatted as the module
 * formats them: the object's formats (translator/bpfprog/printf.c) checked once, each conversion by the module's
 * output/fmtconv.h; used by bpfrun.c. */
#include <stdio.h>

#include "bpfglue.h"
#include "bpfout.h"
#include "../common/log.h"
#include "../runtime/bpf/records.h"

struct bpf_formats {
	struct stp_bpf_fmt *formats;
	struct stp_bpf_fmt_piece *pieces;
	char *text;
	unsigned int nformats, npieces, ntext;
	int bad_seen;                   /* a record that names no format or is cut short: said once */
	struct stp_out out;             /* the record's text, reused */
};

static int piece_ok(const struct stp_bpf_fmt_piece *p, unsigned int ntext)
{
	if (!p->conv)
		return p->text <= ntext && p->len <= ntext - p->text;
	if (!strchr("diuxXocspb", p->conv) || p->flags > 31 || p->width_star > 1 || p->prec_star > 1 ||
	    p->width < -1 || p->width > 1024 || p->prec < -1 || p->prec > 1024)
		return 0;
	return p->conv != 'b' || (!p->width_star && !p->prec_star &&
				  (p->width == -1 || p->width == 1 || p->width == 2 || p->width == 4 || p->width == 8));
}

void bpf_formats_free(struct bpf_formats *fm)
{
	if (!fm)
		return;
	free(fm->formats);
	free(fm->pieces);
	free(fm->text);
	free(fm->out.buf);
	free(fm);
}

struct bpf_formats *bpf_formats_read(const void *blob, size_t size)
{
	const char *b = blob;
	struct stp_bpf_fmt_head h;
	struct bpf_formats *fm;
	size_t at;

	if (size < sizeof(h))
		goto bad;
	memcpy(&h, b, sizeof(h));
	if (h.magic != STP_BPF_FMT_MAGIC || h.nformats > (1u << 20) || h.npieces > (1u << 20) || h.ntext > (1u << 24) ||
	    sizeof(h) + (size_t)h.nformats * sizeof(struct stp_bpf_fmt) + (size_t)h.npieces * sizeof(struct stp_bpf_fmt_piece) +
	    h.ntext > size)
		goto bad;
	fm = calloc(1, sizeof(*fm));
	if (!fm)
		return NULL;
	fm->nformats = h.nformats;
	fm->npieces = h.npieces;
	fm->ntext = h.ntext;
	fm->formats = calloc(h.nformats + 1, sizeof(*fm->formats));
	fm->pieces = calloc(h.npieces + 1, sizeof(*fm->pieces));
	fm->text = malloc(h.ntext + 1);
	if (!fm->formats || !fm->pieces || !fm->text) {
		bpf_formats_free(fm);
		return NULL;
	}
	at = sizeof(h);
	memcpy(fm->formats, b + at, h.nformats * sizeof(*fm->formats));
	at += h.nformats * sizeof(*fm->formats);
	memcpy(fm->pieces, b + at, h.npieces * sizeof(*fm->pieces));
	at += h.npieces * sizeof(*fm->pieces);
	memcpy(fm->text, b + at, h.ntext);
	for (unsigned int i = 0; i < h.nformats; i++)
		if (fm->formats[i].first > h.npieces || fm->formats[i].npieces > h.npieces - fm->formats[i].first) {
			bpf_formats_free(fm);
			goto bad;
		}
	for (unsigned int i = 0; i < h.npieces; i++)
		if (!piece_ok(&fm->pieces[i], h.ntext)) {
			bpf_formats_free(fm);
			goto bad;
		}
	return fm;
bad:
	err("the object's printf formats (section %s) are malformed", STP_BPF_FMT_SECTION);
	return NULL;
}

/* the record's next number: 0 when it is cut short (*short_seen set) */
static int64_t take_long(const char *body, size_t len, size_t *at, int *short_seen)
{
	int64_t v = 0;

	if (len - *at < 8) {
		*short_seen = 1;
		*at = len;
		return 0;
	}
	memcpy(&v, body + *at, 8);
	*at += 8;
	return v;
}

void bpf_format_record(struct bpf_output *out, struct bpf_formats *fm, const char *body, size_t len)
{
	const struct stp_bpf_fmt *f;
	unsigned int id;
	size_t at = 4;
	int short_seen = 0;

	if (!fm || len < 4)
		goto bad;
	memcpy(&id, body, 4);
	if (id >= fm->nformats)
		goto bad;
	f = &fm->formats[id];
	fm->out.len = 0;
	for (unsigned int i = 0; i < f->npieces; i++) {
		const struct stp_bpf_fmt_piece *p = &fm->pieces[f->first + i];
		struct stp_fmt spec = { p->flags, (char)p->conv, (short)p->width, (short)p->prec };

		if (!p->conv) {
			stp_out_bytes(&fm->out, fm->text + p->text, p->len);
			continue;
		}
		if (p->width_star || p->prec_star) {
			int64_t w = p->width_star ? take_long(body, len, &at, &short_seen) : p->width;
			int64_t pr = p->prec_star ? take_long(body, len, &at, &short_seen) : p->prec;
			stp_fmt_dynamic(&spec, p->flags, w, p->width_star, pr, p->prec_star, (char)p->conv);
		}
		if (p->conv == 's') {
			char s[MAXSTRINGLEN];
			size_t room = len - at, n = strnlen(body + at, room);

			if (n == room)
				short_seen = 1;
			memcpy(s, body + at, n < sizeof(s) ? n : sizeof(s) - 1);
			s[n < sizeof(s) ? n : sizeof(s) - 1] = 0;
			at += n < room ? n + 1 : n;
			stp_out_fmt_str(&fm->out, &spec, s);
		} else if (p->conv == 'b') {
			char bytes[8];
			int64_t v = take_long(body, len, &at, &short_seen);

			stp_out_bytes(&fm->out, bytes, stp_put_binary_at(bytes, p->width > 0 ? p->width : 8, v) - bytes);
		} else {
			stp_out_fmt_long(&fm->out, &spec, take_long(body, len, &at, &short_seen));
		}
	}
	bpf_output_text(out, fm->out.buf, fm->out.len);
	if (!short_seen)
		return;
bad:
	if (!fm || !fm->bad_seen)
		err("a printf record of the object names no format of it or is cut short");
	if (fm)
		fm->bad_seen = 1;
}
