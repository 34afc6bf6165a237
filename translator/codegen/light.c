/* light.c - which probe bodies are simple enough for the light hit path (runtime/core/probe.c:
 * __stp_run_light, no per-CPU context, no error report, no output flush).  Used by codegen/bodies.c. */
#include "codegen/gen.h"
#include "elaborate/builtins.h"

#include <string.h>

/* The largest light body: its statements (actions) and expression nodes.  The overload guard
 * leaves light handlers out because they are this short: a few hundred instructions at the very
 * most, of the order of the probe machinery's own cost per hit. */
#define LIGHT_MAX_ACTIONS 16
#define LIGHT_MAX_NODES 64

typedef struct LightCheck {
	int ok;
	int stmts, nodes;
} LightCheck;

static int light_fail(LightCheck *lc)
{
	lc->ok = 0;
	return 1;   /* stops the walk */
}

/* A scalar global: no frame (script locals live in the context's frames), no map. */
static int plain_global(const Expr *e)
{
	return e && e->kind == EX_IDENT && e->sym && e->sym->kind == SYM_GLOBAL && e->sym->is_array != 1;
}

static int light_stmt(Stmt *st, void *ctx)
{
	LightCheck *lc = ctx;

	switch (st->kind) {
	case ST_BLOCK:
	case ST_EMPTY:
		return 0;
	case ST_EXPR:
	case ST_IF:
	case ST_NEXT:
		return ++lc->stmts > LIGHT_MAX_ACTIONS ? light_fail(lc) : 0;
	default:
		/* loops (MAXACTION per iteration), foreach, delete, try (the error state), return */
		return light_fail(lc);
	}
}

static int light_expr(Expr *e, void *ctx);

/* A builtin that only reads the current task or a clock (pid(), tid(), cpu() ...): a long of no
 * arguments whose C names neither the context nor a string temporary, and cannot fail. */
static int light_builtin(const Expr *e)
{
	const Builtin *b = e->builtin;

	return b && !e->fn && b->kind == BI_TEMPLATE && b->ret == TY_LONG && b->nargs == 0 && !e->args.len &&
	       !b->can_fail && !strchr(b->c_template, '$') && cg_light_code_ok(b->c_template);
}

/* An element of a global array of longs or (as the target of <<<) statistics: its keys are
 * walked, an execname() string key excepted (codegen/expr.c reads it as two words of comm, no
 * temporary).  Writing one can find the array full: the slot function then reports the error
 * out of line (codegen/maps.c cg_map_slot), so the body needs no context for it. */
static int light_index(LightCheck *lc, const Expr *e, Type want)
{
	AstVisitor v = { light_stmt, light_expr, lc };
	const Symbol *arr = e->sym;

	if (e->kind != EX_INDEX || !arr || arr->kind != SYM_GLOBAL || arr->is_array != 1 || arr->type != want ||
	    arr->nkeys != e->args.len)
		return light_fail(lc);
	for (int i = 0; i < e->args.len; i++) {
		Expr *key = e->args.items[i];
		if (arr->keytypes[i] == TY_STRING && key->kind == EX_CALL && key->builtin &&
		    !strcmp(key->builtin->name, "execname") && !key->args.len) {
			lc->nodes++;
			continue;
		}
		if (ast_walk_expr(key, &v))
			return 1;
	}
	return AST_WALK_SKIP;
}

static int light_expr(Expr *e, void *ctx)
{
	LightCheck *lc = ctx;

	if (++lc->nodes > LIGHT_MAX_NODES)
		return light_fail(lc);
	switch (e->kind) {
	case EX_NUMBER:
	case EX_STRING:
	case EX_UNARY:
		return 0;
	case EX_IDENT:
		/* a global's value (a statistic appears only as the target of <<<, checked there) */
		return plain_global(e) && e->sym->type != TY_STATS ? 0 : light_fail(lc);
	case EX_BINARY:
		switch (e->op) {
		case OP_DIV: case OP_MOD:         /* division by 0 is a script error */
		case OP_MATCH: case OP_NOMATCH:   /* the regex state is in the context */
		case OP_IN:                       /* arrays */
		case OP_CONCAT:                   /* a string temporary in the frame */
			return light_fail(lc);
		default:
			break;
		}
		return 0;
	case EX_TERNARY:
		return e->type == TY_STRING ? light_fail(lc) : 0;   /* a string temporary */
	case EX_INDEX:
		/* an element of an array of longs read (0 when absent: no error) */
		return light_index(lc, e, TY_LONG);
	case EX_CALL:
		return light_builtin(e) ? 0 : light_fail(lc);
	case EX_INCDEC:
		if (e->left->kind == EX_INDEX)
			return light_index(lc, e->left, TY_LONG);
		if (!plain_global(e->left) || e->left->sym->type != TY_LONG)
			return light_fail(lc);
		return AST_WALK_SKIP;
	case EX_ASSIGN:
		if (e->op == OP_DIV_ASSIGN || e->op == OP_MOD_ASSIGN)
			return light_fail(lc);
		if (e->left->kind == EX_INDEX) {
			/* an element written: the keys, then the value */
			if (light_index(lc, e->left, e->op == OP_AGG_ASSIGN ? TY_STATS : TY_LONG) != AST_WALK_SKIP)
				return 1;
		} else if (!plain_global(e->left) ||
			   (e->op == OP_AGG_ASSIGN ? e->left->sym->type != TY_STATS : e->left->sym->type == TY_STATS)) {
			return light_fail(lc);
		}
		/* the target is checked: only the value is walked */
		lc->nodes++;
		return ast_walk_expr(e->right, &(AstVisitor){ light_stmt, light_expr, lc }) ? 1 : AST_WALK_SKIP;
	default:
		/* other calls (output, errors, the context, unbounded work), target and context
		 * variables, @ operators (reading statistics: errors, every CPU), embedded C */
		return light_fail(lc);
	}
}

int cg_light_eligible(const Probe *p)
{
	LightCheck lc = { .ok = 1 };
	AstVisitor v = { light_stmt, light_expr, &lc };

	if (p->locals.len || !p->body)
		return 0;
	ast_walk_stmt(p->body, &v);
	return lc.ok;
}

/* The generated C of a light body names neither the context c nor the frame f (the action
 * charges go through STP_ACTIONS_UNLESS, which names c only in the code the light path drops):
 * a check of the code itself, whatever the eligibility rules above let through. */
int cg_light_code_ok(const char *code)
{
	static const char *const context_or_frame[] = { "c", "f" };

	return !cg_c_names(code, context_or_frame, 2);
}
