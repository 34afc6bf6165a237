/* display.c - globals the script writes but never reads are printed at the end
 * of the run (as SystemTap does), by a last end probe generated here.  Used by codegen/bodies.c. */
#include "codegen/backend.h"
#include "codegen/gen.h"
#include "providers/provider.h"

#include <limits.h>
#include <string.h>

typedef struct Reads {
	char *read;             /* per global: read somewhere */
	PtrVec seen_fns;
	AstVisitor v;
} Reads;

static void mark(Reads *r, Symbol *sym)
{
	if (sym && sym->kind == SYM_GLOBAL)
		r->read[sym->index] = 1;
}

/* The variable an assignment, <<<, ++ or delete writes: not a read of it
 * (its keys are visited as ordinary expressions). */
static void visit_target(Reads *r, Expr *e)
{
	if (e->kind == EX_INDEX) {
		for (int i = 0; i < e->args.len; i++)
			ast_walk_expr(e->args.items[i], &r->v);
	} else if (e->kind != EX_IDENT) {
		ast_walk_expr(e, &r->v);
	}
}

static int reads_in_expr(Expr *e, void *ctx)
{
	Reads *r = ctx;

	switch (e->kind) {
	case EX_IDENT:
	case EX_INDEX:
		mark(r, e->sym);
		break;
	case EX_AT:
		if (is_stats_op(e->str) && e->args.len)
			mark(r, ((Expr *)e->args.items[0])->sym);
		break;
	case EX_BINARY:
		if (e->op == OP_IN)
			mark(r, e->right->sym);
		break;
	case EX_CALL:
		if (e->fn && e->fn->body && first_visit(&r->seen_fns, e->fn))
			ast_walk_stmt(e->fn->body, &r->v);
		break;
	default:
		break;
	}
	return 0;
}

static int reads_in_stmt(Stmt *st, void *ctx)
{
	Reads *r = ctx;

	if (st->kind == ST_FOREACH && st->array->kind != EX_AT)
		mark(r, st->array->sym);
	if (st->kind == ST_DELETE) {
		visit_target(r, st->expr);
		return AST_WALK_SKIP;
	}
	/* x = v, a[k]++, s <<< v as statements write without reading; where
	 * their value is used (y = x++), the walk below counts x as read */
	if (st->kind == ST_EXPR || st->kind == ST_FOR) {
		Expr *parts[] = { st->kind == ST_EXPR ? st->expr : st->init, st->kind == ST_FOR ? st->step : NULL };
		int handled = 0;
		for (int i = 0; i < 2; i++) {
			Expr *e = parts[i];
			if (e && (e->kind == EX_ASSIGN || e->kind == EX_INCDEC)) {
				visit_target(r, e->left);
				if (e->right)
					ast_walk_expr(e->right, &r->v);
				handled |= 1 << i;
			}
		}
		if (st->kind == ST_EXPR && handled)
			return AST_WALK_SKIP;
		if (st->kind == ST_FOR && handled) {
			/* the rest of the loop, without the parts done above */
			if (!(handled & 1))
				ast_walk_expr(st->init, &r->v);
			if (!(handled & 2))
				ast_walk_expr(st->step, &r->v);
			ast_walk_expr(st->expr, &r->v);
			ast_walk_stmt(st->then, &r->v);
			return AST_WALK_SKIP;
		}
	}
	return 0;
}

/* "[k1,\"k2\"]" of the entry `it` of the map expression `map`. */
static void display_keys(Symbol *g, const char *map, const char *ind, StrBuf *out)
{
	sb_printf(out, "%sstp_out_str(&c->out, \"%s[\");\n", ind, g->name);
	for (int k = 0; k < g->nkeys; k++) {
		if (k)
			sb_printf(out, "%sstp_out_bytes(&c->out, \",\", 1);\n", ind);
		if (g->keytypes[k] == TY_STRING)
			sb_printf(out, "%sstp_out_bytes(&c->out, \"\\\"\", 1);\n"
				       "%sstp_out_str(&c->out, stp_map_key_str(%s, it, %d));\n"
				       "%sstp_out_bytes(&c->out, \"\\\"\", 1);\n", ind, ind, map, k, ind);
		else
			sb_printf(out, "%sstp_out_long(&c->out, &stp_fmt_d, stp_map_key_long(%s, it, %d));\n", ind, map, k);
	}
	sb_printf(out, "%sstp_out_bytes(&c->out, \"]\", 1);\n", ind);
}

/* " @count=3 @min=1 @max=5 @sum=9 @avg=3\n" of the accumulator sd. */
static void display_stat_fields(StrBuf *out, const char *indent)
{
	static const char *const fields[][2] = {
		{ " @count=", "sd->count" }, { " @min=", "sd->min" }, { " @max=", "sd->max" },
		{ " @sum=", "sd->sum" }, { " @avg=", "stp_stat_avg(sd)" },
	};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		sb_printf(out, "%sstp_out_str(&c->out, \"%s\");\n%sstp_out_long(&c->out, &stp_fmt_d, %s);\n", indent,
			  fields[i][0], indent, fields[i][1]);
	sb_printf(out, "%sstp_out_bytes(&c->out, \"\\n\", 1);\n", indent);
}

/* Statistics: "s @count=..." once; arrays "a[\"k\"] @count=..." per key, largest count first. */
static void display_stats(Symbol *g, StrBuf *out)
{
	if (g->is_array != 1) {
		sb_printf(out, "\tsd = stp_stat_get(g_%s);\n\tif (sd && sd->count) {\n", g->name);
		sb_printf(out, "\t\tstp_out_str(&c->out, \"%s\");\n", g->name);
		display_stat_fields(out, "\t\t");
		sb_puts(out, "\t}\n");
		return;
	}
	sb_printf(out, "\tif (stp_pmap_aggregate(c, g_%s)) {\n", g->name);
	sb_printf(out, "\t\tstp_pmap_sort(g_%s, -1, STP_SORT_COUNT, -1);\n", g->name);
	sb_printf(out, "\t\tfor (it = stp_map_first(g_%s->agg); it; it = stp_map_next(g_%s->agg, it)) {\n", g->name,
		  g->name);
	sb_printf(out, "\t\t\tsd = stp_pmap_agg_value(g_%s, it);\n\t\t\tif (!sd->count)\n\t\t\t\tcontinue;\n", g->name);
	display_keys(g, xasprintf("g_%s->agg", g->name), "\t\t\t", out);
	display_stat_fields(out, "\t\t\t");
	sb_puts(out, "\t\t}\n\t}\n");
}

/* Writes the C that prints one global: "x=5", "s=\"text\"", "a[1,\"k\"]=7". */
static void display_one(Symbol *g, StrBuf *out)
{
	if (g->type == TY_STATS) {
		display_stats(g, out);
		return;
	}
	if (g->is_array != 1) {
		sb_printf(out, "\tstp_out_str(&c->out, \"%s=\");\n", g->name);
		if (g->type == TY_STRING)
			sb_printf(out, "\tstp_out_str(&c->out, \"\\\"\");\n\tstp_out_str(&c->out, g_%s);\n"
				       "\tstp_out_str(&c->out, \"\\\"\");\n", g->name);
		else
			sb_printf(out, "\tstp_out_long(&c->out, &stp_fmt_d, g_%s);\n", g->name);
		sb_puts(out, "\tstp_out_bytes(&c->out, \"\\n\", 1);\n");
		return;
	}
	/* arrays: by value, largest first */
	sb_printf(out, "\tstp_map_sort(g_%s, -1, -1);\n", g->name);
	sb_printf(out, "\tfor (it = stp_map_first(g_%s); it; it = stp_map_next(g_%s, it)) {\n", g->name, g->name);
	display_keys(g, xasprintf("g_%s", g->name), "\t\t", out);
	sb_puts(out, "\t\tstp_out_bytes(&c->out, \"=\", 1);\n");
	if (g->type == TY_STRING)
		sb_printf(out, "\t\tstp_out_bytes(&c->out, \"\\\"\", 1);\n"
			       "\t\tstp_out_str(&c->out, stp_map_value(g_%s, it));\n"
			       "\t\tstp_out_bytes(&c->out, \"\\\"\", 1);\n", g->name);
	else
		sb_printf(out, "\t\tstp_out_long(&c->out, &stp_fmt_d, *(int64_t *)stp_map_value(g_%s, it));\n", g->name);
	sb_puts(out, "\t\tstp_out_bytes(&c->out, \"\\n\", 1);\n\t}\n");
}

char *cg_globals_displayed(Session *s)
{
	Program *prog = &s->prog;
	Reads r = { .read = xcalloc((size_t)prog->globals.len + 1, 1) };
	char *shown = xcalloc((size_t)prog->globals.len + 1, 1);

	r.v = (AstVisitor){ reads_in_stmt, reads_in_expr, &r };
	for (int i = 0; i < prog->probes.len; i++)
		ast_walk_stmt(((Probe *)prog->probes.items[i])->body, &r.v);
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		shown[i] = !r.read[i] && g->written && !(g->loc.file && g->loc.file->is_tapset);
	}
	free(r.read);
	free(r.seen_fns.items);
	return shown;
}

int cg_global_display(Session *s, StrBuf *code)
{
	Program *prog = &s->prog;
	char *shown = cg_globals_displayed(s);
	StrBuf body;
	int n = 0;

	sb_init(&body);
	for (int i = 0; i < prog->globals.len; i++) {
		if (!shown[i])
			continue;
		display_one(prog->globals.items[i], &body);
		n++;
	}
	free(shown);
	if (!n) {
		sb_free(&body);
		return 0;
	}
	sb_puts(code, "/* the globals written but never read, printed at the end */\n");
	sb_puts(code, "static int64_t stp_display_globals(struct stp_context *c)\n{\n");
	sb_puts(code, "\tstruct stp_map_entry *it __maybe_unused;\n");
	sb_puts(code, "\tstruct stp_stat_data *sd __maybe_unused;\n\n");
	sb_puts(code, body.data);
	sb_puts(code, "\treturn 0;\n}\n\n");
	sb_free(&body);
	return n;
}

/* Probe p as an end probe after every other (highest priority number). */
static void add_display_end_probe(Session *s, Probe *p)
{
	Program *prog = &s->prog;
	DerivedProbe *dp = xcalloc(1, sizeof *dp);

	p->index = prog->probes.len;
	vec_push(&prog->probes, p);
	dp->probe = p;
	dp->provider = &end_provider;
	dp->name = xstrdup("end");
	dp->number = INT64_MAX;
	dp->index = s->derived.len;
	vec_push(&s->derived, dp);
}

/* The probe that calls it. */
void cg_add_display_probe(Session *s)
{
	Probe *p = xcalloc(1, sizeof *p);
	Stmt *st = stmt_new(ST_EXPR, (SrcLoc){ 0 });
	Expr *call = expr_new(EX_EMBEDDED, (SrcLoc){ 0 });

	call->str = xstrdup("stp_display_globals(c)");
	call->type = TY_LONG;
	st->expr = call;
	p->body = stmt_new(ST_BLOCK, (SrcLoc){ 0 });
	vec_push(&p->body->body, st);
	add_display_end_probe(s, p);
}

/* ---- the same display as script statements, for a runtime without the module's map walk (BPF) ---- */

/* A C expression statement of the display probe: its text evaluated for its effect. */
static Stmt *display_c(const char *text)
{
	Stmt *st = stmt_new(ST_EXPR, (SrcLoc){ 0 });

	st->expr = expr_new(EX_EMBEDDED, (SrcLoc){ 0 });
	st->expr->str = xasprintf("({ %s; 0; })", text);
	st->expr->type = TY_LONG;
	return st;
}

static Symbol *display_local(Probe *p, const char *name, Type t)
{
	Symbol *sym = symbol_new(name, SYM_LOCAL, (SrcLoc){ 0 });

	sym->type = t;
	sym->is_array = 0;
	sym->index = p->locals.len;
	vec_push(&p->locals, sym);
	return sym;
}

static Expr *display_ident(Symbol *sym)
{
	Expr *e = expr_new(EX_IDENT, (SrcLoc){ 0 });

	e->str = xstrdup(sym->name);
	e->sym = sym;
	e->type = sym->type;
	return e;
}

/* "a[1,\"k\"]" of the loop's keys (its locals) as C printing it */
static void display_c_keys(const Symbol *g, const PtrVec *keys, StrBuf *c)
{
	sb_printf(c, "stp_out_str(&c->out, \"%s[\"); ", g->name);
	for (int k = 0; k < g->nkeys; k++) {
		if (k)
			sb_puts(c, "stp_out_bytes(&c->out, \",\", 1); ");
		if (g->keytypes[k] == TY_STRING)
			sb_printf(c, "stp_out_bytes(&c->out, \"\\\"\", 1); stp_out_str(&c->out, f->l_%s); "
				     "stp_out_bytes(&c->out, \"\\\"\", 1); ", ((Expr *)keys->items[k])->sym->name);
		else
			sb_printf(c, "stp_out_long(&c->out, &stp_fmt_d, f->l_%s); ", ((Expr *)keys->items[k])->sym->name);
	}
	sb_puts(c, "stp_out_bytes(&c->out, \"]\", 1)");
}

/* An array: foreach over it by value (or @count), largest first, each entry printed as the module prints it. */
static Stmt *display_array(Probe *p, Symbol *g)
{
	Stmt *loop = stmt_new(ST_FOREACH, (SrcLoc){ 0 });
	StrBuf c;

	loop->array = display_ident(g);
	loop->array->kind = EX_IDENT;
	for (int k = 0; k < g->nkeys; k++) {
		char *name = xasprintf("__dk%d", k);
		vec_push(&loop->keys, display_ident(display_local(p, name, g->keytypes[k])));
		free(name);
	}
	loop->sort_on = -1;
	loop->sort_dir = -1;
	sb_init(&c);
	display_c_keys(g, &loop->keys, &c);
	if (g->type == TY_STATS) {
		loop->sort_agg = xstrdup("count");
		sb_printf(&c, "; { struct stp_key k_[%d]; struct stp_stat_data *sd; ", g->nkeys);
		for (int k = 0; k < g->nkeys; k++)
			sb_printf(&c, g->keytypes[k] == TY_STRING ? "k_[%d].s = f->l_%s; " : "k_[%d].n = f->l_%s; ", k,
				  ((Expr *)loop->keys.items[k])->sym->name);
		sb_printf(&c, "sd = stp_pmap_get(g_%s, k_); if (sd && sd->count) {", g->name);
		{
			StrBuf fields;
			sb_init(&fields);
			display_stat_fields(&fields, " ");
			for (char *nl = fields.data; nl && (nl = strchr(nl, '\n')) != NULL;)
				*nl = ' ';
			sb_puts(&c, fields.data);
			sb_free(&fields);
		}
		sb_puts(&c, "} }");
	} else {
		Symbol *v = display_local(p, "__dv", g->type);
		loop->value = display_ident(v);
		sb_puts(&c, "; stp_out_bytes(&c->out, \"=\", 1); ");
		if (g->type == TY_STRING)
			sb_printf(&c, "stp_out_bytes(&c->out, \"\\\"\", 1); stp_out_str(&c->out, f->l_%s); "
				      "stp_out_bytes(&c->out, \"\\\"\", 1); ", v->name);
		else
			sb_printf(&c, "stp_out_long(&c->out, &stp_fmt_d, f->l_%s); ", v->name);
		sb_puts(&c, "stp_out_bytes(&c->out, \"\\n\", 1)");
	}
	loop->then = stmt_new(ST_BLOCK, (SrcLoc){ 0 });
	vec_push(&loop->then->body, display_c(c.data));
	sb_free(&c);
	return loop;
}

/* One end probe per global (after every other end probe, in the globals' order): a program each, for a
 * runtime whose programs are checked one by one against a budget (BPF's verifier) */
static int cg_add_display_script(Session *s)
{
	Program *prog = &s->prog;
	char *shown = cg_globals_displayed(s);
	int n = 0;

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		Probe *p;
		if (!shown[i])
			continue;
		n++;
		p = xcalloc(1, sizeof *p);
		p->body = stmt_new(ST_BLOCK, (SrcLoc){ 0 });
		/* the display charges no actions, as the module's C does not */
		vec_push(&p->body->body, display_c("c->maxaction = 0x7fffffffffffffffLL"));
		if (g->is_array == 1) {
			vec_push(&p->body->body, display_array(p, g));
		} else {
			StrBuf c;
			sb_init(&c);
			display_one(g, &c);   /* a scalar's C, its lines joined */
			for (char *nl = c.data; (nl = strchr(nl, '\n')) != NULL;)
				*nl = ' ';
			vec_push(&p->body->body, display_c(xasprintf("{ struct stp_stat_data *sd __maybe_unused; %s }", c.data)));
			sb_free(&c);
		}
		add_display_end_probe(s, p);
	}
	free(shown);
	return n;
}

void cg_display_in_c(Session *s, CgParts *parts)
{
	if (cg_global_display(s, &parts->code))
		cg_add_display_probe(s);
}

void cg_display_as_script(Session *s, CgParts *parts)
{
	(void)parts;
	cg_add_display_script(s);
}
