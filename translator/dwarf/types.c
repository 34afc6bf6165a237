/* types.c - DWARF types of target variables: C spellings (SystemTap's, for -L and messages), sizes,
 * signedness, members and bit fields, array dimensions, definitions of declared-only types, shapes for
 * BPF's relocations.
 * Used by dwarf/dwvars.c (pass 2), targets/type.c (for pass 3) and the -L listing. */
#include "dwarf/dwvars.h"

#include <string.h>

static int die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr))
		return -1;
	return dwarf_formref_die(&attr, out) ? 0 : -1;
}

int dwt_strip(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die cur = *type;

	for (int guard = 0; guard < 64; guard++) {
		int tag = dwarf_tag(&cur);
		switch (tag) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (die_type(&cur, &cur) != 0)
				return 0;   /* const void */
			continue;
		default:
			*out = cur;
			return tag;
		}
	}
	return 0;
}

void dwt_strip_cv(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die cur = *type;

	for (int guard = 0; guard < 16; guard++) {
		int tag = dwarf_tag(&cur);
		if ((tag != DW_TAG_const_type && tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		     tag != DW_TAG_atomic_type) || die_type(&cur, &cur) != 0)
			break;
	}
	*out = cur;
}

typedef struct CompleteSearch {
	DwarfModule *m;
	int tag;
	Dwarf_Die found;
	int have;
} CompleteSearch;

static int complete_candidate(const DwarfName *n, void *arg)
{
	CompleteSearch *cs = arg;
	Dwarf_Die die;

	if (n->tag != cs->tag || (n->flags & DWARF_NAME_DECLARATION))
		return 0;
	if (!dwarf_offdie(cs->m->dw, n->die, &die) || dwarf_hasattr(&die, DW_AT_declaration))
		return 0;
	cs->found = die;
	cs->have = 1;
	return 1;
}

int dwt_complete(DwarfModule *m, Dwarf_Die *type, Dwarf_Die *out)
{
	CompleteSearch cs = { .m = m, .tag = dwarf_tag(type) };
	const char *name;

	if (!dwarf_hasattr(type, DW_AT_declaration)) {
		*out = *type;
		return 0;
	}
	name = dwarf_diename(type);
	if (!m || !name)
		return -1;
	dwarf_index_each(m, name, complete_candidate, &cs);
	if (!cs.have)
		return -1;
	*out = cs.found;
	return 0;
}

static int64_t udata_attr(Dwarf_Die *die, int at, int64_t dflt)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(die, at, &attr) || dwarf_formudata(&attr, &w) != 0)
		return dflt;
	return (int64_t)w;
}

int dwt_array_dims(Dwarf_Die *array, Dwarf_Die *elem, int64_t *counts, int max)
{
	Dwarf_Die child;
	int n = 0;

	if (die_type(array, elem) != 0)
		return 0;
	if (dwarf_child(array, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);
		int64_t count = -1;
		Dwarf_Attribute attr;
		if (tag != DW_TAG_subrange_type && tag != DW_TAG_enumeration_type)
			continue;
		if (dwarf_attr_integrate(&child, DW_AT_count, &attr)) {
			Dwarf_Word w;
			if (dwarf_formudata(&attr, &w) == 0)
				count = (int64_t)w;
		} else if (dwarf_attr_integrate(&child, DW_AT_upper_bound, &attr)) {
			Dwarf_Sword up;
			Dwarf_Word lo = (Dwarf_Word)udata_attr(&child, DW_AT_lower_bound, 0);
			if (dwarf_formsdata(&attr, &up) == 0)
				count = up + 1 - (int64_t)lo;
		}
		if (n < max)
			counts[n] = count;
		n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n < max ? n : max;
}

int64_t dwt_size(Dwarf_Die *type)
{
	Dwarf_Die t, elem;
	int tag = dwt_strip(type, &t);
	int64_t counts[8], total;
	int dims;

	switch (tag) {
	case 0:
		return -1;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return udata_attr(&t, DW_AT_byte_size, 8);
	case DW_TAG_array_type:
		dims = dwt_array_dims(&t, &elem, counts, 8);
		if (!dims)
			return -1;
		total = dwt_size(&elem);
		for (int i = 0; i < dims && total >= 0; i++)
			total = counts[i] < 0 ? -1 : total * counts[i];
		return total;
	default:
		return udata_attr(&t, DW_AT_byte_size, -1);
	}
}

static int64_t encoding(Dwarf_Die *t)
{
	return udata_attr(t, DW_AT_encoding, -1);
}

int dwt_is_signed(Dwarf_Die *t)
{
	if (dwarf_tag(t) == DW_TAG_enumeration_type) {
		Dwarf_Die under, child;
		if (die_type(t, &under) == 0 && dwt_strip(&under, &under) == DW_TAG_base_type)
			return dwt_is_signed(&under);
		/* no underlying type: signed when an enumerator is negative */
		if (dwarf_child(t, &child) == 0) {
			do {
				Dwarf_Attribute attr;
				Dwarf_Sword v;
				if (dwarf_attr(&child, DW_AT_const_value, &attr) && attr.form != DW_FORM_udata &&
				    dwarf_formsdata(&attr, &v) == 0 && v < 0)
					return 1;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		return 0;
	}
	switch (encoding(t)) {
	case DW_ATE_signed:
	case DW_ATE_signed_char:
	case DW_ATE_signed_fixed:
		return 1;
	default:
		return 0;
	}
}

int dwt_is_char(Dwarf_Die *t)
{
	int64_t enc = encoding(t);
	const char *name = dwarf_diename(t);

	if (dwarf_tag(t) != DW_TAG_base_type || udata_attr(t, DW_AT_byte_size, 0) != 1)
		return 0;
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
	       (name && (!strcmp(name, "char") || !strcmp(name, "unsigned char") || !strcmp(name, "signed char")));
}

int dwt_is_float(Dwarf_Die *t)
{
	int64_t enc = encoding(t);

	return dwarf_tag(t) == DW_TAG_base_type &&
	       (enc == DW_ATE_float || enc == DW_ATE_complex_float || enc == DW_ATE_decimal_float);
}

/* DW_AT_data_member_location: a constant, or (older compilers) DW_OP_plus_uconst N. */
static int member_location(Dwarf_Die *member, int64_t *off)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	Dwarf_Op *ops;
	size_t n;

	*off = 0;
	if (!dwarf_attr_integrate(member, DW_AT_data_member_location, &attr))
		return 0;   /* union members */
	if (dwarf_formudata(&attr, &w) == 0) {
		*off = (int64_t)w;
		return 0;
	}
	if (dwarf_getlocation(&attr, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[0].number;
		return 0;
	}
	return -1;
}

int dwt_member_of(Dwarf_Die *member, DwMember *out)
{
	int64_t off;

	memset(out, 0, sizeof *out);
	if (die_type(member, &out->type) != 0 || member_location(member, &off) != 0)
		return -1;
	out->name = dwarf_diename(member);
	out->offset = off;
	if (dwarf_hasattr_integrate(member, DW_AT_bit_size)) {
		int64_t bits = udata_attr(member, DW_AT_bit_size, 0);
		int64_t total;   /* bits from the start of the outer object to the field's lowest bit */
		if (dwarf_hasattr_integrate(member, DW_AT_data_bit_offset)) {
			total = udata_attr(member, DW_AT_data_bit_offset, 0);
		} else {
			/* DWARF 2/3: DW_AT_bit_offset counts from the storage unit's most significant bit */
			int64_t unit = udata_attr(member, DW_AT_byte_size, -1);
			if (unit < 0)
				unit = dwt_size(&out->type);
			if (unit < 0)
				return -1;
			total = off * 8 + unit * 8 - udata_attr(member, DW_AT_bit_offset, 0) - bits;
		}
		out->bit_size = (int)bits;
		out->offset = total / 8;
		out->bit_offset = (int)(total % 8);
	}
	if (!out->name) {
		Dwarf_Die st;
		out->anon_tag = dwt_strip(&out->type, &st);
	}
	return 0;
}

int dwt_each_member(Dwarf_Die *su, int (*fn)(DwMember *m, void *arg), void *arg)
{
	Dwarf_Die child;
	int rc;

	if (dwarf_child(su, &child) != 0)
		return 0;
	do {
		DwMember m;
		if (dwarf_tag(&child) != DW_TAG_member || dwarf_hasattr(&child, DW_AT_declaration))
			continue;
		if (dwt_member_of(&child, &m) != 0)
			continue;
		if ((rc = fn(&m, arg)) != 0)
			return rc;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

typedef struct MemberSearch {
	const char *name;
	DwMember found;
	int depth;
} MemberSearch;

static int member_match(DwMember *m, void *arg)
{
	MemberSearch *ms = arg;

	if (m->name) {
		if (strcmp(m->name, ms->name))
			return 0;
		ms->found = *m;
		return 1;
	}
	if ((m->anon_tag == DW_TAG_structure_type || m->anon_tag == DW_TAG_union_type) && ms->depth < 16) {
		Dwarf_Die inner;
		MemberSearch sub = { .name = ms->name, .depth = ms->depth + 1 };
		dwt_strip(&m->type, &inner);
		if (dwt_each_member(&inner, member_match, &sub)) {
			ms->found = sub.found;
			ms->found.offset += m->offset;
			return 1;
		}
	}
	return 0;
}

int dwt_find_member(Dwarf_Die *su, const char *name, DwMember *out)
{
	MemberSearch ms = { .name = name };

	if (!dwt_each_member(su, member_match, &ms))
		return -1;
	*out = ms.found;
	return 0;
}

typedef struct MemberList {
	StrBuf sb;
	int n, max, depth;
} MemberList;

static int member_list_add(DwMember *m, void *arg)
{
	MemberList *ml = arg;

	if (ml->n >= ml->max) {
		ml->n++;
		return 1;
	}
	if (m->name) {
		sb_printf(&ml->sb, "%s%s", ml->n++ ? ", " : "", m->name);
	} else if ((m->anon_tag == DW_TAG_structure_type || m->anon_tag == DW_TAG_union_type) && ml->depth < 16) {
		Dwarf_Die inner;
		dwt_strip(&m->type, &inner);
		ml->depth++;
		dwt_each_member(&inner, member_list_add, ml);
		ml->depth--;
	}
	return 0;
}

char *dwt_member_list(Dwarf_Die *su, int max)
{
	MemberList ml = { .max = max };

	sb_init(&ml.sb);
	dwt_each_member(su, member_list_add, &ml);
	if (ml.n > max)
		sb_puts(&ml.sb, ", ...");
	return sb_steal(&ml.sb);
}

/* ---- spelling ---- */

/* Writes the type into sb the way SystemTap does: "struct file*", "char const*", "int[]".
 * A function type met on the way is left in *fn: the caller wraps the text around it. */
static int spell(Dwarf_Die *type, StrBuf *sb, Dwarf_Die *fn, int *have_fn, int depth)
{
	Dwarf_Die sub;
	int tag = dwarf_tag(type), has_sub;
	const char *name;

	if (depth > 64)
		return -1;
	switch (tag) {
	case DW_TAG_enumeration_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		sb_puts(sb, tag == DW_TAG_enumeration_type ? "enum " : tag == DW_TAG_structure_type ? "struct " :
			tag == DW_TAG_union_type ? "union " : "class ");
		/* fallthrough */
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		name = dwarf_diename(type);
		sb_puts(sb, name ? name : "{...}");
		return 0;
	case DW_TAG_subroutine_type:
		*fn = *type;
		*have_fn = 1;
		return 0;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_array_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		break;
	default:
		return -1;
	}
	has_sub = die_type(type, &sub) == 0;
	if (has_sub && tag == DW_TAG_pointer_type && dwarf_tag(&sub) == DW_TAG_structure_type &&
	    (name = dwarf_diename(&sub)) && !strcmp(name, "__va_list_tag")) {
		sb_puts(sb, "va_list");
		return 0;
	}
	if (!has_sub || spell(&sub, sb, fn, have_fn, depth + 1) != 0)
		sb_puts(sb, "void");
	switch (tag) {
	case DW_TAG_pointer_type: sb_putc(sb, '*'); break;
	case DW_TAG_reference_type: sb_putc(sb, '&'); break;
	case DW_TAG_rvalue_reference_type: sb_puts(sb, "&&"); break;
	case DW_TAG_array_type: sb_puts(sb, "[]"); break;
	case DW_TAG_const_type:
		if (!has_sub || (dwarf_tag(&sub) != DW_TAG_reference_type && dwarf_tag(&sub) != DW_TAG_rvalue_reference_type))
			sb_puts(sb, " const");
		break;
	case DW_TAG_volatile_type: sb_puts(sb, " volatile"); break;
	case DW_TAG_restrict_type: sb_puts(sb, " restrict"); break;
	case DW_TAG_atomic_type: sb_puts(sb, " _Atomic"); break;
	}
	return 0;
}

static char *spell_decl(Dwarf_Die *type, int depth);

/* "int (*)(struct file*, char*)": the return type, the modifiers met before the function type,
 * then the parameter types. */
static void spell_function(Dwarf_Die *fn, const char *modifiers, StrBuf *out, int depth)
{
	Dwarf_Die ret, child;
	int first = 1;
	char *r = die_type(fn, &ret) == 0 ? spell_decl(&ret, depth + 1) : xstrdup("void");

	sb_printf(out, "%s (%s) (", r, modifiers);
	free(r);
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			Dwarf_Die pt;
			if (tag != DW_TAG_formal_parameter && tag != DW_TAG_unspecified_parameters)
				continue;
			if (!first)
				sb_puts(out, ", ");
			first = 0;
			if (tag == DW_TAG_unspecified_parameters) {
				sb_puts(out, "...");
			} else {
				char *p = die_type(&child, &pt) == 0 ? spell_decl(&pt, depth + 1) : xstrdup("void");
				sb_puts(out, p);
				free(p);
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (first)
		sb_puts(out, "void");
	sb_putc(out, ')');
}

static char *spell_decl(Dwarf_Die *type, int depth)
{
	StrBuf sb;
	Dwarf_Die fn;
	int have_fn = 0;

	sb_init(&sb);
	if (depth > 16 || spell(type, &sb, &fn, &have_fn, 0) != 0) {
		sb_free(&sb);
		return xstrdup("<unknown>");
	}
	if (have_fn) {
		StrBuf f;
		sb_init(&f);
		spell_function(&fn, sb.data ? sb.data : "", &f, depth);
		sb_free(&sb);
		return sb_steal(&f);
	}
	return sb_steal(&sb);
}

char *dwt_name(Dwarf_Die *type)
{
	if (!type)
		return xstrdup("void");
	return spell_decl(type, 0);
}

char *dwarf_type_name(Dwarf_Die *type)
{
	return dwt_name(type);
}

/* What a type is to a relocating runtime's copy of its holder (targets/access.h), arrays of one dimension. */
TgShape dwt_shape(Dwarf_Die *type)
{
	TgShape sh = { TGSH_OTHER, 0, NULL, 0 };
	Dwarf_Die t, elem;
	int64_t counts[2];
	const char *name;

	switch (dwt_strip(type, &t)) {
	case DW_TAG_array_type:
		if (dwt_array_dims(&t, &elem, counts, 2) != 1)
			return sh;
		sh = dwt_shape(&elem);
		if (sh.count)
			sh.kind = TGSH_OTHER;
		sh.count = counts[0] > 0 ? counts[0] : -1;
		return sh;
	case DW_TAG_base_type:
		sh.kind = dwt_is_float(&t) ? TGSH_FLOAT : TGSH_INT;
		break;
	case DW_TAG_pointer_type:
		sh.kind = TGSH_PTR;
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		sh.kind = TGSH_COMPOSITE;
		break;
	case DW_TAG_enumeration_type:
		sh.kind = TGSH_ENUM;
		name = dwarf_diename(&t);
		sh.tag = name ? xstrdup(name) : NULL;
		break;
	}
	sh.size = (int)dwt_size(&t);
	return sh;
}

/* Whether elements of type elem are laid out as this release has them (a struct's or union's size). */
int dwt_fixed_elements(Dwarf_Die *elem)
{
	Dwarf_Die t;
	int tag = dwt_strip(elem, &t);

	return tag != DW_TAG_base_type && tag != DW_TAG_pointer_type && tag != DW_TAG_enumeration_type;
}
