/* stmt.c - code generation for statements: blocks with MAXACTION accounting,
 * conditionals, loops, foreach, delete, next and return.  Used by codegen/bodies.c. */
#include "codegen/backend.h"
#include "codegen/gen.h"

#include <string.h>

static int counts_as_action(const Stmt *st)
{
	return st->kind != ST_BLOCK && st->kind != ST_EMPTY;
}

void cg_block(Gen *g, Stmt *st)
{
	int actions = 0;
	const Stmt *first = NULL;

	for (int i = 0; i < st->body.len; i++) {
		if (counts_as_action(st->body.items[i]) && !actions++)
			first = st->body.items[i];
	}
	if (actions)
		cg_charge_actions(g, actions, cg_stmt_location(first));
	for (int i = 0; i < st->body.len; i++)
		cg_stmt(g, st->body.items[i]);
}

void cg_scoped(Gen *g, Stmt *st)
{
	g->indent++;
	if (st->kind == ST_BLOCK) {
		cg_block(g, st);
	} else {
		Stmt wrap = { .kind = ST_BLOCK };
		vec_push(&wrap.body, st);
		cg_block(g, &wrap);
		free(wrap.body.items);
	}
	g->indent--;
}

static void loop_pop(Gen *g, LoopLabels *l)
{
	g->loops.len--;
	if (l->break_used && !l->break_placed)
		cg_line(g, "brk%d: ;", l->id);
	free(l);
}

static void gen_loop_end(Gen *g, LoopLabels *l)
{
	if (l->continue_used) {
		g->indent++;
		cg_line(g, "cont%d: ;", l->id);
		g->indent--;
	}
}

/* foreach ([k1, ...] in a[slice] sorted limit N) in place: sorting reorders the array's entries
 * (the probe holds its write lock); slice keys filter. */
void cg_foreach_inline_open(Gen *g, Stmt *st, LoopLabels *l)
{
	Symbol *arr = st->array->sym;
	char *it, **fixed;
	char *limit = NULL, *count = NULL;

	if (arr->type == TY_STATS) {
		cg_stats_foreach_array(g, st, l);
		return;
	}
	it = cg_named_local(g, "struct stp_map_entry *", "it");
	fixed = xcalloc((size_t)st->slice.len + 1, sizeof *fixed);
	for (int i = 0; i < st->slice.len; i++) {
		Expr *k = st->slice.items[i];
		if (k->kind != EX_WILDCARD)
			fixed[i] = cg_materialize(g, cg_expr(g, k), k->type);
	}
	if (st->limit) {
		limit = cg_materialize(g, cg_expr(g, st->limit), TY_LONG);
		count = cg_long_tmp(g);
		cg_line(g, "%s = 0;", count);
	}
	if (st->sort_on)
		cg_line(g, "stp_map_sort(g_%s, %d, %d);", arr->name, st->sort_on > 0 ? st->sort_on - 1 : -1, st->sort_dir);
	(void)l;
	cg_line(g, "for (%s = stp_map_first(g_%s); %s; %s = stp_map_next(g_%s, %s)) {", it, arr->name, it, it, arr->name,
	     it);
	g->indent++;
	cg_loop_charge(g, st);
	cg_slice_filter(g, arr, xasprintf("g_%s", arr->name), it, fixed, st->slice.len);
	cg_limit_check(g, count, limit);
	for (int i = 0; i < st->keys.len; i++) {
		Expr *k = st->keys.items[i];
		char *ref = cg_var_ref(k->sym);
		if (arr->keytypes[i] == TY_STRING)
			cg_line(g, "stp_strlcpy(%s, stp_map_key_str(g_%s, %s, %d), MAXSTRINGLEN);", ref, arr->name, it, i);
		else
			cg_line(g, "%s = stp_map_key_long(g_%s, %s, %d);", ref, arr->name, it, i);
	}
	if (st->value) {
		char *ref = cg_var_ref(st->value->sym);
		if (arr->type == TY_STRING)
			cg_line(g, "stp_strlcpy(%s, stp_map_value(g_%s, %s), MAXSTRINGLEN);", ref, arr->name, it);
		else
			cg_line(g, "%s = *(int64_t *)stp_map_value(g_%s, %s);", ref, arr->name, it);
	}
	g->indent--;
	free(fixed);
}

void cg_foreach_inline_close(Gen *g, Stmt *st, LoopLabels *l)
{
	(void)st;
	(void)l;
	cg_line(g, "}");
}

static void gen_foreach(Gen *g, Stmt *st)
{
	LoopLabels *l;

	if (st->array->kind == EX_AT) {
		l = cg_stats_foreach(g, st);   /* the loop over the buckets opened, its key set */
		cg_scoped(g, st->then);
		gen_loop_end(g, l);
		cg_line(g, "}");
		loop_pop(g, l);
		return;
	}
	l = cg_loop_push(g);
	g->be->foreach_open(g, st, l);
	cg_scoped(g, st->then);
	gen_loop_end(g, l);
	g->be->foreach_close(g, st, l);
	loop_pop(g, l);
}

void cg_loop_inline_open(Gen *g, LoopLabels *l)
{
	(void)l;
	cg_line(g, "for (;;) {");
}

void cg_loop_inline_close(Gen *g, LoopLabels *l)
{
	(void)l;
	cg_line(g, "}");
}

static void gen_while_for(Gen *g, Stmt *st)
{
	LoopLabels *l;

	if (st->init) {
		char *v = cg_expr(g, st->init);
		(void)v;
	}
	l = cg_loop_push(g);
	g->be->loop_open(g, l);
	g->indent++;
	cg_loop_charge(g, st);
	if (st->expr) {
		char *cond = cg_expr(g, st->expr);
		cg_line(g, "if (!(%s)) goto brk%d;", cond, l->id);
		l->break_used = 1;
	}
	g->indent--;
	cg_scoped(g, st->then);
	gen_loop_end(g, l);
	if (st->step) {
		g->indent++;
		cg_expr(g, st->step);
		g->indent--;
	}
	g->be->loop_close(g, l);
	loop_pop(g, l);
}

static void gen_delete(Gen *g, Stmt *st)
{
	Expr *e = st->expr;
	Symbol *sym = e->sym;

	if (sym->type == TY_STATS) {
		cg_stats_delete(g, st);
		return;
	}

	if (e->kind == EX_INDEX && cg_has_wildcard_key(&e->args)) {
		/* delete a[*, k]: every matching entry (the runtime's walk) */
		cg_line(g, "stp_map_delete_slice(g_%s, %s);", sym->name, cg_slice_keys(g, sym, &e->args));
	} else if (e->kind == EX_INDEX) {
		unsigned int comm;
		char *k = cg_keys_comm(g, sym, &e->args, &comm);
		cg_line(g, "gm_%s__delete(g_%s, %s, %#x);", sym->name, sym->name, k, comm);
	} else if (sym->is_array == 1) {
		cg_line(g, "stp_map_clear(g_%s);", sym->name);
	} else if (sym->type == TY_STRING) {
		cg_line(g, "%s[0] = 0;", cg_var_ref(sym));
	} else {
		cg_line(g, "%s = 0;", cg_var_ref(sym));
	}
}

/* try { A } catch (msg) { B }: a script error in A (also in functions it
 * calls) jumps to the catch, which clears it and hands B the message. */
static void gen_try(Gen *g, Stmt *st)
{
	int *id = xmalloc(sizeof *id);

	*id = g->ntrys++;
	vec_push(&g->trys, id);
	cg_line(g, "{");
	cg_scoped(g, st->then);
	cg_line(g, "}");
	g->trys.len--;
	cg_line(g, "goto tryend%d;", *id);
	cg_line(g, "catch%d: __attribute__((__unused__));", *id);
	g->indent++;
	/* abort() is not an error: no catch stops it (runtime/core/errors.c) */
	cg_line(g, "if (unlikely(c->last_error == stp_abort_marker)) goto %s;", cg_error_label(g));
	if (st->catch_var)
		cg_line(g, "stp_strlcpy(%s, c->last_error, MAXSTRINGLEN);", cg_var_ref(st->catch_var->sym));
	cg_line(g, "c->last_error = NULL;");
	cg_line(g, "c->last_stmt = NULL;");
	g->indent--;
	if (st->els) {
		cg_line(g, "{");
		cg_scoped(g, st->els);
		cg_line(g, "}");
	}
	cg_line(g, "tryend%d: ;", *id);
	free(id);
}

void cg_stmt(Gen *g, Stmt *st)
{
	switch (st->kind) {
	case ST_BLOCK:
		cg_line(g, "{");
		cg_scoped(g, st);
		cg_line(g, "}");
		break;
	case ST_EMPTY:
		break;
	case ST_EXPR: {
		char *v = cg_expr(g, st->expr);
		(void)v;
		break;
	}
	case ST_IF: {
		char *cond = cg_expr(g, st->expr);
		cg_line(g, "if (%s) {", cond);
		cg_scoped(g, st->then);
		if (st->els) {
			cg_line(g, "} else {");
			cg_scoped(g, st->els);
		}
		cg_line(g, "}");
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
			cg_line(g, "goto brk%d;", l->id);
		} else {
			l->continue_used = 1;
			cg_line(g, "goto cont%d;", l->id);
		}
		break;
	}
	case ST_NEXT:
		cg_goto_out(g);
		break;
	case ST_RETURN:
		if (st->expr) {
			char *v = cg_expr(g, st->expr);
			if (g->fn->ret == TY_STRING)
				cg_line(g, "stp_strlcpy(f->retval, %s, MAXSTRINGLEN);", v);
			else
				cg_line(g, "f->retval = %s;", v);
		}
		cg_goto_out(g);
		break;
	case ST_DELETE:
		gen_delete(g, st);
		break;
	case ST_TRY:
		gen_try(g, st);
		break;
	}
}

