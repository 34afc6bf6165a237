/* btftracepoints.c - the kernel's and modules' tracepoints from their BTF when they have no DWARF: each one's
 * prototype (the __traceiter_NAME function, else the btf_trace_NAME typedef), the kernel's systems from its
 * headers (tpsystems.c), cached. Used by providers/tracepoint.c. */
#include "btf/btf.h"
#include "image/tpcatalog.h"
#include "lib/filecache.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

#define BTFTP_FUNC_PREFIX "__traceiter_"
#define BTFTP_TYPEDEF_PREFIX "btf_trace_"
#define BTFTP_CACHE_MAGIC "STPBTFTP 2"

/* Every __traceiter_NAME FUNC, and every btf_trace_NAME typedef of a name with no such FUNC, of btf's
 * own types (a module's, not its base's). Their system: systems', else module_system, else none. */
static void btftp_scan(const Btf *btf, StrMap *systems, const char *module_system, PtrVec *out)
{
	StrMap seen = { 0 };

	for (int pass = 0; pass < 2; pass++) {
		const char *prefix = pass ? BTFTP_TYPEDEF_PREFIX : BTFTP_FUNC_PREFIX;
		int kind = pass ? BTF_K_TYPEDEF : BTF_K_FUNC;
		size_t plen = strlen(prefix);
		for (uint32_t id = btf->first_own ? btf->first_own : 1; id <= btf->ntypes; id++) {
			const char *n = btf_name(btf, id), *sys;
			uint32_t proto;
			Tracepoint *tp;
			if (n[0] != prefix[0] || btf_kind(btf, id) != kind || strncmp(n, prefix, plen) || !n[plen] ||
			    strmap_get(&seen, n + plen) || !(proto = btf_func_proto(btf, id)))
				continue;
			tp = xcalloc(1, sizeof *tp);
			tp->name = xstrdup(n + plen);
			if (!(sys = systems ? strmap_get(systems, tp->name) : NULL))
				sys = module_system;
			tp->system = xstrdup(sys ? sys : "");
			tp->nargs = btf_vlen(btf, proto) > 0 ? btf_vlen(btf, proto) - 1 : 0;   /* after __data */
			tp->btf_id = id;
			strmap_put(&seen, tp->name, tp);
			vec_push(out, tp);
		}
	}
	free(seen.keys);
	free(seen.values);
}

/* ---- the cache: "system name nargs id" lines ("-": no system) after a header naming the BTF ---- */

static char *btftp_cache_path(Session *s, const Btf *btf, const char *tree, const char *events, char *header,
			       size_t hsize)
{
	unsigned long long h = filecache_hash(FILECACHE_HASH_INIT, btf->build_id, strlen(btf->build_id));
	char name[64];

	if (btf->module) {
		/* a module's split BTF: its ids follow its base's */
		h = filecache_hash(h, btf->module, strlen(btf->module) + 1);
		h = filecache_hash(h, btf->base->build_id, strlen(btf->base->build_id));
		h = filecache_hash(h, &btf->base->ntypes, sizeof btf->base->ntypes);
	}
	h = filecache_hash(h, &btf->ntypes, sizeof btf->ntypes);
	h = filecache_hash(h, &btf->size, sizeof btf->size);
	if (tree) {
		/* the headers' tree: a header added or changed moves its directory's time */
		char *events = path_join(tree, "include/trace/events");
		h = filecache_hash(h, tree, strlen(tree));
		h = filecache_hash_stat(h, events);
		free(events);
	} else if (events) {
		/* the systems from the running kernel's tracefs */
		h = filecache_hash(h, events, strlen(events));
	}
	snprintf(header, hsize, "%s %016llx", BTFTP_CACHE_MAGIC, h);
	snprintf(name, sizeof name, "btf/%016llx.tp", h);
	return filecache_path(s, name);
}

static int btftp_cache_load(Diag *d, const char *path, const char *header, const Btf *btf, PtrVec *out)
{
	size_t size;
	char *text = filecache_read(d, path, &size), *line, *save = NULL;
	int ok = 1;

	if (!text)
		return -1;
	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, header))
		ok = 0;
	while (ok && (line = strtok_r(NULL, "\n", &save))) {
		char sys[256], name[256];
		unsigned id;
		int nargs;
		Tracepoint *tp;
		if (sscanf(line, "%255s %255s %d %u", sys, name, &nargs, &id) != 4 || nargs < 0 || !id ||
		    id > btf->ntypes) {
			ok = 0;
			break;
		}
		tp = xcalloc(1, sizeof *tp);
		tp->system = xstrdup(strcmp(sys, "-") ? sys : "");
		tp->name = xstrdup(name);
		tp->nargs = nargs;
		tp->btf_id = id;
		vec_push(out, tp);
	}
	free(text);
	if (ok)
		return 0;
	for (int i = 0; i < out->len; i++)
		free(out->items[i]);
	out->len = 0;
	return -1;
}

static void btftp_cache_save(Diag *d, const char *path, const char *header, const PtrVec *tps)
{
	StrBuf sb;

	sb_init(&sb);
	sb_printf(&sb, "%s\n", header);
	for (int i = 0; i < tps->len; i++) {
		const Tracepoint *tp = tps->items[i];
		sb_printf(&sb, "%s %s %d %u\n", tp->system[0] ? tp->system : "-", tp->name, tp->nargs, tp->btf_id);
	}
	filecache_write(d, path, sb.data, (size_t)sb.len);
	sb_free(&sb);
}

static TpCatalog *btftp_catalog(Session *s, Btf *btf)
{
	PtrVec found = { 0 };
	char header[64], *tree, *path;
	const char *events;
	double t0 = now_ms();
	const char *how = "loaded from the cache";
	int headers = -1;

	if (btf->tracepoints)
		return btf->tracepoints;
	tree = btf_tp_headers_tree(s);
	/* without the headers, the running kernel's tracefs names the systems (a host with BTF and no headers) */
	events = !tree && s->target_is_running ? btf_tp_tracefs_events() : NULL;
	path = btftp_cache_path(s, btf, tree, events, header, sizeof header);
	if (!path || btftp_cache_load(&s->diag, path, header, btf, &found) != 0) {
		StrMap systems = { 0 };
		if (tree)
			headers = btf_tp_systems(tree, &systems);
		else if (events)
			btf_tp_systems_tracefs(events, &systems);
		/* a module's tracepoints the kernel's headers do not declare (nfs's fs/nfs/nfstrace.h): their
		 * system is taken to be the module's name, as TRACE_SYSTEM mostly is */
		btftp_scan(btf, tree || events ? &systems : NULL, btf->module, &found);
		for (int i = 0; i < systems.cap; i++)
			if (systems.keys && systems.keys[i]) {
				free(systems.keys[i]);
				free(systems.values[i]);
			}
		free(systems.keys);
		free(systems.values);
		if (path)
			btftp_cache_save(&s->diag, path, header, &found);
		how = "read from the BTF";
	}
	btf->tracepoints = tp_catalog_new(&found);
	free(found.items);
	if (s->verbose >= 2) {
		int unknown = 0;
		for (int i = 0; i < btf->tracepoints->n; i++)
			unknown += !btf->tracepoints->tps[i].system[0];
		fprintf(stderr, "Tracepoints of %s: %d (%d in no header), %s", btf->origin, btf->tracepoints->n, unknown, how);
		if (headers >= 0)
			fprintf(stderr, ", systems from %d headers of %s", headers, tree);
		else if (events)
			fprintf(stderr, ", systems from %s", events);
		fprintf(stderr, " in %.1f ms\n", now_ms() - t0);
	}
	free(tree);
	free(path);
	return btf->tracepoints;
}

int btf_tracepoints(Session *s, Btf *btf, const char *system_glob, const char *name_glob, PtrVec *out)
{
	return tp_catalog_match(btftp_catalog(s, btf), system_glob, name_glob, out);
}

int btf_tracepoint_system_known(Session *s, Btf *btf, const char *system_glob)
{
	return tp_catalog_system_known(btftp_catalog(s, btf), system_glob);
}
