/* begin_end.c - the "begin", "end" and "error" probe families: run once when
 * the session starts, stops, or stops after script errors, in process
 * context, ordered by priority.  Plugged into the registry. */
#include "providers/provider.h"

#include <string.h>

static int resolve_begin_end(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	const ProbePointComponent *c = pp_component(pp, 0);

	(void)s;
	if (pp->components.len != 1) {
		diag_at(&s->diag, pp_component(pp, 1)->loc, "semantic error", "unknown probe point component '%s' after '%s'",
			pp_component(pp, 1)->name, c->name);
		return 0;
	}
	if (c->arg && c->arg->kind != EX_NUMBER) {
		diag_at(&s->diag, c->loc, "semantic error", "'%s' takes a number (its priority)", c->name);
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
	sb_printf(out, "static const struct stp_probe_desc *const stp_%s_probes[] = {\n", family);
	for (int i = 0; i < n; i++)
		sb_printf(out, "\t&stp_descs[%d],\n", dps[i]->index);
	sb_puts(out, "};\n");
	sb_printf(out, "static int stp_%s_register(void)\n{\n", family);
	if (!strcmp(family, "begin"))
		sb_printf(out, "\treturn stp_run_once(stp_%s_probes, ARRAY_SIZE(stp_%s_probes), true);\n}\n", family, family);
	else
		sb_puts(out, "\treturn 0;\n}\n");
	sb_printf(out, "static void stp_%s_unregister(void)\n{\n", family);
	if (!strcmp(family, "end"))
		sb_printf(out, "\tstp_run_once(stp_%s_probes, ARRAY_SIZE(stp_%s_probes), false);\n", family, family);
	if (!strcmp(family, "error"))
		sb_printf(out, "\tstp_run_on_error(stp_%s_probes, ARRAY_SIZE(stp_%s_probes));\n", family, family);
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

static void emit_error(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	emit_table("error", dps, n, out);
}

static const char *const begin_forms[] = { "begin", "begin(number)", NULL };
static const char *const end_forms[] = { "end", "end(number)", NULL };
static const char *const error_forms[] = { "error", "error(number)", NULL };

const ProbeProvider begin_provider = { .family = "begin", .resolve = resolve_begin_end, .runtime = "probes/begin_end.h",
				       .emit = emit_begin, .forms = begin_forms };
const ProbeProvider end_provider = { .family = "end", .resolve = resolve_begin_end, .runtime = "probes/begin_end.h",
				     .emit = emit_end, .forms = end_forms };
const ProbeProvider error_provider = { .family = "error", .resolve = resolve_begin_end, .runtime = "probes/begin_end.h",
				       .emit = emit_error, .forms = error_forms };
