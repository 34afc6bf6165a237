/* stats.c - code generation for statistics: <<< into per-CPU accumulators,
 * @count ... @variance, histograms, aggregate arrays.  Used by expr.c, stmt.c. */
#include "codegen/gen.h"
#include "elaborate/builtins.h"
#include "core/limits.h"

#include <string.h>

/* What the uses of one statistics global ask of its accumulators: the
 * runtime sizes them at load, so one histogram shape per global. */
typedef struct StatInfo {
	Symbol *sym;
	int htype;
	int64_t low, high, width;
	int variance;           /* @variance is used */
	int shift;              /* its bit shift */
	int shift_set;          /* a nonzero shift was given */
	int uses_count;         /* @count reads it */
	int uses_other;         /* another operator reads it (@sum, @min, @hist_log ...) */
	int uses_minmax;        /* @min or @max reads it (or sorts by it) */
	int deleted;            /* delete x appears (scalars) */
	int read_running;       /* read, or deleted, by a probe that runs while the session does (any
	                         * but end) or by a function such a probe calls: cg_stats_read_running */
} StatInfo;

/* A histogram argument of print/println/sprint and that call: errors name the call. */
typedef struct HistPrint {
	Expr *hist, *call;
} HistPrint;

static StatInfo *stat_info(CgState *cg, Symbol *sym, int create)
{
	StatInfo *si;

	for (int i = 0; i < cg->stat_infos.len; i++) {
		si = cg->stat_infos.items[i];
		if (si->sym == sym)
			return si;
	}
	if (!create)
		return NULL;
	si = xcalloc(1, sizeof *si);
	si->sym = sym;
	vec_push(&cg->stat_infos, si);
	return si;
}

static int hist_buckets(const StatInfo *si)
{
	if (!si || si->htype == CG_HIST_NONE)
		return 0;
	if (si->htype == CG_HIST_LOG)
		return STP_HIST_LOG_BUCKETS;
	return (int)(((uint64_t)si->high - (uint64_t)si->low) / (uint64_t)si->width) + 3;
}

/* ---- pass-3 checks: the shape of each global from its uses ---- */

typedef struct Check {
	CgState *cg;
	Diag *diag;
	int errors;
} Check;

static void check_error_at(Check *ck, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void check_error_at(Check *ck, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(ck->diag, loc, "semantic error", fmt, ap);
	va_end(ap);
	ck->errors++;
}

static void check_hist(Check *ck, Expr *e, StatInfo *si)
{
	int htype = !strcmp(e->str, "hist_log") ? CG_HIST_LOG : CG_HIST_LINEAR;
	int64_t low = 0, high = 0, width = 0;

	if (htype == CG_HIST_LINEAR) {
		if (e->args.len != 4)
			return;   /* reported by the parser */
		low = ((Expr *)e->args.items[1])->num;
		high = ((Expr *)e->args.items[2])->num;
		width = ((Expr *)e->args.items[3])->num;
		if (width <= 0) {
			check_error_at(ck, ((Expr *)e->args.items[3])->loc,
				       "@hist_linear: the bucket width must be positive, not %lld", (long long)width);
			return;
		}
		if (high <= low) {
			check_error_at(ck, ((Expr *)e->args.items[2])->loc,
				       "@hist_linear: the high end (%lld) must be above the low end (%lld)", (long long)high,
				       (long long)low);
			return;
		}
		if (((uint64_t)high - (uint64_t)low) / (uint64_t)width + 3 > STP_MAX_BUCKETS) {
			check_error_at(ck, e->loc, "@hist_linear: %llu buckets between low and high, at most %d",
				       (unsigned long long)(((uint64_t)high - (uint64_t)low) / (uint64_t)width + 1),
				       STP_MAX_BUCKETS - 2);
			return;
		}
	}
	if (si->htype == CG_HIST_NONE) {
		si->htype = htype;
		si->low = low;
		si->high = high;
		si->width = width;
	} else if (si->htype != htype || si->low != low || si->high != high || si->width != width) {
		check_error_at(ck, e->loc, "multiple histogram types declared on '%s'", si->sym->name);
	}
}

static void check_variance(Check *ck, Expr *e, StatInfo *si)
{
	int64_t shift = 0;

	si->variance = 1;
	if (e->args.len < 2)
		return;
	Expr *n = e->args.items[1];
	if (n->kind != EX_NUMBER) {
		check_error_at(ck, n->loc, "@variance takes a literal number for the bit shift");
		return;
	}
	shift = n->num;
	if (shift < 0 || shift > 62) {
		check_error_at(ck, n->loc, "bit shift (%lld) out of range <0..62>", (long long)shift);
		return;
	}
	if (si->shift_set && si->shift != shift)
		check_error_at(ck, e->loc, "conflicting bit shifts declared (previously %d)", si->shift);
	else if (shift) {
		si->shift = (int)shift;
		si->shift_set = 1;
	}
}

/* op ("count", "sum", "min", "hist_log" ...) reads si's statistic. */
static void note_reader(StatInfo *si, const char *op)
{
	if (!strcmp(op, "count"))
		si->uses_count = 1;
	else
		si->uses_other = 1;
	if (!strcmp(op, "min") || !strcmp(op, "max"))
		si->uses_minmax = 1;
}

static int check_expr(Expr *e, void *ctx)
{
	Check *ck = ctx;

	if (e->kind == EX_AT && is_stats_op(e->str) && e->args.len) {
		Symbol *sym = ((Expr *)e->args.items[0])->sym;
		StatInfo *si;
		if (!sym || sym->type != TY_STATS)
			return 0;   /* pass 2 reported it */
		si = stat_info(ck->cg, sym, 1);
		if (!strncmp(e->str, "hist_", 5))
			check_hist(ck, e, si);
		else if (!strcmp(e->str, "variance"))
			check_variance(ck, e, si);
		note_reader(si, e->str);
	}
	if (e->kind == EX_CALL && e->builtin && e->builtin->kind == BI_PRINT) {
		for (int i = 0; i < e->args.len; i++) {
			Expr *a = e->args.items[i];
			if (a->kind == EX_AT && !strncmp(a->str, "hist_", 5) && !a->chain.len) {
				HistPrint *hp = xcalloc(1, sizeof *hp);
				hp->hist = a;
				hp->call = e;
				vec_push(&ck->cg->hist_prints, hp);
			}
		}
	}
	return 0;
}

static int check_stmt(Stmt *st, void *ctx)
{
	Check *ck = ctx;

	if (st->kind == ST_DELETE && st->expr && st->expr->kind == EX_IDENT && st->expr->sym &&
	    st->expr->sym->type == TY_STATS)
		stat_info(ck->cg, st->expr->sym, 1)->deleted = 1;
	if (st->kind != ST_FOREACH)
		return 0;
	/* sorted by value: by @count unless another operator is named, which then reads the data */
	if (st->sort_on < 0 && st->sort_agg && strcmp(st->sort_agg, "count") && st->array->kind != EX_AT &&
	    st->array->sym && st->array->sym->type == TY_STATS)
		note_reader(stat_info(ck->cg, st->array->sym, 1), st->sort_agg);
	if (st->array->kind == EX_AT && is_stats_op(st->array->str) && st->keys.len != 1)
		check_error_at(ck, st->loc, "foreach over histogram buckets takes one bucket variable");
	else if (st->array->kind != EX_AT && st->array->sym && st->array->sym->type == TY_STATS && st->value)
		check_error_at(ck, st->value->loc, "foreach over the statistics array '%s' takes no value variable",
			       st->array->sym->name);
	return 0;
}

/* sym is read (or deleted) by a probe that runs while the session does, or by a function such a
 * probe calls (module.c finds them: cg_mark_running_readers): its adds keep the read lock. */
void cg_stats_read_running(CgState *cg, Symbol *sym)
{
	stat_info(cg, sym, 1)->read_running = 1;
}

int cg_stats_check(Session *s)
{
	Program *prog = &s->prog;
	Check ck = { .cg = s->cg, .diag = &s->diag };
	AstVisitor v = { check_stmt, check_expr, &ck };

	ast_walk_program(prog, &v);
	return ck.errors;
}

/* x <<< v on sym can count on this CPU without the global's lock (stp_stat_count_inc, whose
 * comment in runtime/stats/stat.c has the argument): a scalar statistic that only @count reads,
 * so the count is all it keeps, and that no `delete` clears. */
int cg_stats_lockfree(CgState *cg, const Symbol *sym)
{
	StatInfo *si;

	if (!sym || sym->kind != SYM_GLOBAL || sym->type != TY_STATS || sym->is_array == 1)
		return 0;
	si = stat_info(cg, (Symbol *)sym, 0);
	return si && si->uses_count && !si->uses_other && !si->deleted;
}

/* x <<< v on sym (a statistic or an array of them) takes no lock: it counts without one
 * (cg_stats_lockfree), or only end probes read it.  Why the second needs none:
 *   - the add writes this CPU's accumulator (or this CPU's map of them) alone, and a hit never
 *     interrupts another on the same CPU (the reentrancy guard, runtime/core/probe.c), so no
 *     other add can be in the middle of it;
 *   - nothing reads or clears it while the session runs: the end probes run after every other
 *     family is stopped and its hits have finished (runtime/core/module.c: stp_stop_providers),
 *     so they merge the CPUs' accumulators with no add under way, as the write lock they take
 *     would have made sure. */
int cg_stats_add_unlocked(CgState *cg, const Symbol *sym)
{
	StatInfo *si;

	if (cg_stats_lockfree(cg, sym))
		return 1;
	if (!sym || sym->kind != SYM_GLOBAL || sym->type != TY_STATS)
		return 0;
	si = stat_info(cg, (Symbol *)sym, 0);
	return !si || !si->read_running;
}

/* ---- the shape a runtime sizes a statistic's accumulators by ---- */

CgStatShape cg_stats_shape(CgState *cg, Symbol *sym)
{
	StatInfo *si = stat_info(cg, sym, 0);

	if (!si)
		return (CgStatShape){ .htype = CG_HIST_NONE };
	return (CgStatShape){ si->htype, si->low, si->high, si->width, si->shift, si->variance };
}

/* ---- reading ---- */

/* The accumulator an operator applies to: x, or a[k] (NULL when absent),
 * merged over the CPUs into a struct stp_stat_data * local; returns it. */
static char *load_stats(Gen *g, Expr *operand, int for_iteration)
{
	Symbol *sym = operand->sym;
	char *sd = cg_named_local(g, "struct stp_stat_data *", "sd");

	if (operand->kind == EX_INDEX) {
		char *k = cg_keys(g, sym, &operand->args);
		cg_line(g, "%s = stp_pmap_get%s(g_%s, %s);", sd, for_iteration ? "_iter" : "", sym->name, k);
	} else {
		cg_line(g, "%s = stp_stat_get(g_%s);", sd, sym->name);
	}
	return sd;
}

static char *shape_ref(Symbol *sym)
{
	return xasprintf("STP_STAT_SHAPE(g_%s)", sym->name);   /* the runtime's */
}

static void fail_if(Gen *g, const char *cond, const char *msg)
{
	cg_line(g, "if (unlikely(%s)) {", cond);
	cg_line(g, "\tstp_error(c, \"%s\");", msg);
	cg_line(g, "\tgoto %s;", cg_error_label(g));
	cg_line(g, "}");
}

static void check_not_empty(Gen *g, const char *sd)
{
	fail_if(g, xasprintf("!%s || !%s->count", sd, sd), "empty aggregate");
}

/* @count(x) ... @variance(x), @hist_log(x)[i]: a long.  @count and @sum of
 * an empty aggregate are 0; the others are the error "empty aggregate". */
char *cg_stats_op(Gen *g, Expr *e)
{
	Expr *operand = e->args.items[0];
	Symbol *sym = operand->sym;
	char *op_name = xasprintf("@%s", e->str);
	char *t, *sd, *idx = NULL;

	if (!strncmp(e->str, "hist_", 5)) {
		ChainItem *it = e->chain.len ? e->chain.items[0] : NULL;
		int buckets = hist_buckets(stat_info(g->cg, sym, 0));
		if (!it || !it->index)
			return xstrdup("0");   /* a bare histogram: the parser reports it */
		idx = cg_expr(g, it->index);
		if (cg_has_side_effects(operand))
			idx = cg_materialize(g, idx, TY_LONG);
		sd = load_stats(g, operand, 0);
		t = cg_long_tmp(g);
		cg_set_location(g, "operator", op_name, e->loc);
		check_not_empty(g, sd);
		fail_if(g, xasprintf("%s < 0 || %s >= %d", idx, idx, buckets), "histogram index out of range");
		cg_line(g, "%s = %s->hist[%s];", t, sd, idx);
		return t;
	}
	sd = load_stats(g, operand, 0);
	t = cg_long_tmp(g);
	if (!strcmp(e->str, "count") || !strcmp(e->str, "sum")) {
		cg_line(g, "%s = %s ? %s->%s : 0;", t, sd, sd, e->str);
		return t;
	}
	cg_set_location(g, "operator", op_name, e->loc);
	check_not_empty(g, sd);
	if (!strcmp(e->str, "avg"))
		cg_line(g, "%s = stp_stat_avg(%s);", t, sd);
	else if (!strcmp(e->str, "variance"))
		cg_line(g, "%s = stp_stat_variance(%s, %s);", t, shape_ref(sym), sd);
	else
		cg_line(g, "%s = %s->%s;", t, sd, e->str);
	return t;
}

/* print(@hist_log(x)): the bar chart; an empty aggregate is an error. */
void cg_stats_print(Gen *g, Expr *hist, const char *out)
{
	Expr *operand = hist->args.items[0];
	char *sd = load_stats(g, operand, 0);
	Expr *call = NULL;

	for (int i = 0; i < g->cg->hist_prints.len; i++) {
		HistPrint *hp = g->cg->hist_prints.items[i];
		if (hp->hist == hist)
			call = hp->call;
	}
	if (call)
		cg_set_location(g, "identifier", call->str, call->loc);
	else
		cg_set_location(g, "operator", xasprintf("@%s", hist->str), hist->loc);
	check_not_empty(g, sd);
	cg_line(g, "stp_hist_print(%s, %s, %s);", out, shape_ref(operand->sym), sd);
}

/* ---- writing ---- */

static const char *hist_type_name(int htype)
{
	static const char *const types[] = { "STP_HIST_NONE", "STP_HIST_LOG", "STP_HIST_LINEAR" };

	return types[htype];
}

/* What x <<< v keeps besides the count (runtime/stats/stat.c STP_STAT_*), by the operators that read
 * the statistic: the count alone when only @count does (and sorts by it). */
static const char *stat_keep(const StatInfo *si)
{
	if (!si || !si->uses_other)
		return si && si->uses_count ? "STP_STAT_COUNT" : "STP_STAT_ALL";
	return si->uses_minmax ? "STP_STAT_ALL" : "STP_STAT_SUM";
}

/* x <<< v, a[k] <<< v: the value of the expression is v. */
char *cg_stats_add(Gen *g, Expr *e)
{
	Expr *lhs = e->left;
	Symbol *sym = lhs->sym;
	char *k = NULL, *v;
	unsigned int comm = 0;

	if (lhs->kind == EX_INDEX)
		k = cg_keys_comm(g, sym, &lhs->args, &comm);
	v = cg_materialize(g, cg_expr(g, e->right), TY_LONG);
	if (!k && cg_stats_lockfree(g->cg, sym)) {
		cg_line(g, "stp_stat_count_inc(g_%s);", sym->name);
		return v;
	}
	/* the global's shape is known here: the runtime skips what it does not need */
	StatInfo *si = stat_info(g->cg, sym, 0);
	const char *keep = stat_keep(si);
	if (!k) {
		cg_line(g, "stp_stat_add_as(g_%s, %s, %d, %s, %s);", sym->name, v, si ? si->variance : 0,
		     hist_type_name(si ? si->htype : CG_HIST_NONE), keep);
		return v;
	}
	/* into this CPU's map with the array's key layout and shape fixed (codegen/maps.c) */
	char *map = xasprintf("stp_pmap_cpu(g_%s)", sym->name);
	char *sd = cg_map_slot(g, lhs, map, k, comm, "struct stp_stat_data *");
	free(map);
	cg_line(g, "stp_stat_data_add_as(%s, %s, %s, %d, %s, %s);", shape_ref(sym), sd, v, si ? si->variance : 0,
	     hist_type_name(si ? si->htype : CG_HIST_NONE), keep);
	return v;
}

/* Keys of a slice a[k, *]: fills a struct stp_key array and a bool array
 * (false for '*'); returns "k, want". */
char *cg_slice_keys(Gen *g, const Symbol *arr, PtrVec *keys)
{
	char *k = xasprintf("k%d", g->ntmp++);
	char *want = xasprintf("want%d", g->ntmp++);

	sb_printf(&g->decls, "\tstruct stp_key %s[%d];\n\tbool %s[%d];\n", k, keys->len, want, keys->len);
	for (int i = 0; i < keys->len; i++) {
		Expr *key = keys->items[i];
		char *v;
		if (key->kind == EX_WILDCARD) {
			cg_line(g, "%s[%d] = false;", want, i);
			continue;
		}
		v = cg_materialize(g, cg_expr(g, key), key->type);
		cg_line(g, "%s[%d] = true;", want, i);
		cg_line(g, "%s[%d].%s = %s;", k, i, arr->keytypes[i] == TY_STRING ? "s" : "n", v);
	}
	return xasprintf("%s, %s", k, want);
}

static int has_wildcard(PtrVec *keys)
{
	for (int i = 0; i < keys->len; i++)
		if (((Expr *)keys->items[i])->kind == EX_WILDCARD)
			return 1;
	return 0;
}

/* delete x, delete a, delete a[k], delete a[k, *] */
void cg_stats_delete(Gen *g, Stmt *st)
{
	Expr *e = st->expr;
	Symbol *sym = e->sym;

	if (e->kind == EX_INDEX) {
		if (has_wildcard(&e->args))
			cg_line(g, "stp_pmap_delete_slice(g_%s, %s);", sym->name, cg_slice_keys(g, sym, &e->args));
		else
			cg_line(g, "stp_pmap_delete(g_%s, %s);", sym->name, cg_keys(g, sym, &e->args));
	} else if (sym->is_array == 1) {
		cg_line(g, "stp_pmap_clear(g_%s);", sym->name);
	} else {
		cg_line(g, "stp_stat_clear(g_%s);", sym->name);
	}
}

/* [k] in a, [k, *] in a: some CPU has such a key. */
char *cg_stats_in(Gen *g, Expr *e)
{
	Symbol *arr = e->right->sym;
	PtrVec one = { 0 }, *keys = &one;

	if (e->left->kind == EX_CALL && !e->left->str)
		keys = &e->left->args;
	else
		vec_push(&one, e->left);
	if (has_wildcard(keys))
		return cg_materialize(g, xasprintf("((int64_t)stp_pmap_exists_slice(g_%s, %s))", arr->name,
						cg_slice_keys(g, arr, keys)), TY_LONG);
	return cg_materialize(g, xasprintf("((int64_t)stp_pmap_exists(g_%s, %s))", arr->name, cg_keys(g, arr, keys)),
			   TY_LONG);
}

/* ---- foreach ---- */

/* foreach ([v =] b in @hist_log(x)): every bucket number, 0 up (SystemTap
 * ignores sort markers here); v is the bucket's count. */
static LoopLabels *foreach_buckets(Gen *g, Stmt *st, const char *limit, const char *count)
{
	Expr *hist = st->array, *operand = hist->args.items[0];
	int buckets = hist_buckets(stat_info(g->cg, operand->sym, 0));
	char *sd = load_stats(g, operand, 1);
	char *b = cg_named_local(g, "int", "b");
	LoopLabels *l = cg_loop_push(g);

	cg_line(g, "for (%s = 0; %s < %d; %s++) {", b, b, buckets, b);
	g->indent++;
	cg_loop_charge(g, st);
	cg_limit_check(g, count, limit);
	cg_line(g, "%s = %s;", cg_var_ref(((Expr *)st->keys.items[0])->sym), b);
	if (st->value)
		cg_line(g, "%s = %s ? %s->hist[%s] : 0;", cg_var_ref(st->value->sym), sd, sd, b);
	g->indent--;
	return l;
}

static const char *sort_operator(const char *agg)
{
	if (!agg || !strcmp(agg, "count"))
		return "STP_SORT_COUNT";
	if (!strcmp(agg, "sum"))
		return "STP_SORT_SUM";
	if (!strcmp(agg, "min"))
		return "STP_SORT_MIN";
	if (!strcmp(agg, "max"))
		return "STP_SORT_MAX";
	return "STP_SORT_AVG";
}

/* foreach ([k1, ...] in a[slice] sorted limit N) over a statistics array: the
 * CPUs' maps are merged into the aggregate map, which is sorted in place (by
 * a key, or by @count or the given operator when sorted by value) and walked. */
/* foreach over an array of statistics in place (the kernel module's: cg_foreach_inline_open), its loop l
 * pushed: the CPUs' accumulators merged into the array's aggregate, sorted there, iterated */
void cg_stats_foreach_array(Gen *g, Stmt *st, LoopLabels *l)
{
	Symbol *arr = st->array->sym;
	char *limit = NULL, *count = NULL, *it, **fixed;

	if (st->limit) {
		limit = cg_materialize(g, cg_expr(g, st->limit), TY_LONG);
		count = cg_long_tmp(g);
		cg_line(g, "%s = 0;", count);
	}
	it = cg_named_local(g, "struct stp_map_entry *", "it");
	fixed = xcalloc((size_t)st->slice.len + 1, sizeof *fixed);

	for (int i = 0; i < st->slice.len; i++) {
		Expr *k = st->slice.items[i];
		if (k->kind != EX_WILDCARD)
			fixed[i] = cg_materialize(g, cg_expr(g, k), k->type);
	}
	cg_line(g, "c->last_stmt = %s;", cg_location_literal("keyword", NULL, st->loc));
	cg_line(g, "if (unlikely(!stp_pmap_aggregate(c, g_%s)))", arr->name);
	cg_line(g, "\tgoto %s;", cg_error_label(g));
	if (st->sort_on > 0)
		cg_line(g, "stp_pmap_sort(g_%s, %d, 0, %d);", arr->name, st->sort_on - 1, st->sort_dir);
	else if (st->sort_on < 0)
		cg_line(g, "stp_pmap_sort(g_%s, -1, %s, %d);", arr->name, sort_operator(st->sort_agg), st->sort_dir);
	(void)l;
	cg_line(g, "for (%s = stp_map_first(g_%s->agg); %s; %s = stp_map_next(g_%s->agg, %s)) {", it, arr->name, it, it,
	     arr->name, it);
	g->indent++;
	cg_loop_charge(g, st);
	cg_slice_filter(g, arr, xasprintf("g_%s->agg", arr->name), it, fixed, st->slice.len);
	cg_limit_check(g, count, limit);
	for (int i = 0; i < st->keys.len; i++) {
		Expr *k = st->keys.items[i];
		char *ref = cg_var_ref(k->sym);
		if (arr->keytypes[i] == TY_STRING)
			cg_line(g, "stp_strlcpy(%s, stp_map_key_str(g_%s->agg, %s, %d), MAXSTRINGLEN);", ref, arr->name, it, i);
		else
			cg_line(g, "%s = stp_map_key_long(g_%s->agg, %s, %d);", ref, arr->name, it, i);
	}
	g->indent--;
	free(fixed);
}

/* Opens the loop ("for (...) {" and each iteration's prologue): stmt.c generates the body and closes it. */
LoopLabels *cg_stats_foreach(Gen *g, Stmt *st)
{
	char *limit = NULL, *count = NULL;

	if (st->limit) {
		limit = cg_materialize(g, cg_expr(g, st->limit), TY_LONG);
		count = cg_long_tmp(g);
		cg_line(g, "%s = 0;", count);
	}
	return foreach_buckets(g, st, limit, count);
}
