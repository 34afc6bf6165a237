/* ast.c - syntax tree constructors and the pass-1 printer that writes a
 * program back in normalized form (stap -p1).  Used by parser and driver. */
#include "ast.h"
#include "parser.h"

#include <string.h>

const char *type_name(Type t)
{
	switch (t) {
	case TY_LONG: return "long";
	case TY_STRING: return "string";
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
		return rc;
	for (int i = 0; i < e->args.len; i++)
		if ((rc = ast_walk_expr(e->args.items[i], v)) != 0)
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
		return rc;
	for (int i = 0; i < st->body.len; i++)
		if ((rc = ast_walk_stmt(st->body.items[i], v)) != 0)
			return rc;
	for (int i = 0; i < st->keys.len; i++)
		if ((rc = ast_walk_expr(st->keys.items[i], v)) != 0)
			return rc;
	if ((rc = ast_walk_expr(st->array, v)) != 0 || (rc = ast_walk_expr(st->init, v)) != 0 ||
	    (rc = ast_walk_expr(st->expr, v)) != 0 || (rc = ast_walk_expr(st->step, v)) != 0 ||
	    (rc = ast_walk_stmt(st->then, v)) != 0)
		return rc;
	return ast_walk_stmt(st->els, v);
}

int first_visit(PtrVec *seen, void *fn)
{
	for (int i = 0; i < seen->len; i++)
		if (seen->items[i] == fn)
			return 0;
	vec_push(seen, fn);
	return 1;
}

static const char *op_text(int op)
{
	static char one[2];
	switch (op) {
	case EQ: return "==";
	case NE: return "!=";
	case LE: return "<=";
	case GE: return ">=";
	case ANDAND: return "&&";
	case OROR: return "||";
	case SHL: return "<<";
	case SHR: return ">>";
	case INC: return "++";
	case DEC: return "--";
	case IN: return "in";
	case ADD_ASSIGN: return "+=";
	case SUB_ASSIGN: return "-=";
	case MUL_ASSIGN: return "*=";
	case DIV_ASSIGN: return "/=";
	case MOD_ASSIGN: return "%=";
	case CAT_ASSIGN: return ".=";
	case AND_ASSIGN: return "&=";
	case OR_ASSIGN: return "|=";
	case XOR_ASSIGN: return "^=";
	case SHL_ASSIGN: return "<<=";
	case SHR_ASSIGN: return ">>=";
	default:
		one[0] = (char)op;
		one[1] = 0;
		return one;
	}
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

void print_expr(const Expr *e, StrBuf *out)
{
	switch (e->kind) {
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

static void print_stmt(const Stmt *s, int depth, StrBuf *out)
{
	switch (s->kind) {
	case ST_BLOCK:
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
		break;
	case ST_EXPR:
		print_expr(s->expr, out);
		break;
	case ST_EMPTY:
		sb_putc(out, ';');
		break;
	case ST_IF:
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
		break;
	case ST_WHILE:
		sb_puts(out, "while (");
		print_expr(s->expr, out);
		sb_putc(out, ')');
		print_body(s->then, depth, out);
		break;
	case ST_FOR:
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
		break;
	case ST_FOREACH:
		sb_puts(out, "foreach (");
		if (s->keys.len == 1) {
			print_expr(s->keys.items[0], out);
		} else {
			sb_putc(out, '[');
			print_args(&s->keys, out);
			sb_putc(out, ']');
		}
		sb_printf(out, " in %s)", s->array->str);
		print_body(s->then, depth, out);
		break;
	case ST_BREAK: sb_puts(out, "break"); break;
	case ST_CONTINUE: sb_puts(out, "continue"); break;
	case ST_NEXT: sb_puts(out, "next"); break;
	case ST_RETURN:
		sb_puts(out, "return");
		if (s->expr) {
			sb_putc(out, ' ');
			print_expr(s->expr, out);
		}
		break;
	case ST_DELETE:
		sb_puts(out, "delete ");
		print_expr(s->expr, out);
		break;
	}
}

void print_probe_point(const ProbePoint *pp, StrBuf *out)
{
	for (int i = 0; i < pp->components.len; i++) {
		const ProbePointComponent *c = pp->components.items[i];
		if (i)
			sb_putc(out, '.');
		sb_puts(out, c->name);
		if (c->arg) {
			sb_putc(out, '(');
			print_expr(c->arg, out);
			sb_putc(out, ')');
		}
	}
}

void print_program(const Program *prog, StrBuf *out)
{
	for (int i = 0; i < prog->globals.len; i++) {
		const Symbol *g = prog->globals.items[i];
		sb_printf(out, "global %s", g->name);
		if (g->max_entries)
			sb_printf(out, "[%lld]", (long long)g->max_entries);
		if (g->init) {
			sb_puts(out, " = ");
			print_expr(g->init, out);
		}
		sb_putc(out, '\n');
	}
	for (int i = 0; i < prog->functions.len; i++) {
		const Function *f = prog->functions.items[i];
		sb_printf(out, "function %s(", f->name);
		for (int j = 0; j < f->params.len; j++)
			sb_printf(out, "%s%s", j ? ", " : "", ((Symbol *)f->params.items[j])->name);
		sb_puts(out, ") ");
		print_stmt(f->body, 0, out);
		sb_putc(out, '\n');
	}
	for (int i = 0; i < prog->probes.len; i++) {
		const Probe *p = prog->probes.items[i];
		sb_puts(out, "probe ");
		for (int j = 0; j < p->points.len; j++) {
			if (j)
				sb_puts(out, ", ");
			print_probe_point(p->points.items[j], out);
		}
		sb_putc(out, ' ');
		print_stmt(p->body, 0, out);
		sb_putc(out, '\n');
	}
}
