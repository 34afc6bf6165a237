/* index.c - the names of a debuginfo file's functions and types: built from the top-level DIEs of each
 * CU, kept in a compact file cached by build id and mmap'd.  Used by providers/dwarf.c and targets.c. */
#include "dwarf.h"
#include "../filecache.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* ---- paths --------------------------------------------------------------------------------------- */

/* "a/./b/../c" -> "a/c"; keeps a leading '/' and leading ".." components. */
static void collapse(char *path)
{
	size_t len = strlen(path);
	char *buf = xmalloc(len + 2), *out = buf;
	const char *p = path;
	size_t starts[256];
	int depth = 0, absolute = *p == '/';

	if (absolute)
		*out++ = *p++;
	while (*p) {
		const char *seg = p;
		size_t n = strcspn(p, "/");
		p += n;
		while (*p == '/')
			p++;
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.' && depth > 0) {
			out = buf + starts[--depth];
			continue;
		}
		if (depth < 256 && !(n == 2 && seg[0] == '.' && seg[1] == '.'))
			starts[depth++] = (size_t)(out - buf);
		memcpy(out, seg, n);
		out += n;
		*out++ = '/';
	}
	if (out > buf + absolute && out[-1] == '/')
		out--;
	*out = 0;
	memcpy(path, buf, (size_t)(out - buf) + 1);
	free(buf);
}

/* Debian builds a featured flavour (rt) from its own copy of the source, debian/build/source_FLAVOUR: the
 * prefix is dropped, so that its files read fs/read_write.c as the other flavours' do. */
static char *drop_flavour_source(char *r)
{
	static const char prefix[] = "debian/build/source";
	const char *slash;

	if (strncmp(r, prefix, sizeof prefix - 1) || !(slash = strchr(r + sizeof prefix - 1, '/')))
		return r;
	memmove(r, slash + 1, strlen(slash + 1) + 1);
	return r;
}

char *dwarf_normalize_path(const char *comp_dir, const char *path)
{
	char *r;

	if (!path)
		return xstrdup("");
	if (path[0] != '/' || !comp_dir || comp_dir[0] != '/') {
		r = xstrdup(path);
		collapse(r);
		return drop_flavour_source(r);
	}
	{
		char *cd = xstrdup(comp_dir), *p = xstrdup(path);
		size_t n, common = 0;
		int comps = 0;
		collapse(cd);
		collapse(p);
		n = strlen(cd);
		if (!strncmp(p, cd, n) && p[n] == '/') {
			r = xstrdup(p + n + 1);
		} else {
			/* a kernel built with O=: the build directory is inside the source tree, which is then the
			 * longest common directory of the two ("/build/linux-6.1/debian/build" and "/build/linux-6.1/fs/x.c") */
			for (size_t i = 0; p[i] && cd[i] && p[i] == cd[i]; i++)
				if (p[i] == '/') {
					common = i + 1;
					comps++;
				}
			if (comps >= 3 || (comps == 2 && strncmp(p, "/usr/", 5)))
				r = xstrdup(p + common);
			else
				r = xstrdup(p);
		}
		free(cd);
		free(p);
		return drop_flavour_source(r);
	}
}

/* ---- reading line program headers (file tables only) --------------------------------------------- */

typedef struct Reader {
	const unsigned char *p, *end;
	int bad;
} Reader;

static uint64_t rd(Reader *r, int n)
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

static uint64_t uleb(Reader *r)
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

static const char *cstr(Reader *r)
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

static Elf_Data *section_data(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, want))
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			elf_compress(scn, 0, 0);
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

static const char *str_at(Elf_Data *d, uint64_t off)
{
	if (!d || !d->d_buf || off >= d->d_size)
		return NULL;
	/* a string section ending in a NUL terminates every string in it */
	if (((const char *)d->d_buf)[d->d_size - 1] != 0 && !memchr((const char *)d->d_buf + off, 0, d->d_size - off))
		return NULL;
	return (const char *)d->d_buf + off;
}

/* One value of a DWARF 5 directory/file entry: a string when it is one (else NULL), the number in *num. */
static const char *entry_value(Reader *r, const Sections *sec, uint64_t form, int off8, uint64_t *num, int *ok)
{
	*num = 0;
	switch (form) {
	case DW_FORM_string: return cstr(r);
	case DW_FORM_line_strp: return str_at(sec->line_str, rd(r, off8 ? 8 : 4));
	case DW_FORM_strp: return str_at(sec->str, rd(r, off8 ? 8 : 4));
	case DW_FORM_udata: *num = uleb(r); return NULL;
	case DW_FORM_data1: *num = rd(r, 1); return NULL;
	case DW_FORM_data2: *num = rd(r, 2); return NULL;
	case DW_FORM_data4: *num = rd(r, 4); return NULL;
	case DW_FORM_data8: *num = rd(r, 8); return NULL;
	case DW_FORM_data16: rd(r, 8); rd(r, 8); return NULL;
	case DW_FORM_block: {
		uint64_t n = uleb(r);
		if ((uint64_t)(r->end - r->p) < n)
			r->bad = 1;
		else
			r->p += n;
		return NULL;
	}
	default:
		*ok = 0;
		return NULL;
	}
}

/* Appends file PATH of a line table to files, joined to its directory entry DIR (entry 0 and
 * absolute paths stand alone) and normalized against the CU's comp_dir. */
static void add_file(void *arg, const char *comp_dir, const char *dir, const char *path)
{
	PtrVec *files = arg;
	char *full = dir ? xasprintf("%s/%s", dir, path) : xstrdup(path);

	vec_push(files, dwarf_normalize_path(comp_dir, full));
	free(full);
}

/* Calls add(arg, comp_dir, DIR, PATH) for each entry of the file table of the line program at off:
 * DIR is its directory entry, NULL for entry 0 and absolute paths (which stand alone); the strings
 * point into the sections.  The number of the first entry (0 for DWARF 5, 1 before) in *first.
 * -1 when it cannot be read (entries may have been passed already). */
typedef void (*FileFn)(void *arg, const char *comp_dir, const char *dir, const char *path);

static int walk_file_table(const Sections *sec, uint64_t off, const char *comp_dir, FileFn add, void *arg, int *first)
{
	Reader r;
	uint64_t len, hdr_len;
	int off8 = 0, version, opcode_base, ok = 1;
	PtrVec dirs = { 0 };

	if (!sec->line || !sec->line->d_buf || off >= sec->line->d_size)
		return -1;
	r.p = (const unsigned char *)sec->line->d_buf + off;
	r.end = (const unsigned char *)sec->line->d_buf + sec->line->d_size;
	r.bad = 0;
	len = rd(&r, 4);
	if (len == 0xffffffff) {
		len = rd(&r, 8);
		off8 = 1;
	}
	if (len < (uint64_t)(r.end - r.p))
		r.end = r.p + len;
	version = (int)rd(&r, 2);
	if (version < 2 || version > 5)
		return -1;
	if (version >= 5)
		rd(&r, 2);                           /* address_size, segment selector size */
	hdr_len = rd(&r, off8 ? 8 : 4);
	if (hdr_len < (uint64_t)(r.end - r.p))
		r.end = r.p + hdr_len;
	rd(&r, version >= 4 ? 5 : 4);               /* min_inst_length [max_ops] default_is_stmt line_base line_range */
	opcode_base = (int)rd(&r, 1);
	for (int i = 1; i < opcode_base; i++)
		rd(&r, 1);
	if (version >= 5) {
		for (int pass = 0; pass < 2 && ok && !r.bad; pass++) {
			int nformats = (int)rd(&r, 1);
			uint64_t formats[16][2];
			if (nformats > 16) {
				ok = 0;
				break;
			}
			for (int i = 0; i < nformats; i++) {
				formats[i][0] = uleb(&r);
				formats[i][1] = uleb(&r);
			}
			uint64_t count = uleb(&r);
			for (uint64_t k = 0; k < count && ok && !r.bad; k++) {
				const char *path = NULL;
				uint64_t dir = 0, num;
				for (int i = 0; i < nformats; i++) {
					const char *v = entry_value(&r, sec, formats[i][1], off8, &num, &ok);
					if (formats[i][0] == DW_LNCT_path)
						path = v;
					else if (formats[i][0] == DW_LNCT_directory_index)
						dir = num;
				}
				if (!path)
					path = "";
				if (pass == 0)
					vec_push(&dirs, (void *)path);
				else
					add(arg, comp_dir, path[0] == '/' || dir == 0 || dir >= (uint64_t)dirs.len ? NULL : dirs.items[dir], path);
			}
		}
		*first = 0;
	} else {
		vec_push(&dirs, (void *)"");
		while (!r.bad && r.p < r.end && *r.p)
			vec_push(&dirs, (void *)cstr(&r));
		rd(&r, 1);
		while (!r.bad && r.p < r.end && *r.p) {
			const char *path = cstr(&r);
			uint64_t dir = uleb(&r);
			uleb(&r);
			uleb(&r);
			add(arg, comp_dir, path[0] == '/' || dir == 0 || dir >= (uint64_t)dirs.len ? NULL : dirs.items[dir], path);
		}
		*first = 1;
	}
	free(dirs.items);
	return !ok || r.bad ? -1 : 0;
}

/* The file table of the line program at off: normalized names into *files (char*, caller frees), and
 * the number of the first entry in *first. -1 when it cannot be read. */
static int read_file_table(const Sections *sec, uint64_t off, const char *comp_dir, PtrVec *files, int *first)
{
	if (walk_file_table(sec, off, comp_dir, add_file, files, first) == 0)
		return 0;
	for (int i = 0; i < files->len; i++)
		free(files->items[i]);
	files->len = 0;
	return -1;
}

/* The file table through libdw (what the line table uses), when ours cannot read the header. */
static int libdw_file_table(Dwarf_Die *cu, const char *comp_dir, PtrVec *files, int *first)
{
	Dwarf_Files *f;
	size_t n;

	if (dwarf_getsrcfiles(cu, &f, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *name = dwarf_filesrc(f, i, NULL, NULL);
		vec_push(files, dwarf_normalize_path(comp_dir, name ? name : ""));
	}
	*first = 0;
	return 0;
}

static int cu_file_table(const Sections *sec, Dwarf_Die *cu, PtrVec *files, int *first)
{
	Dwarf_Attribute a;
	Dwarf_Word stmt;
	const char *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));

	if (dwarf_formudata(dwarf_attr(cu, DW_AT_stmt_list, &a), &stmt) != 0)
		return -1;
	if (read_file_table(sec, stmt, comp_dir, files, first) == 0)
		return 0;
	return libdw_file_table(cu, comp_dir, files, first);
}

/* ---- building ------------------------------------------------------------------------------------ */

/* A hash map keyed by (pointer, tag): names as libdw returns them point into .debug_str, where the
 * linker merged equal strings, so one pointer stands for one name almost always (names held in the
 * DIE itself are the exception: the types among them are merged after sorting). */
typedef struct PtrMap {
	struct { const char *key; int tag; uint32_t value; } *slots;
	size_t len, cap;
} PtrMap;

static uint32_t *ptrmap_slot(PtrMap *m, const char *key, int tag)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap) {
		PtrMap bigger = { .cap = m->cap ? m->cap * 2 : 4096 };
		bigger.slots = xcalloc(bigger.cap, sizeof *bigger.slots);
		for (size_t k = 0; k < m->cap; k++)
			if (m->slots[k].key)
				*ptrmap_slot(&bigger, m->slots[k].key, m->slots[k].tag) = m->slots[k].value;
		free(m->slots);
		*m = bigger;
	}
	for (i = (size_t)((((uintptr_t)key >> 2) ^ (uintptr_t)tag) * 0x9e3779b97f4a7c15ULL >> 17) & (m->cap - 1);
	     m->slots[i].key; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key && m->slots[i].tag == tag)
			return &m->slots[i].value;
	m->slots[i].key = key;
	m->slots[i].tag = tag;
	m->slots[i].value = 0;
	m->len++;
	return &m->slots[i].value;
}

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

static uint32_t intern(Builder *b, const char *s)
{
	void **slot;

	if (!s || !*s)
		return 0;
	slot = strmap_slot(&b->interned, s, 0);
	if (slot)
		return (uint32_t)((uintptr_t)*slot - 1);
	{
		uint32_t off = (uint32_t)b->strings.len;
		char *key = xstrdup(s);
		sb_putn(&b->strings, s, strlen(s) + 1);
		strmap_put(&b->interned, key, (void *)(uintptr_t)(off + 1));
		return off;
	}
}

/* A name libdw returned (stable while the file is open): memoized by its address. */
static uint32_t intern_name(Builder *b, const char *s)
{
	uint32_t *v = ptrmap_slot(&b->names, s, 0);

	if (!*v)
		*v = intern(b, s) + 1;
	return *v - 1;
}

static IdxEntry *new_entry(Builder *b)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 65536;
		b->e = xrealloc(b->e, b->cap * sizeof *b->e);
	}
	memset(&b->e[b->n], 0, sizeof b->e[0]);
	return &b->e[b->n++];
}

static uint32_t decl_file(Builder *b, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word f;

	if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &a), &f) != 0)
		return 0;
	f -= (Dwarf_Word)b->first_file;
	return f < (Dwarf_Word)b->nfiles ? b->files[f] : 0;
}

static uint32_t decl_line(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word l;

	return dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_line, &a), &l) == 0 ? (uint32_t)l : 0;
}

static Dwarf_Addr entry_pc(Dwarf_Die *die)
{
	Dwarf_Addr pc, base, end;
	ptrdiff_t off;

	if (dwarf_entrypc(die, &pc) == 0)
		return pc;
	off = dwarf_ranges(die, 0, &base, &pc, &end);
	return off > 0 ? pc : 0;
}

static void add_subprogram(Builder *b, uint32_t cu, Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Word inl;
	bool ext;
	const char *name;
	IdxEntry *e;
	int flags = 0;

	if (dwarf_hasattr(d, DW_AT_declaration))
		return;
	name = dwarf_diename(d);
	if (!name)
		return;
	if (dwarf_hasattr(d, DW_AT_low_pc) || dwarf_hasattr(d, DW_AT_ranges))
		flags |= DWARF_NAME_HAS_PC;
	if (dwarf_formudata(dwarf_attr(d, DW_AT_inline, &a), &inl) == 0 &&
	    (inl == DW_INL_inlined || inl == DW_INL_declared_inlined))
		flags |= DWARF_NAME_INLINE;
	if (dwarf_formflag(dwarf_attr_integrate(d, DW_AT_external, &a), &ext) == 0 && ext)
		flags |= DWARF_NAME_EXTERNAL;
	e = new_entry(b);
	e->name = intern_name(b, name);
	e->cu = cu;
	e->die = dwarf_dieoffset(d);
	e->tag = DW_TAG_subprogram;
	e->flags = (uint16_t)flags;
	e->file = decl_file(b, d);
	e->line = decl_line(d);
	if (flags & DWARF_NAME_HAS_PC)
		e->pc = entry_pc(d);
	b->nfunctions++;
}

static void add_type(Builder *b, uint32_t cu, Dwarf_Die *d, int tag)
{
	const char *name = dwarf_diename(d);
	uint32_t *v;
	int decl;
	IdxEntry *e;

	if (!name)
		return;
	decl = dwarf_hasattr(d, DW_AT_declaration);
	v = ptrmap_slot(&b->types, name, tag);
	if (*v) {
		e = &b->e[*v - 1];
		if (!decl && (e->flags & DWARF_NAME_DECLARATION)) {
			e->cu = cu;
			e->die = dwarf_dieoffset(d);
			e->flags = 0;
			e->file = decl_file(b, d);
			e->line = decl_line(d);
		}
		return;
	}
	e = new_entry(b);
	*v = (uint32_t)b->n;
	e->name = intern_name(b, name);
	e->cu = cu;
	e->die = dwarf_dieoffset(d);
	e->tag = (uint16_t)tag;
	e->flags = decl ? DWARF_NAME_DECLARATION : 0;
	e->file = decl_file(b, d);
	e->line = decl_line(d);
}

static int is_type_tag(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type ||
	       tag == DW_TAG_typedef || tag == DW_TAG_base_type;
}

/* After sorting: one entry per (name, type tag), the first complete one when there is one. */
static size_t merge_types(IdxEntry *e, size_t n, const char *strings)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;
		if (!is_type_tag(e[i].tag)) {
			e[out++] = e[i];
			continue;
		}
		/* an earlier kept entry of this name and tag (entries of one name are adjacent) */
		for (k = out; k-- > 0 && !strcmp(strings + e[k].name, strings + e[i].name);)
			if (e[k].tag == e[i].tag)
				break;
		if (k != (size_t)-1 && !strcmp(strings + e[k].name, strings + e[i].name) && e[k].tag == e[i].tag) {
			/* a complete type after a declaration: it takes the declaration's place in the order it
			 * has itself (after the entries of this name kept so far), so that the entries stay
			 * sorted however the builder split the work */
			if ((e[k].flags & DWARF_NAME_DECLARATION) && !(e[i].flags & DWARF_NAME_DECLARATION)) {
				memmove(&e[k], &e[k + 1], (out - k - 1) * sizeof *e);
				e[out - 1] = e[i];
			}
			continue;
		}
		e[out++] = e[i];
	}
	return out;
}

static int cmp_entry_r(const void *pa, const void *pb, void *strings)
{
	const IdxEntry *a = pa, *b = pb;
	int c = strcmp((const char *)strings + a->name, (const char *)strings + b->name);
	if (c)
		return c;
	if (a->cu != b->cu)
		return a->cu < b->cu ? -1 : 1;
	return a->die < b->die ? -1 : a->die > b->die;
}

static void index_cu(Builder *b, const Sections *sec, Dwarf_Die *cudie)
{
	Dwarf_Attribute a;
	Dwarf_Die d;
	PtrVec files = { 0 };
	const char *comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
	char *name = dwarf_normalize_path(comp_dir, dwarf_diename(cudie));
	uint32_t cu;

	if (b->ncus == b->capcus) {
		b->capcus = b->capcus ? b->capcus * 2 : 1024;
		b->cus = xrealloc(b->cus, b->capcus * sizeof *b->cus);
	}
	cu = (uint32_t)b->ncus++;
	b->cus[cu].die = dwarf_dieoffset(cudie);
	b->cus[cu].name = intern(b, name);
	b->cus[cu].comp_dir = intern(b, comp_dir);
	free(name);
	b->nfiles = 0;
	if (cu_file_table(sec, cudie, &files, &b->first_file) == 0) {
		b->files = xrealloc(b->files, ((size_t)files.len + 1) * sizeof *b->files);
		for (int i = 0; i < files.len; i++) {
			b->files[i] = intern(b, files.items[i]);
			free(files.items[i]);
		}
		b->nfiles = files.len;
	}
	free(files.items);
	if (dwarf_child(cudie, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		switch (tag) {
		case DW_TAG_subprogram: add_subprogram(b, cu, &d); break;
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
		case DW_TAG_typedef:
		case DW_TAG_base_type:
			add_type(b, cu, &d, tag);
			break;
		default: break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

/* ---- building from the sections directly, in parallel over compile units --------------------------
 * What index_cu reads through libdw, read straight from .debug_info/.debug_abbrev with the same
 * meaning (dwarf_attr_integrate through DW_AT_abstract_origin/DW_AT_specification, the same forms
 * accepted), by a few threads over disjoint runs of units.  Anything it does not know (a form, a
 * reference outside its unit, a line table it cannot read) makes the whole build fall back to
 * the libdw one, so the index never depends on which builder made it. */

typedef struct RawSpec {
	uint32_t name, form;
	int64_t implicit;              /* DW_FORM_implicit_const */
} RawSpec;

typedef struct RawAbbrev {
	uint32_t tag;                  /* 0: no such code */
	uint32_t children;
	uint32_t first, n;             /* its specs */
	int32_t fixed;                 /* bytes of its attributes when every form has a fixed size, else -1 */
	int32_t sib_at, sib_size;      /* DW_AT_sibling (ref1/2/4/8): its offset when what precedes it has a
	                                * fixed size, else -1 */
} RawAbbrev;

typedef struct RawAbbrevs {        /* one abbreviation table, by code, read for units of one shape */
	uint64_t off;
	int valid, off8, addr_size, version;
	RawAbbrev *by_code;
	size_t ncodes;
	RawSpec *specs;
	size_t nspecs, capspecs;
} RawAbbrevs;

typedef struct RawUnit {
	const unsigned char *start, *end;
	uint64_t off;
	int version, off8, addr_size;
	const RawAbbrevs *ab;
} RawUnit;

/* The attributes of one DIE the index reads (first occurrence of each, as dwarf_attr finds). */
enum {
	R_NAME = 1 << 0, R_DECL = 1 << 1, R_LOW_PC = 1 << 2, R_RANGES = 1 << 3, R_ENTRY_PC = 1 << 4,
	R_INLINE = 1 << 5, R_EXTERNAL = 1 << 6, R_FILE = 1 << 7, R_LINE = 1 << 8, R_ORIGIN = 1 << 9,
	R_SPEC = 1 << 10, R_SIBLING = 1 << 11, R_COMP_DIR = 1 << 12, R_STMT = 1 << 13,
};

typedef struct RawDie {
	uint64_t off;                  /* in .debug_info */
	const RawAbbrev *ab;           /* NULL: the end of a sibling list */
	const unsigned char *after;    /* past its attributes */
	unsigned has, ok;              /* R_* present; R_* whose value is usable (the form libdw accepts) */
	const char *name, *comp_dir;
	uint64_t low_pc, inl, file, line, origin, spec, sibling, stmt;
	int ext;
} RawDie;

typedef struct FileMemo {          /* (comp_dir, dir, path) as pointers -> interned string offset + 1 */
	struct { const char *c, *d, *p; uint32_t v; } *slots;
	size_t len, cap;
} FileMemo;

typedef struct RawChunk {
	size_t first, last;            /* units [first, last) of RawCtx.units */
	Builder b;
	FileMemo memo;
	RawAbbrevs ab;
	const char *why;               /* set: the chunk could not be read */
} RawChunk;

typedef struct RawCtx {
	const unsigned char *info, *abbrev;
	size_t info_size, abbrev_size;
	Sections sec;
	uint64_t *units;               /* unit offsets, then info_size */
	size_t nunits;
	RawChunk *chunks;
	size_t nchunks;
	size_t next;                   /* the next chunk to take */
	int failed;
	double cpu_read, cpu_merge;    /* CPU ms of the threads' reading, of the merge (for -vv) */
} RawCtx;

static double cpu_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int64_t sleb(Reader *r)
{
	int64_t v = 0;
	int shift = 0;
	unsigned char b = 0;

	while (r->p < r->end) {
		b = *r->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= (int64_t)(~(uint64_t)0 << shift);
			return v;
		}
	}
	r->bad = 1;
	return 0;
}

/* The size of a value of form in a unit of that shape when it does not depend on the value, else -1. */
static int form_size(uint64_t form, int off8, int addr_size, int version)
{
	switch (form) {
	case DW_FORM_addr: return addr_size;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1: return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4: return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: return 8;
	case DW_FORM_data16: return 16;
	case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return off8 ? 8 : 4;
	case DW_FORM_ref_addr: return version <= 2 ? addr_size : off8 ? 8 : 4;
	default: return -1;
	}
}

static int raw_abbrevs(const RawCtx *c, uint64_t off, int off8, int addr_size, int version, RawAbbrevs *t)
{
	Reader r;

	if (t->valid && t->off == off && t->off8 == off8 && t->addr_size == addr_size && t->version == version)
		return 0;
	t->valid = 0;
	t->off = off;
	t->off8 = off8;
	t->addr_size = addr_size;
	t->version = version;
	t->nspecs = 0;
	if (t->ncodes)
		memset(t->by_code, 0, t->ncodes * sizeof *t->by_code);
	if (off >= c->abbrev_size)
		return -1;
	r.p = c->abbrev + off;
	r.end = c->abbrev + c->abbrev_size;
	r.bad = 0;
	for (;;) {
		uint64_t code = uleb(&r);
		RawAbbrev a;
		if (r.bad)
			return -1;
		if (code == 0)
			break;
		if (code > (1u << 20))
			return -1;
		if (code >= t->ncodes) {
			size_t n = t->ncodes ? t->ncodes : 256;
			while (n <= code)
				n *= 2;
			t->by_code = xrealloc(t->by_code, n * sizeof *t->by_code);
			memset(t->by_code + t->ncodes, 0, (n - t->ncodes) * sizeof *t->by_code);
			t->ncodes = n;
		}
		a.tag = (uint32_t)uleb(&r);
		a.children = (uint32_t)rd(&r, 1);
		a.first = (uint32_t)t->nspecs;
		a.fixed = 0;
		a.sib_at = a.sib_size = -1;
		for (;;) {
			RawSpec sp;
			int size;
			sp.name = (uint32_t)uleb(&r);
			sp.form = (uint32_t)uleb(&r);
			sp.implicit = sp.form == DW_FORM_implicit_const ? sleb(&r) : 0;
			if (r.bad)
				return -1;
			if (!sp.name && !sp.form)
				break;
			size = form_size(sp.form, off8, addr_size, version);
			if (sp.name == DW_AT_sibling && a.sib_at < 0 && a.fixed >= 0 &&
			    (sp.form == DW_FORM_ref1 || sp.form == DW_FORM_ref2 || sp.form == DW_FORM_ref4 || sp.form == DW_FORM_ref8)) {
				a.sib_at = a.fixed;
				a.sib_size = size;
			}
			a.fixed = a.fixed < 0 || size < 0 ? -1 : a.fixed + size;
			if (t->nspecs == t->capspecs) {
				t->capspecs = t->capspecs ? t->capspecs * 2 : 4096;
				t->specs = xrealloc(t->specs, t->capspecs * sizeof *t->specs);
			}
			t->specs[t->nspecs++] = sp;
		}
		a.n = (uint32_t)t->nspecs - a.first;
		if (!a.tag)
			return -1;
		t->by_code[code] = a;
	}
	t->valid = 1;
	return 0;
}

enum { K_DATA, K_SDATA, K_FLAG, K_ADDR, K_STR, K_REF, K_SECOFF, K_OTHER, K_UNKNOWN };

/* One attribute value at r: its kind, the number in *num, a string in *str. K_UNKNOWN for a form
 * this reader does not follow (string and address indexes, supplementary files). */
static int raw_value(const RawUnit *u, const Sections *sec, Reader *r, uint64_t form, int64_t implicit,
		     uint64_t *num, const char **str)
{
	int osize = u->off8 ? 8 : 4;

	switch (form) {
	case DW_FORM_addr: *num = rd(r, u->addr_size); return K_ADDR;
	case DW_FORM_data1: *num = rd(r, 1); return K_DATA;
	case DW_FORM_data2: *num = rd(r, 2); return K_DATA;
	case DW_FORM_data4: *num = rd(r, 4); return K_DATA;
	case DW_FORM_data8: *num = rd(r, 8); return K_DATA;
	case DW_FORM_data16: rd(r, 8); rd(r, 8); return K_OTHER;
	case DW_FORM_udata: *num = uleb(r); return K_DATA;
	case DW_FORM_sdata: *num = (uint64_t)sleb(r); return K_SDATA;
	case DW_FORM_implicit_const: *num = (uint64_t)implicit; return K_SDATA;
	case DW_FORM_flag: *num = rd(r, 1); return K_FLAG;
	case DW_FORM_flag_present: *num = 1; return K_FLAG;
	case DW_FORM_string: *str = cstr(r); return K_STR;
	case DW_FORM_strp: *str = str_at(sec->str, rd(r, osize)); return *str ? K_STR : K_UNKNOWN;
	case DW_FORM_line_strp: *str = str_at(sec->line_str, rd(r, osize)); return *str ? K_STR : K_UNKNOWN;
	case DW_FORM_ref1: *num = u->off + rd(r, 1); return K_REF;
	case DW_FORM_ref2: *num = u->off + rd(r, 2); return K_REF;
	case DW_FORM_ref4: *num = u->off + rd(r, 4); return K_REF;
	case DW_FORM_ref8: *num = u->off + rd(r, 8); return K_REF;
	case DW_FORM_ref_udata: *num = u->off + uleb(r); return K_REF;
	case DW_FORM_ref_addr: *num = rd(r, u->version <= 2 ? u->addr_size : osize); return K_REF;
	case DW_FORM_sec_offset: *num = rd(r, osize); return K_SECOFF;
	case DW_FORM_ref_sig8: rd(r, 8); return K_OTHER;
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block: case DW_FORM_exprloc: {
		uint64_t n = form == DW_FORM_block1 ? rd(r, 1) : form == DW_FORM_block2 ? rd(r, 2) :
			     form == DW_FORM_block4 ? rd(r, 4) : uleb(r);
		if ((uint64_t)(r->end - r->p) < n) {
			r->bad = 1;
			r->p = r->end;
		} else {
			r->p += n;
		}
		return K_OTHER;
	}
	case DW_FORM_indirect: {
		uint64_t f = uleb(r);
		if (f == DW_FORM_indirect || f == DW_FORM_implicit_const)
			return K_UNKNOWN;
		return raw_value(u, sec, r, f, 0, num, str);
	}
	default: return K_UNKNOWN;
	}
}

/* Decodes the DIE at p of unit u. -1 when it cannot be read the way libdw would. */
static int raw_die(const RawCtx *c, const RawUnit *u, const unsigned char *p, RawDie *d)
{
	Reader r = { p, u->end, 0 };
	uint64_t code = uleb(&r);

	d->off = (uint64_t)(p - c->info);
	d->has = d->ok = 0;
	d->ab = NULL;
	if (r.bad)
		return -1;
	if (code == 0) {
		d->after = r.p;
		return 0;
	}
	if (code >= u->ab->ncodes || !u->ab->by_code[code].tag)
		return -1;
	d->ab = &u->ab->by_code[code];
	for (uint32_t i = 0; i < d->ab->n; i++) {
		const RawSpec *sp = &u->ab->specs[d->ab->first + i];
		uint64_t v = 0;
		const char *str = NULL;
		int kind = raw_value(u, &c->sec, &r, sp->form, sp->implicit, &v, &str), bit;
		int numeric = kind == K_DATA || kind == K_SDATA;
		switch (sp->name) {
		case DW_AT_name: bit = R_NAME; break;
		case DW_AT_declaration: bit = R_DECL; break;
		case DW_AT_low_pc: bit = R_LOW_PC; break;
		case DW_AT_ranges: bit = R_RANGES; break;
		case DW_AT_entry_pc: bit = R_ENTRY_PC; break;
		case DW_AT_inline: bit = R_INLINE; break;
		case DW_AT_external: bit = R_EXTERNAL; break;
		case DW_AT_decl_file: bit = R_FILE; break;
		case DW_AT_decl_line: bit = R_LINE; break;
		case DW_AT_abstract_origin: bit = R_ORIGIN; break;
		case DW_AT_specification: bit = R_SPEC; break;
		case DW_AT_sibling: bit = R_SIBLING; break;
		case DW_AT_comp_dir: bit = R_COMP_DIR; break;
		case DW_AT_stmt_list: bit = R_STMT; break;
		default: bit = 0; break;
		}
		if (kind == K_UNKNOWN && (bit & (R_NAME | R_ORIGIN | R_SPEC | R_SIBLING | R_COMP_DIR)))
			return -1;
		if (!bit || (d->has & bit))
			continue;
		d->has |= (unsigned)bit;
		switch (bit) {
		case R_NAME: d->name = str; d->ok |= R_NAME; break;
		case R_COMP_DIR: d->comp_dir = str; d->ok |= R_COMP_DIR; break;
		case R_LOW_PC: if (kind == K_ADDR) { d->low_pc = v; d->ok |= bit; } break;
		case R_INLINE: if (numeric) { d->inl = v; d->ok |= bit; } break;
		case R_FILE: if (numeric) { d->file = v; d->ok |= bit; } break;
		case R_LINE: if (numeric) { d->line = v; d->ok |= bit; } break;
		case R_STMT: if (numeric || kind == K_SECOFF) { d->stmt = v; d->ok |= bit; } break;
		case R_EXTERNAL: if (kind == K_FLAG) { d->ext = v != 0; d->ok |= bit; } break;
		case R_ORIGIN: case R_SPEC: case R_SIBLING:
			if (kind != K_REF)
				return -1;
			if (bit == R_ORIGIN)
				d->origin = v;
			else if (bit == R_SPEC)
				d->spec = v;
			else
				d->sibling = v;
			d->ok |= bit;
			break;
		default: break;
		}
	}
	if (r.bad)
		return -1;
	d->after = r.p;
	return 0;
}

/* What dwarf_attr_integrate finds for the name, DW_AT_external, decl_file and decl_line of d: the
 * first DIE along DW_AT_abstract_origin (else DW_AT_specification) that has each, for at most 16
 * steps.  A step outside d's unit is not followed: -1. */
typedef struct RawIntegrated {
	const char *name;
	int ext, file_ok, line_ok;
	uint64_t file, line;
} RawIntegrated;

static int raw_integrate(const RawCtx *c, const RawUnit *u, const RawDie *d, RawIntegrated *out)
{
	unsigned need = R_NAME | R_EXTERNAL | R_FILE | R_LINE;
	RawDie cur = *d;
	int chain = 16;

	memset(out, 0, sizeof *out);
	for (;;) {
		unsigned got = cur.has & need;
		uint64_t next;
		if (got & R_NAME)
			out->name = cur.name;
		if (got & R_EXTERNAL)
			out->ext = (cur.ok & R_EXTERNAL) && cur.ext;
		if (got & R_FILE) {
			out->file_ok = (cur.ok & R_FILE) != 0;
			out->file = cur.file;
		}
		if (got & R_LINE) {
			out->line_ok = (cur.ok & R_LINE) != 0;
			out->line = cur.line;
		}
		need &= ~got;
		if (!need)
			return 0;
		if (cur.has & R_ORIGIN)
			next = cur.origin;
		else if (cur.has & R_SPEC)
			next = cur.spec;
		else
			return 0;
		if (chain-- == 0)
			return 0;
		if (next <= u->off || next >= (uint64_t)(u->end - c->info) || raw_die(c, u, c->info + next, &cur) != 0 || !cur.ab)
			return -1;
	}
}

/* A DW_AT_sibling (offset in .debug_info) of a DIE whose attributes end at after: inside the unit,
 * not before after. */
static int sibling_ok(const RawCtx *c, const RawUnit *u, uint64_t sibling, const unsigned char *after)
{
	return sibling >= (uint64_t)(after - c->info) && sibling <= (uint64_t)(u->end - c->info);
}

/* Past the children of a DIE whose attributes end at p. */
static const unsigned char *raw_skip_children(const RawCtx *c, const RawUnit *u, const unsigned char *p)
{
	int depth = 1;

	while (depth > 0 && p < u->end) {
		RawDie d;
		if (raw_die(c, u, p, &d) != 0)
			return NULL;
		if (!d.ab) {
			depth--;
			p = d.after;
		} else if (d.ab->children && (d.has & R_SIBLING) && sibling_ok(c, u, d.sibling, d.after)) {
			p = c->info + d.sibling;
		} else {
			if (d.ab->children)
				depth++;
			p = d.after;
		}
	}
	return p;
}

static uint32_t *memo_slot(FileMemo *m, const char *cd, const char *dir, const char *path)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap) {
		FileMemo bigger = { .cap = m->cap ? m->cap * 2 : 4096 };
		bigger.slots = xcalloc(bigger.cap, sizeof *bigger.slots);
		for (size_t k = 0; k < m->cap; k++)
			if (m->slots[k].p)
				*memo_slot(&bigger, m->slots[k].c, m->slots[k].d, m->slots[k].p) = m->slots[k].v;
		free(m->slots);
		*m = bigger;
	}
	i = (size_t)(((uintptr_t)cd * 31 + (uintptr_t)dir * 0x9e3779b1u + (uintptr_t)path) * 0x9e3779b97f4a7c15ULL >> 20) &
	    (m->cap - 1);
	for (; m->slots[i].p; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].p == path && m->slots[i].d == dir && m->slots[i].c == cd)
			return &m->slots[i].v;
	m->slots[i].c = cd;
	m->slots[i].d = dir;
	m->slots[i].p = path;
	m->slots[i].v = 0;
	m->len++;
	return &m->slots[i].v;
}

typedef struct RawFiles {
	RawChunk *ch;
	int n, cap;
} RawFiles;

/* A file table entry: normalized and interned once per (comp_dir, directory, name) strings. */
static void raw_add_file(void *arg, const char *comp_dir, const char *dir, const char *path)
{
	RawFiles *rf = arg;
	Builder *b = &rf->ch->b;
	uint32_t *v = memo_slot(&rf->ch->memo, comp_dir, dir, path);

	if (!*v) {
		char *full = dir ? xasprintf("%s/%s", dir, path) : xstrdup(path);
		char *norm = dwarf_normalize_path(comp_dir, full);
		*v = intern(b, norm) + 1;
		free(norm);
		free(full);
	}
	if (rf->n == rf->cap) {
		rf->cap = rf->cap ? rf->cap * 2 : 256;
		b->files = xrealloc(b->files, (size_t)rf->cap * sizeof *b->files);
	}
	b->files[rf->n++] = *v - 1;
}

/* A name from the sections, memoized by its address only: .debug_str holds each string once, so a
 * name repeated at another address (DW_FORM_string) is kept twice, which the index allows. */
static uint32_t raw_name(Builder *b, const char *s)
{
	uint32_t *v = ptrmap_slot(&b->names, s, 0);

	if (!*v) {
		*v = (uint32_t)b->strings.len + 1;
		sb_putn(&b->strings, s, strlen(s) + 1);
	}
	return *v - 1;
}

static uint32_t raw_file(const Builder *b, int ok, uint64_t f)
{
	if (!ok)
		return 0;
	f -= (uint64_t)b->first_file;
	return f < (uint64_t)b->nfiles ? b->files[f] : 0;
}

static int raw_subprogram(const RawCtx *c, const RawUnit *u, RawChunk *ch, uint32_t cu, const RawDie *d)
{
	Builder *b = &ch->b;
	RawIntegrated in;
	int flags = 0;
	IdxEntry *e;

	if (d->has & R_DECL)
		return 0;
	if (raw_integrate(c, u, d, &in) != 0)
		return -1;
	if (!in.name)
		return 0;
	if (d->has & (R_LOW_PC | R_RANGES))
		flags |= DWARF_NAME_HAS_PC;
	if ((d->ok & R_INLINE) && (d->inl == DW_INL_inlined || d->inl == DW_INL_declared_inlined))
		flags |= DWARF_NAME_INLINE;
	if (in.ext)
		flags |= DWARF_NAME_EXTERNAL;
	e = new_entry(b);
	e->name = raw_name(b, in.name);
	e->cu = cu;
	e->die = d->off;
	e->tag = DW_TAG_subprogram;
	e->flags = (uint16_t)flags;
	e->file = raw_file(b, in.file_ok, in.file);
	e->line = in.line_ok ? (uint32_t)in.line : 0;
	if (flags & DWARF_NAME_HAS_PC) {
		if ((d->ok & R_LOW_PC) && !(d->has & R_ENTRY_PC))
			e->pc = d->low_pc;
		else
			e->pad = 1;             /* DW_AT_entry_pc or ranges: dwarf_name_info asks libdw */
	}
	b->nfunctions++;
	return 0;
}

static int raw_type(const RawCtx *c, const RawUnit *u, RawChunk *ch, uint32_t cu, const RawDie *d, int tag)
{
	Builder *b = &ch->b;
	RawIntegrated in;
	const char *name = d->name;
	int decl = (d->has & R_DECL) != 0;
	uint32_t *v;
	IdxEntry *e;

	if (!(d->has & R_NAME)) {
		if (raw_integrate(c, u, d, &in) != 0)
			return -1;
		name = in.name;
	}
	if (!name)
		return 0;
	v = ptrmap_slot(&b->types, name, tag);
	if (*v) {
		e = &b->e[*v - 1];
		if (decl || !(e->flags & DWARF_NAME_DECLARATION))
			return 0;
	} else {
		e = new_entry(b);
		*v = (uint32_t)b->n;
		e->name = raw_name(b, name);
		e->tag = (uint16_t)tag;
	}
	if (raw_integrate(c, u, d, &in) != 0)
		return -1;
	e->cu = cu;
	e->die = d->off;
	e->flags = decl ? DWARF_NAME_DECLARATION : 0;
	e->file = raw_file(b, in.file_ok, in.file);
	e->line = in.line_ok ? (uint32_t)in.line : 0;
	return 0;
}

/* Indexes the unit at .debug_info [off, end) into ch; a reason when it cannot. */
static const char *raw_unit(const RawCtx *c, RawChunk *ch, uint64_t off, uint64_t end)
{
	Reader r = { c->info + off, c->info + end, 0 };
	RawUnit u;
	RawDie cud, d;
	uint64_t abbrev_off;
	Builder *b = &ch->b;
	const unsigned char *p;
	uint32_t cu;

	u.off8 = 0;
	if (rd(&r, 4) == 0xffffffff) {
		rd(&r, 8);
		u.off8 = 1;
	}
	u.version = (int)rd(&r, 2);
	if (u.version < 2 || u.version > 5)
		return "a unit of an unknown version";
	if (u.version >= 5) {
		int type = (int)rd(&r, 1);
		u.addr_size = (int)rd(&r, 1);
		abbrev_off = rd(&r, u.off8 ? 8 : 4);
		if (type == DW_UT_type || type == DW_UT_split_type) {
			rd(&r, 8);
			rd(&r, u.off8 ? 8 : 4);
		} else if (type == DW_UT_skeleton || type == DW_UT_split_compile) {
			rd(&r, 8);
		} else if (type != DW_UT_compile && type != DW_UT_partial) {
			return "a unit of an unknown type";
		}
	} else {
		abbrev_off = rd(&r, u.off8 ? 8 : 4);
		u.addr_size = (int)rd(&r, 1);
	}
	if (r.bad || (u.addr_size != 4 && u.addr_size != 8))
		return "a unit header it cannot read";
	if (raw_abbrevs(c, abbrev_off, u.off8, u.addr_size, u.version, &ch->ab) != 0)
		return "an abbreviation table it cannot read";
	u.start = c->info + off;
	u.end = c->info + end;
	u.off = off;
	u.ab = &ch->ab;
	if (raw_die(c, &u, r.p, &cud) != 0 || !cud.ab)
		return "a unit DIE it cannot read";
	if (cud.ab->tag != DW_TAG_compile_unit)
		return NULL;

	{
		const char *comp_dir = (cud.ok & R_COMP_DIR) ? cud.comp_dir : NULL;
		char *name = dwarf_normalize_path(comp_dir, (cud.has & R_NAME) ? cud.name : NULL);
		if (b->ncus == b->capcus) {
			b->capcus = b->capcus ? b->capcus * 2 : 256;
			b->cus = xrealloc(b->cus, b->capcus * sizeof *b->cus);
		}
		cu = (uint32_t)b->ncus++;
		b->cus[cu].die = cud.off;
		b->cus[cu].name = intern(b, name);
		b->cus[cu].comp_dir = intern(b, comp_dir);
		free(name);
		b->nfiles = 0;
		if (cud.ok & R_STMT) {
			RawFiles rf = { ch, 0, 0 };
			free(b->files);         /* raw_add_file grows it from nothing */
			b->files = NULL;
			if (walk_file_table(&c->sec, cud.stmt, comp_dir, raw_add_file, &rf, &b->first_file) != 0)
				return "a line table header it cannot read";
			b->nfiles = rf.n;
		}
	}
	if (!cud.ab->children)
		return NULL;
	for (p = cud.after; p < u.end;) {
		/* a DIE of a tag not indexed: past it by the sizes its abbreviation gives, when it can */
		Reader q = { p, u.end, 0 };
		uint64_t code = uleb(&q);
		const RawAbbrev *ab = !q.bad && code && code < u.ab->ncodes ? &u.ab->by_code[code] : NULL;
		if (ab && ab->tag && ab->tag != DW_TAG_subprogram && !is_type_tag((int)ab->tag)) {
			if (!ab->children && ab->fixed >= 0 && (size_t)(u.end - q.p) >= (size_t)ab->fixed) {
				p = q.p + ab->fixed;
				continue;
			}
			if (ab->children && ab->sib_at >= 0 && (size_t)(u.end - q.p) >= (size_t)(ab->sib_at + ab->sib_size)) {
				Reader sq = { q.p + ab->sib_at, u.end, 0 };
				uint64_t next = u.off + rd(&sq, ab->sib_size);
				if (sibling_ok(c, &u, next, sq.p)) {
					p = c->info + next;
					continue;
				}
			}
		}
		if (raw_die(c, &u, p, &d) != 0)
			return "a DIE it cannot read";
		if (!d.ab)
			break;
		switch (d.ab->tag) {
		case DW_TAG_subprogram:
			if (raw_subprogram(c, &u, ch, cu, &d) != 0)
				return "a reference outside its unit";
			break;
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
		case DW_TAG_typedef:
		case DW_TAG_base_type:
			if (raw_type(c, &u, ch, cu, &d, (int)d.ab->tag) != 0)
				return "a reference outside its unit";
			break;
		default: break;
		}
		if (!d.ab->children)
			p = d.after;
		else if ((d.has & R_SIBLING) && sibling_ok(c, &u, d.sibling, d.after))
			p = c->info + d.sibling;
		else if (!(p = raw_skip_children(c, &u, d.after)))
			return "a DIE it cannot read";
	}
	return NULL;
}

static void *raw_worker(void *arg)
{
	RawCtx *c = arg;

	for (;;) {
		size_t k = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED);
		RawChunk *ch;
		if (k >= c->nchunks)
			break;
		ch = &c->chunks[k];
		for (size_t i = ch->first; i < ch->last && !ch->why; i++) {
			if (__atomic_load_n(&c->failed, __ATOMIC_RELAXED))
				ch->why = "another thread failed";
			else if ((ch->why = raw_unit(c, ch, c->units[i], c->units[i + 1])) != NULL)
				__atomic_store_n(&c->failed, 1, __ATOMIC_RELAXED);
		}
		if (!ch->why && ch->b.n)
			qsort_r(ch->b.e, ch->b.n, sizeof *ch->b.e, cmp_entry_r, ch->b.strings.data);
	}
	return NULL;
}

/* The chunks' sorted entries merged: a heap of chunk numbers, least (name, chunk) on top (a chunk's
 * CUs all come before the next chunk's, so that is the order by name, CU and DIE). */
typedef struct RawMerge {
	RawCtx *c;
	size_t *pos;                   /* per chunk: its next entry */
	size_t heap[64];
	size_t n;
} RawMerge;

static int merge_less(const RawMerge *mg, size_t a, size_t b)
{
	const Builder *ba = &mg->c->chunks[a].b, *bb = &mg->c->chunks[b].b;
	int r = strcmp(ba->strings.data + ba->e[mg->pos[a]].name, bb->strings.data + bb->e[mg->pos[b]].name);

	return r < 0 || (r == 0 && a < b);
}

static void merge_down(RawMerge *mg, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, least = i, t;
		if (l < mg->n && merge_less(mg, mg->heap[l], mg->heap[least]))
			least = l;
		if (l + 1 < mg->n && merge_less(mg, mg->heap[l + 1], mg->heap[least]))
			least = l + 1;
		if (least == i)
			return;
		t = mg->heap[i];
		mg->heap[i] = mg->heap[least];
		mg->heap[least] = t;
		i = least;
	}
}

static void builder_free(Builder *b)
{
	for (int i = 0; i < b->interned.cap; i++)
		free(b->interned.keys[i]);
	free(b->interned.keys);
	free(b->interned.values);
	free(b->types.slots);
	free(b->names.slots);
	free(b->e);
	free(b->cus);
	free(b->files);
	sb_free(&b->strings);
}

static void builder_init(Builder *b)
{
	memset(b, 0, sizeof *b);
	sb_init(&b->strings);
	sb_putc(&b->strings, 0);      /* offset 0 = "" */
	b->strings.len = 1;
}

static void *symtab_thread(void *m)
{
	dwarf_symtab_load(m);
	return NULL;
}

/* How many threads build an index: $STAP_INDEX_THREADS, else the CPUs online (at most 8); 0 (only
 * from the variable, for tests) reads through libdw. */
static int index_threads(void)
{
	const char *env = getenv("STAP_INDEX_THREADS");
	long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);

	return n < 0 ? 1 : n > 8 ? 8 : (int)n;
}

/* Fills out (initialized) with the entries of every CU, read directly; -1 (and *why) when the sections
 * hold something this reader does not follow: the caller then builds through libdw. */
static int raw_build(DwarfModule *m, Builder *out, int *nthreads, const char **why, double *cpu)
{
	Elf *elf = dwarf_getelf(m->dw);
	Elf_Data *info = section_data(elf, ".debug_info"), *abbrev = section_data(elf, ".debug_abbrev");
	RawCtx c = { 0 };
	size_t capunits = 0;
	uint64_t off = 0;
	int threads = index_threads(), rc = 0;
	pthread_t tid[8], symtab_tid;
	int started = 0, symtab_started = 0;

	*why = NULL;
	if (threads == 0) {
		*why = "STAP_INDEX_THREADS=0";
		return -1;
	}
	if (!info || !info->d_buf || !abbrev || !abbrev->d_buf) {
		*why = "no .debug_info or .debug_abbrev";
		return -1;
	}
	c.info = info->d_buf;
	c.info_size = info->d_size;
	c.abbrev = abbrev->d_buf;
	c.abbrev_size = abbrev->d_size;
	c.sec.line = section_data(elf, ".debug_line");
	c.sec.line_str = section_data(elf, ".debug_line_str");
	c.sec.str = section_data(elf, ".debug_str");
	/* the units, as dwarf_nextcu walks them: it stops at a header that does not fit */
	while (c.info_size - off >= 11) {
		Reader r = { c.info + off, c.info + c.info_size, 0 };
		uint64_t len = rd(&r, 4), end;
		if (len == 0xffffffff)
			len = rd(&r, 8);
		else if (len >= 0xfffffff0)
			break;
		if (r.bad || len > (uint64_t)(r.end - r.p))
			break;
		end = (uint64_t)(r.p - c.info) + len;
		if (c.nunits + 2 > capunits) {
			capunits = capunits ? capunits * 2 : 1024;
			c.units = xrealloc(c.units, capunits * sizeof *c.units);
		}
		c.units[c.nunits++] = off;
		off = end;
	}
	if (!c.nunits) {
		free(c.units);
		*why = "no units";
		return -1;
	}
	c.units[c.nunits] = off;
	/* runs of units of about equal size, several per thread so that a slow one does not hold up the end */
	{
		size_t want = threads > 1 ? (size_t)threads * 8 : 1, k = 0;   /* at most 64 */
		uint64_t per = off / want + 1;
		c.chunks = xcalloc(want, sizeof *c.chunks);
		for (size_t i = 0; i < c.nunits; k++) {
			uint64_t start = c.units[i];
			c.chunks[k].first = i;
			while (i < c.nunits && (c.units[i] - start < per || i == c.chunks[k].first || k == want - 1))
				i++;
			c.chunks[k].last = i;
			builder_init(&c.chunks[k].b);
		}
		c.nchunks = k;
	}
	cpu[0] = cpu_ms(CLOCK_PROCESS_CPUTIME_ID);
	/* the kernel's symbol table, which its probes need next (anchors, what kprobes refuse), read
	 * meanwhile: the readers of the DWARF do not call libelf, so this thread has m's Elf alone */
	if (threads > 1 && m->is_kernel && !m->syms && !m->dwfl &&
	    pthread_create(&symtab_tid, NULL, symtab_thread, m) == 0)
		symtab_started = 1;
	for (int t = 1; t < threads; t++)
		if (pthread_create(&tid[started], NULL, raw_worker, &c) == 0)
			started++;
	raw_worker(&c);
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	*nthreads = started + 1;
	cpu[0] = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu[0];
	cpu[1] = cpu_ms(CLOCK_PROCESS_CPUTIME_ID);

	for (size_t k = 0; k < c.nchunks && !rc; k++)
		if (c.chunks[k].why && strcmp(c.chunks[k].why, "another thread failed")) {
			*why = c.chunks[k].why;
			rc = -1;
		}
	/* the chunks' tables one after the other: string offsets and CU numbers shift by what precedes;
	 * the entries merged in order */
	if (!rc) {
		uint32_t *sbase = xcalloc(c.nchunks, sizeof *sbase), *cbase = xcalloc(c.nchunks, sizeof *cbase);
		RawMerge mg = { &c, xcalloc(c.nchunks, sizeof(size_t)), { 0 }, 0 };
		for (size_t k = 0; k < c.nchunks; k++) {
			Builder *b = &c.chunks[k].b;
			sbase[k] = (uint32_t)out->strings.len;
			cbase[k] = (uint32_t)out->ncus;
			sb_putn(&out->strings, b->strings.data, b->strings.len);
			for (size_t i = 0; i < b->ncus; i++) {
				if (out->ncus == out->capcus) {
					out->capcus = out->capcus ? out->capcus * 2 : 1024;
					out->cus = xrealloc(out->cus, out->capcus * sizeof *out->cus);
				}
				out->cus[out->ncus] = b->cus[i];
				out->cus[out->ncus].name = b->cus[i].name ? b->cus[i].name + sbase[k] : 0;
				out->cus[out->ncus].comp_dir = b->cus[i].comp_dir ? b->cus[i].comp_dir + sbase[k] : 0;
				out->ncus++;
			}
			out->nfunctions += b->nfunctions;
			if (b->n)
				mg.heap[mg.n++] = k;
		}
		for (size_t i = mg.n; i-- > 0;)
			merge_down(&mg, i);
		while (mg.n) {
			size_t k = mg.heap[0];
			Builder *b = &c.chunks[k].b;
			IdxEntry *e = new_entry(out);
			*e = b->e[mg.pos[k]++];
			e->name = e->name ? e->name + sbase[k] : 0;
			e->file = e->file ? e->file + sbase[k] : 0;
			e->cu += cbase[k];
			e->pad = 0;            /* its pc (0) is read when asked: dwarf_name_info */
			if (mg.pos[k] == b->n)
				mg.heap[0] = mg.heap[--mg.n];
			merge_down(&mg, 0);
		}
		free(mg.pos);
		free(sbase);
		free(cbase);
	}
	for (size_t k = 0; k < c.nchunks; k++) {
		builder_free(&c.chunks[k].b);
		free(c.chunks[k].memo.slots);
		free(c.chunks[k].ab.by_code);
		free(c.chunks[k].ab.specs);
	}
	free(c.chunks);
	free(c.units);
	if (symtab_started)
		pthread_join(symtab_tid, NULL);
	cpu[1] = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu[1];
	return rc;
}

/* ---- one compile unit, without the index (exactname.c) -------------------------------------------- */

int dwarf_index_cu_functions(DwarfModule *m, Dwarf_Die *cudie, const char *name, PtrVec *out)
{
	Builder b;
	Elf *elf = dwarf_getelf(m->dw);
	Sections sec = { section_data(elf, ".debug_line"), section_data(elf, ".debug_line_str"),
			 section_data(elf, ".debug_str") };
	int found = 0;

	builder_init(&b);
	index_cu(&b, &sec, cudie);      /* what the index holds of this CU, read as the libdw builder does */
	for (size_t i = 0; i < b.n; i++) {
		const IdxEntry *e = &b.e[i];
		DwarfExact *x;
		if (e->tag != DW_TAG_subprogram || strcmp(b.strings.data + e->name, name))
			continue;
		x = xcalloc(1, sizeof *x);
		x->n.name = xstrdup(name);
		x->n.cu = b.cus[e->cu].die;
		x->n.die = e->die;
		x->n.tag = e->tag;
		x->n.flags = e->flags;
		x->info.decl_file = xstrdup(b.strings.data + e->file);
		x->info.decl_line = (int)e->line;
		x->info.pc = e->pc;
		x->info.cu_name = xstrdup(b.strings.data + b.cus[e->cu].name);
		vec_push(out, x);
		found++;
	}
	builder_free(&b);
	return found;
}

/* The whole index as one malloc'd block in the file format: read directly by a few threads, or
 * through libdw when the direct reader does not follow something in the file. */
static char *build_index(Session *s, DwarfModule *m, size_t *size_out)
{
	Builder b;
	size_t hsize;
	IdxHeader h = { 0 };
	char *blob;
	int threads = 1;
	const char *why;
	double t0 = now_ms();

	builder_init(&b);
	double cpu[2] = { 0, 0 }, t1;

	if (raw_build(m, &b, &threads, &why, cpu) != 0) {
		Sections sec;
		Dwarf_Off off = 0, next;
		if (s && s->verbose >= 2)
			fprintf(stderr, "DWARF index of %s: %s; reading it through libdw\n", m->path, why);
		builder_free(&b);
		builder_init(&b);
		threads = 0;
		sec.line = section_data(dwarf_getelf(m->dw), ".debug_line");
		sec.line_str = section_data(dwarf_getelf(m->dw), ".debug_line_str");
		sec.str = section_data(dwarf_getelf(m->dw), ".debug_str");
		while (dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die cudie;
			if (dwarf_offdie(m->dw, off + hsize, &cudie) && dwarf_tag(&cudie) == DW_TAG_compile_unit)
				index_cu(&b, &sec, &cudie);
			off = next;
		}
	}
	t1 = now_ms();
	if (s && s->verbose >= 2 && threads)
		fprintf(stderr, "DWARF index of %s: %zu names read %s in %.0f ms (CPU: %.0f ms reading, %.0f ms merging)\n",
			m->path, b.n, threads > 1 ? "directly by several threads" : "directly", t1 - t0, cpu[0], cpu[1]);
	else if (s && s->verbose >= 2)
		fprintf(stderr, "DWARF index of %s: %zu names read through libdw in %.0f ms\n", m->path, b.n, t1 - t0);
	if (!threads && b.n)           /* raw_build merged its sorted chunks */
		qsort_r(b.e, b.n, sizeof *b.e, cmp_entry_r, b.strings.data);
	b.n = merge_types(b.e, b.n, b.strings.data);

	memcpy(h.magic, IDX_MAGIC, 8);
	h.version = IDX_VERSION;
	h.nentries = (uint32_t)b.n;
	h.ncus = (uint32_t)b.ncus;
	h.nfunctions = b.nfunctions;
	h.strings_off = sizeof h;
	h.strings_len = b.strings.len;
	h.entries_off = (h.strings_off + h.strings_len + 7) & ~(uint64_t)7;
	h.cus_off = h.entries_off + b.n * sizeof(IdxEntry);
	h.file_size = h.cus_off + b.ncus * sizeof(IdxCU);
	snprintf(h.build_id, sizeof h.build_id, "%s", m->build_id);
	blob = xcalloc(1, h.file_size);
	memcpy(blob, &h, sizeof h);
	memcpy(blob + h.strings_off, b.strings.data, b.strings.len);
	if (b.n)
		memcpy(blob + h.entries_off, b.e, b.n * sizeof(IdxEntry));
	if (b.ncus)
		memcpy(blob + h.cus_off, b.cus, b.ncus * sizeof(IdxCU));
	*size_out = h.file_size;
	builder_free(&b);
	if (s && s->verbose >= 2)
		fprintf(stderr, "DWARF index of %s: sorted and laid out in %.0f ms\n", m->path, now_ms() - t1);
	return blob;
}

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

static int load(const char *path, const char *build_id, struct DwarfIndex *idx)
{
	size_t size;
	const char *map = filecache_map(path, &size), *why;

	if (!map)
		return -1;
	if ((why = dwarf_index_check(map, size, build_id)) != NULL) {
		filecache_warn("DWARF index %s: %s; rebuilding it", path, why);
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
static struct DwarfIndex *cached_index(Session *s, DwarfModule *m)
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
	if (load(path, m->build_id, idx) == 0) {
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
	if (path && load(path, m->build_id, idx) == 0) {
		how = "loaded from";
	} else {
		size_t size;
		char *blob = build_index(s, m, &size);
		attach(idx, blob, size, 0);
		if (!path)
			how = "built in memory";
		else if (filecache_write(path, blob, size) == 0)
			how = "built and saved to";
		else
			how = "built (not saved) for";
	}
	m->index = idx;
	index_opened(s, m, how, path, t0);
	free(path);
	return 0;
}

/* ---- lookups ------------------------------------------------------------------------------------- */

static const char *entry_name(const struct DwarfIndex *idx, uint32_t i)
{
	return idx->str + idx->e[i].name;
}

/* First entry whose name is >= key (prefix: compares only strlen(key) bytes, for a prefix range). */
static uint32_t lower_bound(const struct DwarfIndex *idx, const char *key, size_t n, int prefix)
{
	uint32_t lo = 0, hi = idx->h->nentries;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = prefix ? strncmp(entry_name(idx, mid), key, n) : strcmp(entry_name(idx, mid), key);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void fill_name(const struct DwarfIndex *idx, uint32_t i, DwarfName *n)
{
	const IdxEntry *e = &idx->e[i];

	n->name = idx->str + e->name;
	n->cu = idx->cus[e->cu].die;
	n->die = e->die;
	n->tag = e->tag;
	n->flags = e->flags;
	n->idx = i;
}

/* The index of m, opened on first use. */
static struct DwarfIndex *index_of(DwarfModule *m)
{
	if (!m->index && m->session)
		dwarf_index_open(m->session, m);
	return m->index;
}

int dwarf_index_each(DwarfModule *m, const char *glob, int (*fn)(const DwarfName *n, void *arg), void *arg)
{
	const struct DwarfIndex *idx;
	size_t plen = strcspn(glob, "*?[\\");
	int calls = 0;
	DwarfName n;

	idx = index_of(m);
	if (!idx)
		return 0;
	if (!glob[plen]) {
		for (uint32_t i = lower_bound(idx, glob, 0, 0); i < idx->h->nentries && !strcmp(entry_name(idx, i), glob);
		     i++) {
			fill_name(idx, i, &n);
			calls++;
			if (fn(&n, arg))
				break;
		}
		return calls;
	}
	for (uint32_t i = plen ? lower_bound(idx, glob, plen, 1) : 0;
	     i < idx->h->nentries && !strncmp(entry_name(idx, i), glob, plen); i++) {
		if (fnmatch(glob, entry_name(idx, i), 0) != 0)
			continue;
		fill_name(idx, i, &n);
		calls++;
		if (fn(&n, arg))
			break;
	}
	return calls;
}

int dwarf_index_each_function(DwarfModule *m, const char *glob, int (*fn)(const DwarfName *n, void *arg), void *arg)
{
	int calls;

	/* an exact name with no index cached: found from its symbol when that gives the index's answer */
	if (!glob[strcspn(glob, "*?[\\")] && m->session && dwarf_exact_wanted(m) && !cached_index(m->session, m) &&
	    (calls = dwarf_exact_each(m, glob, fn, arg)) >= 0)
		return calls;
	return dwarf_index_each(m, glob, fn, arg);
}

void dwarf_name_info(DwarfModule *m, const DwarfName *n, DwarfNameInfo *info)
{
	const struct DwarfIndex *idx = m->index;
	const IdxEntry *e;

	if (n->idx & DWARF_NAME_IDX_EXACT) {
		*info = ((const DwarfExact *)m->exact.items[n->idx & ~DWARF_NAME_IDX_EXACT])->info;
		return;
	}
	e = &idx->e[n->idx];

	info->decl_file = idx->str + e->file;
	info->decl_line = (int)e->line;
	info->pc = e->pc;
	if (!info->pc && (e->flags & DWARF_NAME_HAS_PC)) {
		/* the index leaves 0 where only libdw reads the entry (DW_AT_entry_pc, ranges) */
		Dwarf_Die die;
		if (dwarf_offdie(m->dw, e->die, &die))
			info->pc = entry_pc(&die);
	}
	info->cu_name = idx->str + idx->cus[e->cu].name;
}

/* ---- file names of a CU, after the build ---------------------------------------------------------- */

typedef struct CuFiles {
	PtrVec names;           /* char*: normalized */
	int first;
	PtrVec extra;           /* char*: names of files outside the table, kept for the run */
	size_t nfiles;
} CuFiles;

/* (needs no index: the exact-name lookups of exactname.c read them too) */
static CuFiles *cu_files(DwarfModule *m, Dwarf_Die *cudie)
{
	char key[32];
	void **slot;

	snprintf(key, sizeof key, "%llx", (unsigned long long)dwarf_dieoffset(cudie));
	slot = strmap_slot(&m->cu_files, key, 0);
	if (!slot) {
		CuFiles *cf = xcalloc(1, sizeof *cf);
		Sections sec = { section_data(dwarf_getelf(m->dw), ".debug_line"), section_data(dwarf_getelf(m->dw), ".debug_line_str"),
				 section_data(dwarf_getelf(m->dw), ".debug_str") };
		if (cu_file_table(&sec, cudie, &cf->names, &cf->first) != 0)
			cf->names.len = 0;
		strmap_put(&m->cu_files, xstrdup(key), cf);
		return cf;
	}
	return *slot;
}

const char *dwarf_decl_file_of(DwarfModule *m, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Word f;
	Dwarf_Die cudie;
	CuFiles *cf;

	if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &a), &f) != 0 ||
	    !dwarf_diecu(die, &cudie, NULL, NULL))
		return "";
	cf = cu_files(m, &cudie);
	f -= (Dwarf_Word)cf->first;
	return f < (Dwarf_Word)cf->names.len ? cf->names.items[f] : "";
}

const char *dwarf_line_source(DwarfModule *m, Dwarf_Die *cudie, Dwarf_Line *line)
{
	CuFiles *cf = cu_files(m, cudie);
	Dwarf_Files *files;
	size_t i;
	const char *src;

	/* libdw numbers files as DWARF does (before DWARF 5: from 1), so do we (minus first) */
	if (dwarf_line_file(line, &files, &i) == 0 && i >= (size_t)cf->first && i - (size_t)cf->first < (size_t)cf->names.len)
		return cf->names.items[i - (size_t)cf->first];
	src = dwarf_linesrc(line, NULL, NULL);
	if (!src)
		return "";
	{
		Dwarf_Attribute a;
		const char *comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &a));
		char *n = dwarf_normalize_path(comp_dir, src);
		vec_push(&cf->extra, n);
		return n;
	}
}
