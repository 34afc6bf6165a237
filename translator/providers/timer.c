/* timer.c - the "timer" probe family: timer.s/ms/us/ns/hz/jiffies(N) on a
 * high-resolution timer.  Plugged into the provider registry. */
#include "providers/provider.h"

#include <string.h>

#define MIN_PERIOD_NS 100000LL    /* 100 us: faster timers would starve the CPU */

static const struct {
	const char *unit;
	int64_t ns;                  /* nanoseconds per unit; 0 = hz */
} units[] = {
	{ "s", 1000000000LL }, { "sec", 1000000000LL },
	{ "ms", 1000000LL }, { "msec", 1000000LL },
	{ "us", 1000LL }, { "usec", 1000LL },
	{ "ns", 1LL }, { "nsec", 1LL },
	{ "jiffies", -1 },
	{ "hz", 0 },
};

static int resolve_timer(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	const ProbePointComponent *c = pp_component(pp, 1);
	int64_t n;

	(void)s;
	if (pp->components.len > 2) {
		const ProbePointComponent *extra = pp_component(pp, 2);
		diag_at(&s->diag, extra->loc, "semantic error", "unknown probe point component '%s' after timer.%s(...)",
			extra->name ? extra->name : "{...}", c->name);
		return 0;
	}
	if (!c || pp->components.len != 2) {
		diag_at(&s->diag, pp->loc, "semantic error", "timer probes are written timer.s(N), timer.ms(N), timer.us(N), "
			"timer.ns(N), timer.hz(N) or timer.jiffies(N)");
		return 0;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(units[i].unit, c->name))
			continue;
		if (!c->arg || c->arg->kind != EX_NUMBER || c->arg->num <= 0) {
			diag_at(&s->diag, c->loc, "semantic error", "timer.%s needs a positive number", c->name);
			return 0;
		}
		n = c->arg->num;
		if (units[i].ns == 0)
			dp->number = n > 1000000000LL ? 1 : 1000000000LL / n;
		else if (units[i].ns < 0)
			dp->number = n > INT64_MAX / 4000000LL ? INT64_MAX : n * 4000000LL; /* HZ=250 */
		else
			dp->number = n > INT64_MAX / units[i].ns ? INT64_MAX : n * units[i].ns;
		if (dp->number < MIN_PERIOD_NS) {
			diag_at(&s->diag, c->loc, "semantic error", "timer period too short: %lld ns (the minimum is %lld ns)",
				(long long)dp->number, MIN_PERIOD_NS);
			return 0;
		}
		return 1;
	}
	diag_at(&s->diag, c->loc, "semantic error", "unknown timer unit '%s'", c->name);
	return 0;
}

static void emit_timer(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	for (int i = 0; i < n; i++)
		sb_printf(out, "STP_TIMER_TRAMPOLINE(%d)\n", dps[i]->index);
	sb_puts(out, "static struct stp_timer_probe stp_timer_probes[] = {\n");
	for (int i = 0; i < n; i++)
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .period_ns = %lldULL, .fire = stp_timer_hit_%d },\n",
			  dps[i]->index, (long long)dps[i]->number, dps[i]->index);
	sb_puts(out, "};\n");
	sb_puts(out, "STP_TIMER_FAMILY(stp_timer_probes)\n\n");
}

static const char *const timer_forms[] = {
	"timer.s(number)", "timer.sec(number)", "timer.ms(number)", "timer.msec(number)", "timer.us(number)",
	"timer.usec(number)", "timer.ns(number)", "timer.nsec(number)", "timer.hz(number)", "timer.jiffies(number)",
	NULL,
};

const ProbeProvider timer_provider = { .family = "timer", .resolve = resolve_timer, .runtime = "probes/timer.c",
				       .emit = emit_timer, .forms = timer_forms };
