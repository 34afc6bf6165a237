/* match.c - code generation for =~ and !~: the literal pattern is compiled at
 * translate time into a static program the runtime matcher runs.  Used by expr.c. */
#include "codegen/gen.h"
#include "lib/regex.h"

#include <string.h>

static int user_defined(Session *s, const CgState *cg, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < s->defines.len; i++) {
		const char *d = s->defines.items[i];
		int ours = 0;
		for (int k = 0; k < 3; k++)
			ours |= cg->rx.define_at[k] == i + 1;
		if (!ours && !strncmp(d, name, n) && (d[n] == '=' || !d[n]))
			return 1;
	}
	return 0;
}

/* Sizes the per-CPU work area (runtime/core/regex.h) for the largest program: a
 * -D of the runtime writer's defines (kmodule/skeleton.c), printed before runtime.h; a user's own -D wins and
 * the static assertion beside each program checks it. */
static void need(Session *s, CgState *cg, int k, const char *name, int value, int *cur)
{
	char *d;

	if (value <= *cur)
		return;
	*cur = value;
	if (user_defined(s, cg, name))
		return;
	d = xasprintf("%s=%d", name, value);
	if (cg->rx.define_at[k]) {
		s->defines.items[cg->rx.define_at[k] - 1] = d;
	} else {
		vec_push(&s->defines, d);
		cg->rx.define_at[k] = s->defines.len;
	}
}

void cg_regex_sizes(Gen *g, int ninsns, int nthreads, int nsub)
{
	need(g->s, g->cg, 0, "STP_REGEX_MAXINSNS", ninsns, &g->cg->rx.insns);
	need(g->s, g->cg, 1, "STP_REGEX_MAXTHREADS", nthreads, &g->cg->rx.threads);
	need(g->s, g->cg, 2, "STP_REGEX_MAXSUB", nsub, &g->cg->rx.sub);
}

static void emit_program(Gen *g, int id, const char *pattern, const RxProgram *p)
{
	StrBuf *t = g->tables;

	sb_puts(t, "/* =~ ");
	for (const char *c = pattern; *c; c++) {       /* the pattern, kept out of harm in a comment */
		if ((*c == '*' && c[1] == '/') || (*c == '/' && c[1] == '*') || (unsigned char)*c < 32 ||
		    (unsigned char)*c >= 127)
			sb_puts(t, "?");
		else
			sb_putc(t, *c);
	}
	sb_puts(t, " */\n");
	sb_printf(t, "static const struct stp_re_insn stp_re_%d_insns[%d] = {\n", id, p->ninsns);
	for (int i = 0; i < p->ninsns; i++) {
		static const char *const ops[] = { "CHAR", "ANY", "CLASS", "SPLIT", "JMP", "SAVE", "BOL", "EOL", "MATCH" };
		const struct stp_re_insn *in = &p->insns[i];
		sb_printf(t, "\t{ STP_RE_%s, %u, %u, %u },\n", ops[in->op], in->c, in->x, in->y);
	}
	sb_puts(t, "};\n");
	if (p->nclasses) {
		sb_printf(t, "static const unsigned char stp_re_%d_classes[%d][32] = {\n", id, p->nclasses);
		for (int i = 0; i < p->nclasses; i++) {
			sb_puts(t, "\t{ ");
			for (int b = 0; b < 32; b++)
				sb_printf(t, "0x%02x,%s", p->classes[i][b], b == 15 ? "\n\t  " : b == 31 ? "" : " ");
			sb_puts(t, " },\n");
		}
		sb_puts(t, "};\n");
	}
	sb_printf(t, "static const struct stp_re_prog stp_re_%d = { stp_re_%d_insns, ", id, id);
	if (p->nclasses)
		sb_printf(t, "stp_re_%d_classes, ", id);
	else
		sb_puts(t, "NULL, ");
	sb_printf(t, "%d, %d, %d, %d };\n", p->ninsns, p->nthreads, p->nsub, p->anchored);
	sb_printf(t, "_Static_assert(STP_REGEX_MAXINSNS >= %d && STP_REGEX_MAXTHREADS >= %d && STP_REGEX_MAXSUB >= %d, "
		  "\"the regex work area is too small for stp_re_%d\");\n\n", p->ninsns, p->nthreads, p->nsub, id);
}

/* The number of pattern's program, emitted on first use; -1 if it does not compile
 * (pass 2 reported it already, so this is not expected). */
static int program_id(Gen *g, Expr *lit)
{
	RxProgram prog;
	char msg[160];
	int pos, *slot;
	CgState *cg = g->cg;

	if (cg->rx.tables != g->tables) {       /* other tables (an @entry function's own): start over */
		free(cg->rx.ids.keys);
		free(cg->rx.ids.values);
		memset(&cg->rx, 0, sizeof cg->rx);
		cg->rx.tables = g->tables;
	}
	slot = strmap_get(&cg->rx.ids, lit->str);
	if (slot)
		return *slot;
	if (rx_compile(lit->str, &prog, &pos, msg, sizeof msg)) {
		rx_check(&g->s->diag, lit->str, lit->loc);
		return -1;
	}
	slot = xmalloc(sizeof *slot);
	*slot = cg->rx.count++;
	*strmap_slot(&cg->rx.ids, lit->str, 1) = slot;
	emit_program(g, *slot, lit->str, &prog);
	cg_regex_sizes(g, prog.ninsns, prog.nthreads, prog.nsub);
	rx_free(&prog);
	return *slot;
}

char *cg_regex_match(Gen *g, Expr *e)
{
	int id = program_id(g, e->right);
	char *subject = cg_expr(g, e->left);
	char *t = cg_long_tmp(g);

	if (id < 0)
		return xstrdup("0");
	cg_set_location(g, "operator", e->op == OP_MATCH ? "=~" : "!~", e->loc);
	cg_line(g, "%s = stp_regex_match(c, &stp_re_%d, %s);", t, id, subject);
	cg_check_error(g);
	return e->op == OP_MATCH ? t : xasprintf("((int64_t)!%s)", t);
}
