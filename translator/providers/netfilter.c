/* netfilter.c - the "netfilter" probe family: netfilter.hook("H").pf("P")[.priority("N")] (hook and
 * pf in either order) with $hooknum $skb $in $out $okfn $verdict.  Plugged into the provider registry. */
#include "providers/provider.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The slots of the hit's state the handler reads through c->entry_data: an int64_t array filled by
 * stp_nf_fire() in runtime/probes/netfilter.c (STP_NF_* there: keep both in step). */
#define NF_SLOT(i) "((int64_t *)c->entry_data)[" #i "]"

typedef struct {
	const char *name;
	int value;
} NfName;

/* A protocol family with the hook and priority names SystemTap accepts for it. */
typedef struct {
	const char *name;            /* NFPROTO_IPV4 */
	int pf;                      /* its number */
	int nhooks;                  /* the kernel's hooks of this family: 0 .. nhooks-1 */
	const NfName *hooks;
	const NfName *prios;
} NfFamily;

static const NfName ipv4_hooks[] = {
	{ "NF_INET_PRE_ROUTING", 0 }, { "NF_INET_LOCAL_IN", 1 }, { "NF_INET_FORWARD", 2 },
	{ "NF_INET_LOCAL_OUT", 3 }, { "NF_INET_POST_ROUTING", 4 },
	{ "NF_IP_PRE_ROUTING", 0 }, { "NF_IP_LOCAL_IN", 1 }, { "NF_IP_FORWARD", 2 },
	{ "NF_IP_LOCAL_OUT", 3 }, { "NF_IP_POST_ROUTING", 4 }, { NULL, 0 },
};
static const NfName ipv6_hooks[] = {
	{ "NF_IP6_PRE_ROUTING", 0 }, { "NF_IP6_LOCAL_IN", 1 }, { "NF_IP6_FORWARD", 2 },
	{ "NF_IP6_LOCAL_OUT", 3 }, { "NF_IP6_POST_ROUTING", 4 },
	{ "NF_INET_PRE_ROUTING", 0 }, { "NF_INET_LOCAL_IN", 1 }, { "NF_INET_FORWARD", 2 },
	{ "NF_INET_LOCAL_OUT", 3 }, { "NF_INET_POST_ROUTING", 4 }, { NULL, 0 },
};
static const NfName arp_hooks[] = {
	{ "NF_ARP_IN", 0 }, { "NF_ARP_OUT", 1 }, { "NF_ARP_FORWARD", 2 }, { NULL, 0 },
};
static const NfName bridge_hooks[] = {
	{ "NF_BR_PRE_ROUTING", 0 }, { "NF_BR_LOCAL_IN", 1 }, { "NF_BR_FORWARD", 2 },
	{ "NF_BR_LOCAL_OUT", 3 }, { "NF_BR_POST_ROUTING", 4 }, { NULL, 0 },
};
static const NfName ipv4_prios[] = {
	{ "NF_IP_PRI_FIRST", INT_MIN }, { "NF_IP_PRI_CONNTRACK_DEFRAG", -400 }, { "NF_IP_PRI_RAW", -300 },
	{ "NF_IP_PRI_SELINUX_FIRST", -225 }, { "NF_IP_PRI_CONNTRACK", -200 }, { "NF_IP_PRI_MANGLE", -150 },
	{ "NF_IP_PRI_NAT_DST", -100 }, { "NF_IP_PRI_FILTER", 0 }, { "NF_IP_PRI_SECURITY", 50 },
	{ "NF_IP_PRI_NAT_SRC", 100 }, { "NF_IP_PRI_SELINUX_LAST", 225 },
	{ "NF_IP_PRI_CONNTRACK_CONFIRM", INT_MAX }, { "NF_IP_PRI_LAST", INT_MAX }, { NULL, 0 },
};
static const NfName ipv6_prios[] = {
	{ "NF_IP6_PRI_FIRST", INT_MIN }, { "NF_IP6_PRI_CONNTRACK_DEFRAG", -400 }, { "NF_IP6_PRI_RAW", -300 },
	{ "NF_IP6_PRI_SELINUX_FIRST", -225 }, { "NF_IP6_PRI_CONNTRACK", -200 }, { "NF_IP6_PRI_MANGLE", -150 },
	{ "NF_IP6_PRI_NAT_DST", -100 }, { "NF_IP6_PRI_FILTER", 0 }, { "NF_IP6_PRI_SECURITY", 50 },
	{ "NF_IP6_PRI_NAT_SRC", 100 }, { "NF_IP6_PRI_SELINUX_LAST", 225 }, { "NF_IP6_PRI_LAST", INT_MAX },
	{ NULL, 0 },
};
static const NfName no_names[] = { { NULL, 0 } };

static const NfFamily families[] = {
	{ "NFPROTO_IPV4", 2, 5, ipv4_hooks, ipv4_prios },
	{ "NFPROTO_ARP", 3, 3, arp_hooks, no_names },
	{ "NFPROTO_BRIDGE", 7, 5, bridge_hooks, no_names },
	{ "NFPROTO_IPV6", 10, 5, ipv6_hooks, ipv6_prios },
};

/* dp->number holds the three: pf in bits 40-47, the hook in 32-39, the priority in 0-31. */
static int64_t nf_pack(int pf, int hook, int prio)
{
	return ((int64_t)pf << 40) | ((int64_t)hook << 32) | (int64_t)(uint32_t)prio;
}

static int nf_pf(const DerivedProbe *dp) { return (int)((dp->number >> 40) & 0xff); }
static int nf_hook(const DerivedProbe *dp) { return (int)((dp->number >> 32) & 0xff); }
static int nf_prio(const DerivedProbe *dp) { return (int)(int32_t)(uint32_t)(dp->number & 0xffffffff); }

static const NfName *nf_lookup(const NfName *names, const char *s)
{
	for (; names->name; names++) {
		if (!strcmp(names->name, s))
			return names;
	}
	return NULL;
}

/* s as a decimal int in [lo, hi]; 0 when it is not one. */
static int nf_number(const char *s, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		return 0;
	*out = (int)v;
	return 1;
}

/* The family pf("...") names: its name, or (guru mode, as SystemTap) its number. */
static const NfFamily *nf_family(Session *s, const ProbePointComponent *c)
{
	int n;

	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
		if (!strcmp(families[i].name, c->arg->str))
			return &families[i];
	}
	if (nf_number(c->arg->str, 0, 255, &n)) {
		for (size_t i = 0; s->guru && i < sizeof families / sizeof families[0]; i++) {
			if (families[i].pf == n)
				return &families[i];
		}
		if (s->guru) {
			diag_at(&s->diag, c->arg->loc, "semantic error", "unsupported netfilter protocol family %d (NFPROTO_IPV4 2, "
				"NFPROTO_ARP 3, NFPROTO_BRIDGE 7 or NFPROTO_IPV6 10)", n);
			return NULL;
		}
	}
	diag_at(&s->diag, c->arg->loc, "semantic error", "unsupported netfilter protocol family \"%s\" (NFPROTO_IPV4, NFPROTO_IPV6, "
		"NFPROTO_ARP or NFPROTO_BRIDGE%s)", c->arg->str, s->guru ? "" : "; a number needs stap -g");
	return NULL;
}

/* The hook number hook("...") names in family f; -1 after a diagnostic. */
static int nf_hooknum(Session *s, const NfFamily *f, const ProbePointComponent *c)
{
	const NfName *h = nf_lookup(f->hooks, c->arg->str);
	int n;

	if (h)
		return h->value;
	if (s->guru && nf_number(c->arg->str, 0, f->nhooks - 1, &n))
		return n;
	diag_at(&s->diag, c->arg->loc, "semantic error", "unsupported netfilter hook \"%s\" for protocol family %s (%s%s)",
		c->arg->str, f->name, f->hooks[0].name,
		s->guru ? " ..., or a number below the family's hook count" : " ...; a number needs stap -g");
	return -1;
}

/* The priority priority(...) gives in family f: a name, or a 32-bit number (string or literal). */
static int nf_priority(Session *s, const NfFamily *f, const ProbePointComponent *c, int *out)
{
	const NfName *p;

	if (c->arg && c->arg->kind == EX_NUMBER && c->arg->num >= INT_MIN && c->arg->num <= INT_MAX) {
		*out = (int)c->arg->num;
		return 1;
	}
	if (c->arg && c->arg->kind == EX_STRING) {
		if ((p = nf_lookup(f->prios, c->arg->str))) {
			*out = p->value;
			return 1;
		}
		if (nf_number(c->arg->str, INT_MIN, INT_MAX, out))
			return 1;
	}
	diag_at(&s->diag, c->arg ? c->arg->loc : c->loc, "semantic error", "unsupported netfilter priority%s%s%s for protocol "
		"family %s: a 32-bit number%s%s", c->arg && c->arg->kind == EX_STRING ? " \"" : "",
		c->arg && c->arg->kind == EX_STRING ? c->arg->str : "", c->arg && c->arg->kind == EX_STRING ? "\"" : "",
		f->name, f->prios[0].name ? " or a name such as " : "", f->prios[0].name ? f->prios[0].name : "");
	return 0;
}

static const ProbePointComponent *nf_string_part(const ProbePoint *pp, int i, const char *name)
{
	const ProbePointComponent *c = pp_component(pp, i);

	if (!c || !c->name || strcmp(c->name, name) || !c->arg || c->arg->kind != EX_STRING)
		return NULL;
	return c;
}

static int resolve_netfilter(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	const ProbePointComponent *hook = nf_string_part(pp, 1, "hook"), *pf = nf_string_part(pp, 2, "pf");
	const ProbePointComponent *pri = pp_component(pp, 3);
	const NfFamily *f;
	int hooknum, prio = 0;

	if (!hook || !pf) {
		hook = nf_string_part(pp, 2, "hook");
		pf = nf_string_part(pp, 1, "pf");
	}
	if (!hook || !pf || (pri && (!pri->name || strcmp(pri->name, "priority"))) || pp->components.len > 4) {
		const ProbePointComponent *at = pp->components.len > 4 ? pp_component(pp, 4)
			: hook && pf ? pri : pp_component(pp, 1);
		diag_at(&s->diag, at ? at->loc : pp->loc, "semantic error", "netfilter probes are written "
			"netfilter.hook(\"NF_INET_PRE_ROUTING\").pf(\"NFPROTO_IPV4\") (hook and pf in either order), "
			"optionally followed by .priority(\"N\")");
		return 0;
	}
	if (!(f = nf_family(s, pf)) || (hooknum = nf_hooknum(s, f, hook)) < 0)
		return 0;
	if (pri && !nf_priority(s, f, pri, &prio))
		return 0;
	dp->number = nf_pack(f->pf, hooknum, prio);
	return 1;
}

static void emit_netfilter(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	for (int i = 0; i < n; i++)
		sb_printf(out, "STP_NF_TRAMPOLINE(%d)\n", dps[i]->index);
	sb_puts(out, "static struct stp_nf_probe stp_netfilter_probes[] = {\n");
	for (int i = 0; i < n; i++)
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .optional = %d, .ops = { .hook = stp_nf_hit_%d, .pf = %d, "
			  ".hooknum = %d, .priority = %d } },\n", dps[i]->index, dps[i]->optional, dps[i]->index,
			  nf_pf(dps[i]), nf_hook(dps[i]), nf_prio(dps[i]));
	sb_puts(out, "};\n");
	sb_puts(out, "STP_NETFILTER_FAMILY(stp_netfilter_probes)\n\n");
}

/* $verdict = v: only what the kernel handles without leaking the packet (NF_STOLEN, NF_REPEAT and the
 * rest would leave it to the hook, which keeps nothing): NF_DROP, NF_ACCEPT, NF_QUEUE (+ queue number,
 * bypass flag). Anything else is a script error and the verdict stays. */
#define NF_VERDICT_WRITE "do { int64_t stp_nf_v = (%s); "						\
	"if (stp_nf_v == 0 || stp_nf_v == 1 || (stp_nf_v & ~0xffff8000LL) == 3) " NF_SLOT(5) " = stp_nf_v; "	\
	"else stp_error(c, \"netfilter verdict must be NF_DROP (0), NF_ACCEPT (1) or NF_QUEUE (3, a queue "	\
	"number in bits 16-31)\"); } while (0)"

static const ContextVar nf_vars[] = {
	{ .name = "$hooknum", .type = TY_LONG, .read = NF_SLOT(0) },
	{ .name = "$skb", .type = TY_LONG, .read = NF_SLOT(1) },
	{ .name = "$in", .type = TY_LONG, .read = NF_SLOT(2) },
	{ .name = "$out", .type = TY_LONG, .read = NF_SLOT(3) },
	{ .name = "$okfn", .type = TY_LONG, .read = NF_SLOT(4) },
	{ .name = "$verdict", .type = TY_LONG, .read = NF_SLOT(5), .write = NF_VERDICT_WRITE, .write_needs_guru = 1 },
};

static const ContextVar *netfilter_context_var(Session *s, const DerivedProbe *dp, const char *name)
{
	(void)s;
	(void)dp;
	for (size_t i = 0; i < sizeof nf_vars / sizeof nf_vars[0]; i++) {
		if (!strcmp(nf_vars[i].name, name))
			return &nf_vars[i];
	}
	return NULL;
}

static const char *const netfilter_forms[] = {
	"netfilter.hook(string).pf(string)", "netfilter.hook(string).pf(string).priority(string)",
	"netfilter.pf(string).hook(string)", "netfilter.pf(string).hook(string).priority(string)", NULL,
};

static const char *const netfilter_context_vars[] = {
	"$hooknum", "$skb", "$in", "$out", "$okfn", "$verdict", NULL,
};

const ProbeProvider netfilter_provider = {
	.family = "netfilter", .resolve = resolve_netfilter, .runtime = "probes/netfilter.c", .emit = emit_netfilter,
	.forms = netfilter_forms, .context_var = netfilter_context_var, .context_vars = netfilter_context_vars,
};
