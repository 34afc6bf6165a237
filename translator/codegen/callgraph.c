/* callgraph.c - what the program's calls tell code generation: the script functions called from
 * one place (inlined there), and the bodies that charge no MAXACTION actions.  Used by codegen/bodies.c. */
#include "codegen/gen.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A bound on a body's actions that says "none": a loop charges per iteration, recursion nests. */
#define UNBOUNDED INT_MAX

struct CgCalls {
	int nfns;               /* function indexes are below this */
	int *calls;             /* per function: the calls that name it in the program's bodies */
	Function **caller_fn;   /* per function called once: the function whose body calls it, */
	Probe **caller_probe;   /* or the probe */
	int *fn_actions;        /* per function: its body's charges summed (generate), UNBOUNDED */
	int *fn_bound;          /* per function: with its callees', -1 = not computed yet */
	int *probe_actions;     /* per probe: as fn_actions, -1 when not generated on the full path */
	int nprobes;
};

typedef struct CallCount {
	CgCalls *cc;
	Function *owner_fn;     /* the function whose body is walked, */
	Probe *owner_probe;     /* or the probe */
} CallCount;

static int count_call(Expr *e, void *ctx)
{
	CallCount *cnt = ctx;

	if (e->kind == EX_CALL && e->fn && cnt->cc->calls[e->fn->index]++ == 0) {
		cnt->cc->caller_fn[e->fn->index] = cnt->owner_fn;
		cnt->cc->caller_probe[e->fn->index] = cnt->owner_probe;
	}
	return 0;
}

static void count_calls_in(CgCalls *cc, Stmt *body, Function *owner_fn, Probe *owner_probe)
{
	CallCount cnt = { cc, owner_fn, owner_probe };

	ast_walk_stmt(body, &(AstVisitor){ .expr = count_call, .ctx = &cnt });
}

void cg_calls_analyze(Session *s)
{
	Program *prog = &s->prog;
	CgCalls *cc = xcalloc(1, sizeof *cc);

	for (int i = 0; i < prog->functions.len; i++) {
		const Function *f = prog->functions.items[i];
		if (f->index >= cc->nfns)
			cc->nfns = f->index + 1;
	}
	cc->calls = xcalloc((size_t)cc->nfns + 1, sizeof *cc->calls);
	cc->caller_fn = xcalloc((size_t)cc->nfns + 1, sizeof *cc->caller_fn);
	cc->caller_probe = xcalloc((size_t)cc->nfns + 1, sizeof *cc->caller_probe);
	cc->fn_actions = xcalloc((size_t)cc->nfns + 1, sizeof *cc->fn_actions);
	cc->fn_bound = xcalloc((size_t)cc->nfns + 1, sizeof *cc->fn_bound);
	memset(cc->fn_bound, 0xff, ((size_t)cc->nfns + 1) * sizeof *cc->fn_bound);
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		count_calls_in(cc, f->body, f, NULL);
	}
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		count_calls_in(cc, p->body, NULL, p);
		if (p->index >= cc->nprobes)
			cc->nprobes = p->index + 1;
	}
	cc->probe_actions = xcalloc((size_t)cc->nprobes + 1, sizeof *cc->probe_actions);
	memset(cc->probe_actions, 0xff, ((size_t)cc->nprobes + 1) * sizeof *cc->probe_actions);
	s->cg->calls = cc;
}

/* A script function that exactly one call in the program's bodies names, and not on a cycle: its
 * C function is inlined where that call is, with no code added (no call, frame set-up and saved
 * registers per hit for a part of a probe the script named). */
int cg_called_once(const CgState *cg, const Function *f)
{
	return !f->embedded && !f->recursive && cg->calls->calls[f->index] == 1;
}

static int loop_stmt(Stmt *st, void *ctx)
{
	(void)ctx;
	return st->kind == ST_WHILE || st->kind == ST_FOR || st->kind == ST_FOREACH;
}

/* The macro that says a body charges no actions (STP_ACTIONS_UNLESS), for a probe's full path
 * and for a function called once (its caller's): NULL when it always charges (it loops, or is
 * called from several places). */
char *cg_uncounted_macro(const CgState *cg, const Function *f, Stmt *body, const char *name)
{
	if ((f && !cg_called_once(cg, f)) || ast_walk_stmt(body, &(AstVisitor){ .stmt = loop_stmt }))
		return NULL;
	return xasprintf("STP_UNCOUNTED_%s", name);
}

void cg_calls_record(CgState *cg, const Function *f, const Probe *p, int actions, int loops)
{
	CgCalls *cc = cg->calls;
	int n = loops ? UNBOUNDED : actions;

	if (f) {
		cc->fn_actions[f->index] = n;
	} else if (p && p->index >= 0) {
		if (p->index >= cc->nprobes) {      /* a probe added since (the end-of-run display) */
			cc->probe_actions = xrealloc(cc->probe_actions, ((size_t)p->index + 1) * sizeof *cc->probe_actions);
			while (cc->nprobes <= p->index)
				cc->probe_actions[cc->nprobes++] = -1;
		}
		cc->probe_actions[p->index] = n;
	}
}

static int body_bound(CgCalls *cc, Stmt *body, int own);

static int function_bound(CgCalls *cc, Function *f)
{
	if (f->embedded)
		return 0;                   /* embedded C charges nothing */
	if (f->recursive)
		return UNBOUNDED;
	if (cc->fn_bound[f->index] < 0)
		cc->fn_bound[f->index] = body_bound(cc, f->body, cc->fn_actions[f->index]);
	return cc->fn_bound[f->index];
}

typedef struct BoundSum {
	CgCalls *cc;
	long long sum;
} BoundSum;

static int add_callee(Expr *e, void *ctx)
{
	BoundSum *b = ctx;

	if (e->kind == EX_CALL && e->fn && b->sum < UNBOUNDED) {
		int f = function_bound(b->cc, e->fn);
		b->sum = f == UNBOUNDED ? UNBOUNDED : b->sum + f;
	}
	return 0;
}

/* own plus every call's callee bound, each call counted (UNBOUNDED when any is) */
static int body_bound(CgCalls *cc, Stmt *body, int own)
{
	BoundSum b = { cc, own };

	if (own == UNBOUNDED)
		return UNBOUNDED;
	ast_walk_stmt(body, &(AstVisitor){ .expr = add_callee, .ctx = &b });
	return b.sum >= UNBOUNDED ? UNBOUNDED : (int)b.sum;
}

/* The STP_UNCOUNTED_ macro of the body that calls f (called once), "0" when it has none. */
static char *caller_macro(const CgState *cg, const Function *f)
{
	const Function *by = cg->calls->caller_fn[f->index];
	const Probe *probe = cg->calls->caller_probe[f->index];

	if (by && cg_called_once(cg, by))
		return xasprintf("STP_UNCOUNTED_fn_%s", by->cname);
	if (probe && probe->index < cg->calls->nprobes && cg->calls->probe_actions[probe->index] >= 0)
		return xasprintf("STP_UNCOUNTED_probe_%d", probe->index);
	return xstrdup("0");
}

/* A function the body calls, or one of theirs, that charges its own actions: one called from
 * several places (a function called once charges as its caller says; embedded C charges none). */
static int calls_counted(const CgState *cg, Stmt *body, PtrVec *seen);

static int counted_callee(Expr *e, void *ctx)
{
	void **a = ctx;
	Function *f = e->kind == EX_CALL ? e->fn : NULL;

	if (!f || f->embedded || !first_visit(a[1], f))
		return 0;
	return !cg_called_once(a[0], f) || calls_counted(a[0], f->body, a[1]);
}

static int calls_counted(const CgState *cg, Stmt *body, PtrVec *seen)
{
	void *a[2] = { (void *)cg, seen };

	return ast_walk_stmt(body, &(AstVisitor){ .expr = counted_callee, .ctx = a });
}

/* The STP_UNCOUNTED_ macros the bodies name, before the code: a probe whose body and callees are
 * loop-free charges none when the sum of all their actions is within both limits (the runtime's
 * STP_ACTIONS_WITHIN, as -DMAXACTION says at compile time); a function called once charges none
 * when its caller does not. */
void cg_calls_defines(Session *s, StrBuf *out)
{
	Program *prog = &s->prog;
	CgCalls *cc = s->cg->calls;

	sb_puts(out, "/* bodies that charge no actions: their sum is within MAXACTION (translator/codegen/callgraph.c) */\n");
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		int own = p->index < cc->nprobes ? cc->probe_actions[p->index] : -1;
		int bound = own < 0 ? UNBOUNDED : body_bound(cc, p->body, own);
		PtrVec seen = { 0 };
		if (own >= 0 && bound == UNBOUNDED)
			sb_printf(out, "#define STP_UNCOUNTED_probe_%d 0\n", p->index);
		else if (own >= 0)
			sb_printf(out, "#define STP_UNCOUNTED_probe_%d STP_ACTIONS_WITHIN(%d)\n", p->index, bound);
		/* a hit of a handler none of whose code charges actions keeps no count (core/probe.c) */
		if (bound != UNBOUNDED && !calls_counted(s->cg, p->body, &seen))
			sb_printf(out, "#define STP_CHARGES_NONE_probe_%d STP_UNCOUNTED_probe_%d\n", p->index, p->index);
		else
			sb_printf(out, "#define STP_CHARGES_NONE_probe_%d 0\n", p->index);
		free(seen.items);
	}
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		char *by;
		if (!cg_called_once(s->cg, f))
			continue;
		by = caller_macro(s->cg, f);
		sb_printf(out, "#define STP_UNCOUNTED_fn_%s %s\n", f->cname, by);
		free(by);
	}
	sb_puts(out, "\n");
}
