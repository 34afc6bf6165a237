/* foreachwrite.c - arrays a foreach iterates that the body changes through function calls,
 * refused. Used by elaborate.c after resolution. */
#include "elaborate/elab.h"

#include <string.h>

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
		elab_error(fc->el, e->loc, "array '%s' is modified inside a foreach over it (by function '%s')",
			  fc->arr->name, e->fn->name);
	return 0;
}

/* Each foreach body: no call in it may change the array it iterates. */
int elab_check_foreach_body(Stmt *st, void *ctx)
{
	if (st->kind == ST_FOREACH && st->array->sym) {
		ForeachCalls fc = { ctx, st->array->sym };
		AstVisitor calls = { NULL, call_changes_array, &fc };
		ast_walk_stmt(st->then, &calls);
	}
	return 0;
}
