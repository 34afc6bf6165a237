/* indexcache.c - the DWARF index's cache: index files checked, mmap'd from $SYSTEMTAP_DIR/cache/dwarf
 * by build id, or built (index.c) and saved. Used by index.c's lookups and dwarf.h's callers. */
#include "dwarf/indexbuild.h"
#include "lib/filecache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the cache ----------------------------------------------------------------------------------- */

/* Is [off, off + count * elem) inside a file of size bytes, past the header and aligned to align?
 * Subtractions only: no sum of two file fields can wrap. */
static int region_ok(uint64_t off, uint64_t count, size_t elem, size_t size, uint64_t align)
{
	return off >= sizeof(IdxHeader) && off <= size && off % align == 0 && count <= (size - off) / elem;
}

const char *dwarf_index_check(const char *base, size_t size, const char *build_id)
{
	const IdxHeader *h = (const IdxHeader *)base;
	const IdxEntry *e;
	const IdxCU *cus;
	const char *str;
	uint64_t slen;

	if ((uintptr_t)base % 8)
		return "misaligned in memory";
	if (size < sizeof *h)
		return "shorter than its header";
	if (memcmp(h->magic, IDX_MAGIC, 8) || h->version != IDX_VERSION)
		return "not an index of this version";
	if (h->file_size != size)
		return "its size is not the one its header records";
	if (!memchr(h->build_id, 0, sizeof h->build_id))
		return "its build id is not terminated";
	if (build_id && strcmp(h->build_id, build_id))
		return "made for another build id";
	slen = h->strings_len;
	if (!region_ok(h->strings_off, slen, 1, size, 1) || slen == 0 || slen > UINT32_MAX ||
	    base[h->strings_off + slen - 1] != 0)
		return "its string table is out of bounds or not terminated";
	if (!region_ok(h->entries_off, h->nentries, sizeof(IdxEntry), size, 8))
		return "its entry table is out of bounds";
	if (!region_ok(h->cus_off, h->ncus, sizeof(IdxCU), size, 8))
		return "its compile unit table is out of bounds";
	if (h->nfunctions > h->nentries)
		return "it counts more functions than entries";
	str = base + h->strings_off;
	e = (const IdxEntry *)(base + h->entries_off);
	cus = (const IdxCU *)(base + h->cus_off);
	for (uint32_t i = 0; i < h->ncus; i++)
		if (cus[i].name >= slen || cus[i].comp_dir >= slen)
			return "a compile unit's name is out of bounds";
	/* every string offset below slen ends at the table's final NUL at the latest */
	for (uint32_t i = 0; i < h->nentries; i++) {
		if (e[i].name >= slen || e[i].file >= slen)
			return "an entry's name or file is out of bounds";
		if (e[i].cu >= h->ncus)
			return "an entry's compile unit is out of bounds";
		if (i && strcmp(str + e[i - 1].name, str + e[i].name) > 0)
			return "its entries are not sorted by name";
	}
	return NULL;
}

static void attach(struct DwarfIndex *idx, const char *base, size_t size, int mapped)
{
	idx->base = base;
	idx->size = size;
	idx->mapped = mapped;
	idx->h = (const IdxHeader *)base;
	idx->str = base + idx->h->strings_off;
	idx->e = (const IdxEntry *)(base + idx->h->entries_off);
	idx->cus = (const IdxCU *)(base + idx->h->cus_off);
}

static char *cache_file(Session *s, DwarfModule *m)
{
	char name[80];

	if (m->build_id[0]) {
		snprintf(name, sizeof name, "dwarf/%.64s.idx", m->build_id);
	} else {
		/* no build id: the file's path, size and time name it */
		snprintf(name, sizeof name, "dwarf/nobuildid-%016llx.idx",
			 filecache_hash_stat(FILECACHE_HASH_INIT, m->path));
	}
	return filecache_path(s, name);
}

static int load(Session *s, const char *path, const char *build_id, struct DwarfIndex *idx)
{
	size_t size;
	const char *map = filecache_map(&s->diag, path, &size), *why;

	if (!map)
		return -1;
	if ((why = dwarf_index_check(map, size, build_id)) != NULL) {
		filecache_warn(&s->diag, "DWARF index %s: %s; rebuilding it", path, why);
		filecache_unmap(map, size);
		return -1;
	}
	attach(idx, map, size, 1);
	return 0;
}

struct DwarfIndex *dwarf_index_from_buffer(const char *base, size_t size, const char **why)
{
	struct DwarfIndex *idx;

	if ((*why = dwarf_index_check(base, size, NULL)) != NULL)
		return NULL;
	idx = xcalloc(1, sizeof *idx);
	attach(idx, base, size, 0);
	return idx;
}

void dwarf_index_free(struct DwarfIndex *idx)
{
	free(idx);
}

/* -v: what the index holds and where it came from */
static void index_opened(Session *s, DwarfModule *m, const char *how, const char *path, double t0)
{
	const struct DwarfIndex *idx = m->index;

	if (s->verbose)
		fprintf(stderr, "DWARF index of %s: %u functions, %u names, %u CUs; %s%s%s in %.0f ms\n", m->path,
			idx->h->nfunctions, idx->h->nentries, idx->h->ncus, how, path ? " " : "", path ? path : "",
			now_ms() - t0);
}

/* The index of m from the cache when it is there (and valid), else NULL: nothing is built. */
struct DwarfIndex *dwidx_cached(Session *s, DwarfModule *m)
{
	struct DwarfIndex *idx;
	char *path;
	double t0 = now_ms();

	if (m->index)
		return m->index;
	path = cache_file(s, m);
	if (!path || access(path, R_OK) != 0) {
		free(path);
		return NULL;
	}
	idx = xcalloc(1, sizeof *idx);
	if (load(s, path, m->build_id, idx) == 0) {
		m->index = idx;
		index_opened(s, m, "loaded from", path, t0);
	} else {
		free(idx);
		dwarf_index_open(s, m);   /* it warned: rebuilt, as it would be on any lookup */
	}
	free(path);
	return m->index;
}

int dwarf_index_open(Session *s, DwarfModule *m)
{
	struct DwarfIndex *idx;
	char *path;
	double t0 = now_ms();
	const char *how;

	if (m->index)
		return 0;
	idx = xcalloc(1, sizeof *idx);
	path = cache_file(s, m);
	if (path && load(s, path, m->build_id, idx) == 0) {
		how = "loaded from";
	} else {
		size_t size;
		char *blob = dwidx_build(s, m, &size);
		attach(idx, blob, size, 0);
		if (!path)
			how = "built in memory";
		else if (filecache_write(&s->diag, path, blob, size) == 0)
			how = "built and saved to";
		else
			how = "built (not saved) for";
	}
	m->index = idx;
	index_opened(s, m, how, path, t0);
	free(path);
	return 0;
}

