/* unsupported.c - what pass 2 accepts but code generation does not do yet,
 * reported as pass-3 errors before any code is written.  Used by codegen/translate.c. */
#include "codegen/gen.h"

#include <string.h>

static int not_generated(Session *s, SrcLoc loc, const char *what)
{
	diag_at(&s->diag, loc, "error", "%s not supported by the code generator yet", what);
	return 0;
}

static int unsupported_expr(Expr *e, void *ctx)
{
	if (e->kind == EX_AT && !is_stats_op(e->str) && strcmp(e->str, "perf"))
		not_generated(ctx, e->loc, xasprintf("@%s is", e->str));
	return 0;
}

static int unsupported_stmt(Stmt *st, void *ctx)
{
	(void)ctx;
	(void)st;
	return 0;
}

int cg_check_generated(Session *s)
{
	Program *prog = &s->prog;
	AstVisitor v = { unsupported_stmt, unsupported_expr, s };
	int before = diag_error_count(&s->diag);

	ast_walk_program(prog, &v);
	cg_stats_check(s);   /* counted in diag_error_count(&s->diag) */
	return diag_error_count(&s->diag) - before;
}

