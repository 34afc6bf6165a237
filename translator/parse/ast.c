/* ast.c - syntax tree constructors and the pass-1 printer that writes a
 * program back in normalized form (stap -p1).  Used by parser and driver. */
#include "parse/ast.h"

#include <string.h>

const char *type_name(Type t)
{
	switch (t) {
	case TY_LONG: return "long";
	case TY_STRING: return "string";
	case TY_STATS: return "stats";
	default: return "unknown";
	}
}

Expr *expr_new(ExprKind kind, SrcLoc loc)
{
	Expr *e = xcalloc(1, sizeof *e);
	e->kind = kind;
	e->loc = loc;
	return e;
}

Expr *expr_and(Expr *a, Expr *b)
{
	Expr *e;

	if (!a)
		return b;
	if (!b)
		return a;
	e = expr_new(EX_BINARY, b->loc);
	e->op = OP_AND;
	e->left = a;
	e->right = b;
	return e;
}

Stmt *stmt_new(StmtKind kind, SrcLoc loc)
{
	Stmt *s = xcalloc(1, sizeof *s);
	s->kind = kind;
	s->loc = loc;
	return s;
}

Symbol *symbol_new(const char *name, SymbolKind kind, SrcLoc loc)
{
	Symbol *s = xcalloc(1, sizeof *s);
	s->name = xstrdup(name);
	s->kind = kind;
	s->loc = loc;
	s->is_array = -1;
	return s;
}

int ast_walk_expr(Expr *e, const AstVisitor *v)
{
	int rc;

	if (!e)
		return 0;
	if (v->expr && (rc = v->expr(e, v->ctx)) != 0)
		return rc == AST_WALK_SKIP ? 0 : rc;
	for (int i = 0; i < e->args.len; i++)
		if ((rc = ast_walk_expr(e->args.items[i], v)) != 0)
			return rc;
	for (int i = 0; i < e->chain.len; i++)
		if ((rc = ast_walk_expr(((ChainItem *)e->chain.items[i])->index, v)) != 0)
			return rc;
	if ((rc = ast_walk_expr(e->cond, v)) != 0 || (rc = ast_walk_expr(e->left, v)) != 0)
		return rc;
	return ast_walk_expr(e->right, v);
}

int ast_walk_stmt(Stmt *st, const AstVisitor *v)
{
	int rc;

	if (!st)
		return 0;
	if (v->stmt && (rc = v->stmt(st, v->ctx)) != 0)
		return rc == AST_WALK_SKIP ? 0 : rc;
	for (int i = 0; i < st->body.len; i++)
		if ((rc = ast_walk_stmt(st->body.items[i], v)) != 0)
			return rc;
	for (int i = 0; i < st->keys.len; i++)
		if ((rc = ast_walk_expr(st->keys.items[i], v)) != 0)
			return rc;
	for (int i = 0; i < st->slice.len; i++)     /* foreach (k in a[x, *]): x is read */
		if ((rc = ast_walk_expr(st->slice.items[i], v)) != 0)
			return rc;
	if ((rc = ast_walk_expr(st->value, v)) != 0 || (rc = ast_walk_expr(st->limit, v)) != 0 ||
	    (rc = ast_walk_expr(st->catch_var, v)) != 0)
		return rc;
	if ((rc = ast_walk_expr(st->array, v)) != 0 || (rc = ast_walk_expr(st->init, v)) != 0 ||
	    (rc = ast_walk_expr(st->expr, v)) != 0 || (rc = ast_walk_expr(st->step, v)) != 0 ||
	    (rc = ast_walk_stmt(st->then, v)) != 0)
		return rc;
	return ast_walk_stmt(st->els, v);
}

void ast_walk_program(const Program *prog, const AstVisitor *v)
{
	for (int i = 0; i < prog->functions.len; i++)
		ast_walk_stmt(((Function *)prog->functions.items[i])->body, v);
	for (int i = 0; i < prog->probes.len; i++)
		ast_walk_stmt(((Probe *)prog->probes.items[i])->body, v);
}

int first_visit(PtrVec *seen, void *fn)
{
	for (int i = 0; i < seen->len; i++)
		if (seen->items[i] == fn)
			return 0;
	vec_push(seen, fn);
	return 1;
}

const char *op_text(Operator op)
{
	static const char *const text[] = {
		[OP_NONE] = "",
		[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/", [OP_MOD] = "%",
		[OP_BITAND] = "&", [OP_BITOR] = "|", [OP_BITXOR] = "^",
		[OP_SHL] = "<<", [OP_SHR] = ">>", [OP_USHR] = ">>>", [OP_CONCAT] = ".",
		[OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<", [OP_GT] = ">", [OP_LE] = "<=", [OP_GE] = ">=",
		[OP_MATCH] = "=~", [OP_NOMATCH] = "!~", [OP_AND] = "&&", [OP_OR] = "||", [OP_IN] = "in",
		[OP_NEG] = "-", [OP_PLUS] = "+", [OP_NOT] = "!", [OP_BITNOT] = "~", [OP_ADDR] = "&",
		[OP_ASSIGN] = "=", [OP_ADD_ASSIGN] = "+=", [OP_SUB_ASSIGN] = "-=", [OP_MUL_ASSIGN] = "*=",
		[OP_DIV_ASSIGN] = "/=", [OP_MOD_ASSIGN] = "%=", [OP_CAT_ASSIGN] = ".=", [OP_AND_ASSIGN] = "&=",
		[OP_OR_ASSIGN] = "|=", [OP_XOR_ASSIGN] = "^=", [OP_SHL_ASSIGN] = "<<=", [OP_SHR_ASSIGN] = ">>=",
		[OP_AGG_ASSIGN] = "<<<", [OP_INC] = "++", [OP_DEC] = "--", [OP_HIST_BARE] = "",
	};
	return (unsigned)op < sizeof text / sizeof text[0] && text[op] ? text[op] : "?";
}

/* Writes s as a script string literal with escapes. */
static void print_string_literal(const char *s, StrBuf *out)
{
	sb_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '\n': sb_puts(out, "\\n"); break;
		case '\t': sb_puts(out, "\\t"); break;
		case '\r': sb_puts(out, "\\r"); break;
		case '"': sb_puts(out, "\\\""); break;
		case '\\': sb_puts(out, "\\\\"); break;
		default:
			if (c < 32 || c >= 127)
				sb_printf(out, "\\%03o", c);
			else
				sb_putc(out, (char)c);
		}
	}
	sb_putc(out, '"');
}

static void print_args(const PtrVec *args, StrBuf *out)
{
	for (int i = 0; i < args->len; i++) {
		if (i)
			sb_puts(out, ", ");
		print_expr(args->items[i], out);
	}
}

static void print_chain(const PtrVec *chain, StrBuf *out)
{
	for (int i = 0; i < chain->len; i++) {
		const ChainItem *c = chain->items[i];
		if (c->kind == CH_MEMBER) {
			sb_printf(out, "->%s", c->name);
		} else if (c->kind == CH_INDEX) {
			sb_putc(out, '[');
			print_expr(c->index, out);
			sb_putc(out, ']');
		} else {
			sb_puts(out, c->name);
		}
	}
}

void print_expr(const Expr *e, StrBuf *out)
{
	switch (e->kind) {
	case EX_TARGET:
		sb_puts(out, e->str);
		print_chain(&e->chain, out);
		break;
	case EX_AT:
		sb_printf(out, "@%s(", e->str);
		print_args(&e->args, out);
		sb_putc(out, ')');
		print_chain(&e->chain, out);
		break;
	case EX_EMBEDDED:
		sb_printf(out, "%%{%s%%}", e->str);
		break;
	case EX_AUTOCAST:
		sb_putc(out, '(');
		print_expr(e->left, out);
		sb_putc(out, ')');
		print_chain(&e->chain, out);
		break;
	case EX_WILDCARD:
		sb_putc(out, '*');
		break;
	case EX_CONTEXT:   /* only after pass 2: its name */
		sb_puts(out, e->str);
		break;
	case EX_BOUND:   /* only after pass 2: what it was bound from */
		if (e->left) {
			sb_puts(out, "@entry(");
			print_expr(e->left, out);
			sb_putc(out, ')');
		} else {
			sb_printf(out, "%s%s", e->str && e->str[0] == '$' ? "" : "@", e->str ? e->str : "?");
		}
		break;
	case EX_NUMBER:
		sb_printf(out, "%lld", (long long)e->num);
		break;
	case EX_STRING:
		print_string_literal(e->str, out);
		break;
	case EX_IDENT:
		sb_puts(out, e->str);
		break;
	case EX_INDEX:
		sb_printf(out, "%s[", e->str);
		print_args(&e->args, out);
		sb_putc(out, ']');
		break;
	case EX_CALL:
		if (e->str) {
			sb_printf(out, "%s(", e->str);
			print_args(&e->args, out);
			sb_putc(out, ')');
		} else {   /* key list of "[a, b] in arr" */
			sb_putc(out, '[');
			print_args(&e->args, out);
			sb_putc(out, ']');
		}
		break;
	case EX_BINARY:
	case EX_ASSIGN:
		sb_putc(out, '(');
		print_expr(e->left, out);
		sb_printf(out, " %s ", op_text(e->op));
		print_expr(e->right, out);
		sb_putc(out, ')');
		break;
	case EX_UNARY:
		if (e->op == OP_ADDR) {   /* &$var->member: the operand is never parenthesized */
			sb_putc(out, '&');
			print_expr(e->left, out);
			break;
		}
		sb_printf(out, "%s(", op_text(e->op));
		print_expr(e->left, out);
		sb_putc(out, ')');
		break;
	case EX_INCDEC:
		if (!e->postfix)
			sb_puts(out, op_text(e->op));
		print_expr(e->left, out);
		if (e->postfix)
			sb_puts(out, op_text(e->op));
		break;
	case EX_TERNARY:
		sb_putc(out, '(');
		print_expr(e->cond, out);
		sb_puts(out, " ? ");
		print_expr(e->left, out);
		sb_puts(out, " : ");
		print_expr(e->right, out);
		sb_putc(out, ')');
		break;
	}
}

static void indent(int depth, StrBuf *out)
{
	for (int i = 0; i < depth; i++)
		sb_puts(out, "  ");
}

static void print_stmt(const Stmt *s, int depth, StrBuf *out);

static void print_body(const Stmt *s, int depth, StrBuf *out)
{
	if (s->kind == ST_BLOCK) {
		sb_putc(out, ' ');
		print_stmt(s, depth, out);
	} else {
		sb_putc(out, '\n');
		indent(depth + 1, out);
		print_stmt(s, depth + 1, out);
	}
}

static void print_block(const Stmt *s, int depth, StrBuf *out)
{
	sb_puts(out, "{\n");
	for (int i = 0; i < s->body.len; i++) {
		if (((Stmt *)s->body.items[i])->kind == ST_EMPTY)
			continue;
		indent(depth + 1, out);
		print_stmt(s->body.items[i], depth + 1, out);
		sb_putc(out, '\n');
	}
	indent(depth, out);
	sb_putc(out, '}');
}

static void print_if(const Stmt *s, int depth, StrBuf *out)
{
	sb_puts(out, "if (");
	print_expr(s->expr, out);
	sb_putc(out, ')');
	print_body(s->then, depth, out);
	if (s->els) {
		sb_putc(out, '\n');
		indent(depth, out);
		sb_puts(out, "else");
		print_body(s->els, depth, out);
	}
}

static void print_for(const Stmt *s, int depth, StrBuf *out)
{
	sb_puts(out, "for (");
	if (s->init)
		print_expr(s->init, out);
	sb_puts(out, "; ");
	if (s->expr)
		print_expr(s->expr, out);
	sb_puts(out, "; ");
	if (s->step)
		print_expr(s->step, out);
	sb_putc(out, ')');
	print_body(s->then, depth, out);
}

/* "[v = ][k1+, k2]": the value, the keys and the key sorted on */
static void print_foreach_variables(const Stmt *s, const char *mark, StrBuf *out)
{
	if (s->value)
		sb_printf(out, "%s = ", s->value->str);
	if (s->keys_bracketed)
		sb_putc(out, '[');
	for (int i = 0; i < s->keys.len; i++)
		sb_printf(out, "%s%s%s", i ? ", " : "", ((Expr *)s->keys.items[i])->str,
			  s->sort_on == i + 1 ? mark : "");
	if (s->keys_bracketed)
		sb_putc(out, ']');
}

static void print_foreach(const Stmt *s, int depth, StrBuf *out)
{
	const char *mark = s->sort_dir > 0 ? "+" : "-";
	sb_puts(out, "foreach (");
	print_foreach_variables(s, mark, out);
	sb_puts(out, " in ");
	print_expr(s->array, out);
	if (s->slice.len) {
		sb_putc(out, '[');
		print_args(&s->slice, out);
		sb_putc(out, ']');
	}
	if (s->sort_on == -1)
		sb_printf(out, "%s%s%s", s->sort_agg ? " @" : "", s->sort_agg ? s->sort_agg : "", mark);
	if (s->limit) {
		sb_puts(out, " limit ");
		print_expr(s->limit, out);
	}
	sb_putc(out, ')');
	print_body(s->then, depth, out);
}

static void print_try(const Stmt *s, int depth, StrBuf *out)
{
	sb_puts(out, "try ");
	print_stmt(s->then, depth, out);
	sb_puts(out, " catch");
	if (s->catch_var)
		sb_printf(out, " (%s)", s->catch_var->str);
	sb_putc(out, ' ');
	print_stmt(s->els, depth, out);
}

static void print_stmt(const Stmt *s, int depth, StrBuf *out)
{
	switch (s->kind) {
	case ST_BLOCK:
		print_block(s, depth, out);
		break;
	case ST_EXPR:
		print_expr(s->expr, out);
		sb_putc(out, ';');   /* "i++; --j" must not read as "(i++)--" */
		break;
	case ST_EMPTY:
		sb_putc(out, ';');
		break;
	case ST_IF:
		print_if(s, depth, out);
		break;
	case ST_WHILE:
		sb_puts(out, "while (");
		print_expr(s->expr, out);
		sb_putc(out, ')');
		print_body(s->then, depth, out);
		break;
	case ST_FOR:
		print_for(s, depth, out);
		break;
	case ST_FOREACH:
		print_foreach(s, depth, out);
		break;
	case ST_TRY:
		print_try(s, depth, out);
		break;
	case ST_BREAK: sb_puts(out, "break;"); break;
	case ST_CONTINUE: sb_puts(out, "continue;"); break;
	case ST_NEXT: sb_puts(out, "next;"); break;
	case ST_RETURN:
		sb_puts(out, "return");
		if (s->expr) {
			sb_putc(out, ' ');
			print_expr(s->expr, out);
		}
		sb_putc(out, ';');
		break;
	case ST_DELETE:
		sb_puts(out, "delete ");
		print_expr(s->expr, out);
		sb_putc(out, ';');
		break;
	}
}

void print_probe_point(const ProbePoint *pp, StrBuf *out);

static void print_point_path(const ProbePoint *pp, StrBuf *out)
{
	for (int i = 0; i < pp->components.len; i++) {
		const ProbePointComponent *c = pp->components.items[i];
		if (i)
			sb_putc(out, '.');
		if (!c->name) {
			sb_putc(out, '{');
			for (int j = 0; j < c->alts.len; j++) {
				if (j)
					sb_puts(out, ", ");
				print_probe_point(c->alts.items[j], out);
			}
			sb_putc(out, '}');
			continue;
		}
		sb_puts(out, c->name);
		if (c->arg) {
			sb_putc(out, '(');
			print_expr(c->arg, out);
			sb_putc(out, ')');
		}
	}
}

void print_probe_point(const ProbePoint *pp, StrBuf *out)
{
	print_point_path(pp, out);
	if (pp->optional)
		sb_putc(out, '?');
	if (pp->sufficient)
		sb_putc(out, '!');
	if (pp->cond) {
		sb_puts(out, " if (");
		print_expr(pp->cond, out);
		sb_putc(out, ')');
	}
}

static void print_point_list(const PtrVec *points, StrBuf *out)
{
	for (int j = 0; j < points->len; j++) {
		if (j)
			sb_puts(out, ", ");
		print_probe_point(points->items[j], out);
	}
}

static void print_global(const Symbol *g, StrBuf *out)
{
	sb_printf(out, "%sglobal %s", g->is_private ? "private " : "", g->name);
	if (g->wrap)
		sb_putc(out, '%');
	if (g->max_entries)
		sb_printf(out, "[%lld]", (long long)g->max_entries);
	else if (g->is_array == 1 && !g->wrap)
		sb_puts(out, "[]");
	if (g->init) {
		sb_puts(out, " = ");
		print_expr(g->init, out);
	}
	sb_putc(out, '\n');
}

static void print_function(const Function *f, StrBuf *out)
{
	sb_printf(out, "%sfunction %s", f->is_private ? "private " : "", f->name);
	if (f->declared_ret)
		sb_printf(out, ":%s", type_name(f->ret));
	sb_putc(out, '(');
	for (int j = 0; j < f->params.len; j++) {
		const Symbol *p = f->params.items[j];
		sb_printf(out, "%s%s", j ? ", " : "", p->name);
		if (p->declared_type)
			sb_printf(out, ":%s", type_name(p->type));
	}
	sb_putc(out, ')');
	if (f->has_priority)
		sb_printf(out, " :%lld", (long long)f->priority);
	sb_putc(out, ' ');
	if (f->embedded)
		sb_printf(out, "%%{%s%%}", f->embedded);
	else
		print_stmt(f->body, 0, out);
	sb_putc(out, '\n');
}

void print_program(const Program *prog, StrBuf *out)
{
	for (int i = 0; i < prog->embedded.len; i++) {
		print_expr(prog->embedded.items[i], out);
		sb_putc(out, '\n');
	}
	for (int i = 0; i < prog->globals.len; i++)
		print_global(prog->globals.items[i], out);
	for (int i = 0; i < prog->functions.len; i++)
		print_function(prog->functions.items[i], out);
	for (int i = 0; i < prog->probes.len; i++) {
		const Probe *p = prog->probes.items[i];
		sb_puts(out, "probe ");
		if (p->alias != ALIAS_NONE) {
			print_point_list(&p->alias_names, out);
			sb_puts(out, p->alias == ALIAS_PROLOGUE ? " = " : " += ");
		}
		print_point_list(&p->points, out);
		sb_putc(out, ' ');
		print_stmt(p->body, 0, out);
		if (p->epilogue) {
			sb_puts(out, ", ");
			print_stmt(p->epilogue, 0, out);
		}
		sb_putc(out, '\n');
	}
}

/* @count ... @hist_linear: the statistics operators. */
int is_stats_op(const char *name)
{
	static const char *const ops[] = { "count", "sum", "min", "max", "avg", "variance", "hist_log", "hist_linear" };
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!strcmp(ops[i], name))
			return 1;
	return 0;
}
