/* calldepth.c - the call graph of the script's functions: recursion and the deepest nesting,
 * kept in the Program for pass 3. Used by elaborate.c. */
#include "elaborate/elab.h"

#include <string.h>

/* ---- the call graph: recursion and depth ---- */

static int call_depth(Function *f, PtrVec *stack, int *recursive);

static int deepest_call(Stmt *body, PtrVec *stack, int *recursive);

typedef struct DepthSearch {
	PtrVec *stack;
	int *recursive;
	int depth;
} DepthSearch;

static int depth_in_expr(Expr *e, void *ctx)
{
	DepthSearch *ds = ctx;
	if (e->kind == EX_CALL && e->fn) {
		int d = call_depth(e->fn, ds->stack, ds->recursive);
		if (d > ds->depth)
			ds->depth = d;
	}
	return 0;
}

static int deepest_call(Stmt *body, PtrVec *stack, int *recursive)
{
	DepthSearch ds = { stack, recursive, 0 };
	AstVisitor v = { NULL, depth_in_expr, &ds };
	ast_walk_stmt(body, &v);
	return ds.depth;
}

/* 1 + the deepest chain of calls below f; marks the functions of a cycle. */
static int call_depth(Function *f, PtrVec *stack, int *recursive)
{
	int d;
	for (int i = 0; i < stack->len; i++) {
		if (stack->items[i] == f) {
			for (int j = i; j < stack->len; j++)
				((Function *)stack->items[j])->recursive = 1;
			*recursive = 1;
			return 1;   /* the recursive call itself is one level */
		}
	}
	if (f->depth_memo)
		return f->depth_memo;
	vec_push(stack, f);
	d = 1 + deepest_call(f->body, stack, recursive);
	stack->len--;
	f->depth_memo = d;
	return d;
}

void elab_analyze_calls(Program *prog)
{
	PtrVec stack = { 0 };
	int recursive = 0, depth = 0;

	for (int i = 0; i < prog->probes.len; i++) {
		int d = deepest_call(((Probe *)prog->probes.items[i])->body, &stack, &recursive);
		if (d > depth)
			depth = d;
	}
	prog->call_depth = depth;
	prog->recursive = recursive;
	free(stack.items);
}
