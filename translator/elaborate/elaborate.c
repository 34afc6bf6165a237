/* elaborate.c - pass 2: binds identifiers to locals and globals, calls to
 * functions and builtins, probe points to providers, then infers types. */
#include "elaborate/elaborate.h"
#include "elaborate/autocast.h"
#include "elaborate/builtins.h"
#include "elaborate/expand.h"
#include "elaborate/optimize.h"
#include "targets/access.h"
#include "targets/bind.h"
#include "elaborate/tapsets.h"
#include "lib/format.h"
#include "providers/provider.h"
#include "providers/perf.h"
#include "lib/regex.h"

#include <string.h>

typedef struct Elab {
	Session *s;
	Program *prog;
	PtrVec *locals;          /* current probe's or function's locals */
	Function *fn;            /* current function, NULL in a probe */
	int loop_depth;
	PtrVec foreach_arrays;   /* Symbol* being iterated (no writes allowed) */
	int changed;             /* type inference made progress */
	int reporting;           /* last inference round: report type errors */
	int errors;
	int library;             /* --dump-functions: no DWARF binding, @cast and friends left as is */
} Elab;

static void sem_error(Elab *el, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void sem_error(Elab *el, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(&el->s->diag, loc, "semantic error", fmt, ap);
	va_end(ap);
	el->errors++;
}

static Symbol *find_in(PtrVec *v, const char *name)
{
	for (int i = 0; v && i < v->len; i++) {
		Symbol *sym = v->items[i];
		if (!strcmp(sym->name, name))
			return sym;
	}
	return NULL;
}

/* The global a name means in a file: its own private one, else a public one. */
static Symbol *find_global(Program *prog, const char *name, const SourceFile *from)
{
	Symbol *found = NULL;
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (strcmp(g->name, name) || (g->is_private && g->loc.file != from))
			continue;
		if (!found || g->is_private)
			found = g;
	}
	return found;
}

/* ---- resolution ---- */

static Symbol *lookup_var(Elab *el, const char *name, SrcLoc loc)
{
	Symbol *sym = el->fn ? find_in(&el->fn->params, name) : NULL;
	if (!sym)
		sym = find_in(el->locals, name);
	if (!sym)
		sym = find_global(el->prog, name, loc.file);
	if (!sym) {
		sym = symbol_new(name, SYM_LOCAL, loc);
		sym->is_array = 0;
		sym->index = el->locals->len;
		vec_push(el->locals, sym);
	}
	return sym;
}

static void mark_array(Elab *el, Symbol *sym, int nkeys, SrcLoc loc)
{
	if (sym->kind != SYM_GLOBAL) {
		sem_error(el, loc, "'%s' is not a global: arrays must be declared with 'global'", sym->name);
		return;
	}
	if (sym->is_array == 0) {
		sem_error(el, loc, "'%s' is a scalar, used here as an array", sym->name);
		return;
	}
	sym->is_array = 1;
	if (nkeys > STP_MAP_MAX_KEYS) {
		sem_error(el, loc, "array '%s' has more than %d keys", sym->name, STP_MAP_MAX_KEYS);
		return;
	}
	if (sym->nkeys && nkeys && sym->nkeys != nkeys)
		sem_error(el, loc, "array '%s' used with %d keys here and %d elsewhere", sym->name, nkeys, sym->nkeys);
	else if (nkeys)
		sym->nkeys = nkeys;
}

static void mark_scalar(Elab *el, Symbol *sym, SrcLoc loc)
{
	if (sym->is_array == 1)
		sem_error(el, loc, "'%s' is an array, used here as a scalar", sym->name);
	else
		sym->is_array = 0;
}

static void check_foreach_write(Elab *el, Symbol *sym, SrcLoc loc)
{
	for (int i = 0; i < el->foreach_arrays.len; i++) {
		if (el->foreach_arrays.items[i] == sym)
			sem_error(el, loc, "array '%s' is modified inside a foreach over it", sym->name);
	}
}

static void resolve_expr(Elab *el, Expr *e);

static void resolve_args(Elab *el, PtrVec *args)
{
	for (int i = 0; i < args->len; i++)
		resolve_expr(el, args->items[i]);
}

static Symbol *resolve_array_name(Elab *el, Expr *e, int nkeys)
{
	Symbol *sym = find_global(el->prog, e->str, e->loc.file);
	if (!sym) {
		sem_error(el, e->loc, "unknown array '%s' (arrays must be declared with 'global')", e->str);
		return NULL;
	}
	mark_array(el, sym, nkeys, e->loc);
	e->sym = sym;
	return sym;
}

static void resolve_lvalue_write(Elab *el, Expr *lhs)
{
	if (lhs->sym) {
		lhs->sym->written = 1;
		if (lhs->kind == EX_INDEX)
			check_foreach_write(el, lhs->sym, lhs->loc);
	}
}

/* Does a definition of f's name visible where f is take nargs parameters? */
static int has_arity(Program *prog, const Function *f, int nargs)
{
	for (int i = 0; i < prog->functions.len; i++) {
		const Function *o = prog->functions.items[i];
		if (!strcmp(o->name, f->name) && (!o->is_private || o->loc.file == f->loc.file) &&
		    o->params.len == nargs)
			return 1;
	}
	return 0;
}

/* "1 argument", "1 or 3 arguments": the numbers of parameters of the definitions of f's name
 * (SystemTap overloads a name by arity). */
static char *arities_of(Program *prog, const Function *f)
{
	int most = 0, count = 0, done = 0, last = 0;
	StrBuf sb;

	for (int i = 0; i < prog->functions.len; i++) {
		const Function *o = prog->functions.items[i];
		if (!strcmp(o->name, f->name) && o->params.len > most)
			most = o->params.len;
	}
	for (int k = 0; k <= most; k++)
		count += has_arity(prog, f, k);
	sb_init(&sb);
	for (int k = 0; k <= most; k++) {
		if (!has_arity(prog, f, k))
			continue;
		if (done++)
			sb_puts(&sb, done == count ? " or " : ", ");
		sb_printf(&sb, "%d", k);
		last = k;
	}
	sb_printf(&sb, " argument%s", count == 1 && last == 1 ? "" : "s");
	return sb_steal(&sb);
}

static void resolve_call(Elab *el, Expr *e)
{
	Function *f = find_function_from(el->prog, e->str, e->args.len, e->loc.file);

	resolve_args(el, &e->args);
	if (f) {
		e->fn = f;
		f->used = 1;
		if (e->args.len != f->params.len)
			sem_error(el, e->loc, "function '%s' takes %s, called with %d", f->name,
				  arities_of(el->prog, f), e->args.len);
		return;
	}
	e->builtin = builtin_find(e->str);
	if (!e->builtin) {
		sem_error(el, e->loc, "unresolved function '%s'", e->str);
		return;
	}
	if (e->builtin->nargs >= 0 && e->args.len != e->builtin->nargs) {
		sem_error(el, e->loc, "function '%s' takes %d argument%s, called with %d",
			  e->str, e->builtin->nargs, e->builtin->nargs == 1 ? "" : "s", e->args.len);
		return;
	}
	if (e->builtin->kind == BI_PRINTF || e->builtin->kind == BI_SPRINTF) {
		Expr *fmt = e->args.len ? e->args.items[0] : NULL;
		Format parsed;
		const char *err;
		if (!fmt || fmt->kind != EX_STRING) {
			sem_error(el, fmt ? fmt->loc : e->loc, "%s needs a literal format string", e->str);
			return;
		}
		if (format_parse(fmt->str, &parsed, &err) != 0) {
			sem_error(el, fmt->loc, "%s", err);
			return;
		}
		if (parsed.nargs != e->args.len - 1)
			sem_error(el, e->loc, "format has %d conversion%s but %d argument%s given",
				  parsed.nargs, parsed.nargs == 1 ? "" : "s",
				  e->args.len - 1, e->args.len == 2 ? " is" : "s are");
	}
	if (e->builtin->kind == BI_PRINT) {
		int flags = e->builtin->print_flags;
		int min = (flags & PRINT_DELIMITED) ? 2 : (flags & PRINT_NEWLINE) ? 0 : 1;
		if (e->args.len < min)
			sem_error(el, e->loc, "%s needs at least %d argument%s%s", e->str, min, min == 1 ? "" : "s",
				  (flags & PRINT_DELIMITED) ? " (a delimiter and a value)" : "");
	}
}


/* The target of <<< or the operand of @count ...: a global or an element of
 * a global array. */
static void resolve_stats_operand(Elab *el, Expr *e)
{
	if (e->kind == EX_IDENT) {
		Symbol *sym = find_global(el->prog, e->str, e->loc.file);
		if (!sym) {
			sem_error(el, e->loc, "statistics must be global: '%s' is not a global variable", e->str);
			return;
		}
		e->sym = sym;
		mark_scalar(el, sym, e->loc);
		sym->read = 1;
		return;
	}
	if (e->kind == EX_INDEX) {
		resolve_expr(el, e);
		return;
	}
	sem_error(el, e->loc, "statistics operators need a global variable or array element");
}

static void resolve_expr(Elab *el, Expr *e)
{
	switch (e->kind) {
	case EX_NUMBER:
	case EX_STRING:
		break;
	case EX_IDENT:
		e->sym = lookup_var(el, e->str, e->loc);
		mark_scalar(el, e->sym, e->loc);
		e->sym->read = 1;
		break;
	case EX_INDEX:
		resolve_args(el, &e->args);
		resolve_array_name(el, e, e->args.len);
		if (e->sym)
			e->sym->read = 1;
		break;
	case EX_CALL:
		if (!e->str) {   /* key list of "[a, b] in arr" */
			resolve_args(el, &e->args);
			break;
		}
		resolve_call(el, e);
		break;
	case EX_BINARY:
		if (e->op == OP_IN) {
			int nkeys = e->left->kind == EX_CALL && !e->left->str ? e->left->args.len : 1;
			resolve_expr(el, e->left);
			resolve_array_name(el, e->right, nkeys);
			break;
		}
		if ((e->op == OP_MATCH || e->op == OP_NOMATCH) && e->right->kind != EX_STRING)
			sem_error(el, e->right->loc, "the pattern of '%s' must be a literal string",
				  e->op == OP_MATCH ? "=~" : "!~");
		else if ((e->op == OP_MATCH || e->op == OP_NOMATCH) && rx_check(&el->s->diag, e->right->str, e->right->loc))
			el->errors++;
		resolve_expr(el, e->left);
		resolve_expr(el, e->right);
		break;
	case EX_UNARY:
		resolve_expr(el, e->left);
		break;
	case EX_ASSIGN:
	case EX_INCDEC:
		if (e->op == OP_AGG_ASSIGN)
			resolve_stats_operand(el, e->left);
		else
			resolve_expr(el, e->left);
		if (e->right)
			resolve_expr(el, e->right);
		resolve_lvalue_write(el, e->left);
		break;
	case EX_TERNARY:
		resolve_expr(el, e->cond);
		resolve_expr(el, e->left);
		resolve_expr(el, e->right);
		break;
	case EX_AT:
		if (is_stats_op(e->str)) {
			resolve_stats_operand(el, e->args.items[0]);
			for (int i = 1; i < e->args.len; i++)
				resolve_expr(el, e->args.items[i]);
			for (int i = 0; i < e->chain.len; i++) {
				ChainItem *it = e->chain.items[i];
				if (it->index)
					resolve_expr(el, it->index);
			}
		}
		break;   /* the others need DWARF: check_supported() */
	case EX_DWARF:   /* bound by targets_bind_program(): indexes, @cast's address, @entry's value */
		resolve_args(el, &e->args);
		if (e->left)
			resolve_expr(el, e->left);
		break;
	case EX_TARGET:
	case EX_EMBEDDED:
	case EX_CONTEXT:
	case EX_AUTOCAST:
	case EX_WILDCARD:
		break;
	}
}

/* The value of an expression statement is unused: a call there may return nothing, and so may
 * the operands of && and || there (SystemTap accepts "!interval && print_report();"), a void
 * call then counting as 0. */
static void mark_discarded(Expr *e)
{
	if (e->kind == EX_CALL && e->str) {
		e->discarded = 1;
	} else if (e->kind == EX_BINARY && (e->op == OP_AND || e->op == OP_OR)) {
		mark_discarded(e->left);
		mark_discarded(e->right);
	} else if (e->kind == EX_UNARY && e->op == OP_NOT) {
		mark_discarded(e->left);
	}
}

static void resolve_stmt(Elab *el, Stmt *st);

/* A loop's body, counted so that 'break' and 'continue' know they are inside one */
static void resolve_loop_body(Elab *el, Stmt *body)
{
	el->loop_depth++;
	resolve_stmt(el, body);
	el->loop_depth--;
}

/* foreach's value and keys are locals it writes */
static void resolve_foreach_variable(Elab *el, Expr *var, const char *what)
{
	resolve_expr(el, var);
	if (var->sym && var->sym->kind == SYM_GLOBAL)
		sem_error(el, var->loc, "foreach %s '%s' must be a local variable", what, var->str);
	else if (var->sym)
		var->sym->written = 1;
}

static void resolve_foreach(Elab *el, Stmt *st)
{
	Symbol *arr = NULL;
	if (st->array->kind == EX_AT)   /* the buckets of @hist_log(s) / @hist_linear */
		resolve_expr(el, st->array);
	else
		arr = resolve_array_name(el, st->array, st->keys.len);
	if (st->value)
		resolve_foreach_variable(el, st->value, "value");
	if (st->limit)
		resolve_expr(el, st->limit);
	for (int i = 0; i < st->slice.len; i++) {
		Expr *k = st->slice.items[i];
		if (k->kind != EX_WILDCARD)
			resolve_expr(el, k);
	}
	for (int i = 0; i < st->keys.len; i++)
		resolve_foreach_variable(el, st->keys.items[i], "key");
	if (arr)
		arr->read = 1;
	vec_push(&el->foreach_arrays, arr);
	resolve_loop_body(el, st->then);
	el->foreach_arrays.len--;
}

static void resolve_delete(Elab *el, Stmt *st)
{
	if (st->expr->kind == EX_IDENT) {
		/* a global scalar or array, or a local already in use: reset */
		const char *name = st->expr->str;
		if (!(el->fn && find_in(&el->fn->params, name)) && !find_in(el->locals, name) &&
		    !find_global(el->prog, name, st->expr->loc.file)) {
			sem_error(el, st->expr->loc, "'delete' needs a global array or variable, or a local in use: "
				  "'%s' is none of these", name);
			return;
		}
		st->expr->sym = lookup_var(el, name, st->expr->loc);
	} else {
		resolve_expr(el, st->expr);
	}
	resolve_lvalue_write(el, st->expr);   /* checks a[k] against foreach */
	if (st->expr->sym && st->expr->kind == EX_IDENT)
		check_foreach_write(el, st->expr->sym, st->expr->loc);
}

static void resolve_try(Elab *el, Stmt *st)
{
	resolve_stmt(el, st->then);
	if (st->catch_var) {
		resolve_expr(el, st->catch_var);
		if (st->catch_var->sym)
			st->catch_var->sym->written = 1;
	}
	resolve_stmt(el, st->els);
}

static void resolve_stmt(Elab *el, Stmt *st)
{
	if (!st)
		return;
	switch (st->kind) {
	case ST_BLOCK:
		for (int i = 0; i < st->body.len; i++)
			resolve_stmt(el, st->body.items[i]);
		break;
	case ST_EXPR:
		resolve_expr(el, st->expr);
		mark_discarded(st->expr);
		break;
	case ST_IF:
		resolve_expr(el, st->expr);
		resolve_stmt(el, st->then);
		resolve_stmt(el, st->els);
		break;
	case ST_WHILE:
	case ST_FOR:
		if (st->init)
			resolve_expr(el, st->init);
		if (st->expr)
			resolve_expr(el, st->expr);
		if (st->step)
			resolve_expr(el, st->step);
		resolve_loop_body(el, st->then);
		break;
	case ST_FOREACH:
		resolve_foreach(el, st);
		break;
	case ST_BREAK:
	case ST_CONTINUE:
		if (!el->loop_depth)
			sem_error(el, st->loc, "'%s' outside a loop", st->kind == ST_BREAK ? "break" : "continue");
		break;
	case ST_NEXT:
		if (el->fn)
			sem_error(el, st->loc, "'next' in a function (SystemTap's run-time choice among overloads of one "
				  "number of parameters) is not supported: 'next' is only allowed in a probe body");
		break;
	case ST_RETURN:   /* pass 1 allows it only in functions */
		if (st->expr)
			resolve_expr(el, st->expr);
		break;
	case ST_DELETE:
		resolve_delete(el, st);
		break;
	case ST_TRY:
		resolve_try(el, st);
		break;
	case ST_EMPTY:
		break;
	}
}

/* ---- arrays changed under a foreach through function calls ---- */

typedef struct WriteSearch {
	Symbol *arr;
	PtrVec visited;          /* Function* already searched */
	AstVisitor v;
} WriteSearch;

static int writes_in_stmt(Stmt *st, void *ctx)
{
	WriteSearch *ws = ctx;
	return st->kind == ST_DELETE && st->expr->sym == ws->arr;
}

static int writes_in_expr(Expr *e, void *ctx)
{
	WriteSearch *ws = ctx;

	if ((e->kind == EX_ASSIGN || e->kind == EX_INCDEC) && e->left->kind == EX_INDEX && e->left->sym == ws->arr)
		return 1;
	if (e->kind == EX_CALL && e->fn && first_visit(&ws->visited, e->fn))
		return ast_walk_stmt(e->fn->body, &ws->v);
	return 0;
}

/* Does calling fn change arr, directly or through the functions it calls? */
static int function_writes(Function *fn, Symbol *arr)
{
	WriteSearch ws = { .arr = arr };
	int rc;

	ws.v = (AstVisitor){ writes_in_stmt, writes_in_expr, &ws };
	vec_push(&ws.visited, fn);
	rc = ast_walk_stmt(fn->body, &ws.v);
	free(ws.visited.items);
	return rc;
}

typedef struct ForeachCalls {
	Elab *el;
	Symbol *arr;             /* the array of the foreach being searched */
} ForeachCalls;

static int call_changes_array(Expr *e, void *ctx)
{
	ForeachCalls *fc = ctx;

	if (e->kind == EX_CALL && e->fn && function_writes(e->fn, fc->arr))
		sem_error(fc->el, e->loc, "array '%s' is modified inside a foreach over it (by function '%s')",
			  fc->arr->name, e->fn->name);
	return 0;
}

/* Each foreach body: no call in it may change the array it iterates. */
static int check_foreach_body(Stmt *st, void *ctx)
{
	if (st->kind == ST_FOREACH && st->array->sym) {
		ForeachCalls fc = { ctx, st->array->sym };
		AstVisitor calls = { NULL, call_changes_array, &fc };
		ast_walk_stmt(st->then, &calls);
	}
	return 0;
}

/* ---- type inference ---- */

static void unify(Elab *el, Type *slot, Type t, SrcLoc loc, const char *what)
{
	if (t == TY_UNKNOWN)
		return;
	if (*slot == TY_UNKNOWN) {
		*slot = t;
		el->changed = 1;
	} else if (*slot != t && el->reporting) {
		sem_error(el, loc, "type mismatch: %s is %s, used here as %s", what, type_name(*slot), type_name(t));
	}
}

static Type infer(Elab *el, Expr *e, Type want);

static void expect(Elab *el, Expr *e, Type t, const char *what)
{
	Type got = infer(el, e, t);
	if (got != TY_UNKNOWN && t != TY_UNKNOWN && got != t && el->reporting)
		sem_error(el, e->loc, "type mismatch: %s must be %s, not %s", what, type_name(t), type_name(got));
}

static char *describe_sym(const Symbol *sym)
{
	return xasprintf("%s '%s'", sym->is_array == 1 ? "array" : "variable", sym->name);
}

static Type infer_symbol(Elab *el, Symbol *sym, Type want, SrcLoc loc)
{
	if (want != TY_UNKNOWN && sym->type == TY_UNKNOWN) {
		sym->type = want;
		el->changed = 1;
	}
	(void)loc;
	return sym->type;
}

static void infer_keys(Elab *el, Symbol *arr, PtrVec *keys)
{
	for (int i = 0; arr && i < keys->len && i < STP_MAP_MAX_KEYS; i++) {
		Expr *k = keys->items[i];
		Type t = infer(el, k, arr->keytypes[i]);
		char *what = xasprintf("key %d of array '%s'", i + 1, arr->name);
		unify(el, &arr->keytypes[i], t, k->loc, what);
		free(what);
	}
}

static Type infer_call(Elab *el, Expr *e)
{
	if (e->fn) {
		Function *f = e->fn;
		for (int i = 0; i < e->args.len && i < f->params.len; i++) {
			Symbol *p = f->params.items[i];
			Expr *a = e->args.items[i];
			char *what = xasprintf("parameter '%s' of '%s'", p->name, f->name);
			unify(el, &p->type, infer(el, a, p->type), a->loc, what);
			free(what);
		}
		return f->ret;
	}
	if (!e->builtin)
		return TY_UNKNOWN;
	switch (e->builtin->kind) {
	case BI_PRINTF:
	case BI_SPRINTF: {
		Format fmt;
		const char *err;
		Expr *f = e->args.items[0];
		if (format_parse(f->str, &fmt, &err) != 0)
			return e->builtin->ret;
		for (int i = 0, a = 1; i < fmt.npieces && a < e->args.len; i++) {
			FormatPiece *p = &fmt.pieces[i];
			if (!p->conv)
				continue;
			for (int s = 0; s < p->width_star + p->prec_star && a < e->args.len; s++)
				expect(el, e->args.items[a++], TY_LONG, p->width_star && !s ? "a '*' width" : "a '*' precision");
			if (a < e->args.len)
				expect(el, e->args.items[a++], format_arg_type(p->conv), "this format argument");
		}
		return e->builtin->ret;
	}
	case BI_PRINT:
		for (int i = 0; i < e->args.len; i++) {
			Expr *a = e->args.items[i];
			if (i == 0 && (e->builtin->print_flags & PRINT_DELIMITED)) {
				expect(el, a, TY_STRING, "the delimiter");
				continue;
			}
			if (infer(el, a, TY_UNKNOWN) == TY_STATS && el->reporting)
				sem_error(el, a->loc, "a statistics value cannot be printed directly: print @count(), @sum(), "
					  "@min(), @max(), @avg() or a histogram of it");
		}
		return e->builtin->ret;
	case BI_TEMPLATE:
		for (int i = 0; i < e->args.len; i++)
			expect(el, e->args.items[i], e->builtin->args[i], "this argument");
		return e->builtin->ret;
	}
	return TY_UNKNOWN;
}

static int is_comparison(Operator op)
{
	return op == OP_LT || op == OP_GT || op == OP_LE || op == OP_GE || op == OP_EQ || op == OP_NE;
}

/* 'k in a' and '[k1, k2] in a': the keys against the array's key types */
static Type infer_membership(Elab *el, Expr *e)
{
	Symbol *arr = e->right->sym;
	if (e->left->kind == EX_CALL && !e->left->str) {
		infer_keys(el, arr, &e->left->args);
	} else {
		PtrVec one = { 0 };
		vec_push(&one, e->left);
		infer_keys(el, arr, &one);
		free(one.items);
	}
	return TY_LONG;
}

/* Both sides of a comparison have one type, either of them telling the other */
static Type infer_comparison(Elab *el, Expr *e)
{
	Type l = infer(el, e->left, TY_UNKNOWN);
	Type r = infer(el, e->right, l);
	if (l == TY_UNKNOWN && r != TY_UNKNOWN)
		l = infer(el, e->left, r);
	if (l != TY_UNKNOWN && r != TY_UNKNOWN && l != r && el->reporting)
		sem_error(el, e->loc, "type mismatch: comparing %s with %s", type_name(l), type_name(r));
	return TY_LONG;
}

static Type infer_binary(Elab *el, Expr *e)
{
	if (e->op == OP_IN)
		return infer_membership(el, e);
	if (e->op == OP_MATCH || e->op == OP_NOMATCH) {
		expect(el, e->left, TY_STRING, "the string matched by a regular expression");
		expect(el, e->right, TY_STRING, "the regular expression");
		return TY_LONG;
	}
	if (e->op == OP_CONCAT) {
		expect(el, e->left, TY_STRING, "an operand of '.'");
		expect(el, e->right, TY_STRING, "an operand of '.'");
		return TY_STRING;
	}
	if (is_comparison(e->op))
		return infer_comparison(el, e);
	expect(el, e->left, TY_LONG, "an operand of this operator");
	expect(el, e->right, TY_LONG, "an operand of this operator");
	return TY_LONG;
}

/* 'x <<< v': x is a statistics value, v a number; the expression has no value */
static Type infer_aggregate_assign(Elab *el, Expr *e)
{
	Type l = infer(el, e->left, TY_STATS);
	if (l != TY_UNKNOWN && l != TY_STATS && el->reporting && e->left->sym)
		sem_error(el, e->loc, "type mismatch: '<<<' needs a statistics variable, '%s' is %s",
			  e->left->sym->name, type_name(l));
	expect(el, e->right, TY_LONG, "the value given to '<<<'");
	return TY_UNKNOWN;
}

/* 'x = v': the target and the value have one type, either of them telling the other */
static Type infer_plain_assign(Elab *el, Expr *e, Type want)
{
	Type l = infer(el, e->left, want);
	Type r = infer(el, e->right, l);
	if (l == TY_UNKNOWN && r != TY_UNKNOWN)
		l = infer(el, e->left, r);
	if (l != TY_UNKNOWN && r != TY_UNKNOWN && l != r && el->reporting) {
		char *what = e->left->sym ? describe_sym(e->left->sym) : xstrdup("the target");
		sem_error(el, e->loc, "type mismatch: %s is %s, assigned %s", what, type_name(l), type_name(r));
		free(what);
	}
	return l;
}

static Type infer_assign(Elab *el, Expr *e, Type want)
{
	if (e->op == OP_AGG_ASSIGN)
		return infer_aggregate_assign(el, e);
	if (e->op == OP_ASSIGN)
		return infer_plain_assign(el, e, want);
	if (e->op == OP_CAT_ASSIGN) {
		expect(el, e->left, TY_STRING, "the target of '.='");
		expect(el, e->right, TY_STRING, "the operand of '.='");
		return TY_STRING;
	}
	expect(el, e->left, TY_LONG, "the target of this assignment");
	expect(el, e->right, TY_LONG, "the operand of this assignment");
	return TY_LONG;
}

/* @count(x) ... @hist_log(x)[i]: x a statistics value, the other arguments and indexes numbers */
static Type infer_stats_op(Elab *el, Expr *e)
{
	Expr *arg = e->args.items[0];
	Type a = infer(el, arg, TY_STATS);
	if (a != TY_UNKNOWN && a != TY_STATS && el->reporting)
		sem_error(el, arg->loc, "@%s needs a statistics value (filled with '<<<'), not a %s",
			  e->str, type_name(a));
	for (int i = 1; i < e->args.len; i++)
		expect(el, e->args.items[i], TY_LONG, "this argument");
	for (int i = 0; i < e->chain.len; i++) {
		ChainItem *it = e->chain.items[i];
		if (it->index)
			expect(el, it->index, TY_LONG, "the bucket index");
	}
	/* a histogram is printed whole; indexed, it is a bucket count */
	return strncmp(e->str, "hist_", 5) || e->chain.len ? TY_LONG : TY_UNKNOWN;
}

static Type infer_at(Elab *el, Expr *e)
{
	if (is_stats_op(e->str))
		return infer_stats_op(el, e);
	if (!strcmp(e->str, "perf"))
		return TY_LONG;   /* a counter's value */
	return TY_UNKNOWN;
}

static Type infer_dwarf(Elab *el, Expr *e, Type want)
{
	for (int i = 0; i < e->args.len; i++)
		expect(el, e->args.items[i], TY_LONG, i == 0 && e->dwarf->base == DWB_POINTER ?
		       "the address given to @cast" : "an index");
	if (e->left)   /* @entry(expr): the type of what it saves */
		return infer(el, e->left, want);
	return e->type;
}

static Type infer_ternary(Elab *el, Expr *e, Type want)
{
	expect(el, e->cond, TY_LONG, "the condition");
	Type l = infer(el, e->left, want);
	Type r = infer(el, e->right, l != TY_UNKNOWN ? l : want);
	if (l == TY_UNKNOWN)
		l = infer(el, e->left, r);
	if (l != TY_UNKNOWN && r != TY_UNKNOWN && l != r && el->reporting)
		sem_error(el, e->loc, "type mismatch: the branches of '?:' are %s and %s",
			  type_name(l), type_name(r));
	return l;
}

/* The type of one expression kind, inferring its operands' */
static Type infer_kind(Elab *el, Expr *e, Type want)
{
	switch (e->kind) {
	case EX_NUMBER:
		return TY_LONG;
	case EX_STRING:
		return TY_STRING;
	case EX_IDENT:
		return e->sym ? infer_symbol(el, e->sym, want, e->loc) : TY_UNKNOWN;
	case EX_INDEX:
		infer_keys(el, e->sym, &e->args);
		return e->sym ? infer_symbol(el, e->sym, want, e->loc) : TY_UNKNOWN;
	case EX_CALL:
		return e->str ? infer_call(el, e) : TY_UNKNOWN;
	case EX_BINARY:
		return infer_binary(el, e);
	case EX_UNARY:
	case EX_INCDEC:
		expect(el, e->left, TY_LONG, "the operand");
		return TY_LONG;
	case EX_ASSIGN:
		return infer_assign(el, e, want);
	case EX_AT:
		return infer_at(el, e);
	case EX_CONTEXT:
		return e->ctxvar->type;
	case EX_EMBEDDED:   /* a C expression: long unless marked string */
		return strstr(e->str, "/* string */") ? TY_STRING : TY_LONG;
	case EX_DWARF:
		return infer_dwarf(el, e, want);
	case EX_TERNARY:
		return infer_ternary(el, e, want);
	case EX_TARGET:
	case EX_AUTOCAST:
	case EX_WILDCARD:
		break;   /* rejected by check_supported() */
	}
	return TY_UNKNOWN;
}

static Type infer(Elab *el, Expr *e, Type want)
{
	Type t = infer_kind(el, e, want);
	if (t != TY_UNKNOWN && e->type != t) {
		e->type = t;
		el->changed = 1;
	}
	return t;
}

static void infer_stmt(Elab *el, Stmt *st)
{
	if (!st)
		return;
	switch (st->kind) {
	case ST_BLOCK:
		for (int i = 0; i < st->body.len; i++)
			infer_stmt(el, st->body.items[i]);
		break;
	case ST_EXPR:
		infer(el, st->expr, TY_UNKNOWN);
		break;
	case ST_IF:
	case ST_WHILE:
	case ST_FOR:
		if (st->init)
			infer(el, st->init, TY_UNKNOWN);
		if (st->expr)
			expect(el, st->expr, TY_LONG, "the condition");
		if (st->step)
			infer(el, st->step, TY_UNKNOWN);
		infer_stmt(el, st->then);
		infer_stmt(el, st->els);
		break;
	case ST_FOREACH: {
		Symbol *arr = st->array->kind == EX_AT ? NULL : st->array->sym;
		if (st->array->kind == EX_AT) {
			infer(el, st->array, TY_UNKNOWN);
			for (int i = 0; i < st->keys.len; i++)
				expect(el, st->keys.items[i], TY_LONG, "a histogram bucket");
		}
		if (st->value && st->value->sym && arr) {
			Type vt = arr->type == TY_STATS ? TY_UNKNOWN : arr->type;
			unify(el, &st->value->sym->type, vt, st->value->loc, st->value->sym->name);
			if (arr->type == TY_UNKNOWN)
				unify(el, &arr->type, st->value->sym->type, st->value->loc, "the array value");
		}
		if (st->limit)
			expect(el, st->limit, TY_LONG, "the limit");
		if (st->sort_agg && arr && arr->type != TY_STATS && arr->type != TY_UNKNOWN && el->reporting)
			sem_error(el, st->loc, "foreach sorted by @%s needs a statistics array, '%s' is %s", st->sort_agg,
				  arr->name, type_name(arr->type));
		for (int i = 0; arr && i < st->keys.len && i < STP_MAP_MAX_KEYS; i++) {
			Expr *k = st->keys.items[i];
			if (!k->sym)
				continue;
			unify(el, &k->sym->type, arr->keytypes[i], k->loc, k->sym->name);
			unify(el, &arr->keytypes[i], k->sym->type, k->loc, "the array key");
		}
		infer_stmt(el, st->then);
		break;
	}
	case ST_RETURN:
		if (st->expr && el->fn) {
			Type t = infer(el, st->expr, el->fn->ret);
			char *what = xasprintf("the return value of '%s'", el->fn->name);
			unify(el, &el->fn->ret, t, st->expr->loc, what);
			free(what);
		}
		break;
	case ST_DELETE:
		if (st->expr->kind == EX_INDEX)
			infer(el, st->expr, TY_UNKNOWN);
		break;
	case ST_TRY:
		infer_stmt(el, st->then);
		if (st->catch_var && st->catch_var->sym)
			unify(el, &st->catch_var->sym->type, TY_STRING, st->catch_var->loc, "the catch variable");
		infer_stmt(el, st->els);
		break;
	default:
		break;
	}
}

/* ---- constructs pass 1 reads but later passes do not handle yet ---- */

static int embedded_allowed(Elab *el, SrcLoc loc)
{
	return el->s->guru || (loc.file && loc.file->is_tapset);
}

/* @perf("NAME"): a counter some probe of the program defines with perf....counter("NAME"). */
static void check_perf_counter(Elab *el, Expr *e)
{
	Expr *arg = e->args.len == 1 ? e->args.items[0] : NULL;

	if (!arg || arg->kind != EX_STRING) {
		sem_error(el, e->loc, "@perf needs the name of a counter as a literal string: @perf(\"NAME\")");
		return;
	}
	if (perf_counter_index(el->s, arg->str) < 0)
		sem_error(el, arg->loc, "@perf(\"%s\"): no perf counter of that name; one is defined by a probe "
			  "perf.type(N).config(M).counter(\"%s\")", arg->str, arg->str);
}

static int unsupported_expr(Expr *e, void *ctx)
{
	Elab *el = ctx;

	switch (e->kind) {
	case EX_TARGET:   /* targets_bind_program() binds those of the script's probes and functions */
		sem_error(el, e->loc, "target variable '%s' is only available in kernel.function(), "
			  "module().function() and kernel.statement() probes", e->str);
		break;
	case EX_AT:
		if (!strcmp(e->str, "perf"))
			check_perf_counter(el, e);
		else if (!is_stats_op(e->str) && !el->library)
			sem_error(el, e->loc, "@%s is not supported", e->str);
		break;
	case EX_EMBEDDED:
		if (!embedded_allowed(el, e->loc))
			sem_error(el, e->loc, "embedded C is only allowed in guru mode (-g) or in the tapset library");
		break;
	case EX_AUTOCAST:
		sem_error(el, e->loc, "'%s' on a value whose type is not known: write @cast(value, \"type\") "
			  "(autocast knows calls of functions returning a @cast, and locals assigned only those)",
			  e->chain.len ? "->" : "&");
		break;
	default:
		break;
	}
	return 0;
}

/* Over what is left after alias expansion and pruning: the expanded probes
 * (alias bodies included) and the functions they use. */
static void check_supported(Elab *el)
{
	Program *prog = el->prog;
	AstVisitor v = { NULL, unsupported_expr, el };

	for (int i = 0; i < prog->embedded.len; i++)
		unsupported_expr(prog->embedded.items[i], el);
	/* embedded-C functions have no body: they were checked before pruning */
	ast_walk_program(prog, &v);
}

/* A library function marked guru in its embedded C (set_kernel_long, set_user_int, printk, raise...)
 * writes memory or acts on the kernel: only a guru-mode script may call it.  Over the resolved calls. */
static int guru_call(Expr *e, void *ctx)
{
	Elab *el = ctx;

	if (e->kind == EX_CALL && e->fn && e->fn->embedded && strstr(e->fn->embedded, "/* guru */") &&
	    !embedded_allowed(el, e->loc))
		sem_error(el, e->loc, "function '%s' is guru-mode only: it needs guru mode (-g)", e->fn->name);
	return 0;
}

static void check_guru_calls(Elab *el)
{
	AstVisitor v = { NULL, guru_call, el };

	ast_walk_program(el->prog, &v);
}

/* ---- the call graph: recursion and depth ---- */

static int call_depth(Function *f, PtrVec *stack, int *recursive);

static int deepest_call(Stmt *body, PtrVec *stack, int *recursive);

typedef struct DepthSearch {
	PtrVec *stack;
	int *recursive;
	int depth;
} DepthSearch;

static int depth_in_expr(Expr *e, void *ctx)
{
	DepthSearch *ds = ctx;
	if (e->kind == EX_CALL && e->fn) {
		int d = call_depth(e->fn, ds->stack, ds->recursive);
		if (d > ds->depth)
			ds->depth = d;
	}
	return 0;
}

static int deepest_call(Stmt *body, PtrVec *stack, int *recursive)
{
	DepthSearch ds = { stack, recursive, 0 };
	AstVisitor v = { NULL, depth_in_expr, &ds };
	ast_walk_stmt(body, &v);
	return ds.depth;
}

/* 1 + the deepest chain of calls below f; marks the functions of a cycle. */
static int call_depth(Function *f, PtrVec *stack, int *recursive)
{
	int d;
	for (int i = 0; i < stack->len; i++) {
		if (stack->items[i] == f) {
			for (int j = i; j < stack->len; j++)
				((Function *)stack->items[j])->recursive = 1;
			*recursive = 1;
			return 1;   /* the recursive call itself is one level */
		}
	}
	if (f->depth_memo)
		return f->depth_memo;
	vec_push(stack, f);
	d = 1 + deepest_call(f->body, stack, recursive);
	stack->len--;
	f->depth_memo = d;
	return d;
}

static void analyze_calls(Program *prog)
{
	PtrVec stack = { 0 };
	int recursive = 0, depth = 0;

	for (int i = 0; i < prog->probes.len; i++) {
		int d = deepest_call(((Probe *)prog->probes.items[i])->body, &stack, &recursive);
		if (d > depth)
			depth = d;
	}
	prog->call_depth = depth;
	prog->recursive = recursive;
	free(stack.items);
}

/* ---- what SystemTap drops before checking it ---- */

typedef struct NameCount {
	const char *name;
	int count;
} NameCount;

static int count_name(Expr *e, void *ctx)
{
	NameCount *nc = ctx;

	if ((e->kind == EX_IDENT || e->kind == EX_INDEX) && e->str && !strcmp(e->str, nc->name))
		nc->count++;
	return 0;
}

/* How many times a body names a variable (the parameters of a function included). */
static int name_uses(Stmt *body, const char *name)
{
	NameCount nc = { name, 0 };
	AstVisitor v = { NULL, count_name, &nc };

	ast_walk_stmt(body, &v);
	return nc.count;
}

/* Written in the script, not the library (whose elisions are not warned about). */
static int in_script(SrcLoc loc)
{
	return loc.file && !loc.file->is_tapset;
}

/* "(value)->a->b;" left after autocast: its type unknown, its value unused, nothing else done. */
static int is_dead_autocast(const Expr *e)
{
	while (e && e->kind == EX_AUTOCAST)
		e = e->left;
	return e && !expr_has_side_effects(e);
}

typedef struct EarlyElide {
	Elab *el;
	Stmt *body;
	Function *fn;            /* the function of the body, or NULL for a probe */
} EarlyElide;

/* SystemTap's pass 2 drops statements that do nothing before it checks them, so they are no
 * errors: "x <<< v" into a local nothing else names (the value kept when it does something),
 * and "->" chains of unknown type whose value nobody uses.  Warned for the script's own. */
static int elide_early_stmt(Stmt *st, void *ctx)
{
	EarlyElide *ee = ctx;

	if (st->kind != ST_EXPR)
		return 0;
	while (st->expr->kind == EX_ASSIGN && st->expr->op == OP_AGG_ASSIGN && st->expr->left->kind == EX_IDENT &&
	       !find_global(ee->el->prog, st->expr->left->str, st->expr->left->loc.file) &&
	       name_uses(ee->body, st->expr->left->str) == 1) {
		if (in_script(st->loc) && !(ee->fn && find_in(&ee->fn->params, st->expr->left->str)))
			diag_at(&ee->el->s->diag, st->expr->left->loc, "warning", "eliding unused variable '%s'", st->expr->left->str);
		st->expr = st->expr->right;
	}
	if (st->expr->kind == EX_AUTOCAST && is_dead_autocast(st->expr)) {
		if (in_script(st->loc))
			diag_at(&ee->el->s->diag, st->loc, "warning", "eliding side-effect-free expression");
		st->kind = ST_EMPTY;
		st->expr = NULL;
	}
	return 0;
}

static void elide_early(Elab *el)
{
	Program *prog = el->prog;
	EarlyElide ee = { el, NULL, NULL };
	AstVisitor v = { elide_early_stmt, NULL, &ee };

	for (int i = 0; i < prog->probes.len; i++) {
		ee.body = ((Probe *)prog->probes.items[i])->body;
		ast_walk_stmt(ee.body, &v);
	}
	for (int i = 0; i < prog->functions.len; i++) {
		ee.fn = prog->functions.items[i];
		ee.body = ee.fn->body;
		ast_walk_stmt(ee.body, &v);
	}
}

/* ---- driver ---- */

static void check_declarations(Elab *el)
{
	Program *prog = el->prog;

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		g->index = i;
		for (int j = 0; j < i; j++) {
			Symbol *o = prog->globals.items[j];
			if (!strcmp(o->name, g->name) && ((!o->is_private && !g->is_private) || o->loc.file == g->loc.file))
				sem_error(el, g->loc, "global '%s' is declared twice", g->name);
		}
		if (g->init)
			g->type = g->init->kind == EX_STRING ? TY_STRING : TY_LONG;
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		f->index = i;
		if (f->embedded && strstr(f->embedded, "/* pure */"))
			f->pure = 1;
		for (int j = 0; j < f->params.len; j++) {
			Symbol *p = f->params.items[j];
			p->index = j;
			p->is_array = 0;
			if (f->embedded && p->type == TY_UNKNOWN)
				p->type = TY_LONG;
		}
	}
}

/* One name may have several definitions of different arities (SystemTap's overloads), not two of
 * one arity in one scope: the script, the library, or one file for private ones.  Checked before
 * unused functions are dropped. */
static void check_function_definitions(Elab *el)
{
	Program *prog = el->prog;

	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		for (int j = 0; j < i; j++) {
			Function *o = prog->functions.items[j];
			if (!strcmp(o->name, f->name) && o->params.len == f->params.len &&
			    ((!o->is_private && !f->is_private && o->loc.file->is_tapset == f->loc.file->is_tapset) ||
			     o->loc.file == f->loc.file)) {
				if (f->has_priority || o->has_priority)
					sem_error(el, f->loc, "function '%s' is defined twice: overloads of one number of "
						  "parameters (chosen at run time by priority and 'next') are not supported",
						  f->name);
				else
					sem_error(el, f->loc, "function '%s' is defined twice", f->name);
				break;
			}
		}
	}
}

/* Private names, names defined both by the script and the library, and the overloads of a name
 * (one per arity: NAME__aN) get distinct C names. */
static void make_c_names_unique(Program *prog)
{
	StrMap seen = { 0 };

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (strmap_get(&seen, g->name))
			g->name = xasprintf("%s__%d", g->name, i);
		strmap_put(&seen, g->name, g);
	}
	memset(&seen, 0, sizeof seen);
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		f->cname = f->name;
		for (int j = 0; j < prog->functions.len; j++) {
			Function *o = prog->functions.items[j];
			if (!strcmp(o->name, f->name) && o->params.len != f->params.len) {
				f->cname = xasprintf("%s__a%d", f->name, f->params.len);
				f->overloaded = 1;
				break;
			}
		}
		if (strmap_get(&seen, f->cname))
			f->cname = xasprintf("%s__%d", f->cname, i);
		strmap_put(&seen, f->cname, f);
	}
}

/* The note under an error in an expanded probe: the aliases it came through. */
static const char *probe_note(Probe *p)
{
	if (!p->note)
		p->note = xasprintf("in probe %s (from the script's probe at %s:%d:%d)", p->chain,
				    p->loc.file ? p->loc.file->name : "?", p->loc.line, p->loc.col);
	return p->note;
}

static void run_inference(Elab *el)
{
	Program *prog = el->prog;

	for (int round = 0; round < 64; round++) {
		el->changed = 0;
		for (int i = 0; i < prog->functions.len; i++) {
			Function *f = prog->functions.items[i];
			el->fn = f;
			infer_stmt(el, f->body);
		}
		el->fn = NULL;
		for (int i = 0; i < prog->probes.len; i++)
			infer_stmt(el, ((Probe *)prog->probes.items[i])->body);
		if (!el->changed)
			break;
	}
	/* one more round only to report conflicts, now that types are settled */
	el->reporting = 1;
	for (int i = 0; i < prog->functions.len; i++) {
		el->fn = prog->functions.items[i];
		infer_stmt(el, el->fn->body);
	}
	el->fn = NULL;
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		diag_set_context(&el->s->diag, p->chain ? probe_note(p) : NULL);
		infer_stmt(el, p->body);
	}
	diag_set_context(&el->s->diag, NULL);
}

static int returns_value(Stmt *st, void *ctx)
{
	(void)ctx;
	return st->kind == ST_RETURN && st->expr;
}

static void check_resolved_types(Elab *el, PtrVec *syms, const char *where)
{
	for (int i = 0; i < syms->len; i++) {
		Symbol *sym = syms->items[i];
		if (sym->type == TY_UNKNOWN)
			sem_error(el, sym->loc, "cannot infer the type of %s '%s'%s", sym->kind == SYM_GLOBAL ? "global" : "variable",
				  sym->name, where);
		for (int k = 0; sym->is_array == 1 && k < sym->nkeys; k++) {
			if (sym->keytypes[k] == TY_UNKNOWN)
				sem_error(el, sym->loc, "cannot infer the type of key %d of array '%s'", k + 1, sym->name);
		}
	}
}

static void resolve_program(Elab *el)
{
	Program *prog = el->prog;

	check_declarations(el);
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		el->locals = &p->locals;
		diag_set_context(&el->s->diag, p->chain ? probe_note(p) : NULL);
		resolve_stmt(el, p->body);
	}
	diag_set_context(&el->s->diag, NULL);
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		el->fn = f;
		el->locals = &f->locals;
		resolve_stmt(el, f->body);
	}
	el->fn = NULL;
	{
		AstVisitor foreach_bodies = { check_foreach_body, NULL, el };
		ast_walk_program(prog, &foreach_bodies);
	}
}

/* A call whose value is used must call a function that returns one. */
static int returns_value(Stmt *st, void *ctx);

static int valueless_call(Expr *e, void *ctx)
{
	AstVisitor returns = { returns_value, NULL, NULL };

	if (e->kind == EX_CALL && e->fn && e->fn->ret == TY_UNKNOWN && !e->discarded &&
	    !ast_walk_stmt(e->fn->body, &returns))
		sem_error(ctx, e->loc, "cannot infer the type of the value of '%s()': the function returns nothing",
			  e->fn->name);
	return 0;
}

static void check_types(Elab *el)
{
	Program *prog = el->prog;
	AstVisitor calls = { NULL, valueless_call, el };

	for (int i = 0; i < prog->probes.len; i++)
		ast_walk_stmt(((Probe *)prog->probes.items[i])->body, &calls);
	for (int i = 0; i < prog->functions.len; i++)
		ast_walk_stmt(((Function *)prog->functions.items[i])->body, &calls);

	/* unused variables get a default type rather than an error */
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (!g->read && !g->written && g->type == TY_UNKNOWN) {
			g->type = TY_LONG;
			if (g->is_array == -1)
				g->is_array = 0;
		}
		if (g->is_array == -1)
			g->is_array = 0;
	}
	check_resolved_types(el, &prog->globals, "");
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		AstVisitor returns = { returns_value, NULL, NULL };
		if (f->ret == TY_UNKNOWN && ast_walk_stmt(f->body, &returns))
			sem_error(el, f->loc, "cannot infer the return type of function '%s'", f->name);
		check_resolved_types(el, &f->params, xasprintf(" in function '%s'", f->name));
		check_resolved_types(el, &f->locals, xasprintf(" in function '%s'", f->name));
	}
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		diag_set_context(&el->s->diag, p->chain ? probe_note(p) : NULL);
		check_resolved_types(el, &p->locals, "");
	}
	diag_set_context(&el->s->diag, NULL);
}

int elaborate(Session *s)
{
	Elab el = { .s = s, .prog = &s->prog };
	Program *prog = &s->prog;
	int errors;

	errors = tapsets_load_needed(s);
	if (errors)
		return errors;
	errors = expand_probes(s);
	if (errors)
		return errors;
	if (!s->derived.len && !s->list_pattern) {
		sem_error(&el, (SrcLoc){0}, "no probes found");
		return el.errors;
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (f->embedded && !embedded_allowed(&el, f->loc))
			sem_error(&el, f->loc, "embedded C function '%s' is only allowed in guru mode (-g) or in the "
				  "tapset library", f->name);
	}
	check_function_definitions(&el);
	if (el.errors)
		return el.errors;
	prune_unused(s);
	autocast_program(prog);
	elide_early(&el);
	el.errors += targets_bind_program(s);
	if (el.errors)
		return el.errors;
	check_supported(&el);
	if (el.errors)
		return el.errors;
	resolve_program(&el);
	if (el.errors)
		return el.errors;
	check_guru_calls(&el);
	if (el.errors)
		return el.errors;
	run_inference(&el);
	check_types(&el);
	if (el.errors)
		return el.errors;
	if (!s->unoptimized)
		elide_unused_locals(s);
	for (int i = 0; i < prog->functions.len; i++)
		((Function *)prog->functions.items[i])->index = i;
	for (int i = 0; i < prog->globals.len; i++)
		((Symbol *)prog->globals.items[i])->index = i;
	analyze_calls(prog);
	for (int i = 0; i < prog->functions.len; i++)
		((Function *)prog->functions.items[i])->index = i;
	make_c_names_unique(prog);
	return el.errors;
}

/* --dump-functions: every function of the library, resolved and typed. */
int elaborate_library(Session *s)
{
	Elab el = { .s = s, .prog = &s->prog, .library = 1 };

	s->prog.probes.len = 0;   /* alias bodies are checked when a script uses them */
	check_supported(&el);
	resolve_program(&el);
	if (!el.errors)
		run_inference(&el);
	return el.errors;
}
