/* profile.c - the "timer" family's "profile" member: timer.profile, timer.profile.tick and
 * timer.profile.freq.hz(N), firing on every online CPU.  Plugged into the provider registry. */
#include "providers/provider.h"

#include <string.h>

#define PROFILE_MAX_HZ 10000     /* 100 us, the shortest period timer.ns() accepts too */

static int profile_refuse(Session *s, const ProbePointComponent *c, const ProbePoint *pp)
{
	diag_at(&s->diag, c ? c->loc : pp->loc, "semantic error",
		"profile timer probes are written timer.profile, timer.profile.tick or timer.profile.freq.hz(N)");
	return 0;
}

/* dp->number: the period in ns, 0 for the scheduler tick (the runtime's TICK_NSEC). */
static int resolve_profile(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	const ProbePointComponent *prof = pp_component(pp, 1);
	const ProbePointComponent *kind = pp_component(pp, 2);
	const ProbePointComponent *hz = pp_component(pp, 3);

	(void)s;
	if (prof->arg)
		return profile_refuse(s, prof, pp);
	if (!kind) {
		dp->number = 0;
		return 1;
	}
	if (!strcmp(kind->name, "tick") && !kind->arg) {
		if (pp->components.len > 3)
			return profile_refuse(s, hz, pp);
		dp->number = 0;
		return 1;
	}
	if (strcmp(kind->name, "freq") || kind->arg || !hz || strcmp(hz->name, "hz") || pp->components.len > 4)
		return profile_refuse(s, pp->components.len > 4 ? pp_component(pp, 4) : kind, pp);
	if (!hz->arg || hz->arg->kind != EX_NUMBER || hz->arg->num <= 0) {
		diag_at(&s->diag, hz->loc, "semantic error", "timer.profile.freq.hz needs a positive number");
		return 0;
	}
	if (hz->arg->num > PROFILE_MAX_HZ) {
		diag_at(&s->diag, hz->arg->loc, "semantic error", "profile timer frequency too high: %lld hz (the maximum is %d hz)",
			(long long)hz->arg->num, PROFILE_MAX_HZ);
		return 0;
	}
	dp->number = 1000000000LL / hz->arg->num;
	return 1;
}

static void emit_profile(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	for (int i = 0; i < n; i++)
		sb_printf(out, "STP_PROFILE_TRAMPOLINE(%d)\n", dps[i]->index);
	sb_puts(out, "static struct stp_profile_probe stp_profile_probes[] = {\n");
	for (int i = 0; i < n; i++)
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .period_ns = %lldULL, .fire = stp_profile_hit_%d },\n",
			  dps[i]->index, (long long)dps[i]->number, dps[i]->index);
	sb_puts(out, "};\n");
	sb_puts(out, "STP_PROFILE_FAMILY(stp_profile_probes)\n\n");
}

static const char *const profile_forms[] = {
	"timer.profile", "timer.profile.tick", "timer.profile.freq.hz(number)", NULL,
};

const ProbeProvider profile_provider = {
	.family = "timer",
	.member = "profile",
	.cname = "profile",
	.resolve = resolve_profile,
	.runtime = "probes/profile.c",
	.emit = emit_profile,
	.forms = profile_forms,
};
