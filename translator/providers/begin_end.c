/* begin_end.c - the "begin" and "end" probe families: run once when the
 * session starts or stops, in process context.  Plugged into the registry. */
#include "provider.h"

static int resolve_begin_end(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	const ProbePointComponent *c = pp_component(pp, 0);

	(void)s;
	if (pp->components.len != 1) {
		diag_at(pp_component(pp, 1)->loc, "semantic error", "unknown probe point component '%s' after '%s'",
			pp_component(pp, 1)->name, c->name);
		return 0;
	}
	if (c->arg && c->arg->kind != EX_NUMBER) {
		diag_at(c->loc, "semantic error", "'%s' takes a number (its priority)", c->name);
		return 0;
	}
	dp->number = c->arg ? c->arg->num : 0;
	return 1;
}

/* Stable insertion sort by priority, so lower numbers run first. */
static void sort_by_priority(DerivedProbe **dps, int n)
{
	for (int i = 1; i < n; i++) {
		DerivedProbe *x = dps[i];
		int j = i;
		for (; j > 0 && dps[j - 1]->number > x->number; j--)
			dps[j] = dps[j - 1];
		dps[j] = x;
	}
}

static void emit_table(const char *family, DerivedProbe **dps, int n, StrBuf *out)
{
	sort_by_priority(dps, n);
	sb_printf(out, "#include \"probes/begin_end.h\"\n");
	sb_printf(out, "static const struct stp_probe_desc *const stp_%s_probes[] = {\n", family);
	for (int i = 0; i < n; i++)
		sb_printf(out, "\t&stp_descs[%d],\n", dps[i]->index);
	sb_puts(out, "};\n");
	sb_printf(out, "static int stp_%s_register(void)\n{\n", family);
	if (family[0] == 'b')
		sb_printf(out, "\treturn stp_run_once(stp_%s_probes, ARRAY_SIZE(stp_%s_probes));\n}\n", family, family);
	else
		sb_puts(out, "\treturn 0;\n}\n");
	sb_printf(out, "static void stp_%s_unregister(void)\n{\n", family);
	if (family[0] == 'e')
		sb_printf(out, "\tstp_run_once(stp_%s_probes, ARRAY_SIZE(stp_%s_probes));\n", family, family);
	sb_puts(out, "}\n\n");
}

static void emit_begin(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	emit_table("begin", dps, n, out);
}

static void emit_end(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	emit_table("end", dps, n, out);
}

const ProbeProvider begin_provider = { "begin", resolve_begin_end, emit_begin };
const ProbeProvider end_provider = { "end", resolve_begin_end, emit_end };
