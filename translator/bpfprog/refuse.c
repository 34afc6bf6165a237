/* refuse.c - what a script asks that the BPF runtime cannot run (yet), found before any C is written
 * and reported where the script asks it, with the way out (the module runtime); used by bpfprog/object.c. */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "elaborate/builtins.h"
#include "lib/diag.h"
#include "providers/perf.h"
#include "providers/provider.h"
#include "targets/access.h"

#include <string.h>

/* an embedded-C function's mark that its C names only what runtime/bpf implements too */
#define BPF_EMBEDDED_MARK "/* bpf */"
#define WAY_OUT "use the module runtime (without --runtime=bpf)"

BpfProgKind bpf_prog_kind(const DerivedProbe *dp)
{
	const char *fam = dp->provider->family, *member = dp->provider->member;

	if (!strcmp(fam, "never"))
		return BPF_PROG_NEVER;   /* no program at all */
	if (!strcmp(fam, "begin"))
		return BPF_PROG_BEGIN;
	if (!strcmp(fam, "end"))
		return BPF_PROG_END;
	if (!strcmp(fam, "error"))
		return BPF_PROG_ERROR;
	if (!strcmp(fam, "procfs"))   /* stapio serves the files */
		return BPF_PROG_PROCFS;
	if (!strcmp(fam, "timer") && !member && dp->number > 0)   /* timer.s(N)...: not timer.profile */
		return BPF_PROG_TIMER;
	if (!strcmp(fam, "timer") && member && !strcmp(member, "profile"))   /* perf's cpu-clock on each CPU */
		return BPF_PROG_PROFILE;
	if (!strcmp(fam, "kernel") && member && !strcmp(member, "trace"))
		return BPF_PROG_TP_BTF;
	if (!strcmp(fam, "perf")) {   /* a perf event on each CPU, sampled or counting; not .process */
		int64_t type, config, period;
		int freq;
		if (perf_cpu_event(dp, &type, &config, &period, &freq))
			return BPF_PROG_PERF;
		return perf_cpu_counter(NULL, dp, &type, &config, NULL) ? BPF_PROG_PERF_COUNTER : BPF_PROG_NONE;
	}
	if (dp->provider->place) {
		ProbePlace at;
		if (dp->provider->place(dp, &at))
			return at.path ? BPF_PROG_UPROBE : BPF_PROG_KPROBE;
	}
	return BPF_PROG_NONE;
}

/* The builtins the BPF runtime implements (runtime/bpf/). */
static int builtin_supported(const char *name)
{
	static const char *const names[] = {
		"printf", "print", "println", "printd", "printdln", "sprintf", "sprint", "sprintln", "sprintd", "sprintdln",
		"exit", "execname", "pid", "tid", "cpu", "error", "warn", "strlen",
		"gettimeofday_ns", "gettimeofday_us", "gettimeofday_ms", "gettimeofday_s", "local_clock_ns", "jiffies", "ppid",
		"target", "uid", "pp", "pn", "matched", "ngroups", "switch_file",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/* the extractors of a statistic the BPF runtime merges (bpf/stats.h) */
static int stat_extractor(const char *op)
{
	static const char *const ops[] = { "count", "sum", "min", "max", "avg", "variance", "hist_log", "hist_linear" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}

/* What of a bound target variable the BPF runtime cannot read yet (NULL: it can): the reads of
 * registers, arguments and memory are runtime/bpf/targetvars.h's */
static const char *target_refusal(const TgAccess *a)
{
	if (a->base == TGB_SYMBOL && (a->in_user_file || !a->sym_name))
		return "a global variable of a program";
	return NULL;
}

int bpf_embedded_ok(const Function *f)
{
	return f->embedded && strstr(f->embedded, BPF_EMBEDDED_MARK) != NULL;
}

typedef struct Refusals {
	Session *s;
	int count;
	int groups;             /* the script calls matched() or ngroups() (bpf_regex_groups) */
	PtrVec seen_fns;
	AstVisitor v;
} Refusals;

static void refuse_at(Refusals *r, SrcLoc loc, const char *what)
{
	diag_at(&r->s->diag, loc, "error", "%s is not available on the BPF runtime yet: " WAY_OUT, what);
	r->count++;
}

/* every statement runs on BPF now (loops.c); what they hold is refuse_expr's */
static int refuse_stmt(Stmt *st, void *ctx)
{
	(void)st;
	(void)ctx;
	return 0;
}

static int refuse_expr(Expr *e, void *ctx)
{
	Refusals *r = ctx;

	switch (e->kind) {
	case EX_CALL:
		if (e->builtin && (e->builtin->print_flags & PRINT_TO_STRING)) {
			for (int i = 0; i < e->args.len; i++) {
				Expr *a = e->args.items[i];
				if (a->kind == EX_AT && !strncmp(a->str, "hist_", 5) && !a->chain.len)
					refuse_at(r, a->loc, "a histogram drawn into a string (sprint)");
			}
		}
		if (e->builtin && !builtin_supported(e->builtin->name)) {
			char *what = xasprintf("function %s()", e->builtin->name);
			refuse_at(r, e->loc, what);
			free(what);
		} else if (e->fn && e->fn->embedded && !bpf_embedded_ok(e->fn)) {
			char *what = xasprintf("embedded-C function %s()", e->fn->name);
			refuse_at(r, e->loc, what);
			free(what);
		} else if (e->fn && first_visit(&r->seen_fns, e->fn)) {
			ast_walk_stmt(e->fn->body, &r->v);   /* what the function does, once */
		}
		break;
	case EX_BINARY:
		if (e->op == OP_MATCH || e->op == OP_NOMATCH) {
			const char *why = bpf_regex_refusal(e->right, r->groups);
			if (why)
				refuse_at(r, e->loc, why);
		}
		break;
	case EX_ASSIGN:
	case EX_INCDEC:
		if (e->left && e->left->kind == EX_BOUND) {
			refuse_at(r, e->loc, "writing a target variable");
			return AST_WALK_SKIP;
		}
		break;
	case EX_AT:
		if (stat_extractor(e->str) || !strcmp(e->str, "perf"))   /* @perf: a counter each CPU has (object.c) */
			break;
		{
			char *what = xasprintf("@%s", e->str);
			refuse_at(r, e->loc, what);
			free(what);
		}
		return AST_WALK_SKIP;
	case EX_BOUND: {
		const char *why = target_refusal(e->bound);
		if (why) {
			refuse_at(r, e->loc, why);
			return AST_WALK_SKIP;
		}
		break;
	}
	case EX_CONTEXT:
		if (e->ctxvar->bpf)
			break;
		refuse_at(r, e->loc, "a target variable");
		return AST_WALK_SKIP;
	case EX_TARGET:
	case EX_AUTOCAST:
		refuse_at(r, e->loc, "a target variable");
		return AST_WALK_SKIP;
	case EX_EMBEDDED:
		refuse_at(r, e->loc, "embedded C");
		break;
	default:
		break;
	}
	return 0;
}

/* @perf in the probes stapio runs (syscall programs: sleepable, which the kernel lets read no perf event array) and the
 * functions they call: each such probe's body walked once (whichever of its points comes first), each function once */
typedef struct PerfInStapio {
	Refusals *r;
	PtrVec seen_probes, seen_fns;
	AstVisitor v;
} PerfInStapio;

static int perf_in_stapio_expr(Expr *e, void *ctx)
{
	PerfInStapio *p = ctx;

	if (e->kind == EX_AT && !strcmp(e->str, "perf"))
		refuse_at(p->r, e->loc, "@perf in a begin, end, error, timer or procfs probe (stapio runs them)");
	else if (e->kind == EX_CALL && e->fn && !e->fn->embedded && first_visit(&p->seen_fns, e->fn))
		ast_walk_stmt(e->fn->body, &p->v);
	return 0;
}

static void refuse_perf_in_stapio(PerfInStapio *p, DerivedProbe *dp)
{
	BpfProgKind k = bpf_prog_kind(dp);

	if ((k == BPF_PROG_BEGIN || k == BPF_PROG_END || k == BPF_PROG_ERROR || k == BPF_PROG_TIMER || k == BPF_PROG_PROCFS) &&
	    first_visit(&p->seen_probes, dp->probe))
		ast_walk_stmt(dp->probe->body, &p->v);
}

int bpf_refuse(Session *s)
{
	Refusals r = { .s = s, .groups = bpf_regex_groups(s) };
	PerfInStapio perf = { .r = &r };
	PtrVec seen_probes = { 0 };

	r.v = (AstVisitor){ refuse_stmt, refuse_expr, &r };
	perf.v = (AstVisitor){ NULL, perf_in_stapio_expr, &perf };
	/* BPF calls no subprogram recursively, and nests at most 8 frames (the kernel's MAX_CALL_FRAMES,
	 * the program's own among them) */
	if (s->prog.recursive || s->prog.call_depth > 7) {
		diag_plain(&s->diag, "error", "%s is not available on the BPF runtime yet: " WAY_OUT,
			   s->prog.recursive ? "a recursive function" : "a call chain deeper than 7");
		r.count++;
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
		refuse_perf_in_stapio(&perf, dp);
	}
	free(seen_probes.items);
	free(perf.seen_probes.items);
	free(perf.seen_fns.items);
	free(r.seen_fns.items);
	return r.count;
}
