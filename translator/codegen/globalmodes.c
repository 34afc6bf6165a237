/* globalmodes.c - which globals each probe body reads or writes, through the functions it calls:
 * the shape of its locks, which a runtime's writer turns into its tables (kmodule/globals.c). */
#include "codegen/backend.h"
#include "codegen/gen.h"
#include "elaborate/builtins.h"
#include "providers/provider.h"

#include <string.h>

typedef struct Access {
	CgState *cg;
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
	/* reading statistics merges the CPUs' accumulators; sorting reorders entries */
	if (st->kind == ST_FOREACH && st->array->kind != EX_AT && (st->array->sym->type == TY_STATS || st->sort_on))
		access_sym(ctx, st->array->sym, 1);
	return 0;
}

static int access_in_expr(Expr *e, void *ctx)
{
	Access *a = ctx;

	if (e->kind == EX_IDENT || e->kind == EX_INDEX)
		access_sym(a, e->sym, 0);
	/* x <<< v adds to this CPU's accumulator: a read lock is enough, and none at all for a
	 * statistic that only counts or that only end probes read (cg_stats_add_unlocked); reading
	 * statistics merges every CPU's, which needs the write lock */
	if (e->kind == EX_ASSIGN && e->op == OP_AGG_ASSIGN && cg_stats_add_unlocked(a->cg, e->left->sym)) {
		for (int i = 0; e->left->kind == EX_INDEX && i < e->left->args.len; i++) {
			if (ast_walk_expr(e->left->args.items[i], &a->v) == 1)
				return 1;
		}
		return ast_walk_expr(e->right, &a->v) ? 1 : AST_WALK_SKIP;
	}
	if ((e->kind == EX_ASSIGN || e->kind == EX_INCDEC) && e->left->sym && e->op != OP_AGG_ASSIGN)
		access_sym(a, e->left->sym, 1);
	if (e->kind == EX_AT && is_stats_op(e->str) && e->args.len)
		access_sym(a, ((Expr *)e->args.items[0])->sym, 1);
	/* k in a of statistics looks into every CPU's map */
	if (e->kind == EX_BINARY && e->op == OP_IN && e->right->sym && e->right->sym->type == TY_STATS)
		access_sym(a, e->right->sym, 1);
	if (e->kind == EX_CALL && e->fn && first_visit(&a->seen_fns, e->fn))
		ast_walk_stmt(e->fn->body, &a->v);
	return 0;
}

/* Marks the statistics that a probe other than an end probe locks for writing, which is how its
 * lock table reads them (@count ..., foreach, in, delete, directly or through the functions it
 * calls): begin, error, procfs and timer probes among them.  Before any lock table is written,
 * since an add to any other statistic takes no lock (cg_stats_add_unlocked). */
void cg_mark_running_readers(Session *s)
{
	Program *prog = &s->prog;
	PtrVec seen_probes = { 0 };

	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];

		if (strcmp(dp->provider->family, "end") && first_visit(&seen_probes, dp->probe)) {
			char *mode = cg_global_modes(s, dp->probe->body);
			for (int g = 0; g < prog->globals.len; g++) {
				Symbol *sym = prog->globals.items[g];
				if (mode[g] == 2 && sym->type == TY_STATS)
					cg_stats_read_running(s->cg, sym);
			}
			free(mode);
		}
	}
	free(seen_probes.items);
}

char *cg_global_modes(Session *s, Stmt *body)
{
	Access a = { .cg = s->cg, .mode = xcalloc((size_t)s->prog.globals.len + 1, 1) };

	a.v = (AstVisitor){ access_in_stmt, access_in_expr, &a };
	ast_walk_stmt(body, &a.v);
	free(a.seen_fns.items);
	return a.mode;
}
