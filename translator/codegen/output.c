/* output.c - code generation for printf and sprintf (print and println are expr.c's): the
 * format is parsed here, so the kernel only writes pieces (the common ones by
 * runtime/output/output.c's straight-line functions).  Used by expr.c. */
#include "codegen/gen.h"
#include "elaborate/builtins.h"
#include "lib/format.h"

#include <string.h>

/* A conversion the runtime writes without its spec: its function into a buffer and the one that
 * writes at a pointer with room known (the one-check form). */
typedef struct PlainConversion {
	const char *out, *at;
} PlainConversion;

/* A conversion without flags, width or precision (%d %i %u %s): its functions, or NULL for the
 * generic one. */
static const PlainConversion *plain_conversion(const FormatPiece *p)
{
	static const PlainConversion dec = { "stp_out_dec", "stp_put_sdec_at" };
	static const PlainConversion udec = { "stp_out_udec", "stp_put_udec_at" };
	static const PlainConversion str = { "stp_out_strz", "stp_put_strz_at" };

	if (p->flags || p->width >= 0 || p->prec >= 0 || p->width_star || p->prec_star)
		return NULL;
	switch (p->conv) {
	case 'd': case 'i': return &dec;
	case 'u': return &udec;
	case 's': return &str;
	default: return NULL;
	}
}

/* %b's bytes: its width (1, 2, 4 or 8, lib/format.c), 8 when it has none. */
static int binary_bytes(const FormatPiece *p)
{
	return p->width > 0 ? p->width : 8;
}

/* The most bytes fmt can write when it can be formatted in place or in the one-check form
 * (literal text, plain conversions and %b only; runtime/output/output.c's stp_out_direct_begin,
 * stp_out_fits): a C expression (strings are bounded by the module's MAXSTRINGLEN), or NULL;
 * *nstrings: its %s. */
static char *format_max_bytes(const Format *fmt, int *nstrings)
{
	size_t fixed = 0, strings = 0;

	for (int i = 0; i < fmt->npieces; i++) {
		const FormatPiece *p = &fmt->pieces[i];
		if (!p->conv)
			fixed += p->len;
		else if (p->conv == 'b' && !p->width_star && !p->prec_star)
			fixed += (size_t)binary_bytes(p);
		else if (!plain_conversion(p))
			return NULL;
		else if (p->conv == 's')
			strings++;
		else
			fixed += 20;   /* the longest 64-bit decimal: 20 digits, or a sign and 19 */
	}
	if (fixed > 4096 || strings > 4)
		return NULL;
	*nstrings = (int)strings;
	return strings ? xasprintf("%zu + %zu * (MAXSTRINGLEN - 1)", fixed, strings) : xasprintf("%zu", fixed);
}

/* The pieces one by one, each through its function (room checked per piece). */
static void format_pieces(Gen *g, const Format *fmt, char **vals, const char *out)
{
	int a = 1;

	for (int i = 0; i < fmt->npieces; i++) {
		const FormatPiece *p = &fmt->pieces[i];
		char *spec;
		const PlainConversion *plain;
		if (!p->conv) {
			char *lit = cg_string_literal(p->text);
			cg_line(g, "stp_out_lit(%s, %s, %zu);", out, lit, p->len);
			continue;
		}
		if ((plain = plain_conversion(p)) != NULL) {
			cg_line(g, "%s(%s, %s);", plain->out, out, vals[a++]);
			continue;
		}
		if (p->width_star || p->prec_star) {
			/* '*': the spec is completed at run time from the arguments */
			char *w = p->width_star ? vals[a++] : xasprintf("%d", p->width);
			char *pr = p->prec_star ? vals[a++] : xasprintf("%d", p->prec);
			char *f = cg_named_local(g, "struct stp_fmt", "fmt");
			cg_line(g, "stp_fmt_dynamic(&%s, %d, %s, %d, %s, %d, '%c');", f, p->flags, w, p->width_star, pr,
			     p->prec_star, p->conv);
			spec = xasprintf("&%s", f);
		} else {
			spec = xasprintf("STP_FMT(%d, %d, %d, '%c')", p->flags, p->width, p->prec, p->conv);
		}
		if (p->conv == 's')
			cg_line(g, "stp_out_fmt_str(%s, %s, %s);", out, spec, vals[a]);
		else if (p->conv == 'b')
			cg_line(g, "stp_out_binary(%s, %d, %s);", out, binary_bytes(p), vals[a]);
		else
			cg_line(g, "stp_out_fmt_long(%s, %s, %s);", out, spec, vals[a]);
		a++;
	}
}

/* Whether arg is execname(): in the one-check form written from current->comm directly, unless
 * its value was copied before a later argument's side effects. */
int cg_is_execname(const Expr *arg)
{
	return arg->kind == EX_CALL && !arg->fn && arg->builtin && !strcmp(arg->builtin->name, "execname");
}

/* The one-check form: room for the longest output (need) tested once, the pieces written at a
 * pointer, the per-piece form when there is not (the end of a buffer: record boundaries,
 * truncation).  Each value is used once on either side; copied[a]: argument a's value is a copy. */
static void format_one_check(Gen *g, Expr *e, const Format *fmt, char **vals, const char *copied, const char *out,
			     const char *need)
{
	char *at = cg_named_local(g, "char *", "at");
	int a = 1;

	cg_line(g, "if (likely(stp_out_fits(%s, %s))) {", out, need);
	g->indent++;
	cg_line(g, "%s = stp_out_at(%s);", at, out);
	for (int i = 0; i < fmt->npieces; i++) {
		const FormatPiece *p = &fmt->pieces[i];
		if (!p->conv)
			cg_line(g, "%s = stp_put_lit_at(%s, %s, %zu);", at, at, cg_string_literal(p->text), p->len);
		else if (p->conv == 'b')
			cg_line(g, "%s = stp_put_binary_at(%s, %d, %s);", at, at, binary_bytes(p), vals[a]);
		else if (p->conv == 's' && !copied[a] && cg_is_execname(e->args.items[a]))
			cg_line(g, "%s = stp_put_comm_at(%s);", at, at);
		else if ((p->conv == 'd' || p->conv == 'i') && !g->light)   /* a context's lead kept */
			cg_line(g, "%s = stp_put_sdec_lead_at(&c->dec_lead, %s, %s);", at, at, vals[a]);
		else
			cg_line(g, "%s = %s(%s, %s);", at, plain_conversion(p)->at, at, vals[a]);
		if (p->conv)
			a++;
	}
	cg_line(g, "stp_out_done(%s, %s);", out, at);
	g->indent--;
	cg_line(g, "} else {");
	g->indent++;
	format_pieces(g, fmt, vals, out);
	g->indent--;
	cg_line(g, "}");
}

char **cg_format_args(Gen *g, Expr *e, char **copied)
{
	char **vals = xcalloc((size_t)e->args.len + 1, sizeof *vals);

	*copied = xcalloc((size_t)e->args.len + 1, 1);
	for (int i = 1; i < e->args.len; i++) {
		vals[i] = cg_expr(g, e->args.items[i]);
		for (int j = i + 1; j < e->args.len; j++) {
			if (cg_has_side_effects(e->args.items[j])) {
				vals[i] = cg_materialize(g, vals[i], ((Expr *)e->args.items[i])->type);
				(*copied)[i] = 1;
				break;
			}
		}
	}
	return vals;
}

char *cg_format(Gen *g, Expr *e, const char *out)
{
	const Format *fmt = e->format;   /* parsed once, by pass 2's resolution */
	char *copied;
	char **vals = cg_format_args(g, e, &copied);
	int printing = !strcmp(out, "&c->out"), nstrings = 0;
	char *need;

	need = format_max_bytes(fmt, &nstrings);
	/* printf: the print buffer may be the trace ring's next record (written once, in place) */
	if (printing && need)
		cg_line(g, "stp_out_direct(%s, %s);", out, need);
	/* one check for a format of several pieces that can fit: printf's buffer holds any, an
	 * sprintf's string (MAXSTRINGLEN) those without %s */
	if (need && fmt->npieces > 1 && (printing || !nstrings))
		format_one_check(g, e, fmt, vals, copied, out, need);
	else
		format_pieces(g, fmt, vals, out);
	free(vals);
	free(copied);
	return xstrdup("0");
}

char *cg_printf_in_c(Gen *g, Expr *e)
{
	return cg_format(g, e, "&c->out");
}
