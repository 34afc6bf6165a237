/* loops.c - a while or for loop on the BPF runtime: its iterations become a callback that bpf_loop calls
 * (runtime/bpf/context.h's struct stp_loop carries the context and the frame), hoisted before its function. */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"

#include <string.h>

/* What the enclosing C function was writing while the callback is being written. */
typedef struct HeldBody {
	StrBuf body, decls;
	int indent, out_used, ntrys_open;
} HeldBody;

void bpf_loop_open(Gen *g, LoopLabels *l)
{
	HeldBody *h = xcalloc(1, sizeof *h);

	h->body = g->body;
	h->decls = g->decls;
	h->indent = g->indent;
	h->out_used = g->out_used;
	h->ntrys_open = g->trys.len;
	sb_init(&g->body);
	sb_init(&g->decls);
	g->indent = 0;
	g->out_used = 0;
	g->trys.len = 0;   /* an error in the callback ends it; the caller goes on to its catch */
	l->held = h;
}

void bpf_loop_close(Gen *g, LoopLabels *l)
{
	HeldBody *h = l->held;
	char *cb = xasprintf("%s_loop%d", g->name, l->id);
	int left = g->out_used;

	sb_printf(&g->hoisted, "static long %s(uint64_t stp_i, void *stp_data)\n{\n", cb);
	sb_puts(&g->hoisted, "\tstruct stp_loop *lp = stp_data;\n\tstruct stp_context *c = lp->c;\n");
	sb_printf(&g->hoisted, "\tstruct frame_%s *f = lp->f;\n\t(void)stp_i;\n\t(void)f;\n", g->name);
	sb_puts(&g->hoisted, g->decls.data ? g->decls.data : "");
	sb_puts(&g->hoisted, g->body.data ? g->body.data : "");
	sb_puts(&g->hoisted, "\treturn 0;\n");
	if (l->break_used)
		sb_printf(&g->hoisted, "brk%d:\n\treturn 1;\n", l->id);
	if (left)   /* an error, next or return: the caller leaves too */
		sb_puts(&g->hoisted, "out:\n\tlp->left = 1;\n\treturn 1;\n");
	sb_puts(&g->hoisted, "}\n\n");
	l->break_placed = 1;

	sb_free(&g->body);
	sb_free(&g->decls);
	g->body = h->body;
	g->decls = h->decls;
	g->indent = h->indent;
	g->out_used = h->out_used;
	g->trys.len = h->ntrys_open;
	free(h);
	l->held = NULL;

	cg_line(g, "{");
	g->indent++;
	cg_line(g, "struct stp_loop lp%d = { c, f, 0 };", l->id);
	cg_line(g, "bpf_loop(STP_LOOP_ITERATIONS, %s, &lp%d, 0);", cb, l->id);
	if (left) {
		cg_line(g, "if (lp%d.left) {", l->id);
		g->indent++;
		if (g->trys.len)   /* an error goes to the catch; next and return leave */
			cg_check_error(g);
		cg_goto_out(g);
		g->indent--;
		cg_line(g, "}");
	}
	g->indent--;
	cg_line(g, "}");
	free(cb);
}

/* foreach over an array's BPF map, in its order (SystemTap's: by the sort column and direction, ties by
 * the keys ascending; unsorted, by the keys ascending): each iteration a bpf_loop callback scans the map
 * (bpf_for_each_map_elem) for the first entry after the previous one, kept in the frame, and runs the
 * body with it.  Its frame members feN_*; the scan and the order before the loop's callback. */
static void write_order(Gen *g, const Stmt *st, const char *fe)
{
	const Symbol *arr = st->array->sym;
	int col = st->sort_on > 0 ? st->sort_on - 1 : -1;

	sb_printf(&g->hoisted, "/* the foreach of line %d: entry a against b in its order */\n", st->loc.line);
	sb_printf(&g->hoisted, "static __always_inline int %s_cmp(const struct gk_%s *a, const struct gv_%s *av,\n"
		  "\t\t\t\t  const struct gk_%s *b, const struct gv_%s *bv)\n{\n\tint r = 0;\n\n\t(void)av;\n\t(void)bv;\n",
		  fe, arr->name, arr->name, arr->name, arr->name);
	if (st->sort_on) {
		int str = col < 0 ? arr->type == TY_STRING : arr->keytypes[col] == TY_STRING;
		char *a = col < 0 ? xstrdup("av->v") : xasprintf("a->k%d", col);
		char *b = col < 0 ? xstrdup("bv->v") : xasprintf("b->k%d", col);
		if (str)   /* a key's bytes are zeros past its string; a value's are not */
			sb_printf(&g->hoisted, "\tr = %d * %s(%s, %s, sizeof(%s));\n", st->sort_dir < 0 ? -1 : 1,
				  col < 0 ? "stp_strncmp" : "stp_key_strcmp", a, b, a);
		else
			sb_printf(&g->hoisted, "\tr = %d * ((%s > %s) - (%s < %s));\n", st->sort_dir < 0 ? -1 : 1, a, b, a, b);
		free(a);
		free(b);
	}
	for (int i = 0; i < arr->nkeys; i++) {
		if (arr->keytypes[i] == TY_STRING)
			sb_printf(&g->hoisted, "\tif (!r)\n\t\tr = stp_key_strcmp(a->k%d, b->k%d, sizeof(a->k%d));\n", i, i, i);
		else
			sb_printf(&g->hoisted, "\tif (!r)\n\t\tr = (a->k%d > b->k%d) - (a->k%d < b->k%d);\n", i, i, i, i);
	}
	sb_puts(&g->hoisted, "\treturn r;\n}\n");
	/* the scan: the first entry after the previous one; an array of statistics is ordered by an aggregate
	 * of its CPUs' accumulators (@count unless foreach names another), merged for each entry scanned */
	if (arr->type == TY_STATS) {
		const char *agg = st->sort_agg ? st->sort_agg : "count";
		char *val = !strcmp(agg, "avg") ? xstrdup("sd->count ? stp_stat_avg(sd) : 0") : xasprintf("sd->%s", agg);
		sb_printf(&g->hoisted, "static long %s_scan(void *map, struct gk_%s *k, void *v, struct stp_loop *lp)\n{\n"
			  "\tstruct frame_%s *f = lp->f;\n\tstruct gv_%s agg = { 0 }, *sv = &agg;\n\n\t(void)map;\n\t(void)v;\n",
			  fe, arr->name, g->name, arr->name);
		if (st->sort_on < 0)
			sb_printf(&g->hoisted, "\t{\n\t\tstruct stp_stat_data *sd = stp_pmap_merge(&g_%s, STP_STAT_SHAPE(g_%s), k);\n\n"
				  "\t\tagg.v = sd ? %s : 0;\n\t}\n", arr->name, arr->name, val);
		free(val);
	} else {   /* the value where the map holds it (a string's would not fit the stack) */
		sb_printf(&g->hoisted, "static long %s_scan(void *map, struct gk_%s *k, struct gv_%s *sv, struct stp_loop *lp)\n{\n"
			  "\tstruct frame_%s *f = lp->f;\n\n\t(void)map;\n",
			  fe, arr->name, arr->name, g->name);
	}
	for (int i = 0; i < st->slice.len; i++) {   /* a slice: its fixed keys */
		if (((Expr *)st->slice.items[i])->kind == EX_WILDCARD)
			continue;
		if (arr->keytypes[i] == TY_STRING)
			sb_printf(&g->hoisted, "\tif (stp_strncmp(k->k%d, f->%s_fix%d, sizeof(k->k%d)))\n\t\treturn 0;\n", i, fe, i, i);
		else
			sb_printf(&g->hoisted, "\tif (k->k%d != f->%s_fix%d)\n\t\treturn 0;\n", i, fe, i);
	}
	sb_printf(&g->hoisted, "\tif (f->%s_have && %s_cmp(k, sv, &f->%s_prev, &f->%s_prevv) <= 0)\n\t\treturn 0;\n"
		  "\tif (f->%s_found && %s_cmp(k, sv, &f->%s_best, &f->%s_bestv) >= 0)\n\t\treturn 0;\n"
		  "\tf->%s_best = *k;\n\tf->%s_bestv = *sv;\n\tf->%s_found = 1;\n\treturn 0;\n}\n\n",
		  fe, fe, fe, fe, fe, fe, fe, fe, fe, fe, fe);
}

void bpf_foreach_open(Gen *g, Stmt *st, LoopLabels *l)
{
	const Symbol *arr = st->array->sym;
	char *fe = xasprintf("%s_fe%d", g->name, l->id);
	char *v;

	sb_printf(g->frame, "\tstruct gk_%s %s_prev, %s_best;\n\tstruct gv_%s %s_prevv, %s_bestv;\n"
		  "\tint64_t %s_limit, %s_count;\n\tint %s_have, %s_found;\n",
		  arr->name, fe, fe, arr->name, fe, fe, fe, fe, fe, fe);
	if (st->limit) {
		char *limit = cg_expr(g, st->limit);
		cg_line(g, "f->%s_limit = %s;", fe, limit);
		cg_line(g, "f->%s_count = 0;", fe);
	}
	cg_line(g, "f->%s_have = 0;", fe);
	/* a slice's fixed keys, cut as the map's keys are, in the frame for the scan */
	for (int i = 0; i < st->slice.len; i++) {
		Expr *k = st->slice.items[i];
		char *val;
		if (k->kind == EX_WILDCARD)
			continue;
		sb_printf(g->frame, "	__typeof__(((struct gk_%s *)0)->k%d) %s_fix%d;\n", arr->name, i, fe, i);
		val = cg_expr(g, k);
		if (arr->keytypes[i] == TY_STRING)
			cg_line(g, "stp_strlcpy(f->%s_fix%d, %s, sizeof(f->%s_fix%d));", fe, i, val, fe, i);
		else
			cg_line(g, "f->%s_fix%d = %s;", fe, i, val);
	}
	write_order(g, st, fe);
	bpf_loop_open(g, l);
	g->indent++;
	cg_line(g, "f->%s_found = 0;", fe);
	cg_line(g, "bpf_for_each_map_elem(&g_%s, %s_scan, lp, 0);", arr->name, fe);
	cg_line(g, "if (!f->%s_found)", fe);
	cg_line(g, "\tgoto brk%d;", l->id);
	l->break_used = 1;
	cg_line(g, "f->%s_prev = f->%s_best;", fe, fe);
	cg_line(g, "f->%s_prevv = f->%s_bestv;", fe, fe);
	cg_line(g, "f->%s_have = 1;", fe);
	cg_loop_charge(g, st);
	if (st->limit)
		cg_line(g, "if (f->%s_count++ >= f->%s_limit)\n\t\tgoto brk%d;", fe, fe, l->id);
	for (int i = 0; i < st->keys.len; i++) {
		Expr *k = st->keys.items[i];
		char *ref = cg_var_ref(k->sym);
		if (arr->keytypes[i] == TY_STRING)
			cg_line(g, "stp_strlcpy(%s, f->%s_best.k%d, MAXSTRINGLEN);", ref, fe, i);
		else
			cg_line(g, "%s = f->%s_best.k%d;", ref, fe, i);
		free(ref);
	}
	if (st->value) {
		v = cg_var_ref(st->value->sym);
		if (arr->type == TY_STRING)
			cg_line(g, "stp_strlcpy(%s, f->%s_bestv.v, MAXSTRINGLEN);", v, fe);
		else
			cg_line(g, "%s = f->%s_bestv.v;", v, fe);
		free(v);
	}
	g->indent--;
	free(fe);
}

void bpf_foreach_close(Gen *g, Stmt *st, LoopLabels *l)
{
	(void)st;
	bpf_loop_close(g, l);
}
