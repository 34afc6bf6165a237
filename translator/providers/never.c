/* never.c - the "never" probe family: a point that resolves but never fires,
 * so its body is checked and compiled only.  Plugged into the registry. */
#include "providers/provider.h"

static int resolve_never(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	(void)s;
	(void)dp;
	if (pp->components.len != 1 || pp_component(pp, 0)->arg) {
		diag_at(&s->diag, pp->loc, "semantic error", "'never' takes no argument and no further component");
		return 0;
	}
	return 1;
}

/* Nothing to arm: the family's entry in stp_providers[] does nothing. */
static void emit_never(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	(void)dps;
	(void)n;
	sb_puts(out, "static int stp_never_register(void)\n{\n\treturn 0;\n}\n"
		     "static void stp_never_unregister(void)\n{\n}\n\n");
}

static const char *const never_forms[] = { "never", NULL };

const ProbeProvider never_provider = { .family = "never", .resolve = resolve_never, .emit = emit_never, .forms = never_forms };
