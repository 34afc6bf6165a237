/* perf.c - the "perf" probe family: perf.type(N).config(M)[.sample(S)|.hz(F)][.process[("PATH")]][.counter("NAME")]
 * on the kernel's perf events: one per online CPU, one on the target process, or one on each process
 * running PATH.  In the registry. */
#include "providers/provider.h"
#include "providers/perf.h"

#include <string.h>

#define PERF_DEFAULT_SAMPLE 1000000LL   /* SystemTap's default sampling period */

/* What a perf point says.  Parsed again from the point in pass 3 (DerivedProbe has no room). */
typedef struct PerfSpec {
	int64_t type, config;
	int64_t period;              /* events per hit, or hits per second when freq */
	int freq;                    /* .hz(F) */
	int process;                 /* .process: the target process (-c CMD, -x PID) only */
	const ProbePointComponent *program;   /* .process("PATH"): the processes running PATH */
	const char *counter;         /* .counter("NAME"): read with @perf("NAME"), no handler */
} PerfSpec;

/* The numeric argument of component i named `name`, or -1 after a diagnostic (report). */
static int perf_number(Session *s, const ProbePoint *pp, int i, const char *name, int64_t min, int64_t *out, int report)
{
	const ProbePointComponent *c = pp_component(pp, i);

	if (!c || !c->name || strcmp(c->name, name)) {
		if (report)
			diag_at(&s->diag, c ? c->loc : pp->loc, "semantic error",
				"perf probes are written perf.type(N).config(M), optionally followed by .sample(S) or "
				".hz(F), .process and .counter(\"NAME\")");
		return -1;
	}
	if (!c->arg || c->arg->kind != EX_NUMBER || c->arg->num < min) {
		if (report)
			diag_at(&s->diag, c->arg ? c->arg->loc : c->loc, "semantic error", "perf .%s needs a %s number", name,
				min > 0 ? "positive" : "non-negative");
		return -1;
	}
	*out = c->arg->num;
	return 0;
}

/* One component after config: .sample(S)/.hz(F), .process or .counter("NAME"), each at most once and
 * in any order.  Returns 1 when it is valid. */
static int perf_option(Session *s, const ProbePoint *pp, int i, PerfSpec *sp, unsigned *seen, int report)
{
	const ProbePointComponent *c = pp_component(pp, i);
	const char *n = c->name ? c->name : "{...}";
	unsigned bit = !strcmp(n, "sample") || !strcmp(n, "hz") ? 1 : !strcmp(n, "process") ? 2
		: !strcmp(n, "counter") ? 4 : 0;

	if (!bit || (*seen & bit)) {
		if (report && bit == 1)
			diag_at(&s->diag, c->loc, "semantic error", "a perf probe point has one sampling rate: .sample(S) or .hz(F)");
		else if (report)
			diag_at(&s->diag, c->loc, "semantic error", bit ? "perf probe point component '%s' given twice"
				: "unknown probe point component '%s' in a perf probe point", n);
		return 0;
	}
	*seen |= bit;
	if (bit == 1) {
		sp->freq = !strcmp(n, "hz");
		return !perf_number(s, pp, i, n, 1, &sp->period, report);
	}
	if (bit == 2 && c->arg && (c->arg->kind != EX_STRING || !c->arg->str[0])) {
		if (report)
			diag_at(&s->diag, c->arg->loc, "semantic error", "perf .process takes the path of a program: .process(\"PATH\")");
		return 0;
	}
	if (bit == 2 && c->arg)
		sp->program = c;
	else
		sp->process |= bit == 2;
	if (bit == 4 && (!c->arg || c->arg->kind != EX_STRING || !c->arg->str[0])) {
		if (report)
			diag_at(&s->diag, c->loc, "semantic error", "perf .counter needs a name: .counter(\"NAME\")");
		return 0;
	}
	if (bit == 4)
		sp->counter = c->arg->str;
	return 1;
}

/* Parses pp into sp; with report, a bad point gets a diagnostic.  Returns 1 when valid. */
static int perf_parse(Session *s, const ProbePoint *pp, PerfSpec *sp, int report)
{
	unsigned seen = 0;

	memset(sp, 0, sizeof *sp);
	sp->period = PERF_DEFAULT_SAMPLE;
	if (perf_number(s, pp, 1, "type", 0, &sp->type, report) || perf_number(s, pp, 2, "config", 0, &sp->config, report))
		return 0;
	if (sp->type > 0xffffffffLL) {
		if (report)
			diag_at(&s->diag, pp_component(pp, 1)->arg->loc, "semantic error", "perf event type %lld is out of range",
				(long long)sp->type);
		return 0;
	}
	for (int i = 3; i < pp->components.len; i++)
		if (!perf_option(s, pp, i, sp, &seen, report))
			return 0;
	return 1;
}

static const DerivedProbe *perf_find_counter(Session *s, const char *name, int *k)
{
	int n = 0;

	for (int i = 0; i < s->derived.len; i++) {
		const DerivedProbe *dp = s->derived.items[i];
		PerfSpec sp;

		if (dp->provider != &perf_provider)
			continue;
		if (perf_parse(s, dp->point, &sp, 0) && sp.counter && !strcmp(sp.counter, name)) {
			if (k)
				*k = n;
			return dp;
		}
		n++;
	}
	return NULL;
}

static int resolve_perf(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	PerfSpec sp;

	(void)dp;
	if (!perf_parse(s, pp, &sp, 1))
		return 0;
	if (sp.counter && perf_find_counter(s, sp.counter, NULL)) {
		diag_at(&s->diag, pp->loc, "semantic error", "perf counter '%s' is defined twice", sp.counter);
		return 0;
	}
	if (sp.program) {
		/* the program as process("PATH") finds it: $PATH, symbolic links resolved */
		char *path = process_point_path(s, sp.program);

		if (!path)
			return 0;
		free(path);
	}
	return 1;
}

int perf_counter_index(Session *s, const char *name)
{
	int k = -1;

	return perf_find_counter(s, name, &k) ? k : -1;
}

int perf_cpu_counter(Session *s, const DerivedProbe *dp, int64_t *type, int64_t *config, int *k)
{
	PerfSpec sp;

	if (dp->provider != &perf_provider || !perf_parse(NULL, dp->point, &sp, 0) || sp.process || sp.program || !sp.counter)
		return 0;
	*type = sp.type;
	*config = sp.config;
	if (k)
		*k = perf_counter_index(s, sp.counter);
	return 1;
}

int perf_cpu_event(const DerivedProbe *dp, int64_t *type, int64_t *config, int64_t *period, int *freq)
{
	PerfSpec sp;

	/* no Session: perf_parse reports nothing, and needs none, without report */
	if (dp->provider != &perf_provider || !perf_parse(NULL, dp->point, &sp, 0) || sp.process || sp.program || sp.counter)
		return 0;
	*type = sp.type;
	*config = sp.config;
	*period = sp.period;
	*freq = sp.freq;
	return 1;
}

static void emit_perf(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	for (int i = 0; i < n; i++)
		sb_printf(out, "STP_PERF_TRAMPOLINE(%d)\n", dps[i]->index);
	sb_puts(out, "static struct stp_perf_probe stp_perf_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		PerfSpec sp;

		perf_parse(s, dps[i]->point, &sp, 0);
		if (sp.program) {
			char *path = process_point_path(s, sp.program);

			sb_puts(out, "\t{ .path = ");
			emit_c_string(out, path ? path : "");
			sb_puts(out, ",\n");
			free(path);
		} else {
			sb_puts(out, "\t{\n");
		}
		sb_printf(out, "\t  .desc = &stp_descs[%d], .type = %lldU, .config = %lldULL, .period = %lldULL, "
			  ".freq = %d, .task = %d, .counter = %d, .optional = %d, .fire = stp_perf_hit_%d, "
			  ".final = &stp_perf_final_%d },\n",
			  dps[i]->index, (long long)sp.type, (long long)sp.config, sp.counter ? 0LL : (long long)sp.period,
			  sp.counter ? 0 : sp.freq, sp.process, sp.counter != NULL, dps[i]->optional, dps[i]->index,
			  dps[i]->index);
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_PERF_FAMILY(stp_perf_probes)\n\n");
}

static const char *const perf_forms[] = {
	"perf.type(number).config(number)", "perf.type(number).config(number).sample(number)",
	"perf.type(number).config(number).hz(number)", "perf.type(number).config(number).counter(string)",
	"perf.type(number).config(number).sample(number).counter(string)", "perf.type(number).config(number).process",
	"perf.type(number).config(number).sample(number).process", "perf.type(number).config(number).process.counter(string)",
	"perf.type(number).config(number).process(string)", "perf.type(number).config(number).sample(number).process(string)",
	"perf.type(number).config(number).process(string).counter(string)",
	NULL,
};

const ProbeProvider perf_provider = { .family = "perf", .resolve = resolve_perf, .runtime = "probes/perf.c",
				      .emit = emit_perf, .forms = perf_forms };
