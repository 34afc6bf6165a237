/* optimize.c - pass 2 clean-up: drops functions and globals nothing uses,
 * assignments to locals nothing reads and statements without effect, with a
 * warning for each the script itself wrote (stap -u turns it off). */
#include "elaborate/optimize.h"
#include "elaborate/builtins.h"

#include <stdio.h>
#include <string.h>

static int from_script(SrcLoc loc)
{
	return loc.file && !loc.file->is_tapset;
}

/* ---- functions and globals reachable from the probes ---- */

typedef struct Reach {
	Program *prog;
	StrMap names;            /* identifiers and called names seen */
	PtrVec work;             /* Function* to scan */
	StrMap reached;          /* Function* -> 1 (keyed by pointer text) */
} Reach;

/* How well f answers a call of name with nargs arguments from a file: 0 not at all; a definition
 * of that arity beats one of another (kept only for the error); among those, a private one of the
 * caller's file, then the script's own over the library's. */
static int function_rank(const Function *f, const char *name, int nargs, const SourceFile *from)
{
	if (strcmp(f->name, name) || (f->is_private && f->loc.file != from))
		return 0;
	return 1 + (f->params.len == nargs) * 4 + (f->is_private ? 2 : 0) + (from_script(f->loc) ? 1 : 0);
}

/* The function a call means: SystemTap chooses among the definitions of a name by the number
 * of arguments.  With none of that arity, another of the name (the caller reports the mismatch). */
Function *find_function_from(Program *prog, const char *name, int nargs, const SourceFile *from)
{
	Function *found = NULL;
	int best = 0;

	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		int rank = function_rank(f, name, nargs, from);
		if (rank > best) {
			best = rank;
			found = f;
		}
	}
	return found;
}

static int reach_expr(Expr *e, void *ctx)
{
	Reach *r = ctx;

	if (e->str && (e->kind == EX_IDENT || e->kind == EX_INDEX))
		strmap_put(&r->names, e->str, (void *)1);
	if (e->kind == EX_CALL && e->str) {
		Function *f = find_function_from(r->prog, e->str, e->args.len, e->loc.file);
		if (f && f->params.len != e->args.len) {
			/* no definition of that arity: all of the name stay, for the error listing them */
			for (int i = 0; i < r->prog->functions.len; i++) {
				Function *o = r->prog->functions.items[i];
				if (!strcmp(o->name, f->name) && !o->used) {
					o->used = 1;
					vec_push(&r->work, o);
				}
			}
		} else if (f && !f->used) {
			f->used = 1;
			vec_push(&r->work, f);
		}
	}
	return 0;
}

void prune_unused(Session *s)
{
	Program *prog = &s->prog;
	Reach r = { .prog = prog };
	AstVisitor v = { NULL, reach_expr, &r };
	PtrVec keep = { 0 };

	for (int i = 0; i < prog->functions.len; i++)
		((Function *)prog->functions.items[i])->used = 0;
	for (int i = 0; i < prog->probes.len; i++)
		ast_walk_stmt(((Probe *)prog->probes.items[i])->body, &v);
	if (s->unoptimized) {
		/* -u keeps every function of the script itself */
		for (int i = 0; i < prog->functions.len; i++) {
			Function *f = prog->functions.items[i];
			if (from_script(f->loc) && !f->used) {
				f->used = 1;
				vec_push(&r.work, f);
			}
		}
	}
	while (r.work.len) {
		Function *f = r.work.items[--r.work.len];
		ast_walk_stmt(f->body, &v);
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (f->used)
			vec_push(&keep, f);
		else if (from_script(f->loc))
			diag_at(&s->diag, f->loc, "warning", "eliding unused function '%s'", f->name);
	}
	prog->functions = keep;

	memset(&keep, 0, sizeof keep);
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (strmap_get(&r.names, g->name) || (s->unoptimized && from_script(g->loc)))
			vec_push(&keep, g);
		else if (from_script(g->loc))
			diag_at(&s->diag, g->loc, "warning", "eliding unused variable '%s'", g->name);
	}
	prog->globals = keep;
}

/* ---- side effects ---- */

static int function_pure(Function *f, int depth);

int expr_effects(const Expr *e)
{
	int fx = 0;

	if (!e)
		return 0;
	switch (e->kind) {
	case EX_ASSIGN:
	case EX_INCDEC:
	case EX_EMBEDDED:
		fx |= EFFECT_WRITE;
		break;
	case EX_BINARY:
		/* a division may raise "division by 0": kept, so the error still happens */
		if ((e->op == OP_DIV || e->op == OP_MOD) && !(e->right->kind == EX_NUMBER && e->right->num != 0))
			fx |= EFFECT_FAIL;
		/* =~ and !~ set what matched() and ngroups() return */
		if (e->op == OP_MATCH || e->op == OP_NOMATCH)
			fx |= EFFECT_WRITE;
		break;
	case EX_CALL:
		if (e->str) {
			if (e->fn && !function_pure(e->fn, 0))
				fx |= EFFECT_WRITE;
			if (e->builtin && e->builtin->ret == TY_UNKNOWN)
				fx |= EFFECT_WRITE;
			if (e->builtin && e->builtin->can_fail)
				fx |= EFFECT_FAIL;
			if (!e->fn && !e->builtin)
				fx |= EFFECT_WRITE;
		}
		break;
	default:
		break;
	}
	for (int i = 0; i < e->args.len; i++)
		fx |= expr_effects(e->args.items[i]);
	for (int i = 0; i < e->chain.len; i++)
		fx |= expr_effects(((ChainItem *)e->chain.items[i])->index);
	return fx | expr_effects(e->left) | expr_effects(e->right) | expr_effects(e->cond);
}

int expr_has_side_effects(const Expr *e)
{
	return expr_effects(e) != 0;
}

typedef struct PureCheck {
	int depth;
	int impure;
} PureCheck;

static int impure_expr(Expr *e, void *ctx)
{
	PureCheck *pc = ctx;

	switch (e->kind) {
	case EX_ASSIGN:
	case EX_INCDEC:
		if (!e->left->sym || e->left->sym->kind == SYM_GLOBAL)
			pc->impure = 1;
		break;
	case EX_EMBEDDED:
		pc->impure = 1;
		break;
	case EX_CALL:
		if (!e->str)
			break;
		if (e->fn ? !function_pure(e->fn, pc->depth + 1)
			  : !e->builtin || e->builtin->ret == TY_UNKNOWN || e->builtin->can_fail)
			pc->impure = 1;
		break;
	default:
		break;
	}
	return pc->impure;
}

static int impure_stmt(Stmt *st, void *ctx)
{
	PureCheck *pc = ctx;
	if (st->kind == ST_DELETE || st->kind == ST_NEXT)
		pc->impure = 1;
	return pc->impure;
}

/* A function without side effects: embedded C marked pure, or script code
 * that changes no global and calls only such functions. */
static int function_pure(Function *f, int depth)
{
	PureCheck pc = { depth, 0 };
	AstVisitor v = { impure_stmt, impure_expr, &pc };

	if (f->embedded)
		return f->pure;
	if (depth > 16)
		return 0;
	ast_walk_stmt(f->body, &v);
	return !pc.impure;
}

/* ---- locals nothing reads ---- */

typedef struct Reads {
	StrMap counts;           /* Symbol* (as key text) -> reads */
} Reads;

static char *sym_key(const Symbol *sym, char buf[32])
{
	snprintf(buf, 32, "%p", (const void *)sym);
	return buf;
}

/* Counts reads of locals; the target of a plain assignment is not a read. */
static void walk_reads(Expr *e, Reads *r);

static void walk_reads_list(PtrVec *v, Reads *r)
{
	for (int i = 0; i < v->len; i++)
		walk_reads(v->items[i], r);
}

static void walk_reads(Expr *e, Reads *r)
{
	if (!e)
		return;
	if (e->kind == EX_ASSIGN && e->op == OP_ASSIGN && e->left->kind == EX_IDENT) {
		walk_reads(e->right, r);
		return;
	}
	if (e->kind == EX_IDENT && e->sym && e->sym->kind == SYM_LOCAL) {
		char key[32];
		void **slot = strmap_slot(&r->counts, xstrdup(sym_key(e->sym, key)), 1);
		*slot = (void *)((intptr_t)*slot + 1);
	}
	walk_reads_list(&e->args, r);
	for (int i = 0; i < e->chain.len; i++)
		walk_reads(((ChainItem *)e->chain.items[i])->index, r);
	walk_reads(e->left, r);
	walk_reads(e->right, r);
	walk_reads(e->cond, r);
}

static int stmt_reads(Stmt *st, void *ctx)
{
	Reads *r = ctx;

	walk_reads(st->expr, r);
	walk_reads(st->init, r);
	walk_reads(st->step, r);
	walk_reads(st->limit, r);
	walk_reads(st->array, r);
	return 0;
}

static long reads_of(Reads *r, const Symbol *sym)
{
	char key[32];

	return (long)(intptr_t)strmap_get(&r->counts, sym_key(sym, key));
}

typedef struct Elide {
	Reads *reads;
	int changed;
	Session *s;
} Elide;

static int is_unread_local(Elide *el, const Expr *lhs)
{
	return lhs->kind == EX_IDENT && lhs->sym && lhs->sym->kind == SYM_LOCAL && reads_of(el->reads, lhs->sym) == 0;
}

static int elide_stmt(Stmt *st, void *ctx)
{
	Elide *el = ctx;
	Expr *e;

	if (st->kind != ST_EXPR)
		return 0;
	e = st->expr;
	if (e->kind == EX_ASSIGN && e->op == OP_ASSIGN && is_unread_local(el, e->left)) {
		if (expr_has_side_effects(e->right)) {
			st->expr = e->right;
		} else {
			st->kind = ST_EMPTY;
			st->expr = NULL;
		}
		el->changed = 1;
		return 0;
	}
	if (!expr_has_side_effects(e)) {
		if (from_script(st->loc))
			diag_at(&el->s->diag, st->loc, "warning", "eliding side-effect-free expression");
		st->kind = ST_EMPTY;
		st->expr = NULL;
		el->changed = 1;
	}
	return 0;
}

static int sym_used(Stmt *body, const Symbol *sym);

/* A script variable elided in one expansion of a probe may live on in
 * another (alias bodies differ): warn only when no expansion kept it. */
static char *variable_key(const void *origin, const Symbol *sym)
{
	return xasprintf("%p:%p:%d:%d:%s", origin, (const void *)sym->loc.file, sym->loc.line, sym->loc.col, sym->name);
}

static void elide_in(Session *s, Stmt *body, PtrVec *locals, const void *origin, StrMap *kept, PtrVec *elided)
{
	for (int round = 0; round < 64; round++) {
		Reads reads = { 0 };
		AstVisitor rv = { stmt_reads, NULL, &reads };
		Elide el = { &reads, 0, s };
		AstVisitor ev = { elide_stmt, NULL, &el };

		ast_walk_stmt(body, &rv);
		ast_walk_stmt(body, &ev);
		if (!el.changed)
			break;
	}
	/* drop locals no longer mentioned at all */
	PtrVec keep = { 0 };
	for (int i = 0; i < locals->len; i++) {
		Symbol *sym = locals->items[i];
		if (sym_used(body, sym)) {
			sym->index = keep.len;
			vec_push(&keep, sym);
			if (from_script(sym->loc))
				strmap_put(kept, variable_key(origin, sym), (void *)1);
		} else if (from_script(sym->loc)) {
			vec_push(elided, (void *)origin);
			vec_push(elided, sym);
		}
	}
	*locals = keep;
}

typedef struct SymUse {
	const Symbol *sym;
} SymUse;

static int mentions(Expr *e, void *ctx)
{
	return e->sym == ((SymUse *)ctx)->sym;
}

static int sym_used(Stmt *body, const Symbol *sym)
{
	SymUse u = { sym };
	AstVisitor v = { NULL, mentions, &u };
	return ast_walk_stmt(body, &v);
}

void elide_unused_locals(Session *s)
{
	Program *prog = &s->prog;
	StrMap kept = { 0 };
	PtrVec elided = { 0 };   /* origin, Symbol* pairs */

	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		elide_in(s, p->body, &p->locals, p->origin ? (void *)p->origin : (void *)p, &kept, &elided);
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (f->body)
			elide_in(s, f->body, &f->locals, f, &kept, &elided);
	}
	for (int i = 0; i + 1 < elided.len; i += 2) {
		Symbol *sym = elided.items[i + 1];
		if (!strmap_get(&kept, variable_key(elided.items[i], sym)))
			diag_at(&s->diag, sym->loc, "warning", "eliding unused variable '%s'", sym->name);
	}
}
