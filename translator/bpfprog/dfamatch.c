/* dfamatch.c - =~ and !~ on the BPF runtime: the literal pattern's DFA (lib/rxdfa.c), its tables as the object's
 * read-only data and a bpf_loop callback walking them (runtime/bpf/strings.h's stp_rxd_*).  matched() and
 * ngroups(), which need the VM's groups, stay the module runtime's. */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "lib/rxdfa.h"

#include <stdlib.h>

/* the pattern's DFA, or -1 (a bad pattern, reported in pass 2; or too many states) */
static int build(const char *pattern, RxDfa *d)
{
	RxProgram prog;
	char msg[160];
	int pos, rc;

	if (rx_compile(pattern, &prog, &pos, msg, sizeof msg))
		return -1;
	rc = rxd_build(&prog, d);
	rx_free(&prog);
	return rc;
}

int bpf_regex_ok(const Expr *pattern)
{
	RxDfa d;

	if (pattern->kind != EX_STRING || build(pattern->str, &d))
		return pattern->kind != EX_STRING;   /* not a literal: pass 2's error */
	rxd_free(&d);
	return 1;
}

static void emit_tables(StrBuf *t, int id, const RxDfa *d)
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

char *bpf_regex_match(Gen *g, Expr *e)
{
	RxDfa d;
	char *subject, *t;
	int id;

	if (e->right->kind != EX_STRING || build(e->right->str, &d))
		return xstrdup("0");   /* refused (refuse.c) or reported in pass 2 */
	id = g->cg->table_counter++;
	emit_tables(g->tables, id, &d);
	sb_printf(&g->hoisted, "/* =~ at line %d */\nstatic long stp_rxd_%d_step(u64 i, void *r)\n{\n"
		  "\treturn stp_rxd_step(r, i, stp_rxd_%d_cls, stp_rxd_%d_next, stp_rxd_%d_accept, %d, %d);\n}\n\n",
		  e->loc.line, id, id, id, id, d.nstates, d.nclasses);
	rxd_free(&d);
	subject = cg_expr(g, e->left);
	t = cg_long_tmp(g);
	cg_line(g, "%s = stp_rxd_match(c, %s, stp_rxd_%d_step);", t, subject, id);
	return e->op == OP_MATCH ? t : xasprintf("((int64_t)!%s)", t);
}
