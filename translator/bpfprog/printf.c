/* printf.c - printf on the BPF runtime: the hit sends its format's number and the values in one record
 * (runtime/bpf/output.h's stp_val_*), stapio formats them with the module's conversions (stapio/bpfformat.c). */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "lib/format.h"
#include "../../runtime/bpf/records.h"

#include <string.h>

/* the bytes a string value takes in the record at most (runtime/bpf/runtime.h's STP_BPF_STRING_MAX) */
#define STRING_MAX 512

/* The record's most bytes: the format's number, 8 per number, a string's most per %s. */
static size_t values_max_bytes(const Format *fmt)
{
	size_t n = 4;

	for (int i = 0; i < fmt->npieces; i++) {
		const FormatPiece *p = &fmt->pieces[i];
		if (p->conv)
			n += 8 * (size_t)(p->width_star + p->prec_star) + (p->conv == 's' ? STRING_MAX : 8);
	}
	return n;
}

/* fmt into the object's tables (write_formats): its number */
static int add_format(CgState *cg, const Format *fmt)
{
	if (!cg->outside.count) {
		sb_init(&cg->outside.formats);
		sb_init(&cg->outside.pieces);
		sb_init(&cg->outside.text);
	}
	sb_printf(&cg->outside.formats, "\t\t{ %d, %d },\n", cg->outside.npieces, fmt->npieces);
	for (int i = 0; i < fmt->npieces; i++) {
		const FormatPiece *p = &fmt->pieces[i];
		if (!p->conv) {
			char *lit = cg_string_literal(p->text);
			sb_printf(&cg->outside.pieces, "\t\t{ 0, 0, 0, 0, -1, -1, %d, %zu },\n", cg->outside.ntext, p->len);
			sb_printf(&cg->outside.text, "\t\t%s\n", lit);
			cg->outside.ntext += (int)p->len;
			free(lit);
		} else {
			sb_printf(&cg->outside.pieces, "\t\t{ '%c', %d, %d, %d, %d, %d, 0, 0 },\n", p->conv, p->flags,
				  p->width_star, p->prec_star, p->width, p->prec);
		}
		cg->outside.npieces++;
	}
	return cg->outside.count++;
}

char *bpf_printf(Gen *g, Expr *e)
{
	const Format *fmt = e->format;
	char **vals, *copied, *at;
	int conversions = 0, a = 1;

	for (int i = 0; i < fmt->npieces; i++)
		conversions += fmt->pieces[i].conv != 0;
	/* text alone, or values that may not fit one record (with its head): written here */
	if (!conversions || values_max_bytes(fmt) + sizeof(struct stp_bpf_rec_head) > STP_BPF_OUT_CAP)
		return cg_format(g, e, "&c->out");
	vals = cg_format_args(g, e, &copied);
	at = cg_named_local(g, "unsigned int", "at");
	cg_line(g, "%s = stp_vals_begin(&c->out, %d, %zu);", at, add_format(g->cg, fmt), values_max_bytes(fmt));
	for (int i = 0; i < fmt->npieces; i++) {
		const FormatPiece *p = &fmt->pieces[i];
		if (!p->conv)
			continue;
		if (p->width_star)
			cg_line(g, "%s = stp_val_long(&c->out, %s, %s);", at, at, vals[a++]);
		if (p->prec_star)
			cg_line(g, "%s = stp_val_long(&c->out, %s, %s);", at, at, vals[a++]);
		if (p->conv == 's' && !copied[a] && cg_is_execname(e->args.items[a]))
			cg_line(g, "%s = stp_val_comm(&c->out, %s);", at, at);
		else
			cg_line(g, "%s = stp_val_%s(&c->out, %s, %s);", at, p->conv == 's' ? "str" : "long", at, vals[a]);
		a++;
	}
	cg_line(g, "stp_vals_send(&c->out, %s);", at);
	free(vals);
	free(copied);
	return xstrdup("0");
}

void bpf_write_formats(Session *s, StrBuf *out)
{
	CgState *cg = s->cg;

	if (!cg->outside.count)
		return;
	sb_printf(out, "/* printf's formats, applied by stapio */\n"
		  "const struct {\n\tstruct stp_bpf_fmt_head head;\n\tstruct stp_bpf_fmt formats[%d];\n"
		  "\tstruct stp_bpf_fmt_piece pieces[%d];\n\tchar text[%d];\n} stp_formats SEC(\"%s\") __attribute__((used)) = {\n"
		  "\t{ %#x, %d, %d, %d },\n\t{\n%s\t},\n\t{\n%s\t},\n\t\"\"\n%s};\n\n",
		  cg->outside.count, cg->outside.npieces, cg->outside.ntext + 1, STP_BPF_FMT_SECTION, STP_BPF_FMT_MAGIC,
		  cg->outside.count, cg->outside.npieces, cg->outside.ntext + 1, cg->outside.formats.data,
		  cg->outside.pieces.data, cg->outside.text.data);
	sb_free(&cg->outside.formats);
	sb_free(&cg->outside.pieces);
	sb_free(&cg->outside.text);
}
