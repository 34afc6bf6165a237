/* translate.c - pass 3: turns the elaborated program into the module's C:
 * globals, frames, one C function per probe body and script function. */
#include "translate.h"
#include "builtins.h"
#include "format.h"
#include "parser.h"
#include "providers/provider.h"

#include <string.h>

/* Code generation state for one C function (a probe body or a script function). */
typedef struct Gen {
	Session *s;
	StrBuf body;            /* statements */
	StrBuf decls;           /* C locals, emitted before the statements */
	StrBuf *frame;          /* members of this function's frame struct */
	int ntmp;
	int indent;
	Function *fn;           /* NULL for a probe body */
	int out_used;           /* "goto out" was emitted */
	PtrVec loops;           /* LoopLabels* */
	int nloops;
} Gen;

typedef struct LoopLabels {
	int id;
	int break_used, continue_used;
} LoopLabels;

static void line(Gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(Gen *g, const char *fmt, ...)
{
	va_list ap;
	for (int i = 0; i < g->indent; i++)
		sb_putc(&g->body, '\t');
	va_start(ap, fmt);
	sb_vprintf(&g->body, fmt, ap);
	va_end(ap);
	sb_putc(&g->body, '\n');
}

static char *long_tmp(Gen *g)
{
	int n = g->ntmp++;
	sb_printf(&g->decls, "\tint64_t t%d;\n", n);
	return xasprintf("t%d", n);
}

static char *str_tmp(Gen *g)
{
	int n = g->ntmp++;
	sb_printf(g->frame, "\tchar t%d[MAXSTRINGLEN];\n", n);
	return xasprintf("f->t%d", n);
}

static char *named_local(Gen *g, const char *ctype, const char *prefix)
{
	int n = g->ntmp++;
	sb_printf(&g->decls, "\t%s %s%d;\n", ctype, prefix, n);
	return xasprintf("%s%d", prefix, n);
}

static void goto_out(Gen *g)
{
	g->out_used = 1;
	line(g, "goto out;");
}

static void check_error(Gen *g)
{
	g->out_used = 1;
	line(g, "if (unlikely(c->last_error)) goto out;");
}

/* Records where a runtime error would be reported ("near identifier 'x' at f:1:2"). */
static void set_location(Gen *g, const char *what, const char *name, SrcLoc loc)
{
	StrBuf sb;
	sb_init(&sb);
	sb_printf(&sb, "%s '%s' at %s:%d:%d", what, name, loc.file ? loc.file->name : "<input>", loc.line, loc.col);
	sb_puts(&g->body, "");
	for (int i = 0; i < g->indent; i++)
		sb_putc(&g->body, '\t');
	sb_puts(&g->body, "c->last_stmt = ");
	emit_c_string(&g->body, sb.data);
	sb_puts(&g->body, ";\n");
	sb_free(&sb);
}

static const char *op_name(int op)
{
	switch (op) {
	case '/': case DIV_ASSIGN: return "/";
	case '%': case MOD_ASSIGN: return "%";
	default: return "?";
	}
}

static int has_side_effects(const Expr *e)
{
	if (!e)
		return 0;
	switch (e->kind) {
	case EX_ASSIGN:
	case EX_INCDEC:
	case EX_CALL:
		return e->str != NULL || has_side_effects(e->left);
	case EX_INDEX:
		for (int i = 0; i < e->args.len; i++)
			if (has_side_effects(e->args.items[i]))
				return 1;
		return 0;
	default:
		return has_side_effects(e->left) || has_side_effects(e->right) || has_side_effects(e->cond);
	}
}

static char *var_ref(const Symbol *sym)
{
	if (sym->kind == SYM_GLOBAL)
		return xasprintf("g_%s", sym->name);
	return xasprintf("f->l_%s", sym->name);
}

static char *gen_expr(Gen *g, Expr *e);

/* Makes a value stable against later side effects by copying it. */
static char *materialize(Gen *g, const char *val, Type t)
{
	char *tmp = t == TY_STRING ? str_tmp(g) : long_tmp(g);
	if (t == TY_STRING)
		line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", tmp, val);
	else
		line(g, "%s = %s;", tmp, val);
	return tmp;
}

static char *c_long_literal(int64_t v)
{
	if (v == INT64_MIN)
		return xstrdup("(-9223372036854775807LL - 1)");
	return xasprintf("%lldLL", (long long)v);
}

static char *c_string_literal(const char *s)
{
	StrBuf sb;
	sb_init(&sb);
	emit_c_string(&sb, s);
	return sb_steal(&sb);
}

/* Evaluates array keys into a struct stp_key array; returns its name. */
static char *gen_keys(Gen *g, const Symbol *arr, PtrVec *keys)
{
	char **vals = xcalloc((size_t)keys->len + 1, sizeof *vals);
	char *k;

	for (int i = 0; i < keys->len; i++) {
		Expr *key = keys->items[i];
		vals[i] = gen_expr(g, key);
		/* a later key with side effects must not change an earlier one */
		for (int j = i + 1; j < keys->len; j++) {
			if (has_side_effects(keys->items[j])) {
				vals[i] = materialize(g, vals[i], key->type);
				break;
			}
		}
	}
	k = xasprintf("k%d", g->ntmp++);
	sb_printf(&g->decls, "\tstruct stp_key %s[%d];\n", k, keys->len ? keys->len : 1);
	for (int i = 0; i < keys->len; i++) {
		if (arr->keytypes[i] == TY_STRING)
			line(g, "%s[%d].s = %s;", k, i, vals[i]);
		else
			line(g, "%s[%d].n = %s;", k, i, vals[i]);
	}
	free(vals);
	return k;
}

static char *gen_print(Gen *g, Expr *e, const char *out, int newline)
{
	for (int i = 0; i < e->args.len; i++) {
		Expr *a = e->args.items[i];
		char *v = gen_expr(g, a);
		if (a->type == TY_STRING)
			line(g, "stp_out_str(%s, %s);", out, v);
		else
			line(g, "stp_out_long(%s, &stp_fmt_d, %s);", out, v);
	}
	if (newline)
		line(g, "stp_out_bytes(%s, \"\\n\", 1);", out);
	return xstrdup("0");
}

static char *gen_format(Gen *g, Expr *e, const char *out)
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

/* Replaces $0..$9 in a builtin's C template. */
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

static char *gen_user_call(Gen *g, Expr *e)
{
	Function *f = e->fn;
	char **vals = xcalloc((size_t)e->args.len + 1, sizeof *vals);
	char *nf, *result = NULL;

	for (int i = 0; i < e->args.len; i++) {
		vals[i] = gen_expr(g, e->args.items[i]);
		/* the callee's frame is reused by any later call: copy strings */
		if (((Expr *)e->args.items[i])->type == TY_STRING || i + 1 < e->args.len)
			vals[i] = materialize(g, vals[i], ((Expr *)e->args.items[i])->type);
	}
	nf = named_local(g, xasprintf("struct frame_fn_%s *", f->name), "nf");
	set_location(g, "function", f->name, e->loc);
	line(g, "%s = &stp_push_frame(c)->fn_%s;", nf, f->name);
	line(g, "if (unlikely(c->last_error)) goto out;");
	g->out_used = 1;
	for (int i = 0; i < f->params.len; i++) {
		Symbol *p = f->params.items[i];
		if (p->type == TY_STRING)
			line(g, "stp_strlcpy(%s->l_%s, %s, MAXSTRINGLEN);", nf, p->name, vals[i]);
		else
			line(g, "%s->l_%s = %s;", nf, p->name, vals[i]);
	}
	line(g, "fn_%s(c, %s);", f->name, nf);
	if (f->ret == TY_STRING) {
		result = str_tmp(g);
		line(g, "stp_strlcpy(%s, %s->retval, MAXSTRINGLEN);", result, nf);
	} else if (f->ret == TY_LONG) {
		result = long_tmp(g);
		line(g, "%s = %s->retval;", result, nf);
	}
	line(g, "c->nesting--;");
	check_error(g);
	free(vals);
	return result ? result : xstrdup("0");
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
		return gen_format(g, e, "&c->out");
	case BI_SPRINTF: {
		char *o = named_local(g, "struct stp_out", "o");
		char *dst = str_tmp(g);
		line(g, "stp_out_init_str(&%s, %s, MAXSTRINGLEN);", o, dst);
		gen_format(g, e, xasprintf("&%s", o));
		line(g, "stp_out_end_str(&%s);", o);
		return dst;
	}
	case BI_PRINT:
		return gen_print(g, e, "&c->out", 0);
	case BI_PRINTLN:
		return gen_print(g, e, "&c->out", 1);
	case BI_TEMPLATE:
		break;
	}
	vals = xcalloc((size_t)e->args.len + 1, sizeof *vals);
	for (int i = 0; i < e->args.len; i++)
		vals[i] = gen_expr(g, e->args.items[i]);
	if (b->ret == TY_STRING)
		result = str_tmp(g);
	text = expand_template(b->c_template, vals, result ? result : "");
	free(vals);
	if (b->ret == TY_UNKNOWN || b->can_fail) {
		if (b->can_fail)
			set_location(g, "function", b->name, e->loc);
		if (b->ret == TY_LONG) {
			char *t = long_tmp(g);
			line(g, "%s = %s;", t, text);
			text = t;
		} else {
			line(g, "%s;", text);
		}
		if (b->can_fail)
			check_error(g);
		return b->ret == TY_UNKNOWN ? xstrdup("0") : text;
	}
	return text;
}

static char *gen_logical(Gen *g, Expr *e)
{
	char *t = long_tmp(g);
	char *l = gen_expr(g, e->left);
	char *r;

	if (e->op == ANDAND) {
		line(g, "%s = 0;", t);
		line(g, "if (%s) {", l);
	} else {
		line(g, "%s = 1;", t);
		line(g, "if (!(%s)) {", l);
	}
	g->indent++;
	r = gen_expr(g, e->right);
	line(g, "%s = (%s) != 0;", t, r);
	g->indent--;
	line(g, "}");
	return t;
}

static const char *c_binop(int op)
{
	switch (op) {
	case EQ: return "==";
	case NE: return "!=";
	case LE: return "<=";
	case GE: return ">=";
	case '<': return "<";
	case '>': return ">";
	case '+': case ADD_ASSIGN: return "+";
	case '-': case SUB_ASSIGN: return "-";
	case '*': case MUL_ASSIGN: return "*";
	case '&': case AND_ASSIGN: return "&";
	case '|': case OR_ASSIGN: return "|";
	case '^': case XOR_ASSIGN: return "^";
	default: return NULL;
	}
}

/* l OP r for two long values, as a C expression or via a checked helper. */
static char *long_binop(Gen *g, int op, const char *l, const char *r, SrcLoc loc)
{
	const char *cop = c_binop(op);
	if (cop)
		return xasprintf("((int64_t)((uint64_t)(%s) %s (uint64_t)(%s)))", l, cop, r);
	switch (op) {
	case SHL: case SHL_ASSIGN:
		return xasprintf("stp_shl(%s, %s)", l, r);
	case SHR: case SHR_ASSIGN:
		return xasprintf("stp_shr(%s, %s)", l, r);
	case USHR:
		return xasprintf("stp_ushr(%s, %s)", l, r);
	case '/': case DIV_ASSIGN:
	case '%': case MOD_ASSIGN: {
		char *t = long_tmp(g);
		set_location(g, "operator", op_name(op), loc);
		line(g, "%s = stp_%s(c, %s, %s);", t, op == '/' || op == DIV_ASSIGN ? "div" : "mod", l, r);
		check_error(g);
		return t;
	}
	}
	return xstrdup("0");
}

static char *gen_binary(Gen *g, Expr *e)
{
	char *l, *r;

	if (e->op == ANDAND || e->op == OROR)
		return gen_logical(g, e);
	if (e->op == IN) {
		Symbol *arr = e->right->sym;
		PtrVec one = { 0 }, *keys = &one;
		char *k;
		if (e->left->kind == EX_CALL && !e->left->str)
			keys = &e->left->args;
		else
			vec_push(&one, e->left);
		k = gen_keys(g, arr, keys);
		return xasprintf("((int64_t)stp_map_exists(g_%s, %s))", arr->name, k);
	}
	l = gen_expr(g, e->left);
	if (has_side_effects(e->right))
		l = materialize(g, l, e->left->type);
	r = gen_expr(g, e->right);
	if (e->op == '.') {
		char *t = str_tmp(g);
		line(g, "stp_concat(%s, %s, %s);", t, l, r);
		return t;
	}
	if (e->left->type == TY_STRING) /* string comparison */
		return xasprintf("((int64_t)(strcmp(%s, %s) %s 0))", l, r, c_binop(e->op));
	if (c_binop(e->op) && (e->op == EQ || e->op == NE || e->op == '<' || e->op == '>' || e->op == LE ||
			       e->op == GE))
		return xasprintf("((int64_t)((%s) %s (%s)))", l, c_binop(e->op), r);
	return long_binop(g, e->op, l, r, e->loc);
}

/* Address of an array element's value slot, created if absent. */
static char *gen_slot(Gen *g, Expr *lhs, const char *keys)
{
	const char *ctype = lhs->type == TY_STRING ? "char *" : "int64_t *";
	char *p = named_local(g, ctype, "p");
	set_location(g, "identifier", lhs->str, lhs->loc);
	line(g, "%s = stp_map_slot_%s(c, g_%s, %s);", p, lhs->type == TY_STRING ? "str" : "long", lhs->sym->name, keys);
	line(g, "if (unlikely(!%s)) goto out;", p);
	g->out_used = 1;
	return p;
}

static char *gen_assign(Gen *g, Expr *e)
{
	Expr *lhs = e->left;
	char *keys = NULL, *rhs, *dst;
	Type t = lhs->type;

	if (lhs->kind == EX_INDEX)
		keys = gen_keys(g, lhs->sym, &lhs->args);
	rhs = gen_expr(g, e->right);
	if (lhs->kind == EX_INDEX)
		dst = xasprintf(t == TY_STRING ? "%s" : "(*%s)", gen_slot(g, lhs, keys));
	else
		dst = var_ref(lhs->sym);
	if (t == TY_STRING) {
		if (e->op == CAT_ASSIGN)
			line(g, "stp_strlcat(%s, %s, MAXSTRINGLEN);", dst, rhs);
		else
			line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", dst, rhs);
		return dst;
	}
	if (e->op == '=')
		line(g, "%s = %s;", dst, rhs);
	else
		line(g, "%s = %s;", dst, long_binop(g, e->op, dst, rhs, e->loc));
	if (lhs->kind == EX_INDEX)
		return materialize(g, dst, TY_LONG);
	return dst;
}

static char *gen_incdec(Gen *g, Expr *e)
{
	Expr *x = e->left;
	char *dst, *t = long_tmp(g);
	const char *op = e->op == INC ? "+" : "-";

	if (x->kind == EX_INDEX) {
		char *keys = gen_keys(g, x->sym, &x->args);
		dst = xasprintf("(*%s)", gen_slot(g, x, keys));
	} else {
		dst = var_ref(x->sym);
	}
	if (e->postfix) {
		line(g, "%s = %s;", t, dst);
		line(g, "%s = (int64_t)((uint64_t)%s %s 1);", dst, t, op);
	} else {
		line(g, "%s = (int64_t)((uint64_t)%s %s 1);", dst, dst, op);
		line(g, "%s = %s;", t, dst);
	}
	return t;
}

static char *gen_ternary(Gen *g, Expr *e)
{
	char *t = e->type == TY_STRING ? str_tmp(g) : long_tmp(g);
	char *cond = gen_expr(g, e->cond);
	char *v;

	line(g, "if (%s) {", cond);
	g->indent++;
	v = gen_expr(g, e->left);
	if (e->type == TY_STRING)
		line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", t, v);
	else
		line(g, "%s = %s;", t, v);
	g->indent--;
	line(g, "} else {");
	g->indent++;
	v = gen_expr(g, e->right);
	if (e->type == TY_STRING)
		line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", t, v);
	else
		line(g, "%s = %s;", t, v);
	g->indent--;
	line(g, "}");
	return t;
}

static char *gen_expr(Gen *g, Expr *e)
{
	switch (e->kind) {
	case EX_NUMBER:
		return c_long_literal(e->num);
	case EX_STRING:
		return c_string_literal(e->str);
	case EX_IDENT:
		return var_ref(e->sym);
	case EX_INDEX: {
		char *k = gen_keys(g, e->sym, &e->args);
		if (e->type == TY_STRING) {
			char *t = str_tmp(g);
			line(g, "stp_strlcpy(%s, stp_map_get_str(g_%s, %s), MAXSTRINGLEN);", t, e->sym->name, k);
			return t;
		}
		return materialize(g, xasprintf("stp_map_get_long(g_%s, %s)", e->sym->name, k), TY_LONG);
	}
	case EX_CALL:
		return gen_call(g, e);
	case EX_BINARY:
		return gen_binary(g, e);
	case EX_UNARY: {
		char *v = gen_expr(g, e->left);
		if (e->op == '-')
			return xasprintf("((int64_t)(0 - (uint64_t)(%s)))", v);
		if (e->op == '+')
			return v;
		return xasprintf("((int64_t)(%c(%s)))", e->op, v);
	}
	case EX_ASSIGN:
		return gen_assign(g, e);
	case EX_INCDEC:
		return gen_incdec(g, e);
	case EX_TERNARY:
		return gen_ternary(g, e);
	case EX_EMBEDDED:   /* guru mode or the library: a C expression */
		if (e->type == TY_STRING) {
			char *t = str_tmp(g);
			line(g, "stp_strlcpy(%s, (%s), MAXSTRINGLEN);", t, e->str);
			return t;
		}
		return materialize(g, xasprintf("((int64_t)(%s))", e->str), TY_LONG);
	case EX_TARGET:
	case EX_AT:
	case EX_AUTOCAST:
	case EX_WILDCARD:
		break;   /* pass 2 rejects these until they are implemented */
	}
	return xstrdup("0");
}

/* ---- statements ---- */

static void gen_stmt(Gen *g, Stmt *st);

static int counts_as_action(const Stmt *st)
{
	return st->kind != ST_BLOCK && st->kind != ST_EMPTY;
}

static void gen_block(Gen *g, Stmt *st)
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

static void gen_scoped(Gen *g, Stmt *st)
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

static void gen_stmt(Gen *g, Stmt *st)
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

/* ---- whole functions ---- */

static void frame_members(StrBuf *frame, PtrVec *syms)
{
	for (int i = 0; i < syms->len; i++) {
		Symbol *sym = syms->items[i];
		if (sym->type == TY_STRING)
			sb_printf(frame, "\tchar l_%s[MAXSTRINGLEN];\n", sym->name);
		else
			sb_printf(frame, "\tint64_t l_%s;\n", sym->name);
	}
}

static void init_locals(Gen *g, PtrVec *syms)
{
	for (int i = 0; i < syms->len; i++) {
		Symbol *sym = syms->items[i];
		if (sym->type == TY_STRING)
			line(g, "f->l_%s[0] = 0;", sym->name);
		else
			line(g, "f->l_%s = 0;", sym->name);
	}
}

/* Generates one C function; frame struct text goes to frames, code to code. */
static void gen_function_body(Session *s, const char *name, const char *signature, const char *prologue,
			      PtrVec *params, PtrVec *locals, Stmt *body, Function *fn, StrBuf *frames, StrBuf *code)
{
	Gen g = { .s = s, .fn = fn, .indent = 1 };
	StrBuf frame;

	sb_init(&g.body);
	sb_init(&g.decls);
	sb_init(&frame);
	g.frame = &frame;
	if (params)
		frame_members(&frame, params);
	frame_members(&frame, locals);
	if (fn && fn->ret == TY_STRING)
		sb_puts(&frame, "\tchar retval[MAXSTRINGLEN];\n");
	else if (fn && fn->ret == TY_LONG)
		sb_puts(&frame, "\tint64_t retval;\n");
	init_locals(&g, locals);
	if (fn && fn->ret == TY_STRING)
		line(&g, "f->retval[0] = 0;");
	else if (fn && fn->ret == TY_LONG)
		line(&g, "f->retval = 0;");
	gen_block(&g, body);

	sb_printf(frames, "struct frame_%s {\n\tchar unused_;\n%s};\n\n", name, frame.data);
	sb_printf(code, "%s\n{\n%s%s", signature, prologue, g.decls.data);
	sb_puts(code, g.body.data);
	if (g.out_used)
		sb_puts(code, "out:\n\t;\n");
	sb_puts(code, "}\n\n");
	sb_free(&g.body);
	sb_free(&g.decls);
	sb_free(&frame);
}

/* An embedded-C function: the same frame and calling convention as script
 * functions, with SystemTap's macros for its arguments and result. */
static void gen_embedded_function(Function *f, StrBuf *frames, StrBuf *code)
{
	int is_str = f->ret == TY_STRING;

	sb_printf(frames, "struct frame_fn_%s {\n\tchar unused_;\n", f->name);
	frame_members(frames, &f->params);
	if (is_str)
		sb_puts(frames, "\tchar retval[MAXSTRINGLEN];\n");
	else
		sb_puts(frames, "\tint64_t retval;\n");
	sb_puts(frames, "};\n\n");
	sb_printf(code, "static void fn_%s(struct stp_context *c, struct frame_fn_%s *f)\n{\n", f->name, f->name);
	sb_puts(code, "#define CONTEXT c\n#define THIS f\n#define STAP_RETVALUE (f->retval)\n");
	for (int i = 0; i < f->params.len; i++) {
		Symbol *p = f->params.items[i];
		sb_printf(code, "#define STAP_ARG_%s (f->l_%s)\n", p->name, p->name);
	}
	if (is_str)
		sb_puts(code, "#define STAP_RETURN(v) do { stp_strlcpy(f->retval, (v), MAXSTRINGLEN); goto stp_out; } while (0)\n");
	else
		sb_puts(code, "#define STAP_RETURN(v) do { f->retval = (v); goto stp_out; } while (0)\n");
	sb_puts(code, "#define STAP_ERROR(...) do { if (!c->last_error) { snprintf(c->error_buf, sizeof(c->error_buf), "
		      "__VA_ARGS__); stp_error(c, c->error_buf); } goto stp_out; } while (0)\n");
	sb_puts(code, is_str ? "\tf->retval[0] = 0;\n" : "\tf->retval = 0;\n");
	sb_printf(code, "\t{\n%s\n\t}\n\tgoto stp_out;\nstp_out:\n\t;\n", f->embedded);
	sb_puts(code, "#undef CONTEXT\n#undef THIS\n#undef STAP_RETVALUE\n#undef STAP_RETURN\n#undef STAP_ERROR\n");
	for (int i = 0; i < f->params.len; i++)
		sb_printf(code, "#undef STAP_ARG_%s\n", ((Symbol *)f->params.items[i])->name);
	sb_puts(code, "}\n\n");
}

/* ---- locks: which globals each probe touches ---- */

typedef struct Access {
	char *mode;             /* per global: 0 none, 1 read, 2 write */
	PtrVec seen_fns;        /* functions already followed */
	AstVisitor v;
} Access;

static void access_sym(Access *acc, Symbol *sym, int write)
{
	if (!sym || sym->kind != SYM_GLOBAL)
		return;
	if (acc->mode[sym->index] < (write ? 2 : 1))
		acc->mode[sym->index] = (char)(write ? 2 : 1);
}

static int access_in_stmt(Stmt *st, void *ctx)
{
	if (st->kind == ST_DELETE)
		access_sym(ctx, st->expr->sym, 1);
	return 0;
}

static int access_in_expr(Expr *e, void *ctx)
{
	Access *a = ctx;

	if (e->kind == EX_IDENT || e->kind == EX_INDEX)
		access_sym(a, e->sym, 0);
	if ((e->kind == EX_ASSIGN || e->kind == EX_INCDEC) && e->left->sym)
		access_sym(a, e->left->sym, 1);
	if (e->kind == EX_CALL && e->fn && first_visit(&a->seen_fns, e->fn))
		ast_walk_stmt(e->fn->body, &a->v);
	return 0;
}

static void gen_locks(Session *s, Probe *p, StrBuf *out)
{
	Program *prog = &s->prog;
	Access a = { .mode = xcalloc((size_t)prog->globals.len + 1, 1) };
	int n = 0;

	a.v = (AstVisitor){ access_in_stmt, access_in_expr, &a };
	ast_walk_stmt(p->body, &a.v);
	sb_printf(out, "static const struct stp_lock_req locks_probe_%d[] = {\n", p->index);
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (!a.mode[i])
			continue;
		sb_printf(out, "\t{ &lock_%s, %d },\n", g->name, a.mode[i] == 2);
		n++;
	}
	if (!n)
		sb_puts(out, "\t{ NULL, 0 },\n");
	sb_puts(out, "};\n");
	sb_printf(out, "#define NLOCKS_probe_%d %d\n\n", p->index, n);
	free(a.mode);
	free(a.seen_fns.items);
}

/* ---- globals ---- */

static const char *stp_type(Type t)
{
	return t == TY_STRING ? "STP_STRING" : "STP_LONG";
}

static void gen_globals(Session *s, StrBuf *decl, StrBuf *init, StrBuf *fini)
{
	Program *prog = &s->prog;

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		sb_printf(decl, "static stp_rwlock_t lock_%s;\n", g->name);
		if (g->is_array == 1) {
			sb_printf(decl, "static struct stp_map *g_%s;\n", g->name);
			sb_printf(init, "\t{\n\t\tstatic const u8 keytypes[] = { ");
			for (int k = 0; k < g->nkeys; k++)
				sb_printf(init, "%s%s", k ? ", " : "", stp_type(g->keytypes[k]));
			if (!g->nkeys)
				sb_puts(init, "0");
			sb_printf(init, " };\n\t\tg_%s = stp_map_new(\"%s\", %lld, %d, keytypes, %s);\n", g->name, g->name,
				  (long long)(g->max_entries ? g->max_entries : 0), g->nkeys, stp_type(g->type));
			sb_printf(init, "\t\tif (!g_%s)\n\t\t\treturn -ENOMEM;\n\t}\n", g->name);
			sb_printf(fini, "\tstp_map_free(g_%s);\n", g->name);
		} else if (g->type == TY_STRING) {
			sb_printf(decl, "static char g_%s[MAXSTRINGLEN];\n", g->name);
			if (g->init) {
				sb_printf(init, "\tstp_strlcpy(g_%s, ", g->name);
				emit_c_string(init, g->init->str);
				sb_puts(init, ", MAXSTRINGLEN);\n");
			}
		} else {
			sb_printf(decl, "static int64_t g_%s;\n", g->name);
			if (g->init)
				sb_printf(init, "\tg_%s = %s;\n", g->name, c_long_literal(g->init->num));
		}
	}
}

/* ---- what pass 2 accepts but code generation does not do yet ---- */

static int not_generated(SrcLoc loc, const char *what)
{
	diag_at(loc, "error", "%s not supported by the code generator yet", what);
	return 0;
}

static int unsupported_expr(Expr *e, void *ctx)
{
	(void)ctx;
	if (e->kind == EX_ASSIGN && e->op == AGG_ASSIGN)
		not_generated(e->loc, "statistics ('<<<') are");
	else if (e->kind == EX_AT)
		not_generated(e->loc, xasprintf("@%s is", e->str));
	else if (e->kind == EX_BINARY && (e->op == MATCH || e->op == NOMATCH))
		not_generated(e->loc, "regular expression matching is");
	else if (e->kind == EX_WILDCARD)
		not_generated(e->loc, "array slices ('*' keys) are");
	return 0;
}

static int unsupported_stmt(Stmt *st, void *ctx)
{
	(void)ctx;
	if (st->kind == ST_TRY)
		not_generated(st->loc, "try/catch is");
	if (st->kind == ST_FOREACH && (st->value || st->sort_on || st->limit || st->slice.len ||
				       st->array->kind == EX_AT))
		not_generated(st->loc, "sorted foreach, 'limit', value variables and histogram buckets are");
	return 0;
}

static int check_generated(Session *s)
{
	Program *prog = &s->prog;
	AstVisitor v = { unsupported_stmt, unsupported_expr, NULL };
	int before = diag_error_count();

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (g->wrap)
			not_generated(g->loc, xasprintf("wrapping arrays ('%s%%') are", g->name));
		if (g->type == TY_STATS)
			not_generated(g->loc, xasprintf("statistics ('%s') are", g->name));
	}
	for (int i = 0; i < prog->functions.len; i++)
		ast_walk_stmt(((Function *)prog->functions.items[i])->body, &v);
	for (int i = 0; i < prog->probes.len; i++)
		ast_walk_stmt(((Probe *)prog->probes.items[i])->body, &v);
	return diag_error_count() - before;
}

/* ---- the whole module ---- */

int translate(Session *s, StrBuf *out)
{
	Program *prog = &s->prog;
	StrBuf frames, code, gdecl, ginit, gfini, tables;
	/* armed in this order, disarmed in reverse: error probes run last */
	const char *families[] = { "error", "end", "begin", "timer", "kprobe" };

	if (check_generated(s))
		return diag_error_count();
	sb_init(&frames);
	sb_init(&code);
	sb_init(&gdecl);
	sb_init(&ginit);
	sb_init(&gfini);
	sb_init(&tables);

	gen_globals(s, &gdecl, &ginit, &gfini);
	/* every function is declared before any body calls it */
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		sb_printf(&code, "static void fn_%s(struct stp_context *c, struct frame_fn_%s *f);\n", f->name, f->name);
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (f->embedded) {
			gen_embedded_function(f, &frames, &code);
			continue;
		}
		char *name = xasprintf("fn_%s", f->name);
		char *sig = xasprintf("static void fn_%s(struct stp_context *c, struct frame_fn_%s *f)", f->name, f->name);
		gen_function_body(s, name, sig, "", &f->params, &f->locals, f->body, f, &frames, &code);
	}
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		char *name = xasprintf("probe_%d", p->index);
		char *sig = xasprintf("static void probe_%d(struct stp_context *c)", p->index);
		/* the handler's frame is the bottom of the context's frame stack */
		char *prologue = xasprintf("\tstruct frame_probe_%d *f = &((union stp_frame *)c->frames)->probe_%d;\n",
					   p->index, p->index);
		gen_function_body(s, name, sig, prologue, NULL, &p->locals, p->body, NULL, &frames, &code);
		gen_locks(s, p, &tables);
	}

	sb_puts(out, "/* Generated by stap: do not edit. */\n");
	sb_printf(out, "#define STP_MODULE_NAME \"%s\"\n", s->module_name);
	for (int i = 0; i < s->defines.len; i++) {
		char *d = xstrdup(s->defines.items[i]);
		char *eq = strchr(d, '=');
		if (eq)
			*eq = ' ';
		sb_printf(out, "#define %s\n", d);
		free(d);
	}
	if (prog->call_depth >= 0)
		sb_printf(out, "#define STP_CALL_DEPTH %d   /* no recursion: the deepest call chain */\n", prog->call_depth);
	sb_puts(out, "#include \"runtime.h\"\n\n");
	if (prog->embedded.len) {
		sb_puts(out, "/* embedded C of the script (guru mode) and the tapset library */\n");
		for (int i = 0; i < prog->embedded.len; i++)
			sb_printf(out, "%s\n", ((Expr *)prog->embedded.items[i])->str);
		sb_puts(out, "\n");
	}
	sb_puts(out, "/* globals */\n");
	sb_puts(out, gdecl.data);
	sb_puts(out, "\n/* frames: locals and temporaries of probes and functions */\n");
	sb_puts(out, frames.data);
	sb_puts(out, "union stp_frame {\n");
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		sb_printf(out, "\tstruct frame_fn_%s fn_%s;\n", f->name, f->name);
	}
	for (int i = 0; i < prog->probes.len; i++)
		sb_printf(out, "\tstruct frame_probe_%d probe_%d;\n", i, i);
	sb_puts(out, "};\n#define STP_FRAME_SIZE sizeof(union stp_frame)\n");
	sb_puts(out, "#include \"core/frames.h\"\n\n");
	sb_puts(out, "/* probe bodies and functions */\n");
	sb_puts(out, code.data);
	sb_puts(out, "/* globals each probe locks */\n");
	sb_puts(out, tables.data);

	sb_puts(out, "/* probe descriptors */\n");
	sb_printf(out, "static const struct stp_probe_desc stp_descs[%d] = {\n", s->derived.len);
	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		sb_printf(out, "\t{ .handler = probe_%d, .locks = locks_probe_%d, .nlocks = NLOCKS_probe_%d, .pp = ",
			  dp->probe->index, dp->probe->index, dp->probe->index);
		emit_c_string(out, dp->name);
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n\n");

	sb_puts(out, "/* probe families */\n");
	{
		StrBuf reg;
		sb_init(&reg);
		for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
			const ProbeProvider *prov = provider_find(families[f]);
			DerivedProbe **dps = xcalloc((size_t)s->derived.len + 1, sizeof *dps);
			int n = 0;
			for (int i = 0; i < s->derived.len; i++) {
				DerivedProbe *dp = s->derived.items[i];
				if (dp->provider == prov)
					dps[n++] = dp;
			}
			if (n) {
				prov->emit(s, dps, n, out);
				sb_printf(&reg, "\t{ \"%s\", stp_%s_register, stp_%s_unregister },\n", prov->family,
					  prov->family, prov->family);
			}
			free(dps);
		}
		sb_puts(out, "static const struct stp_provider stp_providers[] = {\n");
		sb_puts(out, reg.data);
		sb_puts(out, "};\n\n");
		sb_free(&reg);
	}

	sb_puts(out, "static int stp_globals_init(void)\n{\n");
	for (int i = 0; i < prog->globals.len; i++)
		sb_printf(out, "\tstp_rwlock_init(&lock_%s);\n", ((Symbol *)prog->globals.items[i])->name);
	sb_puts(out, ginit.data);
	sb_puts(out, "\treturn 0;\n}\n\n");
	sb_puts(out, "static void stp_globals_free(void)\n{\n");
	sb_puts(out, gfini.data);
	sb_puts(out, "}\n\n");
	sb_puts(out, "#include \"core/module.c\"\n");

	sb_free(&frames);
	sb_free(&code);
	sb_free(&gdecl);
	sb_free(&ginit);
	sb_free(&gfini);
	sb_free(&tables);
	return 0;
}
