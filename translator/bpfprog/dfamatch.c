/* dfamatch.c - =~ and !~ on the BPF runtime: the literal pattern's DFA (lib/rxdfa.c), its tables as the object's
 * read-only data and a bpf_loop callback walking them (runtime/bpf/strings.h's stp_rxd_*); in a script that asks for
 * the groups (matched(), ngroups()), the pattern's threads walked with its closures instead (lib/rxclosure.c,
 * runtime/bpf/regex.h's stp_rxc_*), which record them; so too a pattern whose DFA would be too large. */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "elaborate/builtins.h"
#include "lib/rxclosure.h"
#include "lib/rxdfa.h"

#include <stdlib.h>
#include <string.h>

/* the work area of the closures' walk, at most: two lists of threads (a power of two), each with its group slots */
#define RXC_MAX_WORK (64 * 1024)

static int call_asks_groups(Expr *e, void *ctx)
{
	if (e->kind == EX_CALL && e->builtin && (!strcmp(e->builtin->name, "matched") || !strcmp(e->builtin->name, "ngroups")))
		*(int *)ctx = 1;
	return 0;
}

/* whether the script calls matched() or ngroups(): then each =~ records its groups */
int bpf_regex_groups(Session *s)
{
	int asked = 0;

	ast_walk_program(&s->prog, &(AstVisitor){ .expr = call_asks_groups, .ctx = &asked });
	return asked;
}

static int compile(const char *pattern, RxProgram *prog)
{
	char msg[160];
	int pos;

	return rx_compile(pattern, prog, &pos, msg, sizeof msg);
}

/* the pattern's DFA, or -1 (a bad pattern, reported in pass 2; or too many states) */
static int build_dfa(const char *pattern, RxDfa *d)
{
	RxProgram prog;
	int rc;

	if (compile(pattern, &prog))
		return -1;
	rc = rxd_build(&prog, d);
	rx_free(&prog);
	return rc;
}

/* the size of a table whose index the walk masks: a power of two, at least n and 1 */
static int pow2(int n)
{
	int p = 1;

	while (p < n)
		p *= 2;
	return p;
}

/* a list's threads in the walk's work area (runtime/bpf/regex.h's STP_RXC_THREADS): at least 8 */
static int pow2_threads(int n)
{
	return n < 8 ? 8 : pow2(n);
}

/* the pattern's program and closures, or -1 (a bad pattern, or tables or a work area too large) */
static int build_closures(const char *pattern, RxProgram *prog, RxClosures *k)
{
	if (compile(pattern, prog))
		return -1;
	if (2 * pow2_threads(prog->nthreads) * 2 * prog->nsub * 2 > RXC_MAX_WORK || rxc_build(prog, k)) {
		rx_free(prog);
		return -1;
	}
	return 0;
}

const char *bpf_regex_refusal(const Expr *pattern, int groups)
{
	RxProgram prog;
	RxClosures k;
	RxDfa d;

	if (pattern->kind != EX_STRING)
		return NULL;    /* not a literal: pass 2's error */
	if (!groups && !build_dfa(pattern->str, &d)) {
		rxd_free(&d);
		return NULL;
	}
	if (build_closures(pattern->str, &prog, &k))
		return groups ? "a regular expression with too many groups or threads for matched()" :
					 "a regular expression with more than 1024 states and too many threads";
	rxc_free(&k);
	rx_free(&prog);
	return NULL;
}

static void emit_dfa_tables(StrBuf *t, int id, const RxDfa *d)
{
	sb_printf(t, "static const unsigned char stp_rxd_%d_cls[256] SEC(\".rodata\") = {", id);
	for (int b = 0; b < 256; b++)
		sb_printf(t, "%s%u,", b % 32 ? " " : "\n\t", d->cls[b]);
	sb_printf(t, "\n};\nstatic const unsigned short stp_rxd_%d_next[%d] SEC(\".rodata\") = {", id, d->nstates * d->nclasses);
	for (int i = 0; i < d->nstates * d->nclasses; i++)
		sb_printf(t, "%s%u,", i % 16 ? " " : "\n\t", d->next[i]);
	sb_printf(t, "\n};\nstatic const unsigned char stp_rxd_%d_accept[%d] SEC(\".rodata\") = {", id, d->nstates);
	for (int i = 0; i < d->nstates; i++)
		sb_printf(t, "%s%u,", i % 32 ? " " : "\n\t", d->accept[i]);
	sb_puts(t, "\n};\n");
}

static char *dfa_match(Gen *g, Expr *e, RxDfa d)
{
	char *subject, *t;
	int id;

	id = g->cg->table_counter++;
	emit_dfa_tables(g->tables, id, &d);
	sb_printf(&g->hoisted, "/* =~ at line %d */\nstatic long stp_rxd_%d_step(u64 i, void *r)\n{\n"
		  "\treturn stp_rxd_step(r, i, stp_rxd_%d_cls, stp_rxd_%d_next, stp_rxd_%d_accept, %d, %d);\n}\n\n",
		  e->loc.line, id, id, id, id, d.nstates, d.nclasses);
	rxd_free(&d);
	subject = cg_expr(g, e->left);
	t = cg_long_tmp(g);
	cg_line(g, "%s = stp_rxd_match(c, %s, stp_rxd_%d_step);", t, subject, id);
	return t;
}

/* an array of n numbers, zeros after them up to a power of two (the walk masks its index: runtime/bpf/regex.h) */
static void emit_array(StrBuf *t, const char *type, int id, const char *name, int n, unsigned long long (*at)(const void *, int),
		       const void *src)
{
	sb_printf(t, "static const %s stp_rxc_%d_%s[%d] SEC(\".rodata\") = {", type, id, name, pow2(n));
	for (int i = 0; i < n; i++)
		sb_printf(t, "%s%llu,", i % 16 ? " " : "\n\t", at(src, i));
	sb_puts(t, n ? "\n};\n" : " 0 };\n");
}

static unsigned long long at_u8(const void *p, int i) { return ((const unsigned char *)p)[i]; }
static unsigned long long at_u16(const void *p, int i) { return ((const unsigned short *)p)[i]; }
static unsigned long long at_u64(const void *p, int i) { return ((const uint64_t *)p)[i]; }

static void emit_closure_tables(StrBuf *t, int id, const RxProgram *p, const RxClosures *k)
{
	emit_array(t, "u8", id, "op", k->ninsns, at_u8, k->op);
	emit_array(t, "u8", id, "arg", k->ninsns, at_u8, k->arg);
	emit_array(t, "u16", id, "first", k->ninsns * RXC_ATS, at_u16, k->first);
	emit_array(t, "u16", id, "count", k->ninsns * RXC_ATS, at_u16, k->count);
	emit_array(t, "u16", id, "target", k->nentries, at_u16, k->target);
	emit_array(t, "u64", id, "saves", k->nentries, at_u64, k->saves);
	sb_printf(t, "static const u8 stp_rxc_%d_cls[%d][32] SEC(\".rodata\") = {", id, pow2(p->nclasses));
	for (int c = 0; c < p->nclasses; c++) {
		sb_puts(t, "\n\t{");
		for (int b = 0; b < 32; b++)
			sb_printf(t, " %u,", p->classes[c][b]);
		sb_puts(t, " },");
	}
	sb_puts(t, p->nclasses ? "\n};\n" : " { 0 } };\n");
}

static char *closures_match(Gen *g, Expr *e)
{
	RxProgram prog;
	RxClosures k;
	char *subject, *t;
	int id, slots;

	if (e->right->kind != EX_STRING || build_closures(e->right->str, &prog, &k))
		return xstrdup("0");   /* refused (refuse.c) or reported in pass 2 */
	id = g->cg->table_counter++;
	slots = 2 * prog.nsub;
	emit_closure_tables(g->tables, id, &prog, &k);
	cg_regex_sizes(g, prog.ninsns, prog.nthreads, prog.nsub);
	sb_printf(&g->hoisted, "/* =~ at line %d, recording its groups */\n", e->loc.line);
	sb_printf(&g->hoisted, "static long stp_rxc_%d_entry(u64 k, void *r)\n{\n"
		  "\treturn stp_rxc_entry(r, k, stp_rxc_%d_target, stp_rxc_%d_saves, %d, %d, %d, %d);\n}\n\n",
		  id, id, id, k.nentries, pow2(k.nentries) - 1, k.ninsns, slots);
	sb_printf(&g->hoisted, "static long stp_rxc_%d_thread(u64 t, void *r)\n{\n"
		  "\treturn stp_rxc_thread(r, t, stp_rxc_%d_op, stp_rxc_%d_arg, stp_rxc_%d_cls, %d, stp_rxc_%d_first, "
		  "stp_rxc_%d_count, %d, %d, %d, %d, stp_rxc_%d_entry);\n}\n\n",
		  id, id, id, id, pow2(prog.nclasses) - 1, id, id, k.ninsns, pow2(k.ninsns) - 1, pow2(k.ninsns * RXC_ATS) - 1,
		  slots, id);
	sb_printf(&g->hoisted, "static long stp_rxc_%d_position(u64 i, void *r)\n{\n"
		  "\treturn stp_rxc_position(r, i, stp_rxc_%d_first, stp_rxc_%d_count, %d, stp_rxc_%d_thread, "
		  "stp_rxc_%d_entry);\n}\n\n", id, id, id, prog.anchored, id, id);
	subject = cg_expr(g, e->left);
	t = cg_long_tmp(g);
	cg_line(g, "%s = stp_rxc_match(c, %s, %d, %d, stp_rxc_%d_position);", t, subject, k.ninsns, prog.nsub, id);
	rxc_free(&k);
	rx_free(&prog);
	return t;
}

char *bpf_regex_match(Gen *g, Expr *e)
{
	RxDfa d;
	char *t;

	if (e->right->kind != EX_STRING)
		t = xstrdup("0");       /* reported in pass 2 */
	else if (!bpf_regex_groups(g->s) && !build_dfa(e->right->str, &d))
		t = dfa_match(g, e, d);
	else
		t = closures_match(g, e);       /* the groups asked for, or a DFA too large */

	return e->op == OP_MATCH ? t : xasprintf("((int64_t)!%s)", t);
}
