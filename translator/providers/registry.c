/* registry.c - the table of probe providers and helpers they share.
 * Used by elaboration (resolving points) and translation (emitting tables). */
#include "providers/provider.h"
#include "providers/ulibs.h"

#include <string.h>

/* In the order families are armed: error and end before begin, so that disarming (the reverse)
 * stops every other family before the end probes run and the error probes run last. A new family
 * is one line here; nothing else lists them. */
static const ProbeProvider *const providers[] = {
	&error_provider,
	&end_provider,
	&begin_provider,
	&never_provider,
	&timer_provider,
	&profile_provider,
	&perf_provider,
	&kprobe_provider,
	&dwarf_provider,
	&tracepoint_provider,
	&procfs_provider,
	&netfilter_provider,
	&hwbkpt_provider,       /* kernel.data(...): before the kernel family's general provider */
	&uprobe_provider,
	&sdt_provider,
	&ulib_provider,         /* process("PATH").library("LIB")...: resolved by the two above */
	&process_lifecycle_provider,
};

/* Families served by a provider registered under another name. */
static const struct {
	const char *family;
	const ProbeProvider *provider;
} also[] = {
	{ "module", &dwarf_provider },   /* module("m").function(...): the kernel family's provider */
};

/* Second components served by a provider registered under another member of the same family. */
static const struct {
	const char *family, *member;
	const ProbeProvider *provider;
} also_members[] = {
	{ "process", "end", &process_lifecycle_provider },      /* process[(...)].end */
	{ "process", "thread", &process_lifecycle_provider },   /* process[(...)].thread.begin/.end */
	{ "process", "provider", &sdt_provider },               /* process("PATH").provider("P").mark(...) */
};

const ProbeProvider *provider_find(const char *family, const char *member)
{
	const ProbeProvider *general = NULL;

	for (size_t i = 0; member && i < sizeof also_members / sizeof also_members[0]; i++)
		if (!strcmp(also_members[i].family, family) && !strcmp(also_members[i].member, member))
			return also_members[i].provider;

	for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++) {
		const ProbeProvider *p = providers[i];
		if (strcmp(p->family, family))
			continue;
		if (!p->member && !general)
			general = p;
		else if (p->member && member && !strcmp(p->member, member))
			return p;
	}
	if (general)
		return general;
	for (size_t i = 0; i < sizeof also / sizeof also[0]; i++) {
		if (!strcmp(also[i].family, family))
			return also[i].provider;
	}
	return NULL;
}

const char *provider_cname(const ProbeProvider *p)
{
	return p->cname ? p->cname : p->family;
}

const ProbeProvider *provider_at(int i)
{
	return i >= 0 && (size_t)i < sizeof providers / sizeof providers[0] ? providers[i] : NULL;
}

const ProbePointComponent *pp_component(const ProbePoint *pp, int i)
{
	return i < pp->components.len ? pp->components.items[i] : NULL;
}

char *pp_text(const ProbePoint *pp)
{
	StrBuf sb;
	sb_init(&sb);
	print_probe_point(pp, &sb);
	return sb_steal(&sb);
}

DerivedProbe *provider_derive(const DerivedProbe *tmpl, char *name, struct TgSite *site, PtrVec *out)
{
	DerivedProbe *dp = xcalloc(1, sizeof *dp);

	*dp = *tmpl;
	dp->name = name;
	dp->site = site;
	vec_push(out, dp);
	return dp;
}

int provider_shared_site(DerivedProbe **dps, int n, int i, int (*kind)(const DerivedProbe *, Session *), Session *s)
{
	int k = kind(dps[i], s), first = -1, count = 0;

	if (k < 0)
		return -1;
	for (int j = 0; j < n && count < 2; j++) {
		if (dps[j]->probe->handler != dps[i]->probe->handler || kind(dps[j], s) != k)
			continue;
		if (first < 0)
			first = dps[j]->index;
		count++;
	}
	return count > 1 ? first : -1;
}
