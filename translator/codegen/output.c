/* output.c - code generation for print, println, printf and sprintf: the
 * format is parsed here, so the kernel only writes pieces.  Used by expr.c. */
#include "codegen/gen.h"
#include "format.h"

#include <string.h>

char *gen_print(Gen *g, Expr *e, const char *out, int newline)
{
	for (int i = 0; i < e->args.len; i++) {
		Expr *a = e->args.items[i];
		char *v;
		if (a->kind == EX_AT && !strncmp(a->str, "hist_", 5) && !a->chain.len) {
			gen_stats_print(g, a, out);
			continue;
		}
		v = gen_expr(g, a);
		if (a->type == TY_STRING)
			line(g, "stp_out_str(%s, %s);", out, v);
		else
			line(g, "stp_out_long(%s, &stp_fmt_d, %s);", out, v);
	}
	if (newline)
		line(g, "stp_out_bytes(%s, \"\\n\", 1);", out);
	return xstrdup("0");
}

char *gen_format(Gen *g, Expr *e, const char *out)
{
	Format fmt;
	const char *err;
	char **vals = xcalloc((size_t)e->args.len + 1, sizeof *vals);
	int a = 1;

	format_parse(((Expr *)e->args.items[0])->str, &fmt, &err);
	for (int i = 1; i < e->args.len; i++) {
		vals[i] = gen_expr(g, e->args.items[i]);
		for (int j = i + 1; j < e->args.len; j++) {
			if (has_side_effects(e->args.items[j])) {
				vals[i] = materialize(g, vals[i], ((Expr *)e->args.items[i])->type);
				break;
			}
		}
	}
	for (int i = 0; i < fmt.npieces; i++) {
		FormatPiece *p = &fmt.pieces[i];
		if (!p->conv) {
			char *lit = c_string_literal(p->text);
			line(g, "stp_out_bytes(%s, %s, %zu);", out, lit, p->len);
			continue;
		}
		if (p->conv == 's')
			line(g, "stp_out_fmt_str(%s, STP_FMT(%d, %d, %d, '%c'), %s);", out, p->flags, p->width,
			     p->prec, p->conv, vals[a]);
		else
			line(g, "stp_out_fmt_long(%s, STP_FMT(%d, %d, %d, '%c'), %s);", out, p->flags, p->width,
			     p->prec, p->conv, vals[a]);
		a++;
	}
	free(vals);
	return xstrdup("0");
}

