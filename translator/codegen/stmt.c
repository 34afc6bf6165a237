/* stmt.c - code generation for statements: blocks with MAXACTION accounting,
 * conditionals, loops, foreach, delete, next and return.  Used by translate.c. */
#include "codegen/gen.h"
#include "parser.h"

#include <string.h>

static int counts_as_action(const Stmt *st)
{
	return st->kind != ST_BLOCK && st->kind != ST_EMPTY;
}

void gen_block(Gen *g, Stmt *st)
{
	int actions = 0;

	for (int i = 0; i < st->body.len; i++)
		actions += counts_as_action(st->body.items[i]);
	if (actions) {
		line(g, "if (unlikely((c->actioncount += %d) > MAXACTION)) { stp_action_limit(c); goto out; }", actions);
		g->out_used = 1;
	}
	for (int i = 0; i < st->body.len; i++)
		gen_stmt(g, st->body.items[i]);
}

void gen_scoped(Gen *g, Stmt *st)
{
	g->indent++;
	if (st->kind == ST_BLOCK) {
		gen_block(g, st);
	} else {
		Stmt wrap = { .kind = ST_BLOCK };
		vec_push(&wrap.body, st);
		gen_block(g, &wrap);
		free(wrap.body.items);
	}
	g->indent--;
}

static LoopLabels *loop_push(Gen *g)
{
	LoopLabels *l = xcalloc(1, sizeof *l);
	l->id = g->nloops++;
	vec_push(&g->loops, l);
	return l;
}

static void loop_pop(Gen *g, LoopLabels *l)
{
	g->loops.len--;
	if (l->break_used)
		line(g, "brk%d: ;", l->id);
	free(l);
}

static void gen_loop_end(Gen *g, LoopLabels *l)
{
	if (l->continue_used) {
		g->indent++;
		line(g, "cont%d: ;", l->id);
		g->indent--;
	}
}

static void gen_foreach(Gen *g, Stmt *st)
{
	if (st->array->kind == EX_AT || st->array->sym->type == TY_STATS) {
		gen_stats_foreach(g, st);
		return;
	}
	Symbol *arr = st->array->sym;
	char *it = named_local(g, "struct stp_map_entry *", "it");
	LoopLabels *l = loop_push(g);

	line(g, "for (%s = stp_map_first(g_%s); %s; %s = stp_map_next(g_%s, %s)) {", it, arr->name, it, it, arr->name,
	     it);
	g->indent++;
	for (int i = 0; i < st->keys.len; i++) {
		Expr *k = st->keys.items[i];
		char *ref = var_ref(k->sym);
		if (arr->keytypes[i] == TY_STRING)
			line(g, "stp_strlcpy(%s, stp_map_key_str(g_%s, %s, %d), MAXSTRINGLEN);", ref, arr->name, it, i);
		else
			line(g, "%s = stp_map_key_long(g_%s, %s, %d);", ref, arr->name, it, i);
	}
	g->indent--;
	gen_scoped(g, st->then);
	gen_loop_end(g, l);
	line(g, "}");
	loop_pop(g, l);
}

static void gen_while_for(Gen *g, Stmt *st)
{
	LoopLabels *l;

	if (st->init) {
		char *v = gen_expr(g, st->init);
		(void)v;
	}
	l = loop_push(g);
	line(g, "for (;;) {");
	g->indent++;
	if (st->expr) {
		char *cond = gen_expr(g, st->expr);
		line(g, "if (!(%s)) goto brk%d;", cond, l->id);
		l->break_used = 1;
	}
	g->indent--;
	gen_scoped(g, st->then);
	gen_loop_end(g, l);
	if (st->step) {
		g->indent++;
		gen_expr(g, st->step);
		g->indent--;
	}
	line(g, "}");
	loop_pop(g, l);
}

static void gen_delete(Gen *g, Stmt *st)
{
	Expr *e = st->expr;
	Symbol *sym = e->sym;

	if (sym->type == TY_STATS) {
		gen_stats_delete(g, st);
		return;
	}

	if (e->kind == EX_INDEX) {
		char *k = gen_keys(g, sym, &e->args);
		line(g, "stp_map_delete(g_%s, %s);", sym->name, k);
	} else if (sym->is_array == 1) {
		line(g, "stp_map_clear(g_%s);", sym->name);
	} else if (sym->type == TY_STRING) {
		line(g, "%s[0] = 0;", var_ref(sym));
	} else {
		line(g, "%s = 0;", var_ref(sym));
	}
}

void gen_stmt(Gen *g, Stmt *st)
{
	switch (st->kind) {
	case ST_BLOCK:
		line(g, "{");
		gen_scoped(g, st);
		line(g, "}");
		break;
	case ST_EMPTY:
		break;
	case ST_EXPR: {
		char *v = gen_expr(g, st->expr);
		(void)v;
		break;
	}
	case ST_IF: {
		char *cond = gen_expr(g, st->expr);
		line(g, "if (%s) {", cond);
		gen_scoped(g, st->then);
		if (st->els) {
			line(g, "} else {");
			gen_scoped(g, st->els);
		}
		line(g, "}");
		break;
	}
	case ST_WHILE:
	case ST_FOR:
		gen_while_for(g, st);
		break;
	case ST_FOREACH:
		gen_foreach(g, st);
		break;
	case ST_BREAK:
	case ST_CONTINUE: {
		LoopLabels *l = g->loops.items[g->loops.len - 1];
		if (st->kind == ST_BREAK) {
			l->break_used = 1;
			line(g, "goto brk%d;", l->id);
		} else {
			l->continue_used = 1;
			line(g, "goto cont%d;", l->id);
		}
		break;
	}
	case ST_NEXT:
		goto_out(g);
		break;
	case ST_RETURN:
		if (st->expr) {
			char *v = gen_expr(g, st->expr);
			if (g->fn->ret == TY_STRING)
				line(g, "stp_strlcpy(f->retval, %s, MAXSTRINGLEN);", v);
			else
				line(g, "f->retval = %s;", v);
		}
		goto_out(g);
		break;
	case ST_DELETE:
		gen_delete(g, st);
		break;
	case ST_TRY:
		break;   /* pass 2 rejects try/catch until it is implemented */
	}
}

