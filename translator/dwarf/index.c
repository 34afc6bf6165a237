/* index.c - the names of a debuginfo file's functions and types: built from the top-level DIEs of each
 * CU (through libdw here, directly in rawindex.c), cached (indexcache.c) and looked up.  Used by
 * providers/kernelfn.c and dwarf/dwvars.c. */
#include "dwarf/indexbuild.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

Elf_Data *dwidx_section_data(Elf *elf, const char *want)
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

const char *dwidx_str_at(Elf_Data *d, uint64_t off)
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
	case DW_FORM_line_strp: return dwidx_str_at(sec->line_str, rd(r, off8 ? 8 : 4));
	case DW_FORM_strp: return dwidx_str_at(sec->str, rd(r, off8 ? 8 : 4));
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

int dwidx_walk_file_table(const Sections *sec, uint64_t off, const char *comp_dir, FileFn add, void *arg, int *first)
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
	if (dwidx_walk_file_table(sec, off, comp_dir, add_file, files, first) == 0)
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

uint32_t *dwidx_ptrmap_slot(PtrMap *m, const char *key, int tag)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap) {
		PtrMap bigger = { .cap = m->cap ? m->cap * 2 : 4096 };
		bigger.slots = xcalloc(bigger.cap, sizeof *bigger.slots);
		for (size_t k = 0; k < m->cap; k++)
			if (m->slots[k].key)
				*dwidx_ptrmap_slot(&bigger, m->slots[k].key, m->slots[k].tag) = m->slots[k].value;
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

uint32_t dwidx_intern(Builder *b, const char *s)
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
	uint32_t *v = dwidx_ptrmap_slot(&b->names, s, 0);

	if (!*v)
		*v = dwidx_intern(b, s) + 1;
	return *v - 1;
}

IdxEntry *dwidx_new_entry(Builder *b)
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
	e = dwidx_new_entry(b);
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
	v = dwidx_ptrmap_slot(&b->types, name, tag);
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
	e = dwidx_new_entry(b);
	*v = (uint32_t)b->n;
	e->name = intern_name(b, name);
	e->cu = cu;
	e->die = dwarf_dieoffset(d);
	e->tag = (uint16_t)tag;
	e->flags = decl ? DWARF_NAME_DECLARATION : 0;
	e->file = decl_file(b, d);
	e->line = decl_line(d);
}

int dwidx_is_type_tag(int tag)
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
		if (!dwidx_is_type_tag(e[i].tag)) {
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

int dwidx_cmp_entry_r(const void *pa, const void *pb, void *strings)
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
	b->cus[cu].name = dwidx_intern(b, name);
	b->cus[cu].comp_dir = dwidx_intern(b, comp_dir);
	free(name);
	b->nfiles = 0;
	if (cu_file_table(sec, cudie, &files, &b->first_file) == 0) {
		b->files = xrealloc(b->files, ((size_t)files.len + 1) * sizeof *b->files);
		for (int i = 0; i < files.len; i++) {
			b->files[i] = dwidx_intern(b, files.items[i]);
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

void dwidx_builder_free(Builder *b)
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

void dwidx_builder_init(Builder *b)
{
	memset(b, 0, sizeof *b);
	sb_init(&b->strings);
	sb_putc(&b->strings, 0);      /* offset 0 = "" */
	b->strings.len = 1;
}

/* ---- one compile unit, without the index (exactname.c) -------------------------------------------- */

int dwarf_index_cu_functions(DwarfModule *m, Dwarf_Die *cudie, const char *name, PtrVec *out)
{
	Builder b;
	Elf *elf = dwarf_getelf(m->dw);
	Sections sec = { dwidx_section_data(elf, ".debug_line"), dwidx_section_data(elf, ".debug_line_str"),
			 dwidx_section_data(elf, ".debug_str") };
	int found = 0;

	dwidx_builder_init(&b);
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
	dwidx_builder_free(&b);
	return found;
}

/* The whole index as one malloc'd block in the file format: read directly by a few threads, or
 * through libdw when the direct reader does not follow something in the file. */
char *dwidx_build(Session *s, DwarfModule *m, size_t *size_out)
{
	Builder b;
	size_t hsize;
	IdxHeader h = { 0 };
	char *blob;
	int threads = 1;
	const char *why;
	double t0 = now_ms();

	dwidx_builder_init(&b);
	double cpu[2] = { 0, 0 }, t1;

	if (dwidx_raw_build(m, &b, &threads, &why, cpu) != 0) {
		Sections sec;
		Dwarf_Off off = 0, next;
		if (s && s->verbose >= 2)
			fprintf(stderr, "DWARF index of %s: %s; reading it through libdw\n", m->path, why);
		dwidx_builder_free(&b);
		dwidx_builder_init(&b);
		threads = 0;
		sec.line = dwidx_section_data(dwarf_getelf(m->dw), ".debug_line");
		sec.line_str = dwidx_section_data(dwarf_getelf(m->dw), ".debug_line_str");
		sec.str = dwidx_section_data(dwarf_getelf(m->dw), ".debug_str");
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
	if (!threads && b.n)           /* dwidx_raw_build merged its sorted chunks */
		qsort_r(b.e, b.n, sizeof *b.e, dwidx_cmp_entry_r, b.strings.data);
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
	dwidx_builder_free(&b);
	if (s && s->verbose >= 2)
		fprintf(stderr, "DWARF index of %s: sorted and laid out in %.0f ms\n", m->path, now_ms() - t1);
	return blob;
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
	if (!glob[strcspn(glob, "*?[\\")] && m->session && dwarf_exact_wanted(m) && !dwidx_cached(m->session, m) &&
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
		Sections sec = { dwidx_section_data(dwarf_getelf(m->dw), ".debug_line"), dwidx_section_data(dwarf_getelf(m->dw), ".debug_line_str"),
				 dwidx_section_data(dwarf_getelf(m->dw), ".debug_str") };
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
