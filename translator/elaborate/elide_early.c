/* elide_early.c - what SystemTap drops before checking it: statistics into a local nothing else
 * names, "->" chains of unknown type whose value nobody uses (warned). Used by elaborate.c. */
#include "elaborate/elab.h"
#include "elaborate/optimize.h"

#include <string.h>

/* ---- what SystemTap drops before checking it ---- */

typedef struct NameCount {
	const char *name;
	int count;
} NameCount;

static int count_name(Expr *e, void *ctx)
{
	NameCount *nc = ctx;

	if ((e->kind == EX_IDENT || e->kind == EX_INDEX) && e->str && !strcmp(e->str, nc->name))
		nc->count++;
	return 0;
}

/* How many times a body names a variable (the parameters of a function included). */
static int name_uses(Stmt *body, const char *name)
{
	NameCount nc = { name, 0 };
	AstVisitor v = { NULL, count_name, &nc };

	ast_walk_stmt(body, &v);
	return nc.count;
}

/* Written in the script, not the library (whose elisions are not warned about). */
static int in_script(SrcLoc loc)
{
	return loc.file && !loc.file->is_tapset;
}

/* "(value)->a->b;" left after autocast: its type unknown, its value unused, nothing else done. */
static int is_dead_autocast(const Expr *e)
{
	while (e && e->kind == EX_AUTOCAST)
		e = e->left;
	return e && !expr_has_side_effects(e);
}

typedef struct EarlyElide {
	Elab *el;
	Stmt *body;
	Function *fn;            /* the function of the body, or NULL for a probe */
} EarlyElide;

/* SystemTap's pass 2 drops statements that do nothing before it checks them, so they are no
 * errors: "x <<< v" into a local nothing else names (the value kept when it does something),
 * and "->" chains of unknown type whose value nobody uses.  Warned for the script's own. */
static int elide_early_stmt(Stmt *st, void *ctx)
{
	EarlyElide *ee = ctx;

	if (st->kind != ST_EXPR)
		return 0;
	while (st->expr->kind == EX_ASSIGN && st->expr->op == OP_AGG_ASSIGN && st->expr->left->kind == EX_IDENT &&
	       !elab_find_global(ee->el->prog, st->expr->left->str, st->expr->left->loc.file) &&
	       name_uses(ee->body, st->expr->left->str) == 1) {
		if (in_script(st->loc) && !(ee->fn && elab_find_in(&ee->fn->params, st->expr->left->str)))
			diag_at(&ee->el->s->diag, st->expr->left->loc, "warning", "eliding unused variable '%s'", st->expr->left->str);
		st->expr = st->expr->right;
	}
	if (st->expr->kind == EX_AUTOCAST && is_dead_autocast(st->expr)) {
		if (in_script(st->loc))
			diag_at(&ee->el->s->diag, st->loc, "warning", "eliding side-effect-free expression");
		st->kind = ST_EMPTY;
		st->expr = NULL;
	}
	return 0;
}

void elab_elide_early(Elab *el)
{
	Program *prog = el->prog;
	EarlyElide ee = { el, NULL, NULL };
	AstVisitor v = { elide_early_stmt, NULL, &ee };

	for (int i = 0; i < prog->probes.len; i++) {
		ee.body = ((Probe *)prog->probes.items[i])->body;
		ast_walk_stmt(ee.body, &v);
	}
	for (int i = 0; i < prog->functions.len; i++) {
		ee.fn = prog->functions.items[i];
		ee.body = ee.fn->body;
		ast_walk_stmt(ee.body, &v);
	}
}
