/* autocast.c - pass 2: "->" on a value whose type a function gives (autocast): f()->member and
 * &f()->member become @cast(f(), "TYPE"[, "MODULE"])->member before DWARF binding. Used by elaborate.c.
 *
 * A function gives a type when every return of its body is @cast(value, "TYPE"[, "MODULE"]) (or
 * &@cast(value, ...), the typed pointer @container_of gives) with no member after it (or the call of a function giving one type), or, for an embedded-C
 * function of the library, with the pragma comment autocast: TYPE [MODULE] in its body
 * (task_current: the DWARF is only needed where "->" is used). A local assigned only such values
 * carries the type too (t = task_current(); t->pid). What has no type is left as it was: pass 2
 * then refuses it. */
#include "elaborate/autocast.h"

#include <string.h>

#include "parse/ast.h"
#include "elaborate/optimize.h"
#include "lib/util.h"

#define AUTOCAST_MAX_DEPTH 16   /* return f() of return g() ... followed this far */

static int is_plain_cast(const Expr *e)
{
	if (e->kind != EX_AT || strcmp(e->str, "cast") || e->chain.len || e->args.len < 2)
		return 0;
	for (int i = 1; i < e->args.len; i++)
		if (((Expr *)e->args.items[i])->kind != EX_STRING)
			return 0;
	return 1;
}

static int same_type(const Expr *a, const Expr *b)
{
	if (a->args.len != b->args.len)
		return 0;
	for (int i = 1; i < a->args.len; i++)
		if (strcmp(((Expr *)a->args.items[i])->str, ((Expr *)b->args.items[i])->str))
			return 0;
	return 1;
}

static Expr *function_type(Program *prog, Function *f, int depth);

/* The @cast giving the type of value e, or NULL. */
static Expr *value_type(Program *prog, Expr *e, int depth)
{
	Function *f;

	if (!e || depth > AUTOCAST_MAX_DEPTH)
		return NULL;
	if (is_plain_cast(e))
		return e;
	/* &@cast(p, "T") is p typed as a pointer to T (@container_of) */
	if (e->kind == EX_UNARY && e->op == OP_ADDR && is_plain_cast(e->left))
		return e->left;
	if (e->kind == EX_CALL && e->str && (f = find_function_from(prog, e->str, e->args.len, e->loc.file)) != NULL)
		return function_type(prog, f, depth + 1);
	return NULL;
}

typedef struct ReturnScan {
	Program *prog;
	int depth;
	Expr *type;
	int untyped;   /* a return without a type, or with another one */
} ReturnScan;

static int scan_return(Stmt *st, void *ctx)
{
	ReturnScan *rs = ctx;
	Expr *t;

	if (st->kind != ST_RETURN || !st->expr)
		return 0;
	t = value_type(rs->prog, st->expr, rs->depth);
	if (!t || (rs->type && !same_type(rs->type, t)))
		rs->untyped = 1;
	else
		rs->type = t;
	return 0;
}

/* A library embedded-C function's pragma "autocast: TYPE [MODULE]": a @cast node holding them. */
static Expr *pragma_type(Function *f)
{
	const char *p = strstr(f->embedded, "autocast:"), *end;
	char *words[2] = { NULL, NULL };
	Expr *cast;
	int n = 0;

	if (!p || !(end = strstr(p, "*/")))
		return NULL;
	p += strlen("autocast:");
	while (n < 2) {
		const char *w;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		for (w = p; p < end && *p != ' ' && *p != '\t' && *p != '\n'; p++)
			;
		if (p == w)
			break;
		words[n++] = xstrndup(w, (size_t)(p - w));
	}
	if (!n)
		return NULL;
	cast = expr_new(EX_AT, f->loc);
	cast->str = xstrdup("cast");
	vec_push(&cast->args, NULL);   /* the value: filled in by each use */
	for (int i = 0; i < n; i++) {
		Expr *s = expr_new(EX_STRING, f->loc);
		s->str = words[i];
		vec_push(&cast->args, s);
	}
	return cast;
}

static Expr *function_type(Program *prog, Function *f, int depth)
{
	ReturnScan rs = { prog, depth, NULL, 0 };
	AstVisitor v = { scan_return, NULL, &rs };

	if (f->embedded)
		return pragma_type(f);
	if (!f->body)
		return NULL;
	ast_walk_stmt(f->body, &v);
	return rs.untyped ? NULL : rs.type;
}

/* ---- locals: every assignment gives the same type ---- */

typedef struct LocalScan {
	Program *prog;
	const char *name;
	Expr *type;
	int untyped;
} LocalScan;

static int scan_assign(Expr *e, void *ctx)
{
	LocalScan *ls = ctx;
	Expr *t;

	if ((e->kind != EX_ASSIGN && e->kind != EX_INCDEC) || !e->left || e->left->kind != EX_IDENT ||
	    strcmp(e->left->str, ls->name))
		return 0;
	t = e->kind == EX_ASSIGN && e->op == OP_ASSIGN ? value_type(ls->prog, e->right, 0) : NULL;
	if (!t || (ls->type && !same_type(ls->type, t)))
		ls->untyped = 1;
	else
		ls->type = t;
	return 0;
}

static int is_global(Program *prog, const char *name)
{
	for (int i = 0; i < prog->globals.len; i++)
		if (!strcmp(((Symbol *)prog->globals.items[i])->name, name))
			return 1;
	return 0;
}

static Expr *local_type(Program *prog, Stmt *body, PtrVec *params, const char *name)
{
	LocalScan ls = { prog, name, NULL, 0 };
	AstVisitor v = { NULL, scan_assign, &ls };

	if (is_global(prog, name))
		return NULL;
	for (int i = 0; params && i < params->len; i++)
		if (!strcmp(((Symbol *)params->items[i])->name, name))
			return NULL;   /* a parameter's value comes from the caller */
	ast_walk_stmt(body, &v);
	return ls.untyped ? NULL : ls.type;
}

/* ---- the rewrite ---- */

typedef struct Rewrite {
	Program *prog;
	Stmt *body;       /* of the probe or function being walked */
	PtrVec *params;   /* its parameters (NULL for a probe) */
} Rewrite;

static int rewrite_expr(Expr *e, void *ctx)
{
	Rewrite *rw = ctx;
	Expr *t = NULL;

	if (e->kind != EX_AUTOCAST || !e->left)
		return 0;
	if (e->left->kind == EX_IDENT)
		t = local_type(rw->prog, rw->body, rw->params, e->left->str);
	else
		t = value_type(rw->prog, e->left, 0);
	if (!t)
		return 0;
	/* (value)->chain becomes @cast(value, "TYPE"[, "MODULE"])->chain */
	e->kind = EX_AT;
	e->str = xstrdup("cast");
	e->args.len = 0;
	vec_push(&e->args, e->left);
	for (int i = 1; i < t->args.len; i++) {
		Expr *s = expr_new(EX_STRING, e->loc);
		s->str = xstrdup(((Expr *)t->args.items[i])->str);
		vec_push(&e->args, s);
	}
	e->left = NULL;
	return 0;
}

void autocast_program(Program *prog)
{
	Rewrite rw = { prog, NULL, NULL };
	AstVisitor v = { NULL, rewrite_expr, &rw };

	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		rw.body = p->body;
		rw.params = NULL;
		ast_walk_stmt(p->body, &v);
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (!f->body)
			continue;
		rw.body = f->body;
		rw.params = &f->params;
		ast_walk_stmt(f->body, &v);
	}
}
