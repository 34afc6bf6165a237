/* infer.c - pass 2 type inference: expressions and statements typed to a fixed point, conflicts
 * reported in the last round. Used by elaborate.c. */
#include "elaborate/elab.h"
#include "elaborate/builtins.h"
#include "lib/format.h"
#include "providers/provider.h"
#include "targets/access.h"

#include <string.h>

/* ---- type inference ---- */

static void unify(Elab *el, Type *slot, Type t, SrcLoc loc, const char *what)
{
	if (t == TY_UNKNOWN)
		return;
	if (*slot == TY_UNKNOWN) {
		*slot = t;
		el->changed = 1;
	} else if (*slot != t && el->reporting) {
		elab_error(el, loc, "type mismatch: %s is %s, used here as %s", what, type_name(*slot), type_name(t));
	}
}

static Type infer(Elab *el, Expr *e, Type want);

static void expect(Elab *el, Expr *e, Type t, const char *what)
{
	Type got = infer(el, e, t);
	if (got != TY_UNKNOWN && t != TY_UNKNOWN && got != t && el->reporting)
		elab_error(el, e->loc, "type mismatch: %s must be %s, not %s", what, type_name(t), type_name(got));
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
		const Format *fmt = e->format;   /* parsed by resolution; none after its error */
		if (!fmt)
			return e->builtin->ret;
		for (int i = 0, a = 1; i < fmt->npieces && a < e->args.len; i++) {
			FormatPiece *p = &fmt->pieces[i];
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
				elab_error(el, a->loc, "a statistics value cannot be printed directly: print @count(), @sum(), "
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
		elab_error(el, e->loc, "type mismatch: comparing %s with %s", type_name(l), type_name(r));
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
		elab_error(el, e->loc, "type mismatch: '<<<' needs a statistics variable, '%s' is %s",
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
		elab_error(el, e->loc, "type mismatch: %s is %s, assigned %s", what, type_name(l), type_name(r));
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
		elab_error(el, arg->loc, "@%s needs a statistics value (filled with '<<<'), not a %s",
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
		expect(el, e->args.items[i], TY_LONG, i == 0 && e->bound->base == TGB_POINTER ?
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
		elab_error(el, e->loc, "type mismatch: the branches of '?:' are %s and %s",
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
	case EX_BOUND:
		return infer_dwarf(el, e, want);
	case EX_TERNARY:
		return infer_ternary(el, e, want);
	case EX_TARGET:
	case EX_AUTOCAST:
	case EX_WILDCARD:
		break;   /* rejected by elab_check_supported() */
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

void elab_infer_stmt(Elab *el, Stmt *st)
{
	if (!st)
		return;
	switch (st->kind) {
	case ST_BLOCK:
		for (int i = 0; i < st->body.len; i++)
			elab_infer_stmt(el, st->body.items[i]);
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
		elab_infer_stmt(el, st->then);
		elab_infer_stmt(el, st->els);
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
			elab_error(el, st->loc, "foreach sorted by @%s needs a statistics array, '%s' is %s", st->sort_agg,
				  arr->name, type_name(arr->type));
		for (int i = 0; arr && i < st->keys.len && i < STP_MAP_MAX_KEYS; i++) {
			Expr *k = st->keys.items[i];
			if (!k->sym)
				continue;
			unify(el, &k->sym->type, arr->keytypes[i], k->loc, k->sym->name);
			unify(el, &arr->keytypes[i], k->sym->type, k->loc, "the array key");
		}
		elab_infer_stmt(el, st->then);
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
		elab_infer_stmt(el, st->then);
		if (st->catch_var && st->catch_var->sym)
			unify(el, &st->catch_var->sym->type, TY_STRING, st->catch_var->loc, "the catch variable");
		elab_infer_stmt(el, st->els);
		break;
	default:
		break;
	}
}
