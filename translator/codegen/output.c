/* output.c - code generation for printf and sprintf (print and println are expr.c's): the
 * format is parsed here, so the kernel only writes pieces (the common ones by
 * runtime/output/output.c's straight-line functions).  Used by expr.c. */
#include "codegen/gen.h"
#include "elaborate/builtins.h"
#include "lib/format.h"

#include <string.h>

/* A conversion the runtime writes without its spec: no flags, width or precision
 * (%d %i %u %s); its function, or NULL for the generic one. */
static const char *plain_conversion(const FormatPiece *p)
{
	if (p->flags || p->width >= 0 || p->prec >= 0 || p->width_star || p->prec_star)
		return NULL;
	switch (p->conv) {
	case 'd': case 'i': return "stp_out_dec";
	case 'u': return "stp_out_udec";
	case 's': return "stp_out_strz";
	default: return NULL;
	}
}

/* The most bytes fmt can write when it can be formatted in place (literal text, plain
 * conversions and %b only; runtime/transport/transport.c's stp_out_direct_begin): a C
 * expression (strings are bounded by the module's MAXSTRINGLEN), or NULL. */
static char *format_max_bytes(const Format *fmt)
{
	size_t fixed = 0, strings = 0;

	for (int i = 0; i < fmt->npieces; i++) {
		const FormatPiece *p = &fmt->pieces[i];
		if (!p->conv)
			fixed += p->len;
		else if (p->conv == 'b' && !p->width_star && !p->prec_star)
			fixed += p->width > 0 ? (size_t)p->width : 8;
		else if (!plain_conversion(p))
			return NULL;
		else if (p->conv == 's')
			strings++;
		else
			fixed += 20;   /* the longest 64-bit decimal: 20 digits, or a sign and 19 */
	}
	if (fixed > 4096 || strings > 4)
		return NULL;
	return strings ? xasprintf("%zu + %zu * (MAXSTRINGLEN - 1)", fixed, strings) : xasprintf("%zu", fixed);
}

char *cg_format(Gen *g, Expr *e, const char *out)
{
	Format fmt;
	const char *err;
	char **vals = xcalloc((size_t)e->args.len + 1, sizeof *vals);
	int a = 1;

	format_parse(((Expr *)e->args.items[0])->str, &fmt, &err);
	for (int i = 1; i < e->args.len; i++) {
		vals[i] = cg_expr(g, e->args.items[i]);
		for (int j = i + 1; j < e->args.len; j++) {
			if (cg_has_side_effects(e->args.items[j])) {
				vals[i] = cg_materialize(g, vals[i], ((Expr *)e->args.items[i])->type);
				break;
			}
		}
	}
	/* printf: the print buffer may be the trace ring's next record (written once, in place) */
	if (!strcmp(out, "&c->out")) {
		char *need = format_max_bytes(&fmt);
		if (need)
			cg_line(g, "stp_out_direct(%s, %s);", out, need);
	}
	for (int i = 0; i < fmt.npieces; i++) {
		FormatPiece *p = &fmt.pieces[i];
		char *spec;
		const char *plain;
		if (!p->conv) {
			char *lit = cg_string_literal(p->text);
			cg_line(g, "stp_out_lit(%s, %s, %zu);", out, lit, p->len);
			continue;
		}
		if ((plain = plain_conversion(p)) != NULL) {
			cg_line(g, "%s(%s, %s);", plain, out, vals[a++]);
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
			cg_line(g, "stp_out_binary(%s, %d, %s);", out, p->width > 0 ? p->width : 8, vals[a]);
		else
			cg_line(g, "stp_out_fmt_long(%s, %s, %s);", out, spec, vals[a]);
		a++;
	}
	free(vals);
	return xstrdup("0");
}

