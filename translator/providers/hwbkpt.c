/* hwbkpt.c - the "kernel.data" probe family: kernel.data(ADDRESS|"SYMBOL")[.length(N)].write|.rw,
 * hardware watchpoints on kernel memory (the CPU's debug registers, register_wide_hw_breakpoint).
 * In the registry. */
#include "providers/provider.h"

#include <inttypes.h>
#include <string.h>

#define HWBKPT_MAX 4            /* x86-64 has four debug address registers */

/* What a kernel.data point says; parsed again from the point in pass 3 (DerivedProbe has no room). */
typedef struct HwbkptSpec {
	const char *symbol;         /* "SYMBOL", or NULL with addr */
	uint64_t addr;
	int64_t len;                /* 1, 2, 4 or 8 bytes */
	int rw;                     /* .rw: reads too; else .write */
} HwbkptSpec;

static int hwbkpt_usage(Session *s, const ProbePoint *pp, const ProbePointComponent *c)
{
	diag_at(&s->diag, c ? c->loc : pp->loc, "semantic error", "kernel.data probes are written kernel.data(ADDRESS).write, "
		"kernel.data(\"SYMBOL\").rw, with .length(1|2|4|8) before .write/.rw");
	return 0;
}

/* Parses pp into sp; with report, a bad point gets a diagnostic.  Returns 1 when valid. */
static int hwbkpt_parse(Session *s, const ProbePoint *pp, HwbkptSpec *sp, int report)
{
	const ProbePointComponent *data = pp_component(pp, 1), *c = pp_component(pp, 2);
	int i = 3;

	memset(sp, 0, sizeof *sp);
	sp->len = 1;
	if (!data->arg || (data->arg->kind == EX_STRING && !data->arg->str[0]))
		return report ? hwbkpt_usage(s, pp, data) : 0;
	if (data->arg->kind == EX_STRING)
		sp->symbol = data->arg->str;
	else
		sp->addr = (uint64_t)data->arg->num;
	if (c && c->name && !strcmp(c->name, "length")) {
		if (!c->arg || c->arg->kind != EX_NUMBER ||
		    (c->arg->num != 1 && c->arg->num != 2 && c->arg->num != 4 && c->arg->num != 8)) {
			if (report)
				diag_at(&s->diag, c->arg ? c->arg->loc : c->loc, "semantic error", "a watchpoint's .length is 1, 2, "
					"4 or 8 bytes");
			return 0;
		}
		sp->len = c->arg->num;
		c = pp_component(pp, i++);
	}
	if (!c || !c->name || c->arg || (strcmp(c->name, "write") && strcmp(c->name, "rw")) || pp->components.len > i)
		return report ? hwbkpt_usage(s, pp, c && (!c->name || c->arg || (strcmp(c->name, "write") && strcmp(c->name, "rw")))
					     ? c : pp_component(pp, i)) : 0;
	sp->rw = !strcmp(c->name, "rw");
	if (!sp->symbol && (sp->addr & (uint64_t)(sp->len - 1))) {
		if (report)
			diag_at(&s->diag, data->arg->loc, "semantic error", "address 0x%" PRIx64 " is not aligned to the watchpoint's "
				"length (%lld bytes)", sp->addr, (long long)sp->len);
		return 0;
	}
	return 1;
}

static int resolve_hwbkpt(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	HwbkptSpec sp;
	StrBuf name;
	int n = 0;

	if (!hwbkpt_parse(s, pp, &sp, 1))
		return 0;
	/* the canonical name: the address in hex, the length when not 1 */
	sb_init(&name);
	if (sp.symbol) {
		sb_puts(&name, "kernel.data(");
		emit_c_string(&name, sp.symbol);
		sb_puts(&name, ")");
	} else {
		sb_printf(&name, "kernel.data(0x%" PRIx64 ")", sp.addr);
	}
	if (sp.len != 1)
		sb_printf(&name, ".length(%lld)", (long long)sp.len);
	sb_puts(&name, sp.rw ? ".rw" : ".write");
	free(dp->name);
	dp->name = sb_steal(&name);
	for (int i = 0; i < s->derived.len; i++)
		n += ((DerivedProbe *)s->derived.items[i])->provider == &hwbkpt_provider;
	if (n >= HWBKPT_MAX) {
		diag_at(&s->diag, pp->loc, "semantic error", "too many kernel.data watchpoints: the CPU has %d debug registers",
			HWBKPT_MAX);
		return 0;
	}
	return 1;
}

static void emit_hwbkpt(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	for (int i = 0; i < n; i++)
		sb_printf(out, "STP_HWBKPT_TRAMPOLINE(%d)\n", dps[i]->index);
	sb_puts(out, "static struct stp_hwbkpt_probe stp_hwbkpt_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		HwbkptSpec sp;

		hwbkpt_parse(s, dps[i]->point, &sp, 0);
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .fire = stp_hwbkpt_hit_%d, .len = %lld, .rw = %d, "
			  ".optional = %d, ", dps[i]->index, dps[i]->index, (long long)sp.len, sp.rw, dps[i]->optional);
		if (sp.symbol) {
			sb_puts(out, ".symbol = ");
			emit_c_string(out, sp.symbol);
		} else {
			sb_printf(out, ".addr = 0x%" PRIx64 "UL", sp.addr);
		}
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_FAMILY(hwbkpt, stp_hwbkpts_start, stp_hwbkpts_stop, stp_hwbkpt_probes)\n\n");
}

static const char *const hwbkpt_forms[] = {
	"kernel.data(number).write", "kernel.data(number).rw", "kernel.data(number).length(number).write",
	"kernel.data(number).length(number).rw", "kernel.data(string).write", "kernel.data(string).rw",
	"kernel.data(string).length(number).write", "kernel.data(string).length(number).rw", NULL,
};

const ProbeProvider hwbkpt_provider = { .family = "kernel", .member = "data", .cname = "hwbkpt",
					.resolve = resolve_hwbkpt, .runtime = "probes/hwbkpt.c", .emit = emit_hwbkpt,
					.forms = hwbkpt_forms };
