/* assigned.c - which locals need the zero (or "") every local starts with: none that every path
 * stores before it can read it (a definite-assignment scan of the body).  Used by codegen/bodies.c. */
#include "codegen/gen.h"

/* What a statement does with a local, on the paths through it that go on after it. */
enum use {
	USE_NONE,       /* does not name it */
	USE_READ,       /* may read it before storing it (so it needs its zero) */
	USE_STORED,     /* stores it on every such path, reading it on none before */
	USE_SOMETIMES,  /* stores it on some, reads it before on none */
};

/* An expression that may read sym: one naming it, or embedded C (which the scan cannot see into). */
static int may_read_sym(Expr *e, void *sym)
{
	return e->kind == EX_EMBEDDED || ((e->kind == EX_IDENT || e->kind == EX_INDEX) && e->sym == sym);
}

/* st (any statement under it), or e, may read sym */
static int mentions(Stmt *st, Expr *e, Symbol *sym)
{
	AstVisitor may_read = { .expr = may_read_sym, .ctx = sym };

	return st ? ast_walk_stmt(st, &may_read) != 0 : e && ast_walk_expr(e, &may_read) != 0;
}

static enum use use_of(Stmt *st, Symbol *sym);

/* Statements one after another: the first that reads or stores it decides. */
static enum use use_in_sequence(PtrVec *body, Symbol *sym)
{
	enum use seen = USE_NONE;

	for (int i = 0; i < body->len; i++) {
		enum use u = use_of(body->items[i], sym);
		if (u == USE_READ || u == USE_STORED)
			return u;
		if (u == USE_SOMETIMES)
			seen = USE_SOMETIMES;
	}
	return seen;
}

/* Two ways on (an if's branches): stored only when both store it. */
static enum use use_either(enum use a, enum use b)
{
	if (a == USE_READ || b == USE_READ)
		return USE_READ;
	if (a == USE_STORED && b == USE_STORED)
		return USE_STORED;
	return a == USE_NONE && b == USE_NONE ? USE_NONE : USE_SOMETIMES;
}

/* try's body may stop anywhere (an error) and go on in the catch: two ways on, as an if's, the
 * body's only by storing it, the catch's whatever the body did before it stopped. */
static enum use use_in_try(Stmt *st, Symbol *sym)
{
	if (st->catch_var && st->catch_var->sym == sym)
		return USE_READ;
	return use_either(use_of(st->then, sym), st->els ? use_of(st->els, sym) : USE_NONE);
}

/* Loops, and statements that leave (next, return, break: a later read is not on their path, but
 * the scan does not follow that), count any mention as a read. */
static enum use use_of(Stmt *st, Symbol *sym)
{
	Expr *e = st->kind == ST_EXPR ? st->expr : NULL;

	switch (st->kind) {
	case ST_BLOCK:
		return use_in_sequence(&st->body, sym);
	case ST_IF:
		if (mentions(NULL, st->expr, sym))
			return USE_READ;
		return use_either(use_of(st->then, sym), st->els ? use_of(st->els, sym) : USE_NONE);
	case ST_TRY:
		return use_in_try(st, sym);
	case ST_EXPR:
		if (e->kind == EX_ASSIGN && e->op == OP_ASSIGN && e->left->kind == EX_IDENT && e->left->sym == sym)
			return mentions(NULL, e->right, sym) ? USE_READ : USE_STORED;
		/* fall through */
	default:
		return mentions(st, NULL, sym) ? USE_READ : USE_NONE;
	}
}

int cg_local_needs_zero(Stmt *body, Symbol *sym)
{
	return use_of(body, sym) == USE_READ;
}
