/* indexbuild.h - inside the DWARF index: its file format, the readers of DWARF's encodings and the
 * builder the two readers fill. Private to index.c, rawindex.c (the parallel raw reader) and
 * indexcache.c (the cache); everyone else uses dwarf.h. */
#ifndef STAP_DWARF_INDEXBUILD_H
#define STAP_DWARF_INDEXBUILD_H

#include "dwarf/dwarf.h"

#include <string.h>

/* ---- the file format (native byte order; the cache is per machine) ----------------------------- */

#define IDX_MAGIC "STPDWIX"
#define IDX_VERSION 5           /* 4: built by threads (strings may repeat), types merged in order; 5: Debian's
                                 * debian/build/source_FLAVOUR/ prefix dropped from file names */

typedef struct IdxHeader {
	char magic[8];
	uint32_t version;
	uint32_t nentries;
	uint32_t ncus;
	uint32_t nfunctions;
	uint64_t strings_off, strings_len;
	uint64_t entries_off, cus_off;
	uint64_t file_size;
	char build_id[48];
} IdxHeader;

typedef struct IdxEntry {          /* sorted by name, then CU, then DIE */
	uint32_t name;                 /* offset in the strings */
	uint32_t cu;                   /* index in cus[] */
	uint64_t die;
	uint64_t pc;                   /* entry address of a subprogram with code, else 0 (also when
	                                * only libdw reads it: DW_AT_entry_pc, ranges) */
	uint32_t file;                 /* declaring file (string offset, 0 = unknown) */
	uint32_t line;
	uint16_t tag, flags;
	uint32_t pad;
} IdxEntry;

typedef struct IdxCU {
	uint64_t die;                  /* offset of the CU DIE */
	uint32_t name;                 /* its source file, normalized */
	uint32_t comp_dir;
} IdxCU;

struct DwarfIndex {
	const char *base;
	size_t size;
	int mapped;
	const IdxHeader *h;
	const IdxEntry *e;
	const IdxCU *cus;
	const char *str;
};

/* ---- reading DWARF's encodings from a section ------------------------------------------------------ */

typedef struct Reader {
	const unsigned char *p, *end;
	int bad;
} Reader;

static inline uint64_t rd(Reader *r, int n)
{
	uint64_t v = 0;

	if (r->end - r->p < n) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static inline uint64_t uleb(Reader *r)
{
	uint64_t v = 0;
	int shift = 0;

	while (r->p < r->end) {
		unsigned char b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

static inline const char *cstr(Reader *r)
{
	const unsigned char *s = r->p;
	const unsigned char *z = memchr(s, 0, (size_t)(r->end - s));

	if (!z) {
		r->bad = 1;
		r->p = r->end;
		return "";
	}
	r->p = z + 1;
	return (const char *)s;
}


typedef struct Sections {
	Elf_Data *line, *line_str, *str;
} Sections;

/* An ELF section's data (decompressed), NULL when there is none. */
Elf_Data *dwidx_section_data(Elf *elf, const char *want);
/* The string at off of a string section, NULL when off or the string is outside it. */
const char *dwidx_str_at(Elf_Data *d, uint64_t off);
/* Calls add(arg, comp_dir, DIR, PATH) for each entry of the file table of the line program at off:
 * DIR is its directory entry, NULL for entry 0 and absolute paths (which stand alone); the strings
 * point into the sections.  The number of the first entry (0 for DWARF 5, 1 before) in *first.
 * -1 when it cannot be read (entries may have been passed already). */
typedef void (*FileFn)(void *arg, const char *comp_dir, const char *dir, const char *path);
int dwidx_walk_file_table(const Sections *sec, uint64_t off, const char *comp_dir, FileFn add, void *arg, int *first);

/* ---- the builder (index.c) ----------------------------------------------------------------------- */

/* A hash map keyed by (pointer, tag): names as libdw returns them point into .debug_str, where the
 * linker merged equal strings, so one pointer stands for one name almost always (names held in the
 * DIE itself are the exception: the types among them are merged after sorting). */
typedef struct PtrMap {
	struct { const char *key; int tag; uint32_t value; } *slots;
	size_t len, cap;
} PtrMap;

/* The value slot of (key, tag), 0 when new. */
uint32_t *dwidx_ptrmap_slot(PtrMap *m, const char *key, int tag);

typedef struct Builder {
	StrBuf strings;
	StrMap interned;               /* string -> offset + 1 */
	IdxEntry *e;
	size_t n, cap;
	IdxCU *cus;
	size_t ncus, capcus;
	PtrMap types;                  /* (name pointer, tag) -> entry index + 1 */
	PtrMap names;                  /* name pointer -> string offset + 1 */
	uint32_t *files;               /* this CU's file table as string offsets */
	int nfiles, first_file;
	uint32_t nfunctions;
} Builder;

void dwidx_builder_init(Builder *b);
void dwidx_builder_free(Builder *b);
/* The offset of s in b's strings, added when new (0 for NULL or ""). */
uint32_t dwidx_intern(Builder *b, const char *s);
/* A new zeroed entry at the end of b's. */
IdxEntry *dwidx_new_entry(Builder *b);
/* The tags indexed as types (struct, union, enum, typedef, base). */
int dwidx_is_type_tag(int tag);
/* qsort_r order of entries: by name (strings the builder's), then CU, then DIE. */
int dwidx_cmp_entry_r(const void *pa, const void *pb, void *strings);
/* The whole index of m as one malloc'd block in the file format (size in *size_out). */
char *dwidx_build(Session *s, DwarfModule *m, size_t *size_out);

/* ---- rawindex.c: the parallel raw reader ---------------------------------------------------------- */

/* Fills out (initialized) with the entries of every CU, read directly; -1 (and *why) when the sections
 * hold something this reader does not follow: the caller then builds through libdw. Threads used in
 * *nthreads, CPU ms of reading and merging in cpu[0], cpu[1]. */
int dwidx_raw_build(DwarfModule *m, Builder *out, int *nthreads, const char **why, double *cpu);

/* ---- indexcache.c ------------------------------------------------------------------------------- */

/* The index of m from the cache when it is there (and valid), else NULL: nothing is built. */
struct DwarfIndex *dwidx_cached(Session *s, DwarfModule *m);

#endif
