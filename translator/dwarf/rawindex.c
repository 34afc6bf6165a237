/* rawindex.c - the DWARF index's fast builder: reads .debug_info/.debug_abbrev directly, in parallel
 * over runs of compile units, into the builder of indexbuild.h. Used by index.c (dwidx_build). */
#include "dwarf/indexbuild.h"

#include <dwarf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	case DW_FORM_strp: *str = dwidx_str_at(sec->str, rd(r, osize)); return *str ? K_STR : K_UNKNOWN;
	case DW_FORM_line_strp: *str = dwidx_str_at(sec->line_str, rd(r, osize)); return *str ? K_STR : K_UNKNOWN;
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
		*v = dwidx_intern(b, norm) + 1;
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
	uint32_t *v = dwidx_ptrmap_slot(&b->names, s, 0);

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
	e = dwidx_new_entry(b);
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
	v = dwidx_ptrmap_slot(&b->types, name, tag);
	if (*v) {
		e = &b->e[*v - 1];
		if (decl || !(e->flags & DWARF_NAME_DECLARATION))
			return 0;
	} else {
		e = dwidx_new_entry(b);
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
/* The header of the unit at [off, end) into *u (its abbreviations read into ch's), r past it. */
static const char *raw_unit_header(const RawCtx *c, RawChunk *ch, Reader *r, RawUnit *u, uint64_t off, uint64_t end)
{
	uint64_t abbrev_off;

	u->off8 = 0;
	if (rd(r, 4) == 0xffffffff) {
		rd(r, 8);
		u->off8 = 1;
	}
	u->version = (int)rd(r, 2);
	if (u->version < 2 || u->version > 5)
		return "a unit of an unknown version";
	if (u->version >= 5) {
		int type = (int)rd(r, 1);
		u->addr_size = (int)rd(r, 1);
		abbrev_off = rd(r, u->off8 ? 8 : 4);
		if (type == DW_UT_type || type == DW_UT_split_type) {
			rd(r, 8);
			rd(r, u->off8 ? 8 : 4);
		} else if (type == DW_UT_skeleton || type == DW_UT_split_compile) {
			rd(r, 8);
		} else if (type != DW_UT_compile && type != DW_UT_partial) {
			return "a unit of an unknown type";
		}
	} else {
		abbrev_off = rd(r, u->off8 ? 8 : 4);
		u->addr_size = (int)rd(r, 1);
	}
	if (r->bad || (u->addr_size != 4 && u->addr_size != 8))
		return "a unit header it cannot read";
	if (raw_abbrevs(c, abbrev_off, u->off8, u->addr_size, u->version, &ch->ab) != 0)
		return "an abbreviation table it cannot read";
	u->start = c->info + off;
	u->end = c->info + end;
	u->off = off;
	u->ab = &ch->ab;
	return NULL;
}

/* The compile unit DIE cud: its CU record (number in *cu) and its file table. */
static const char *raw_cu(const RawCtx *c, RawChunk *ch, const RawDie *cud, uint32_t *cu)
{
	Builder *b = &ch->b;
	const char *comp_dir = (cud->ok & R_COMP_DIR) ? cud->comp_dir : NULL;
	char *name = dwarf_normalize_path(comp_dir, (cud->has & R_NAME) ? cud->name : NULL);

	if (b->ncus == b->capcus) {
		b->capcus = b->capcus ? b->capcus * 2 : 256;
		b->cus = xrealloc(b->cus, b->capcus * sizeof *b->cus);
	}
	*cu = (uint32_t)b->ncus++;
	b->cus[*cu].die = cud->off;
	b->cus[*cu].name = dwidx_intern(b, name);
	b->cus[*cu].comp_dir = dwidx_intern(b, comp_dir);
	free(name);
	b->nfiles = 0;
	if (cud->ok & R_STMT) {
		RawFiles rf = { ch, 0, 0 };
		free(b->files);         /* raw_add_file grows it from nothing */
		b->files = NULL;
		if (dwidx_walk_file_table(&c->sec, cud->stmt, comp_dir, raw_add_file, &rf, &b->first_file) != 0)
			return "a line table header it cannot read";
		b->nfiles = rf.n;
	}
	return NULL;
}

static const char *raw_unit(const RawCtx *c, RawChunk *ch, uint64_t off, uint64_t end)
{
	Reader r = { c->info + off, c->info + end, 0 };
	RawUnit u;
	RawDie cud, d;
	const unsigned char *p;
	const char *why;
	uint32_t cu;

	if ((why = raw_unit_header(c, ch, &r, &u, off, end)) != NULL)
		return why;
	if (raw_die(c, &u, r.p, &cud) != 0 || !cud.ab)
		return "a unit DIE it cannot read";
	if (cud.ab->tag != DW_TAG_compile_unit)
		return NULL;
	if ((why = raw_cu(c, ch, &cud, &cu)) != NULL)
		return why;
	if (!cud.ab->children)
		return NULL;
	for (p = cud.after; p < u.end;) {
		/* a DIE of a tag not indexed: past it by the sizes its abbreviation gives, when it can */
		Reader q = { p, u.end, 0 };
		uint64_t code = uleb(&q);
		const RawAbbrev *ab = !q.bad && code && code < u.ab->ncodes ? &u.ab->by_code[code] : NULL;
		if (ab && ab->tag && ab->tag != DW_TAG_subprogram && !dwidx_is_type_tag((int)ab->tag)) {
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
			qsort_r(ch->b.e, ch->b.n, sizeof *ch->b.e, dwidx_cmp_entry_r, ch->b.strings.data);
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

/* The units, as dwarf_nextcu walks them (it stops at a header that does not fit), into c->units
 * followed by the end of the last; -1 when there is none. */
static int raw_units(RawCtx *c)
{
	size_t capunits = 0;
	uint64_t off = 0;

	while (c->info_size - off >= 11) {
		Reader r = { c->info + off, c->info + c->info_size, 0 };
		uint64_t len = rd(&r, 4), end;
		if (len == 0xffffffff)
			len = rd(&r, 8);
		else if (len >= 0xfffffff0)
			break;
		if (r.bad || len > (uint64_t)(r.end - r.p))
			break;
		end = (uint64_t)(r.p - c->info) + len;
		if (c->nunits + 2 > capunits) {
			capunits = capunits ? capunits * 2 : 1024;
			c->units = xrealloc(c->units, capunits * sizeof *c->units);
		}
		c->units[c->nunits++] = off;
		off = end;
	}
	if (!c->nunits) {
		free(c->units);
		return -1;
	}
	c->units[c->nunits] = off;
	return 0;
}

/* Runs of units of about equal size, several per thread so that a slow one does not hold up the end. */
static void raw_chunks(RawCtx *c, int threads)
{
	size_t want = threads > 1 ? (size_t)threads * 8 : 1, k = 0;   /* at most 64 */
	uint64_t per = c->units[c->nunits] / want + 1;

	c->chunks = xcalloc(want, sizeof *c->chunks);
	for (size_t i = 0; i < c->nunits; k++) {
		uint64_t start = c->units[i];
		c->chunks[k].first = i;
		while (i < c->nunits && (c->units[i] - start < per || i == c->chunks[k].first || k == want - 1))
			i++;
		c->chunks[k].last = i;
		dwidx_builder_init(&c->chunks[k].b);
	}
	c->nchunks = k;
}

/* The chunks' tables one after the other into out: string offsets and CU numbers shift by what
 * precedes; the entries merged in order. */
static void raw_merge(RawCtx *c, Builder *out)
{
	uint32_t *sbase = xcalloc(c->nchunks, sizeof *sbase), *cbase = xcalloc(c->nchunks, sizeof *cbase);
	RawMerge mg = { c, xcalloc(c->nchunks, sizeof(size_t)), { 0 }, 0 };

	for (size_t k = 0; k < c->nchunks; k++) {
		Builder *b = &c->chunks[k].b;
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
		Builder *b = &c->chunks[k].b;
		IdxEntry *e = dwidx_new_entry(out);
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

static void raw_free(RawCtx *c)
{
	for (size_t k = 0; k < c->nchunks; k++) {
		dwidx_builder_free(&c->chunks[k].b);
		free(c->chunks[k].memo.slots);
		free(c->chunks[k].ab.by_code);
		free(c->chunks[k].ab.specs);
	}
	free(c->chunks);
	free(c->units);
}

/* Fills out (initialized) with the entries of every CU, read directly; -1 (and *why) when the sections
 * hold something this reader does not follow: the caller then builds through libdw. */
int dwidx_raw_build(DwarfModule *m, Builder *out, int *nthreads, const char **why, double *cpu)
{
	Elf *elf = dwarf_getelf(m->dw);
	Elf_Data *info = dwidx_section_data(elf, ".debug_info"), *abbrev = dwidx_section_data(elf, ".debug_abbrev");
	RawCtx c = { 0 };
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
	c.sec.line = dwidx_section_data(elf, ".debug_line");
	c.sec.line_str = dwidx_section_data(elf, ".debug_line_str");
	c.sec.str = dwidx_section_data(elf, ".debug_str");
	if (raw_units(&c) != 0) {
		*why = "no units";
		return -1;
	}
	raw_chunks(&c, threads);
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
	if (!rc)
		raw_merge(&c, out);
	raw_free(&c);
	if (symtab_started)
		pthread_join(symtab_tid, NULL);
	cpu[1] = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu[1];
	return rc;
}

