/* refuse.c - what a script asks that the BPF runtime cannot run (yet), found before any C is written
 * and reported where the script asks it, with the way out (the module runtime); used by bpfprog/skeleton.c. */
#include "bpfprog/bpfprog.h"
#include "elaborate/builtins.h"
#include "lib/diag.h"
#include "providers/provider.h"

#include <string.h>

#define WAY_OUT "use the module runtime (without --runtime=bpf)"

BpfProgKind bpf_prog_kind(const DerivedProbe *dp)
{
	const char *fam = dp->provider->family, *member = dp->provider->member;

	if (!strcmp(fam, "begin"))
		return BPF_PROG_BEGIN;
	if (!strcmp(fam, "end"))
		return BPF_PROG_END;
	if (!strcmp(fam, "timer") && !member && dp->number > 0)   /* timer.s(N)...: not timer.profile */
		return BPF_PROG_TIMER;
	if (!strcmp(fam, "kernel") && member && !strcmp(member, "trace"))
		return BPF_PROG_TP_BTF;
	return BPF_PROG_NONE;
}

/* The builtins the BPF runtime implements (runtime/bpf/). */
static int builtin_supported(const char *name)
{
	static const char *const names[] = {
		"printf", "print", "println", "exit", "execname", "pid", "tid", "cpu",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

typedef struct Refusals {
	Session *s;
	int count;
	PtrVec seen_fns;
	AstVisitor v;
} Refusals;

static void refuse_at(Refusals *r, SrcLoc loc, const char *what)
{
	diag_at(&r->s->diag, loc, "error", "%s is not available on the BPF runtime yet: " WAY_OUT, what);
	r->count++;
}

static int refuse_stmt(Stmt *st, void *ctx)
{
	Refusals *r = ctx;

	switch (st->kind) {
	case ST_WHILE:
	case ST_FOR:
		refuse_at(r, st->loc, "a loop");
		break;
	case ST_FOREACH:
		refuse_at(r, st->loc, "foreach");
		break;
	case ST_TRY:
		refuse_at(r, st->loc, "try/catch");
		break;
	default:
		break;
	}
	return 0;
}

static int refuse_expr(Expr *e, void *ctx)
{
	Refusals *r = ctx;

	switch (e->kind) {
	case EX_CALL:
		if (e->builtin && !builtin_supported(e->builtin->name)) {
			char *what = xasprintf("function %s()", e->builtin->name);
			refuse_at(r, e->loc, what);
			free(what);
		} else if (e->fn && e->fn->embedded) {
			char *what = xasprintf("embedded-C function %s()", e->fn->name);
			refuse_at(r, e->loc, what);
			free(what);
		} else if (e->fn && first_visit(&r->seen_fns, e->fn)) {
			ast_walk_stmt(e->fn->body, &r->v);   /* what the function does, once */
		}
		break;
	case EX_BINARY:
		if (e->op == OP_CONCAT || e->op == OP_IN || e->op == OP_MATCH || e->op == OP_NOMATCH)
			refuse_at(r, e->loc, e->op == OP_CONCAT ? "string concatenation" : e->op == OP_IN ? "the 'in' operator" : "a regular expression match");
		break;
	case EX_ASSIGN:
		if (e->op == OP_AGG_ASSIGN)
			refuse_at(r, e->loc, "a statistic (<<<)");
		else if (e->op == OP_CAT_ASSIGN)
			refuse_at(r, e->loc, "string concatenation (.=)");
		break;
	case EX_AT:
	case EX_TARGET:
	case EX_BOUND:
	case EX_CONTEXT:
	case EX_AUTOCAST:
		refuse_at(r, e->loc, e->kind == EX_AT ? "an @ operator" : "a target variable");
		return AST_WALK_SKIP;
	case EX_EMBEDDED:
		refuse_at(r, e->loc, "embedded C");
		break;
	case EX_INDEX:
		refuse_at(r, e->loc, "an array");
		return AST_WALK_SKIP;
	default:
		break;
	}
	return 0;
}

int bpf_refuse(Session *s)
{
	Refusals r = { .s = s };
	PtrVec seen_probes = { 0 };

	r.v = (AstVisitor){ refuse_stmt, refuse_expr, &r };
	/* BPF calls no subprogram recursively, and nests at most 8 frames (the kernel's MAX_CALL_FRAMES,
	 * the program's own among them) */
	if (s->prog.recursive || s->prog.call_depth > 7) {
		diag_plain(&s->diag, "error", "%s is not available on the BPF runtime yet: " WAY_OUT,
			   s->prog.recursive ? "a recursive function" : "a call chain deeper than 7");
		r.count++;
	}
	for (int i = 0; i < s->prog.globals.len; i++) {
		Symbol *g = s->prog.globals.items[i];
		if (g->is_array == 1 || g->type == TY_STATS)
			refuse_at(&r, g->loc, g->type == TY_STATS ? "a global statistic" : "a global array");
	}
	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		if (bpf_prog_kind(dp) == BPF_PROG_NONE) {
			char *what = xasprintf("probe point %s", dp->name);
			refuse_at(&r, dp->probe->loc, what);
			free(what);
		}
		if (first_visit(&seen_probes, dp->probe))
			ast_walk_stmt(dp->probe->body, &r.v);
	}
	free(seen_probes.items);
	free(r.seen_fns.items);
	return r.count;
}
