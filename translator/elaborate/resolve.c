/* resolve.c - pass 2 resolution: names to locals and globals, calls to functions and builtins,
 * lvalues and foreach rules checked; shared lookups and errors of elaborate/. Used by elaborate.c. */
#include "elaborate/elab.h"
#include "elaborate/builtins.h"
#include "elaborate/optimize.h"
#include "lib/format.h"
#include "lib/regex.h"

#include <string.h>

void elab_error(Elab *el, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(&el->s->diag, loc, "semantic error", fmt, ap);
	va_end(ap);
	el->errors++;
}

Symbol *elab_find_in(PtrVec *v, const char *name)
{
	for (int i = 0; v && i < v->len; i++) {
		Symbol *sym = v->items[i];
		if (!strcmp(sym->name, name))
			return sym;
	}
	return NULL;
}

/* The global a name means in a file: its own private one, else a public one. */
Symbol *elab_find_global(Program *prog, const char *name, const SourceFile *from)
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
	Symbol *sym = el->fn ? elab_find_in(&el->fn->params, name) : NULL;
	if (!sym)
		sym = elab_find_in(el->locals, name);
	if (!sym)
		sym = elab_find_global(el->prog, name, loc.file);
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
		elab_error(el, loc, "'%s' is not a global: arrays must be declared with 'global'", sym->name);
		return;
	}
	if (sym->is_array == 0) {
		elab_error(el, loc, "'%s' is a scalar, used here as an array", sym->name);
		return;
	}
	sym->is_array = 1;
	if (nkeys > STP_MAP_MAX_KEYS) {
		elab_error(el, loc, "array '%s' has more than %d keys", sym->name, STP_MAP_MAX_KEYS);
		return;
	}
	if (sym->nkeys && nkeys && sym->nkeys != nkeys)
		elab_error(el, loc, "array '%s' used with %d keys here and %d elsewhere", sym->name, nkeys, sym->nkeys);
	else if (nkeys)
		sym->nkeys = nkeys;
}

static void mark_scalar(Elab *el, Symbol *sym, SrcLoc loc)
{
	if (sym->is_array == 1)
		elab_error(el, loc, "'%s' is an array, used here as a scalar", sym->name);
	else
		sym->is_array = 0;
}

static void check_foreach_write(Elab *el, Symbol *sym, SrcLoc loc)
{
	for (int i = 0; i < el->foreach_arrays.len; i++) {
		if (el->foreach_arrays.items[i] == sym)
			elab_error(el, loc, "array '%s' is modified inside a foreach over it", sym->name);
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
	Symbol *sym = elab_find_global(el->prog, e->str, e->loc.file);
	if (!sym) {
		elab_error(el, e->loc, "unknown array '%s' (arrays must be declared with 'global')", e->str);
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
			elab_error(el, e->loc, "function '%s' takes %s, called with %d", f->name,
				  arities_of(el->prog, f), e->args.len);
		return;
	}
	e->builtin = builtin_find(e->str);
	if (!e->builtin) {
		elab_error(el, e->loc, "unresolved function '%s'", e->str);
		return;
	}
	if (e->builtin->nargs >= 0 && e->args.len != e->builtin->nargs) {
		elab_error(el, e->loc, "function '%s' takes %d argument%s, called with %d",
			  e->str, e->builtin->nargs, e->builtin->nargs == 1 ? "" : "s", e->args.len);
		return;
	}
	if (e->builtin->kind == BI_PRINTF || e->builtin->kind == BI_SPRINTF) {
		Expr *fmt = e->args.len ? e->args.items[0] : NULL;
		Format parsed;
		const char *err;
		if (!fmt || fmt->kind != EX_STRING) {
			elab_error(el, fmt ? fmt->loc : e->loc, "%s needs a literal format string", e->str);
			return;
		}
		if (format_parse(fmt->str, &parsed, &err) != 0) {
			elab_error(el, fmt->loc, "%s", err);
			return;
		}
		e->format = xmalloc(sizeof *e->format);
		*e->format = parsed;
		if (parsed.nargs != e->args.len - 1)
			elab_error(el, e->loc, "format has %d conversion%s but %d argument%s given",
				  parsed.nargs, parsed.nargs == 1 ? "" : "s",
				  e->args.len - 1, e->args.len == 2 ? " is" : "s are");
	}
	if (e->builtin->kind == BI_PRINT) {
		int flags = e->builtin->print_flags;
		int min = (flags & PRINT_DELIMITED) ? 2 : (flags & PRINT_NEWLINE) ? 0 : 1;
		if (e->args.len < min)
			elab_error(el, e->loc, "%s needs at least %d argument%s%s", e->str, min, min == 1 ? "" : "s",
				  (flags & PRINT_DELIMITED) ? " (a delimiter and a value)" : "");
	}
}


/* The target of <<< or the operand of @count ...: a global or an element of
 * a global array. */
static void resolve_stats_operand(Elab *el, Expr *e)
{
	if (e->kind == EX_IDENT) {
		Symbol *sym = elab_find_global(el->prog, e->str, e->loc.file);
		if (!sym) {
			elab_error(el, e->loc, "statistics must be global: '%s' is not a global variable", e->str);
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
	elab_error(el, e->loc, "statistics operators need a global variable or array element");
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
			elab_error(el, e->right->loc, "the pattern of '%s' must be a literal string",
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
		break;   /* the others need DWARF: elab_check_supported() */
	case EX_BOUND:   /* bound by targets_bind_program(): indexes, @cast's address, @entry's value */
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

void elab_resolve_stmt(Elab *el, Stmt *st);

/* A loop's body, counted so that 'break' and 'continue' know they are inside one */
static void resolve_loop_body(Elab *el, Stmt *body)
{
	el->loop_depth++;
	elab_resolve_stmt(el, body);
	el->loop_depth--;
}

/* foreach's value and keys are locals it writes */
static void resolve_foreach_variable(Elab *el, Expr *var, const char *what)
{
	resolve_expr(el, var);
	if (var->sym && var->sym->kind == SYM_GLOBAL)
		elab_error(el, var->loc, "foreach %s '%s' must be a local variable", what, var->str);
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
		if (!(el->fn && elab_find_in(&el->fn->params, name)) && !elab_find_in(el->locals, name) &&
		    !elab_find_global(el->prog, name, st->expr->loc.file)) {
			elab_error(el, st->expr->loc, "'delete' needs a global array or variable, or a local in use: "
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
	elab_resolve_stmt(el, st->then);
	if (st->catch_var) {
		resolve_expr(el, st->catch_var);
		if (st->catch_var->sym)
			st->catch_var->sym->written = 1;
	}
	elab_resolve_stmt(el, st->els);
}

void elab_resolve_stmt(Elab *el, Stmt *st)
{
	if (!st)
		return;
	switch (st->kind) {
	case ST_BLOCK:
		for (int i = 0; i < st->body.len; i++)
			elab_resolve_stmt(el, st->body.items[i]);
		break;
	case ST_EXPR:
		resolve_expr(el, st->expr);
		mark_discarded(st->expr);
		break;
	case ST_IF:
		resolve_expr(el, st->expr);
		elab_resolve_stmt(el, st->then);
		elab_resolve_stmt(el, st->els);
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
			elab_error(el, st->loc, "'%s' outside a loop", st->kind == ST_BREAK ? "break" : "continue");
		break;
	case ST_NEXT:
		if (el->fn)
			elab_error(el, st->loc, "'next' in a function (SystemTap's run-time choice among overloads of one "
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
