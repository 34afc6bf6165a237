/* tpcatalog.c - a catalog of tracepoints sorted by system and name, matched by globs. Filled by the DWARF
 * and BTF leaves (dwtracepoints.c, btftracepoints.c), read through them by providers/tracepoint.c. */
#include "image/tpcatalog.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static int tp_compare(const void *a, const void *b)
{
	const Tracepoint *x = a, *y = b;
	int c = strcmp(x->system, y->system);
	return c ? c : strcmp(x->name, y->name);
}

TpCatalog *tp_catalog_new(PtrVec *found)
{
	TpCatalog *cat = xcalloc(1, sizeof *cat);

	cat->n = found->len;
	cat->tps = xcalloc((size_t)found->len + 1, sizeof *cat->tps);
	for (int i = 0; i < found->len; i++) {
		cat->tps[i] = *(Tracepoint *)found->items[i];
		free(found->items[i]);
	}
	qsort(cat->tps, (size_t)cat->n, sizeof *cat->tps, tp_compare);
	return cat;
}

int tp_catalog_match(const TpCatalog *cat, const char *system_glob, const char *name_glob, PtrVec *out)
{
	int n = 0;

	for (int i = 0; i < cat->n; i++) {
		Tracepoint *tp = &cat->tps[i];
		if ((system_glob && fnmatch(system_glob, tp->system, 0)) || fnmatch(name_glob, tp->name, 0))
			continue;
		vec_push(out, tp);
		n++;
	}
	return n;
}

int tp_catalog_system_known(const TpCatalog *cat, const char *system_glob)
{
	for (int i = 0; i < cat->n; i++)
		if (!fnmatch(system_glob, cat->tps[i].system, 0))
			return 1;
	return 0;
}
