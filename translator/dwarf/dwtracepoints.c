/* dwtracepoints.c - the tracepoints of the kernel or a module from its DWARF: each one's system, name
 * and prototype (the __traceiter_NAME function), cached by build id.  Used by providers/tracepoint.c. */
#include "dwarf/dwarf.h"
#include "lib/filecache.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one tracepoint is described by. The kernel defines each with DEFINE_TRACE, which leaves a
 * function `int __traceiter_NAME(void *__data, PROTO)` in the compile unit that created it (the one
 * defining CREATE_TRACE_POINTS before including the header); the header's TRACE_SYSTEM leaves a
 * variable `str__SYSTEM__trace_system_name` in that unit. The function's DIE gives the prototype:
 * its parameters after __data are the tracepoint's. A unit creating the tracepoints of several
 * headers has several systems: the one named like the header wins ("sched" for events/sched.h). */
#define TP_FUNC_PREFIX "__traceiter_"
#define TP_SYS_PREFIX "str__"
#define TP_SYS_SUFFIX "__trace_system_name"
#define TP_CACHE_MAGIC "STPTP 1"

/* ---- reading the DWARF ---------------------------------------------------------------------------- */

/* "include/trace/events/sched.h" -> "sched": the header's name without its directory and suffix. */
static char *tp_header_name(Dwarf_Die *die)
{
	const char *f = dwarf_decl_file(die), *base;
	size_t n;

	if (!f)
		return xstrdup("unknown");
	base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
	n = strcspn(base, ".");
	return n ? xstrndup(base, n) : xstrdup("unknown");
}

/* The system of a tracepoint declared in header `header` in a unit defining systems sys[0..n). */
static char *tp_system_of(char **sys, int n, char *header)
{
	if (n == 1)
		return xstrdup(sys[0]);
	for (int k = 0; k < n; k++)
		if (!strcmp(sys[k], header))
			return xstrdup(sys[k]);
	return xstrdup(header);
}

/* Adds the tracepoints of one compile unit to out. */
static void tp_scan_cu(DwarfModule *m, Dwarf_Die *cudie, PtrVec *out)
{
	Dwarf_Die child;
	PtrVec funcs = { 0 };        /* Dwarf_Die* of __traceiter_ functions */
	char *sys[64];
	int nsys = 0;

	if (dwarf_child(cudie, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Attribute a;
		const char *name = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name, &a));
		if (!name)
			continue;
		if (tag == DW_TAG_subprogram && !strncmp(name, TP_FUNC_PREFIX, strlen(TP_FUNC_PREFIX)) &&
		    (dwarf_hasattr(&child, DW_AT_low_pc) || dwarf_hasattr(&child, DW_AT_ranges))) {
			/* the function with code; an out-of-line instance's abstract origin has the prototype
			 * with its names and types */
			Dwarf_Die *d = xmalloc(sizeof *d);
			if (!dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &a), d))
				*d = child;
			vec_push(&funcs, d);
		} else if (tag == DW_TAG_variable && nsys < 64 && !strncmp(name, TP_SYS_PREFIX, strlen(TP_SYS_PREFIX))) {
			size_t n = strlen(name), pre = strlen(TP_SYS_PREFIX), suf = strlen(TP_SYS_SUFFIX);
			if (n > pre + suf && !strcmp(name + n - suf, TP_SYS_SUFFIX))
				sys[nsys++] = xstrndup(name + pre, n - pre - suf);
		}
	} while (dwarf_siblingof(&child, &child) == 0);

	for (int i = 0; i < funcs.len; i++) {
		Dwarf_Die *f = funcs.items[i], param;
		Tracepoint *tp = xcalloc(1, sizeof *tp);
		char *header = tp_header_name(f);

		tp->name = xstrdup(dwarf_diename(f) + strlen(TP_FUNC_PREFIX));
		tp->mod = m;
		tp->cu = dwarf_dieoffset(cudie);
		tp->die = dwarf_dieoffset(f);
		if (dwarf_child(f, &param) == 0) {
			do {
				if (dwarf_tag(&param) == DW_TAG_formal_parameter)
					tp->nargs++;
			} while (dwarf_siblingof(&param, &param) == 0);
		}
		tp->nargs = tp->nargs > 0 ? tp->nargs - 1 : 0;   /* __data */
		tp->system = tp_system_of(sys, nsys, header);
		free(header);
		vec_push(out, tp);
		free(f);
	}
	for (int k = 0; k < nsys; k++)
		free(sys[k]);
	free(funcs.items);
}

/* The kernel: only the compile units holding a __traceiter_ function (found through the symbol
 * table and .debug_aranges), not the whole DWARF. */
typedef struct TpScan {
	DwarfModule *m;
	PtrVec *out;
	StrMap done;                 /* CU offsets (hex) already read */
} TpScan;

static void tp_scan_symbol(const char *name, const GElf_Sym *sym, void *arg)
{
	TpScan *sc = arg;
	Dwarf_Die cudie;
	char key[32];

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !name || strncmp(name, TP_FUNC_PREFIX, strlen(TP_FUNC_PREFIX)) ||
	    !dwarf_addrdie(sc->m->dw, sym->st_value, &cudie))
		return;
	snprintf(key, sizeof key, "%llx", (unsigned long long)dwarf_dieoffset(&cudie));
	if (strmap_get(&sc->done, key))
		return;
	strmap_put(&sc->done, xstrdup(key), (void *)1);
	tp_scan_cu(sc->m, &cudie, sc->out);
}

static void tp_scan_kernel(DwarfModule *m, PtrVec *out)
{
	TpScan sc = { .m = m, .out = out };

	dwarf_elf_symbols(m, tp_scan_symbol, &sc);
	for (int i = 0; i < sc.done.cap; i++)
		free(sc.done.keys ? sc.done.keys[i] : NULL);
	free(sc.done.keys);
	free(sc.done.values);
}

/* A module: every compile unit (a module has few). */
static void tp_scan_all(DwarfModule *m, PtrVec *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cudie;
		if (dwarf_offdie(m->dw, off + hsize, &cudie))
			tp_scan_cu(m, &cudie, out);
		off = next;
	}
}

/* ---- the cache: "system name nargs cu die" lines after a header naming the build id ------------- */

static char *tp_cache_path(Session *s, DwarfModule *m)
{
	char name[96];

	if (!m->build_id[0])
		return NULL;
	snprintf(name, sizeof name, "dwarf/%.64s.tp", m->build_id);
	return filecache_path(s, name);
}

static int tp_cache_load(Session *s, const char *path, DwarfModule *m, PtrVec *out)
{
	size_t size;
	const char *map = filecache_map(&s->diag, path, &size);
	char *text, *line, *save = NULL;
	char header[128];
	int ok = 1;

	if (!map)
		return -1;
	text = xstrndup(map, size);
	filecache_unmap(map, size);
	snprintf(header, sizeof header, "%s %s", TP_CACHE_MAGIC, m->build_id);
	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, header)) {
		free(text);
		return -1;
	}
	while ((line = strtok_r(NULL, "\n", &save))) {
		char sys[256], name[256];
		unsigned long long cu, die;
		int nargs;
		Tracepoint *tp;
		if (sscanf(line, "%255s %255s %d %llx %llx", sys, name, &nargs, &cu, &die) != 5 || nargs < 0) {
			ok = 0;
			break;
		}
		tp = xcalloc(1, sizeof *tp);
		tp->system = xstrdup(sys);
		tp->name = xstrdup(name);
		tp->nargs = nargs;
		tp->cu = cu;
		tp->die = die;
		tp->mod = m;
		vec_push(out, tp);
	}
	free(text);
	if (!ok) {
		for (int i = 0; i < out->len; i++)
			free(out->items[i]);
		out->len = 0;
		return -1;
	}
	return 0;
}

static void tp_cache_save(Session *s, const char *path, DwarfModule *m, const PtrVec *tps)
{
	StrBuf sb;

	sb_init(&sb);
	sb_printf(&sb, "%s %s\n", TP_CACHE_MAGIC, m->build_id);
	for (int i = 0; i < tps->len; i++) {
		const Tracepoint *tp = tps->items[i];
		sb_printf(&sb, "%s %s %d %llx %llx\n", tp->system, tp->name, tp->nargs, (unsigned long long)tp->cu,
			  (unsigned long long)tp->die);
	}
	filecache_write(&s->diag, path, sb.data, (size_t)sb.len);
	sb_free(&sb);
}

static TpCatalog *tp_catalog(Session *s, DwarfModule *m)
{
	PtrVec found = { 0 };
	char *path;
	double t0 = now_ms();
	const char *how = "read from the DWARF";

	if (m->tracepoints)
		return m->tracepoints;
	path = tp_cache_path(s, m);
	if (path && tp_cache_load(s, path, m, &found) == 0) {
		how = "loaded from the cache";
	} else {
		if (m->is_kernel)
			tp_scan_kernel(m, &found);
		else
			tp_scan_all(m, &found);
		if (path)
			tp_cache_save(s, path, m, &found);
	}
	m->tracepoints = tp_catalog_new(&found);
	free(found.items);
	if (s->verbose >= 2)
		fprintf(stderr, "Tracepoints of %s: %d, %s in %.1f ms\n", m->path, m->tracepoints->n, how, now_ms() - t0);
	free(path);
	return m->tracepoints;
}

int dwarf_tracepoints(Session *s, DwarfModule *m, const char *system_glob, const char *name_glob, PtrVec *out)
{
	return tp_catalog_match(tp_catalog(s, m), system_glob, name_glob, out);
}

int dwarf_tracepoint_system_known(Session *s, DwarfModule *m, const char *system_glob)
{
	return tp_catalog_system_known(tp_catalog(s, m), system_glob);
}
