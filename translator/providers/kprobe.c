/* kprobe.c - the "kprobe" family: kprobe.function("sym") and its .return,
 * symbol checked against the target kernel when symbols are available. */
#include "providers/provider.h"
#include "kernel.h"

#include <string.h>

static int resolve_kprobe(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	const ProbePointComponent *fn = pp_component(pp, 1);
	const ProbePointComponent *ret = pp_component(pp, 2);

	if (!fn || strcmp(fn->name, "function") || !fn->arg || fn->arg->kind != EX_STRING) {
		diag_at(&s->diag, fn ? fn->loc : pp->loc, "semantic error",
			"kprobe probes are written kprobe.function(\"symbol\") or kprobe.function(\"symbol\").return");
		return 0;
	}
	if (pp->components.len > 3 && ret && !strcmp(ret->name, "return")) {
		const ProbePointComponent *extra = pp_component(pp, 3);
		diag_at(&s->diag, extra->loc, "semantic error", "unknown probe point component '%s' after kprobe.function(...).return",
			extra->name ? extra->name : "{...}");
		return 0;
	}
	if (ret && (strcmp(ret->name, "return") || ret->arg || pp->components.len > 3)) {
		diag_at(&s->diag, ret->loc, "semantic error", "unknown probe point component '%s' after kprobe.function(...)",
			ret->name);
		return 0;
	}
	if (!fn->arg->str[0] || strspn(fn->arg->str, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
	    strlen(fn->arg->str)) {
		diag_at(&s->diag, fn->arg->loc, "semantic error", "'%s' is not a kernel symbol name", fn->arg->str);
		return 0;
	}
	if (kernel_symbol_known(s, fn->arg->str) == 0) {
		diag_at(&s->diag, fn->arg->loc, "semantic error", "kernel symbol '%s' not found in kernel %s", fn->arg->str,
			s->kver);
		return 0;
	}
	dp->symbol = xstrdup(fn->arg->str);
	dp->is_return = ret != NULL;
	return 1;
}

/* The .return probe holding the @entry values of dp's body (targets/bind.c: the first kprobe
 * return of the body), NULL when it saves none. */
static const DerivedProbe *entry_holder(Session *s, const DerivedProbe *dp)
{
	if (!dp->is_return)
		return NULL;
	for (int i = 0; i < s->derived.len; i++) {
		const DerivedProbe *o = s->derived.items[i];
		if (o->probe == dp->probe && o->provider == dp->provider && o->is_return)
			return o->entry_size > 0 ? o : NULL;
	}
	return NULL;
}

/* A site's trampoline kind for sharing: 0 a kprobe, 1 a kretprobe, -1 one of its own (a .return
 * with @entry values) */
static int kprobe_trampoline_kind(const DerivedProbe *dp, Session *s)
{
	return entry_holder(s, dp) ? -1 : dp->is_return;
}

static void emit_kprobe(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	int *shared = xcalloc((size_t)n + 1, sizeof *shared);

	for (int i = 0; i < n; i++) {
		const DerivedProbe *e = entry_holder(s, dps[i]);
		shared[i] = provider_shared_site(dps, n, i, kprobe_trampoline_kind, s);
		if (shared[i] >= 0) {
			if (shared[i] == dps[i]->index)
				sb_printf(out, "STP_K%sPROBE_TRAMPOLINE_SHARED(%d)\n", dps[i]->is_return ? "RET" : "",
					  shared[i]);
		} else if (e)
			sb_printf(out, "STP_KRETPROBE_ENTRY_TRAMPOLINE(%d, %d)\n", dps[i]->index, e->index);
		else
			sb_printf(out, "STP_K%sPROBE_TRAMPOLINE(%d)\n", dps[i]->is_return ? "RET" : "", dps[i]->index);
	}
	sb_puts(out, "static struct stp_kprobe stp_kprobe_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		const DerivedProbe *e = entry_holder(s, dps[i]);
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .%s = stp_k%sprobe_hit_%s%d, .symbol = ", dps[i]->index,
			  dps[i]->is_return ? "ret" : "entry", dps[i]->is_return ? "ret" : "",
			  shared[i] >= 0 ? "shared_" : "", shared[i] >= 0 ? shared[i] : dps[i]->index);
		emit_c_string(out, dps[i]->symbol);
		if (e)
			sb_printf(out, ", .ret_entry = stp_kretprobe_entry_%d, .entry_size = %d", dps[i]->index,
				  e->entry_size);
		sb_puts(out, dps[i]->optional ? ", .optional = 1 },\n" : " },\n");
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_KPROBE_FAMILY(stp_kprobe_probes)\n\n");
	free(shared);
}

static const char *const kprobe_forms[] = {
	"kprobe.function(string)", "kprobe.function(string).return", NULL,
};

static int kprobe_place(const DerivedProbe *dp, ProbePlace *at)
{
	*at = (ProbePlace){ .symbol = dp->symbol, .is_return = dp->is_return, .trampoline = !strchr(dp->symbol, ':') };
	return 1;
}

const ProbeProvider kprobe_provider = { .family = "kprobe", .resolve = resolve_kprobe, .runtime = "probes/kprobes.c",
					.emit = emit_kprobe, .forms = kprobe_forms, .place = kprobe_place };
