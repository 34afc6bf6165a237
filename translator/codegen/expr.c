/* expr.c - code generation for expressions: each returns a C expression or
 * temporary holding the value, emitting statements before it.  Used by stmt.c. */
#include "codegen/gen.h"
#include "codegen/backend.h"
#include "elaborate/builtins.h"
#include "targets/access.h"
#include "providers/provider.h"
#include "providers/perf.h"

#include <string.h>

static const char *op_name(Operator op)
{
	switch (op) {
	case OP_DIV: case OP_DIV_ASSIGN: return "/";
	case OP_MOD: case OP_MOD_ASSIGN: return "%";
	default: return "?";
	}
}

static char *expand_template(const char *tpl, char **args, const char *result)
{
	StrBuf sb;
	sb_init(&sb);
	for (const char *p = tpl; *p; p++) {
		if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
			int n = p[1] - '0';
			sb_puts(&sb, n == 0 ? result : args[n - 1]);
			p++;
		} else {
			sb_putc(&sb, *p);
		}
	}
	return sb_steal(&sb);
}

/* Whether argument i of a call must be copied before the later ones are evaluated: a value that a
 * later argument's call could overwrite (a callee's frame is reused: its return value) or a
 * later argument could change.  A string literal never; a variable's value only when a later
 * argument does more than name a variable or a constant.  A number is a copy anyway (all but the
 * last: cheap). */
static int arg_needs_copy(const Expr *e, int i)
{
	const Expr *a = e->args.items[i];

	if (a->kind == EX_STRING)
		return 0;
	if (a->kind == EX_IDENT && a->type == TY_STRING) {
		for (int k = i + 1; k < e->args.len; k++) {
			ExprKind later = ((const Expr *)e->args.items[k])->kind;
			if (later != EX_NUMBER && later != EX_STRING && later != EX_IDENT)
				return 1;
		}
		return 0;
	}
	return a->type == TY_STRING || i + 1 < e->args.len;
}

/* A script function's string parameter that its body never writes is passed as a pointer to the
 * caller's value (no copy of up to MAXSTRINGLEN bytes per call), which stays as it is while the
 * callee runs (call_arg_is_stable).  Embedded C may write its arguments: copies. */
int cg_param_by_ref(const Function *f, const Symbol *param)
{
	return !f->embedded && param->type == TY_STRING && !param->written;
}

/* The longest string literal passed as a pointer: shorter than any MAXSTRINGLEN a module may be
 * built with (runtime/core/limits.h: at least 16), so that the callee sees what a copy would hold. */
#define BY_REF_LITERAL_MAX 15

/* Whether a string argument's value (val, its code) stays as it is while the callee runs, so that
 * it can be passed as a pointer: a short literal, the caller's own locals and parameters (the
 * callee cannot name them; a parameter passed as a pointer points at such a value itself), and
 * the caller's temporaries (f->tN: each expression's own), all within MAXSTRINGLEN.  A global or
 * an array element may change under the callee, a longer literal is cut to MAXSTRINGLEN by the
 * copy: copied. */
static int call_arg_is_stable(const Expr *a, const char *val)
{
	if (a->kind == EX_STRING)
		return strlen(a->str) <= BY_REF_LITERAL_MAX;
	if (a->kind == EX_IDENT && a->sym && (a->sym->kind == SYM_LOCAL || a->sym->kind == SYM_PARAM))
		return 1;
	return cg_is_str_tmp(val);
}

/* Whether embedded C names what it needs to report an error: the context (c, CONTEXT), STAP_ERROR,
 * or a macro of runtime/core/embedded_compat.h that reports a fault through CONTEXT (identifiers,
 * outside comments and literals).  One that names none of them cannot set one. */
static int embedded_may_fail(const char *code)
{
	static const char *const names[] = {
		"c", "CONTEXT", "STAP_ERROR", "STP_COMPAT_FAULT", "CATCH_DEREF_FAULT", "kread", "uread", "kwrite",
		"kderef", "uderef", "kderef_buffer",
	};

	return cg_c_names(code, names, sizeof(names) / sizeof(names[0]));
}

/* An embedded-C function of longs only: its frame is a few words, a C local of the caller instead
 * of a slot of the frame stack, since it calls nothing further.  The nesting limit holds as for
 * any call (STP_LEAF_NESTING: nothing to test without recursion when the deepest call chain is
 * within MAXNESTING); a function that cannot fail needs no error test after it, nor its location
 * stored before it (its errors report the call's). */
static char *gen_leaf_call(Gen *g, Expr *e, char **vals)
{
	Function *f = e->fn;
	char *lf = cg_named_local(g, xasprintf("struct frame_fn_%s", f->cname), "lf");
	char *where = cg_location_literal("identifier", f->name, e->loc);
	char *result = NULL;

	if (embedded_may_fail(f->embedded))
		cg_line(g, "c->last_stmt = %s;", where);
	g->out_used = 1;
	cg_line(g, "STP_LEAF_NESTING(c, %s, %s);", where, cg_error_label(g));
	free(where);
	for (int i = 0; i < f->params.len; i++)
		cg_line(g, "%s.l_%s = %s;", lf, ((Symbol *)f->params.items[i])->name, vals[i]);
	cg_line(g, "fn_%s(c, &%s);", f->cname, lf);
	if (f->ret == TY_LONG) {
		result = cg_long_tmp(g);
		cg_line(g, "%s = %s.retval;", result, lf);
	}
	if (embedded_may_fail(f->embedded))
		cg_check_error(g);
	return result ? result : xstrdup("0");
}

static int leaf_call(const Function *f)
{
	if (!f->embedded || f->ret == TY_STRING)
		return 0;
	for (int i = 0; i < f->params.len; i++)
		if (((const Symbol *)f->params.items[i])->type == TY_STRING)
			return 0;
	return 1;
}

static char *gen_user_call(Gen *g, Expr *e)
{
	Function *f = e->fn;
	char **vals = xcalloc((size_t)e->args.len + 1, sizeof *vals);
	char *nf, *result = NULL;

	for (int i = 0; i < e->args.len; i++) {
		Expr *a = e->args.items[i];
		vals[i] = cg_expr(g, a);
		if (arg_needs_copy(e, i) ||
		    (cg_param_by_ref(f, f->params.items[i]) && !call_arg_is_stable(a, vals[i])))
			vals[i] = cg_materialize(g, vals[i], a->type);
	}
	if (leaf_call(f)) {
		result = gen_leaf_call(g, e, vals);
		free(vals);
		return result;
	}
	nf = cg_named_local(g, xasprintf("struct frame_fn_%s *", f->cname), "nf");
	if (cg_called_once(g->cg, f)) {   /* inlined (module.c): no C frame of its own */
		char *where = cg_location_literal("identifier", f->name, e->loc);
		cg_line(g, "STP_PUSH_INLINED(c, %s, fn_%s, %s, %s);", nf, f->cname, where, cg_error_label(g));
		free(where);
	} else {
		cg_set_location(g, "identifier", f->name, e->loc);
		cg_line(g, "%s = &stp_push_frame(c)->fn_%s;", nf, f->cname);
		cg_line(g, "if (unlikely(c->last_error)) goto %s;", cg_error_label(g));
	}
	g->out_used = 1;
	for (int i = 0; i < f->params.len; i++) {
		Symbol *p = f->params.items[i];
		if (cg_param_by_ref(f, p))
			cg_line(g, "%s->l_%s = %s;", nf, p->name, vals[i]);
		else if (p->type == TY_STRING)
			cg_line(g, "stp_strlcpy(%s->l_%s, %s, MAXSTRINGLEN);", nf, p->name, vals[i]);
		else
			cg_line(g, "%s->l_%s = %s;", nf, p->name, vals[i]);
	}
	cg_line(g, "fn_%s(c, %s);", f->cname, nf);
	if (f->ret == TY_STRING) {
		result = cg_str_tmp(g);
		cg_line(g, "stp_strlcpy(%s, %s->retval, MAXSTRINGLEN);", result, nf);
	} else if (f->ret == TY_LONG) {
		result = cg_long_tmp(g);
		cg_line(g, "%s = %s->retval;", result, nf);
	}
	cg_line(g, "c->nesting--;");
	cg_check_error(g);
	free(vals);
	return result ? result : xstrdup("0");
}

/* print and its relatives; flags are the builtin's PRINT_* (a histogram argument: stats.c) */
static char *gen_print(Gen *g, Expr *e, const char *out, int flags)
{
	char *delim = NULL;

	for (int i = 0; i < e->args.len; i++) {
		Expr *a = e->args.items[i];
		char *v;
		if (i == 0 && (flags & PRINT_DELIMITED)) {
			delim = cg_expr(g, a);
			if (e->args.len > 2)   /* later arguments may overwrite a temporary */
				delim = cg_materialize(g, delim, TY_STRING);
			continue;
		}
		if (delim && i > 1)
			cg_line(g, "stp_out_strz(%s, %s);", out, delim);
		if (a->kind == EX_AT && !strncmp(a->str, "hist_", 5) && !a->chain.len) {
			cg_stats_print(g, a, out);
			continue;
		}
		v = cg_expr(g, a);
		if (a->type == TY_STRING)
			cg_line(g, "stp_out_strz(%s, %s);", out, v);
		else
			cg_line(g, "stp_out_dec(%s, %s);", out, v);
	}
	/* a histogram alone is drawn as print draws it (SystemTap adds no newline) */
	if ((flags & PRINT_NEWLINE) && !(e->args.len == 1 && ((Expr *)e->args.items[0])->kind == EX_AT &&
					 !strncmp(((Expr *)e->args.items[0])->str, "hist_", 5) &&
					 !((Expr *)e->args.items[0])->chain.len))   /* not a bucket's count: @hist_log(x)[i] */
		cg_line(g, "stp_out_lit(%s, \"\\n\", 1);", out);
	return xstrdup("0");
}

static char *gen_call(Gen *g, Expr *e)
{
	const Builtin *b = e->builtin;
	char **vals;
	char *result = NULL, *text;

	if (e->fn)
		return gen_user_call(g, e);
	switch (b->kind) {
	case BI_PRINTF:
		return g->be->printf(g, e);
	case BI_SPRINTF: {
		char *dst = cg_str_tmp(g);
		char *o = cg_str_out_open(g, dst);
		cg_format(g, e, o);
		cg_str_out_close(g, o, dst);
		return dst;
	}
	case BI_PRINT:
		if (b->print_flags & PRINT_TO_STRING) {
			char *dst = cg_str_tmp(g);
			char *o = cg_str_out_open(g, dst);
			gen_print(g, e, o, b->print_flags);
			cg_str_out_close(g, o, dst);
			return dst;
		}
		return gen_print(g, e, "&c->out", b->print_flags);
	case BI_TEMPLATE:
		break;
	}
	vals = xcalloc((size_t)e->args.len + 1, sizeof *vals);
	for (int i = 0; i < e->args.len; i++)
		vals[i] = cg_expr(g, e->args.items[i]);
	if (b->ret == TY_STRING)
		result = cg_str_tmp(g);
	text = expand_template(b->c_template, vals, result ? result : "");
	free(vals);
	if (b->ret == TY_UNKNOWN || b->can_fail) {
		if (b->can_fail)
			cg_set_location(g, "identifier", b->name, e->loc);
		if (b->ret == TY_LONG) {
			char *t = cg_long_tmp(g);
			cg_line(g, "%s = %s;", t, text);
			text = t;
		} else {
			cg_line(g, "%s;", text);
		}
		if (b->can_fail)
			cg_check_error(g);
		if (b->ret == TY_STRING)
			return result;      /* the template filled it: do not run it again */
		return b->ret == TY_UNKNOWN ? xstrdup("0") : text;
	}
	return text;
}

static char *gen_logical(Gen *g, Expr *e)
{
	char *t = cg_long_tmp(g);
	char *l = cg_expr(g, e->left);
	char *r;

	if (e->op == OP_AND) {
		cg_line(g, "%s = 0;", t);
		cg_line(g, "if (%s) {", l);
	} else {
		cg_line(g, "%s = 1;", t);
		cg_line(g, "if (!(%s)) {", l);
	}
	g->indent++;
	r = cg_expr(g, e->right);
	cg_line(g, "%s = (%s) != 0;", t, r);
	g->indent--;
	cg_line(g, "}");
	return t;
}

static const char *c_binop(Operator op)
{
	switch (op) {
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_LE: return "<=";
	case OP_GE: return ">=";
	case OP_LT: return "<";
	case OP_GT: return ">";
	case OP_ADD: case OP_ADD_ASSIGN: return "+";
	case OP_SUB: case OP_SUB_ASSIGN: return "-";
	case OP_MUL: case OP_MUL_ASSIGN: return "*";
	case OP_BITAND: case OP_AND_ASSIGN: return "&";
	case OP_BITOR: case OP_OR_ASSIGN: return "|";
	case OP_BITXOR: case OP_XOR_ASSIGN: return "^";
	default: return NULL;
	}
}

/* l OP r for two long values, as a C expression or via a checked helper. */
char *cg_long_binop(Gen *g, int op, const char *l, const char *r, SrcLoc loc)
{
	const char *cop = c_binop(op);
	if (cop)
		return xasprintf("((int64_t)((uint64_t)(%s) %s (uint64_t)(%s)))", l, cop, r);
	switch (op) {
	case OP_SHL: case OP_SHL_ASSIGN:
		return xasprintf("stp_shl(%s, %s)", l, r);
	case OP_SHR: case OP_SHR_ASSIGN:
		return xasprintf("stp_shr(%s, %s)", l, r);
	case OP_USHR:
		return xasprintf("stp_ushr(%s, %s)", l, r);
	case OP_DIV: case OP_DIV_ASSIGN:
	case OP_MOD: case OP_MOD_ASSIGN: {
		char *t = cg_long_tmp(g);
		cg_set_location(g, "operator", op_name(op), loc);
		cg_line(g, "%s = stp_%s(c, %s, %s);", t, op == OP_DIV || op == OP_DIV_ASSIGN ? "div" : "mod", l, r);
		cg_check_error(g);
		return t;
	}
	}
	return xstrdup("0");
}

static char *gen_binary(Gen *g, Expr *e)
{
	char *l, *r;

	if (e->op == OP_AND || e->op == OP_OR)
		return gen_logical(g, e);
	if (e->op == OP_MATCH || e->op == OP_NOMATCH)
		return g->be->regex_match(g, e);
	if (e->op == OP_IN && e->right->sym->type == TY_STATS)
		return cg_stats_in(g, e);
	if (e->op == OP_IN) {
		Symbol *arr = e->right->sym;
		PtrVec one = { 0 }, *keys = &one;
		unsigned int comm;
		char *k;
		if (e->left->kind == EX_CALL && !e->left->str)
			keys = &e->left->args;
		else
			vec_push(&one, e->left);
		if (cg_has_wildcard_key(keys))   /* [*, k] in a: any entry matching (the runtime's walk) */
			return cg_materialize(g, xasprintf("((int64_t)stp_map_exists_slice(g_%s, %s))", arr->name,
							   cg_slice_keys(g, arr, keys)), TY_LONG);
		k = cg_keys_comm(g, arr, keys, &comm);
		return xasprintf("((int64_t)(gm_%s__find(g_%s, %s, %#x) != NULL))", arr->name, arr->name, k, comm);
	}
	l = cg_expr(g, e->left);
	if (cg_has_side_effects(e->right))
		l = cg_materialize(g, l, e->left->type);
	r = cg_expr(g, e->right);
	if (e->op == OP_CONCAT) {
		char *t = cg_str_tmp(g);
		cg_line(g, "stp_concat(%s, %s, %s);", t, l, r);
		return t;
	}
	if (e->left->type == TY_STRING) /* string comparison */
		return xasprintf("((int64_t)(strcmp(%s, %s) %s 0))", l, r, c_binop(e->op));
	if (c_binop(e->op) && (e->op == OP_EQ || e->op == OP_NE || e->op == OP_LT || e->op == OP_GT || e->op == OP_LE ||
			       e->op == OP_GE))
		return xasprintf("((int64_t)((%s) %s (%s)))", l, c_binop(e->op), r);
	return cg_long_binop(g, e->op, l, r, e->loc);
}

/* Address of an array element's value slot, created if absent (keys from cg_keys_comm). */
static char *gen_slot(Gen *g, Expr *lhs, const char *keys, unsigned int comm)
{
	char *map = cg_var_ref(lhs->sym);
	char *p = cg_map_slot(g, lhs, map, keys, comm, lhs->type == TY_STRING ? "char *" : "int64_t *");

	free(map);
	return p;
}

static char *gen_assign(Gen *g, Expr *e)
{
	Expr *lhs = e->left;
	char *keys = NULL, *rhs, *dst;
	unsigned int comm = 0;
	Type t = lhs->type;

	if (lhs->kind == EX_INDEX)
		keys = cg_keys_comm(g, lhs->sym, &lhs->args, &comm);
	rhs = cg_expr(g, e->right);
	if (lhs->kind == EX_INDEX)
		dst = xasprintf(t == TY_STRING ? "%s" : "(*%s)", gen_slot(g, lhs, keys, comm));
	else
		dst = cg_var_ref(lhs->sym);
	if (t == TY_STRING) {
		if (e->op == OP_CAT_ASSIGN)
			cg_line(g, "stp_strlcat(%s, %s, MAXSTRINGLEN);", dst, rhs);
		else
			cg_line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", dst, rhs);
		return dst;
	}
	if (e->op == OP_ASSIGN)
		cg_line(g, "%s = %s;", dst, rhs);
	else
		cg_line(g, "%s = %s;", dst, cg_long_binop(g, e->op, dst, rhs, e->loc));
	if (lhs->kind == EX_INDEX)
		return cg_materialize(g, dst, TY_LONG);
	return dst;
}

static char *gen_incdec(Gen *g, Expr *e)
{
	Expr *x = e->left;
	char *dst, *t = cg_long_tmp(g);
	const char *op = e->op == OP_INC ? "+" : "-";

	if (x->kind == EX_INDEX) {
		unsigned int comm;
		char *keys = cg_keys_comm(g, x->sym, &x->args, &comm);
		dst = xasprintf("(*%s)", gen_slot(g, x, keys, comm));
	} else {
		dst = cg_var_ref(x->sym);
	}
	if (e->postfix) {
		cg_line(g, "%s = %s;", t, dst);
		cg_line(g, "%s = (int64_t)((uint64_t)%s %s 1);", dst, t, op);
	} else {
		cg_line(g, "%s = (int64_t)((uint64_t)%s %s 1);", dst, dst, op);
		cg_line(g, "%s = %s;", t, dst);
	}
	return t;
}

/* A family's context variable ($value, $skb ...): its C expression as the provider gave it. */
static char *gen_context(Gen *g, Expr *e)
{
	if (e->type == TY_STRING) {
		char *t = cg_str_tmp(g);
		cg_line(g, "stp_strlcpy(%s, (%s), MAXSTRINGLEN);", t, e->ctxvar->read);
		return t;
	}
	return cg_materialize(g, xasprintf("((int64_t)(%s))", e->ctxvar->read), TY_LONG);
}

/* $value = v: the provider's write statement with the new value in place of its "%s"; the
 * expression's value is v. */
static char *gen_context_assign(Gen *g, Expr *e)
{
	const char *w = e->op == OP_CAT_ASSIGN ? e->left->ctxvar->append : e->left->ctxvar->write;
	const char *at = strstr(w, "%s");
	char *v = cg_expr(g, e->right);

	cg_line(g, "%.*s%s%s;", (int)(at - w), w, v, at + 2);
	return e->op == OP_CAT_ASSIGN ? gen_context(g, e->left) : v;
}

/* @perf("NAME"): the counter's value on this CPU, read by the perf family's runtime (defined with
 * its table, after the handlers: declared here first). */
static char *gen_perf_counter(Gen *g, Expr *e)
{
	static const char proto[] = "static int64_t stp_perf_counter_read(struct stp_context *c, unsigned int k);\n";
	int k = perf_counter_index(g->s, ((Expr *)e->args.items[0])->str);
	char *v;

	if (!g->tables->data || !strstr(g->tables->data, proto))
		sb_puts(g->tables, proto);
	cg_set_location(g, "operator", "@perf", e->loc);
	v = cg_materialize(g, xasprintf("stp_perf_counter_read(c, %d)", k), TY_LONG);
	cg_check_error(g);
	return v;
}

static char *gen_ternary(Gen *g, Expr *e)
{
	char *t = e->type == TY_STRING ? cg_str_tmp(g) : cg_long_tmp(g);
	char *cond = cg_expr(g, e->cond);
	char *v;

	cg_line(g, "if (%s) {", cond);
	g->indent++;
	v = cg_expr(g, e->left);
	if (e->type == TY_STRING)
		cg_line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", t, v);
	else
		cg_line(g, "%s = %s;", t, v);
	g->indent--;
	cg_line(g, "} else {");
	g->indent++;
	v = cg_expr(g, e->right);
	if (e->type == TY_STRING)
		cg_line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", t, v);
	else
		cg_line(g, "%s = %s;", t, v);
	g->indent--;
	cg_line(g, "}");
	return t;
}

/* %{ C %} as an expression. In a script function it sees the function's parameters as STAP_ARG_name
 * and the context as CONTEXT, as SystemTap's embedded expressions do (%{ S_ISDIR(STAP_ARG_mode) %}). */
static char *gen_embedded_expr(Gen *g, Expr *e)
{
	PtrVec *params = g->fn ? &g->fn->params : NULL;
	char *t;

	cg_line(g, "#define CONTEXT c");
	for (int i = 0; params && i < params->len; i++) {
		Symbol *p = params->items[i];
		cg_line(g, "#define STAP_ARG_%s (f->l_%s)", p->name, p->name);
	}
	if (e->type == TY_STRING) {
		t = cg_str_tmp(g);
		cg_line(g, "stp_strlcpy(%s, (%s), MAXSTRINGLEN);", t, e->str);
	} else {
		t = cg_materialize(g, xasprintf("((int64_t)(%s))", e->str), TY_LONG);
	}
	for (int i = 0; params && i < params->len; i++)
		cg_line(g, "#undef STAP_ARG_%s", ((Symbol *)params->items[i])->name);
	cg_line(g, "#undef CONTEXT");
	return t;
}

char *cg_expr(Gen *g, Expr *e)
{
	switch (e->kind) {
	case EX_NUMBER:
		return cg_long_literal(e->num);
	case EX_STRING:
		return cg_string_literal(e->str);
	case EX_IDENT:
		return cg_var_ref(e->sym);
	case EX_INDEX: {
		unsigned int comm;
		char *k = cg_keys_comm(g, e->sym, &e->args, &comm);
		char *get = xasprintf("gm_%s__get(g_%s, %s, %#x)", e->sym->name, e->sym->name, k, comm);
		if (e->type == TY_STRING) {
			char *t = cg_str_tmp(g);
			cg_line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", t, get);
			return t;
		}
		return cg_materialize(g, get, TY_LONG);
	}
	case EX_CALL:
		return gen_call(g, e);
	case EX_BINARY:
		return gen_binary(g, e);
	case EX_UNARY: {
		char *v = cg_expr(g, e->left);
		if (e->op == OP_NEG)
			return xasprintf("((int64_t)(0 - (uint64_t)(%s)))", v);
		if (e->op == OP_PLUS)
			return v;
		return xasprintf("((int64_t)(%s(%s)))", op_text(e->op), v);
	}
	case EX_ASSIGN:
		if (e->op == OP_AGG_ASSIGN)
			return cg_stats_add(g, e);
		if (e->left->kind == EX_BOUND)
			return cg_target_assign(g, e);
		if (e->left->kind == EX_CONTEXT)
			return gen_context_assign(g, e);
		return gen_assign(g, e);
	case EX_INCDEC:
		return gen_incdec(g, e);
	case EX_TERNARY:
		return gen_ternary(g, e);
	case EX_EMBEDDED:   /* guru mode or the library: a C expression */
		return gen_embedded_expr(g, e);
	case EX_AT:
		if (is_stats_op(e->str))
			return cg_stats_op(g, e);
		if (!strcmp(e->str, "perf"))
			return gen_perf_counter(g, e);
		break;
	case EX_BOUND:
		return cg_target(g, e);
	case EX_CONTEXT:
		return gen_context(g, e);
	case EX_TARGET:
	case EX_AUTOCAST:
	case EX_WILDCARD:
		break;   /* pass 2 rejects these until they are implemented */
	}
	return xstrdup("0");
}

/* ---- array keys: evaluated here, where every expression is (maps.c has the functions using them) ---- */

/* execname(), read as a map key: no copy of comm, two words (runtime stp_comm_key). */
static int is_execname_call(const Expr *e)
{
	return e->kind == EX_CALL && e->builtin && !strcmp(e->builtin->name, "execname") && !e->args.len;
}

/* Evaluates array keys into a struct stp_key array; returns its name.  *comm (when not NULL) gets
 * the bits of the keys given as comm keys, which the gm_NAME__ functions compare as words (and
 * which are ordinary strings to every other map function). */
char *cg_keys_comm(Gen *g, const Symbol *arr, PtrVec *keys, unsigned int *comm)
{
	char **vals = xcalloc((size_t)keys->len + 1, sizeof *vals);
	char *k;

	if (comm)
		*comm = 0;
	for (int i = 0; i < keys->len; i++) {
		Expr *key = keys->items[i];
		if (arr->keytypes[i] == TY_STRING && is_execname_call(key)) {
			char *w = xasprintf("kw%d", g->ntmp++);
			sb_printf(&g->decls, "\tu64 STP_NOINIT %s[2];\n", w);   /* set by stp_comm_key */
			vals[i] = xasprintf("stp_comm_key(%s)", w);
			free(w);
			if (comm)
				*comm |= 1u << i;
			continue;
		}
		vals[i] = cg_expr(g, key);
		/* a later key with side effects must not change an earlier one */
		for (int j = i + 1; j < keys->len; j++) {
			if (cg_has_side_effects(keys->items[j])) {
				vals[i] = cg_materialize(g, vals[i], key->type);
				break;
			}
		}
	}
	k = xasprintf("k%d", g->ntmp++);
	/* every key is set below, before the array is read: no stack zeroing */
	sb_printf(&g->decls, "\tstruct stp_key STP_NOINIT %s[%d];\n", k, keys->len ? keys->len : 1);
	for (int i = 0; i < keys->len; i++) {
		if (arr->keytypes[i] == TY_STRING)
			cg_line(g, "%s[%d].s = %s;", k, i, vals[i]);
		else
			cg_line(g, "%s[%d].n = %s;", k, i, vals[i]);
	}
	free(vals);
	return k;
}

char *cg_keys(Gen *g, const Symbol *arr, PtrVec *keys)
{
	return cg_keys_comm(g, arr, keys, NULL);
}

