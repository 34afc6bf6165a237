/* light.c - which probe bodies are simple enough for the light hit path (runtime/core/probe.c:
 * __stp_run_light, no per-CPU context, no error report, no output flush).  Used by translate.c. */
#include "codegen/gen.h"
#include "parser.h"

#include <ctype.h>
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
		case '/': case '%':         /* division by 0 is a script error */
		case MATCH: case NOMATCH:   /* the regex state is in the context */
		case IN:                    /* arrays */
		case '.':                   /* a string temporary in the frame */
			return light_fail(lc);
		}
		return 0;
	case EX_TERNARY:
		return e->type == TY_STRING ? light_fail(lc) : 0;   /* a string temporary */
	case EX_INCDEC:
		if (!plain_global(e->left) || e->left->sym->type != TY_LONG)
			return light_fail(lc);
		return AST_WALK_SKIP;
	case EX_ASSIGN:
		if (e->op == DIV_ASSIGN || e->op == MOD_ASSIGN || !plain_global(e->left))
			return light_fail(lc);
		if (e->op == AGG_ASSIGN ? e->left->sym->type != TY_STATS : e->left->sym->type == TY_STATS)
			return light_fail(lc);
		/* the target is checked: only the value is walked */
		lc->nodes++;
		return ast_walk_expr(e->right, &(AstVisitor){ light_stmt, light_expr, lc }) ? 1 : AST_WALK_SKIP;
	default:
		/* calls (output, errors, the context, unbounded work), arrays (full: an error), target
		 * and context variables, @ operators (reading statistics: errors, every CPU), embedded C */
		return light_fail(lc);
	}
}

int light_eligible(const Probe *p)
{
	LightCheck lc = { .ok = 1 };
	AstVisitor v = { light_stmt, light_expr, &lc };

	if (p->locals.len || !p->body)
		return 0;
	ast_walk_stmt(p->body, &v);
	return lc.ok;
}

/* The generated C of a light body names neither the context c nor the frame f (the action
 * charges go through STP_LIGHT_ACTIONS, which names c only in the code the light path drops):
 * a check of the code itself, whatever the eligibility rules above let through. */
int light_code_ok(const char *code)
{
	for (const char *p = code; *p; p++) {
		if (*p == '"' || *p == '\'') {
			char q = *p;
			for (p++; *p && *p != q; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return 0;
			continue;
		}
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *start = p;
			while (isalnum((unsigned char)p[1]) || p[1] == '_')
				p++;
			if (p == start && (*p == 'c' || *p == 'f'))
				return 0;
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			/* a number with its suffix (1LL, 0x1f): not an identifier */
			while (isalnum((unsigned char)p[1]) || p[1] == '_')
				p++;
		}
	}
	return 1;
}
