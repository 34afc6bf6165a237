/* type.c - a bound target's type asked in neutral words (type.h): each question answered by the leaf that
 * typed it, dwarf/types.c for a DWARF DIE, btf/reader.c for a BTF id. Used by codegen/targetvars.c. */
#include "targets/type.h"
#include "btf/btf.h"
#include "dwarf/dwvars.h"

#include <dwarf.h>
#include <string.h>

/* A type as its leaf knows it: a BTF id in btf, or (btf NULL) a DWARF DIE of mod. */
struct TgLeafType {
	const Btf *btf;
	uint32_t id;
	Dwarf_Die die;
	DwarfModule *mod;        /* whose index completes a declared struct */
};

static TgType leaf_btf(const Btf *btf, uint32_t id)
{
	struct TgLeafType *l = xcalloc(1, sizeof *l);

	l->btf = btf;
	l->id = id;
	return (TgType){ l };
}

static TgType leaf_die(const Dwarf_Die *die, DwarfModule *mod)
{
	struct TgLeafType *l = xcalloc(1, sizeof *l);

	l->die = *die;
	l->mod = mod;
	return (TgType){ l };
}

int tg_type_of(const TgAccess *a, TgType *t)
{
	if (a->btf && a->btf_type) {
		*t = leaf_btf(a->btf, a->btf_type);
		return 1;
	}
	if (!a->leaf || !a->leaf->has_type)
		return 0;
	*t = leaf_die(&a->leaf->type, a->leaf->mod);
	return 1;
}

static TgKind btf_kind_of(const Btf *b, uint32_t id)
{
	switch (btf_kind(b, id)) {
	case 0: return TK_NONE;
	case BTF_K_INT: return btf_is_char(b, id) ? TK_CHAR : TK_INT;
	case BTF_K_FLOAT: return TK_FLOAT;
	case BTF_K_ENUM: case BTF_K_ENUM64: return TK_ENUM;
	case BTF_K_PTR: return TK_PTR;
	case BTF_K_ARRAY: return TK_ARRAY;
	case BTF_K_STRUCT: case BTF_K_UNION: case BTF_K_FWD: return TK_STRUCT;
	case BTF_K_FUNC_PROTO: return TK_FUNC;
	default: return TK_OTHER;
	}
}

TgKind tg_type_strip(const TgType *t, TgType *out)
{
	const struct TgLeafType *l = t->leaf;
	Dwarf_Die die = l->die, stripped;
	int tag;

	if (l->btf) {
		uint32_t id = btf_strip(l->btf, l->id);
		*out = leaf_btf(l->btf, id);
		return btf_kind_of(l->btf, id);
	}
	tag = dwt_strip(&die, &stripped);
	*out = leaf_die(tag ? &stripped : &die, l->mod);
	switch (tag) {
	case 0: return TK_NONE;
	case DW_TAG_base_type: return dwt_is_float(&stripped) ? TK_FLOAT : dwt_is_char(&stripped) ? TK_CHAR : TK_INT;
	case DW_TAG_enumeration_type: return TK_ENUM;
	case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type: return TK_PTR;
	case DW_TAG_array_type: return TK_ARRAY;
	case DW_TAG_structure_type: case DW_TAG_union_type: case DW_TAG_class_type: return TK_STRUCT;
	case DW_TAG_subroutine_type: return TK_FUNC;
	default: return TK_OTHER;
	}
}

int64_t tg_type_size(const TgType *stripped)
{
	const struct TgLeafType *l = stripped->leaf;
	Dwarf_Die die = l->die;

	return l->btf ? btf_size(l->btf, l->id) : dwt_size(&die);
}

int tg_type_signed(const TgType *stripped)
{
	const struct TgLeafType *l = stripped->leaf;
	Dwarf_Die die = l->die;

	return l->btf ? btf_is_signed(l->btf, l->id) : dwt_is_signed(&die);
}

int tg_type_pointee(const TgType *ptr, TgType *to)
{
	const struct TgLeafType *l = ptr->leaf;
	Dwarf_Die die = l->die, target;
	Dwarf_Attribute attr;
	uint32_t id;

	if (l->btf) {
		id = btf_ref(l->btf, l->id);
		*to = leaf_btf(l->btf, id);
		return id != 0;
	}
	if (!dwarf_attr_integrate(&die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &target)) {
		*to = *ptr;
		return 0;
	}
	*to = leaf_die(&target, l->mod);
	return 1;
}

int tg_type_array(const TgType *t, TgType *elem, int64_t *count)
{
	const struct TgLeafType *l = t->leaf;
	int64_t counts[8] = { 0 };
	Dwarf_Die die = l->die, e = l->die;
	uint32_t n, eid = l->id;
	TgType es;
	int dims;

	if (!l->btf) {
		dims = dwt_array_dims(&die, &e, counts, 8);
		*elem = leaf_die(&e, l->mod);
		*count = counts[0];
		return dims;
	}
	if (btf_array(l->btf, l->id, &eid, &n) != 0) {
		*elem = *t;
		return 0;
	}
	*elem = leaf_btf(l->btf, eid);
	*count = n;
	return tg_type_strip(elem, &es) == TK_ARRAY ? 2 : 1;
}

typedef struct MemberList {
	TgMember *m;
	int n, cap;
	DwarfModule *mod;
} MemberList;

static void add_member(MemberList *l, TgMember m)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->m = xrealloc(l->m, (size_t)l->cap * sizeof *l->m);
	}
	l->m[l->n++] = m;
}

static int collect_member(DwMember *m, void *arg)
{
	MemberList *l = arg;

	add_member(l, (TgMember){ .type = leaf_die(&m->type, l->mod), .offset = m->offset, .bit_size = m->bit_size,
				  .bit_offset = m->bit_offset, .name = m->name,
				  .anon = m->anon_tag == DW_TAG_union_type ? 2 : 1 });
	return 0;
}

int tg_type_members(const TgType *t, TgMember **out, int *n)
{
	const struct TgLeafType *lt = t->leaf;
	MemberList l = { .mod = lt->mod };
	Dwarf_Die die = lt->die, su;
	BtfMember bm;
	const char *name;
	int rc = 0;

	if (!lt->btf) {
		if (dwt_complete(lt->mod, &die, &su) != 0)
			rc = -1;
		else
			dwt_each_member(&su, collect_member, &l);
	} else {
		uint32_t id = btf_complete(lt->btf, lt->id);
		if (btf_kind(lt->btf, id) != BTF_K_STRUCT && btf_kind(lt->btf, id) != BTF_K_UNION)
			rc = -1;
		for (int i = 0; !rc && btf_member_at(lt->btf, id, i, &name, &bm) == 0; i++)
			add_member(&l, (TgMember){ .type = leaf_btf(lt->btf, bm.type), .offset = bm.offset,
						   .bit_size = bm.bit_size, .bit_offset = bm.bit_offset,
						   .name = name[0] ? name : NULL,
						   .anon = btf_kind(lt->btf, btf_strip(lt->btf, bm.type)) == BTF_K_UNION ? 2 : 1 });
	}
	*out = l.m;
	*n = l.n;
	return rc;
}

TgKind tg_type_vars_entry(const TgAccess *a, int64_t *size, int *is_signed)
{
	Dwarf_Die type, t;
	int tag;

	if (!a->leaf || !a->leaf->has_type)
		return TK_NONE;
	type = a->leaf->type;
	tag = dwt_strip(&type, &t);
	if (tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type || tag == DW_TAG_pointer_type ||
	    tag == DW_TAG_reference_type) {
		*size = dwt_size(&t);
		*is_signed = tag != DW_TAG_pointer_type && dwt_is_signed(&t);
		if ((tag == DW_TAG_base_type && dwt_is_float(&t)) || *size < 1 || *size > 8)
			*size = 0;
		return TK_INT;
	}
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type)
		return TK_STRUCT;
	return tag == DW_TAG_array_type ? TK_ARRAY : TK_OTHER;
}
