/* reader.c - parses a BTF blob (header, type records, strings) and answers type questions: kinds,
 * names, sizes, members, prototypes. Used by source.c (checking a blob) and btfvars.c (typing). */
#include "btf/btf.h"
#include "lib/util.h"

#include <string.h>

#define BTF_MAGIC 0xeB9F

/* a record: name_off, info (vlen 0-15, kind 24-28, kind_flag 31), size or type, then kind data */
static uint32_t rec_info(const uint32_t *t) { return t[1]; }
static int info_kind(uint32_t info) { return (info >> 24) & 0x1f; }
static int info_vlen(uint32_t info) { return info & 0xffff; }
static int info_kflag(uint32_t info) { return info >> 31; }

/* 32-bit words of kind data after the 3-word record, -1 for an unknown kind */
static long kind_words(int kind, int vlen)
{
	switch (kind) {
	case BTF_K_INT: case BTF_K_VAR: case BTF_K_DECL_TAG: return 1;
	case BTF_K_ARRAY: return 3;
	case BTF_K_STRUCT: case BTF_K_UNION: case BTF_K_DATASEC: case BTF_K_ENUM64: return 3L * vlen;
	case BTF_K_ENUM: case BTF_K_FUNC_PROTO: return 2L * vlen;
	case BTF_K_PTR: case BTF_K_FWD: case BTF_K_TYPEDEF: case BTF_K_VOLATILE: case BTF_K_CONST:
	case BTF_K_RESTRICT: case BTF_K_FUNC: case BTF_K_FLOAT: case BTF_K_TYPE_TAG: return 0;
	default: return -1;
	}
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* base NULL: a whole blob (vmlinux). Else a module's split BTF: its ids follow base's, its string
 * offsets follow base's strings, and types[] holds base's records first. */
static Btf *parse(const void *data, size_t size, const Btf *base, char **err)
{
	const uint8_t *d = data;
	uint32_t hdr_len, type_off, type_len, str_off, str_len, str_base = base ? base->str_base + base->str_len : 0;
	PtrVec types = { 0 };
	size_t pos, end;
	Btf *b;

	if (size < 24 || (d[0] | d[1] << 8) != BTF_MAGIC || d[2] != 1) {
		*err = xstrdup("not BTF (bad magic or version)");
		return NULL;
	}
	hdr_len = rd32(d + 4), type_off = rd32(d + 8), type_len = rd32(d + 12);
	str_off = rd32(d + 16), str_len = rd32(d + 20);
	if (hdr_len < 24 || hdr_len % 4 || hdr_len > size || type_off % 4 || type_off > size - hdr_len ||
	    type_len > size - hdr_len - type_off || str_off > size - hdr_len || str_len > size - hdr_len - str_off ||
	    !str_len || d[hdr_len + str_off + str_len - 1] || str_len > UINT32_MAX - str_base) {
		*err = xstrdup("BTF header out of bounds");
		return NULL;
	}
	b = xcalloc(1, sizeof *b);
	b->data = d;
	b->size = size;
	b->strs = (const char *)d + hdr_len + str_off;
	b->str_len = str_len;
	b->base = base;
	b->str_base = str_base;
	vec_push(&types, NULL);   /* id 0: void */
	for (uint32_t id = 1; base && id <= base->ntypes; id++)
		vec_push(&types, (void *)base->types[id]);
	b->first_own = (uint32_t)types.len;
	pos = hdr_len + type_off;
	end = pos + type_len;
	while (pos < end) {
		const uint32_t *t = (const uint32_t *)(d + pos);
		long words;
		if (end - pos < 12 || t[0] >= str_base + str_len ||
		    (words = kind_words(info_kind(rec_info(t)), info_vlen(rec_info(t)))) < 0 ||
		    (size_t)words * 4 > end - pos - 12) {
			*err = xasprintf("bad BTF type record %d at byte %zu", types.len - (int)b->first_own + 1, pos);
			free(types.items);
			free(b);
			return NULL;
		}
		vec_push(&types, (void *)t);
		pos += 12 + (size_t)words * 4;
	}
	b->ntypes = (uint32_t)types.len - 1;
	b->types = (const uint32_t **)types.items;
	return b;
}

Btf *btf_parse(const void *data, size_t size, char **err)
{
	return parse(data, size, NULL, err);
}

Btf *btf_parse_split(const void *data, size_t size, const Btf *base, char **err)
{
	return parse(data, size, base, err);
}

void btf_free(Btf *b)
{
	if (!b)
		return;
	free(b->types);
	free(b->owned);
	free(b->origin);
	free(b->module);
	for (int i = 0; i < b->ntwice; i++)
		free(b->twice[i]);
	free(b->twice);
	free(b);
}

static const uint32_t *rec(const Btf *b, uint32_t id)
{
	return id && id <= b->ntypes ? b->types[id] : NULL;
}

int btf_kind(const Btf *b, uint32_t id)
{
	const uint32_t *t = rec(b, id);
	return t ? info_kind(rec_info(t)) : 0;
}

int btf_vlen(const Btf *b, uint32_t id)
{
	const uint32_t *t = rec(b, id);
	return t ? info_vlen(rec_info(t)) : 0;
}

/* a name offset: a split blob's own strings follow its base's */
static const char *str_at(const Btf *b, uint32_t off)
{
	for (; b; b = b->base) {
		if (off >= b->str_base)
			return off - b->str_base < b->str_len ? b->strs + (off - b->str_base) : "";
	}
	return "";
}

const char *btf_name(const Btf *b, uint32_t id)
{
	const uint32_t *t = rec(b, id);
	return t ? str_at(b, t[0]) : "";
}

uint32_t btf_find(const Btf *b, const char *name, int kind)
{
	/* one pass over the records: a handful of lookups per run do not pay for an index */
	for (uint32_t id = 1; id <= b->ntypes; id++) {
		const uint32_t *t = b->types[id];
		const char *n = str_at(b, t[0]);
		if (n[0] == name[0] && (!kind || info_kind(rec_info(t)) == kind) && !strcmp(n, name))
			return id;
	}
	return 0;
}

uint32_t btf_ref(const Btf *b, uint32_t id)
{
	const uint32_t *t = rec(b, id);

	if (!t)
		return 0;
	switch (info_kind(rec_info(t))) {
	case BTF_K_PTR: case BTF_K_TYPEDEF: case BTF_K_VOLATILE: case BTF_K_CONST: case BTF_K_RESTRICT:
	case BTF_K_FUNC: case BTF_K_FUNC_PROTO: case BTF_K_TYPE_TAG: case BTF_K_VAR: case BTF_K_DECL_TAG:
		return t[2];
	case BTF_K_ARRAY:
		return t[3];
	default:
		return 0;
	}
}

uint32_t btf_strip(const Btf *b, uint32_t id)
{
	for (int depth = 0; depth < 64; depth++) {
		switch (btf_kind(b, id)) {
		case BTF_K_TYPEDEF: case BTF_K_VOLATILE: case BTF_K_CONST: case BTF_K_RESTRICT: case BTF_K_TYPE_TAG:
			id = btf_ref(b, id);
			break;
		default:
			return id;
		}
	}
	return 0;
}

int btf_array(const Btf *b, uint32_t id, uint32_t *elem, uint32_t *count)
{
	const uint32_t *t = rec(b, id);

	if (!t || info_kind(rec_info(t)) != BTF_K_ARRAY)
		return -1;
	*elem = t[3];
	*count = t[5];
	return 0;
}

/* arrays of arrays nest at most this deep (a hostile blob's array may hold itself) */
#define BTF_MAX_ARRAY_DEPTH 32

static int64_t size_at(const Btf *b, uint32_t id, int depth)
{
	uint32_t elem = 0, count = 0;
	int64_t n;

	id = btf_strip(b, id);
	switch (btf_kind(b, id)) {
	case BTF_K_INT: case BTF_K_STRUCT: case BTF_K_UNION: case BTF_K_ENUM: case BTF_K_ENUM64: case BTF_K_FLOAT:
	case BTF_K_DATASEC:
		return b->types[id][2];
	case BTF_K_PTR:
		return 8;
	case BTF_K_ARRAY:
		btf_array(b, id, &elem, &count);
		n = depth < BTF_MAX_ARRAY_DEPTH ? size_at(b, elem, depth + 1) : -1;
		return n < 0 || (count && n > INT64_MAX / count) ? -1 : n * count;
	default:
		return -1;
	}
}

int64_t btf_size(const Btf *b, uint32_t id)
{
	return size_at(b, id, 0);
}

int btf_is_signed(const Btf *b, uint32_t id)
{
	const uint32_t *t = rec(b, id);

	if (!t)
		return 0;
	switch (info_kind(rec_info(t))) {
	case BTF_K_INT:
		return (t[3] >> 24) & 1;     /* BTF_INT_SIGNED */
	case BTF_K_ENUM: case BTF_K_ENUM64:
		return info_kflag(rec_info(t)); /* kind_flag: signed values */
	default:
		return 0;
	}
}

uint32_t btf_func_proto(const Btf *b, uint32_t id)
{
	for (int depth = 0; depth < 8 && id; depth++) {
		switch (btf_kind(b, id)) {
		case BTF_K_FUNC_PROTO:
			return id;
		case BTF_K_FUNC: case BTF_K_PTR:
			id = btf_ref(b, id);
			break;
		case BTF_K_TYPEDEF:
			id = btf_strip(b, id);
			break;
		default:
			return 0;
		}
	}
	return 0;
}

uint32_t btf_find_type(const Btf *b, const char *spec)
{
	static const struct { const char *prefix; int kinds[6]; } forms[] = {
		{ "struct ", { BTF_K_STRUCT } }, { "union ", { BTF_K_UNION } }, { "enum ", { BTF_K_ENUM, BTF_K_ENUM64 } },
		/* a bare name: a struct or union first, as SystemTap's @cast(p, "task_struct") means */
		{ "", { BTF_K_STRUCT, BTF_K_UNION, BTF_K_TYPEDEF, BTF_K_ENUM, BTF_K_ENUM64, BTF_K_INT } },
	};
	size_t len;
	char *name;
	uint32_t id = 0;

	while (*spec == ' ')
		spec++;
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		size_t pl = strlen(forms[f].prefix);
		if (strncmp(spec, forms[f].prefix, pl))
			continue;
		spec += pl;
		while (*spec == ' ')
			spec++;
		len = strlen(spec);
		while (len && spec[len - 1] == ' ')
			len--;
		name = xstrndup(spec, len);
		for (int k = 0; !id && k < 6 && forms[f].kinds[k] && name[0] && !strpbrk(name, "*?[ "); k++)
			id = btf_find(b, name, forms[f].kinds[k]);
		free(name);
		break;
	}
	return id;
}

int btf_param(const Btf *b, uint32_t proto, int i, const char **name, uint32_t *type)
{
	const uint32_t *t = rec(b, proto);

	if (!t || info_kind(rec_info(t)) != BTF_K_FUNC_PROTO || i < 0 || i >= info_vlen(rec_info(t)))
		return -1;
	*name = str_at(b, t[3 + 2 * i]);
	*type = t[4 + 2 * i];
	return 0;
}

uint32_t btf_complete(const Btf *b, uint32_t id)
{
	const uint32_t *t = rec(b, id);
	uint32_t def;

	if (!t || info_kind(rec_info(t)) != BTF_K_FWD || !t[0])
		return id;
	def = btf_find(b, str_at(b, t[0]), info_kflag(rec_info(t)) ? BTF_K_UNION : BTF_K_STRUCT);
	return def ? def : id;
}

int btf_member_at(const Btf *b, uint32_t su, int i, const char **name, BtfMember *out)
{
	const uint32_t *t = rec(b, su), *m;
	int kind, kflag, bit_size;
	uint32_t bits;

	if (!t)
		return -1;
	kind = info_kind(rec_info(t));
	kflag = info_kflag(rec_info(t));
	if ((kind != BTF_K_STRUCT && kind != BTF_K_UNION) || i < 0 || i >= info_vlen(rec_info(t)))
		return -1;
	m = t + 3 + 3 * i;
	bits = kflag ? m[2] & 0xffffff : m[2];
	bit_size = kflag ? (int)(m[2] >> 24) : 0;
	*name = str_at(b, m[0]);
	out->type = m[1];
	if (!bit_size && btf_kind(b, btf_strip(b, m[1])) == BTF_K_INT) {
		/* old-style bit field: the size is in the INT's own encoding */
		const uint32_t *it = rec(b, btf_strip(b, m[1]));
		int nr_bits = it[3] & 0xff;
		if (nr_bits != (int64_t)it[2] * 8)
			bit_size = nr_bits;
	}
	out->bit_size = bit_size;
	out->offset = bits / 8;
	out->bit_offset = bit_size ? bits % 8 : 0;
	return 0;
}

/* anonymous members nest at most this deep, and a search visits at most this many members (a hostile blob's
 * struct may hold itself, several times) */
#define BTF_MAX_ANON_DEPTH 32
#define BTF_MAX_MEMBER_VISITS 65536

static int member_in(const Btf *b, uint32_t su, const char *name, BtfMember *out, int depth, int *budget)
{
	const char *mn;
	BtfMember m;

	for (int i = 0; btf_member_at(b, su, i, &mn, &m) == 0 && --*budget > 0; i++) {
		if (!mn[0]) {
			/* an anonymous struct/union: its members are the outer one's */
			BtfMember inner;
			if (depth < BTF_MAX_ANON_DEPTH &&
			    member_in(b, btf_strip(b, m.type), name, &inner, depth + 1, budget) == 0) {
				*out = inner;
				out->offset += m.offset;
				return 0;
			}
			continue;
		}
		if (!strcmp(mn, name)) {
			*out = m;
			return 0;
		}
	}
	return -1;
}

int btf_member(const Btf *b, uint32_t su, const char *name, BtfMember *out)
{
	int budget = BTF_MAX_MEMBER_VISITS;

	return member_in(b, su, name, out, 0, &budget);
}

int btf_is_char(const Btf *b, uint32_t stripped)
{
	const char *n = btf_name(b, stripped);

	return btf_kind(b, stripped) == BTF_K_INT && btf_size(b, stripped) == 1 &&
	       (!strcmp(n, "char") || !strcmp(n, "signed char") || !strcmp(n, "unsigned char"));
}

/* a type chain nests at most this deep in a spelling (a hostile blob's pointer may point to itself) */
#define BTF_MAX_NAME_DEPTH 32

static char *name_at(const Btf *b, uint32_t id, int depth)
{
	const char *n;

	if (depth > BTF_MAX_NAME_DEPTH)
		return xstrdup("...");

	switch (btf_kind(b, id)) {
	case 0:
		return xstrdup("void");
	case BTF_K_PTR: {
		char *in = name_at(b, btf_ref(b, id), depth + 1);
		char *r = xasprintf("%s*", in);
		free(in);
		return r;
	}
	case BTF_K_CONST: case BTF_K_VOLATILE: case BTF_K_RESTRICT: {
		/* "char const*", as the DWARF side spells it */
		int kind = btf_kind(b, id);
		char *in = name_at(b, btf_ref(b, id), depth + 1);
		char *r = xasprintf("%s %s", in, kind == BTF_K_CONST ? "const" : kind == BTF_K_VOLATILE ? "volatile" : "restrict");
		free(in);
		return r;
	}
	case BTF_K_TYPE_TAG:
		return name_at(b, btf_ref(b, id), depth + 1);
	case BTF_K_STRUCT:
		n = btf_name(b, id);
		return xasprintf("struct %s", n[0] ? n : "{...}");
	case BTF_K_UNION:
		n = btf_name(b, id);
		return xasprintf("union %s", n[0] ? n : "{...}");
	case BTF_K_ENUM: case BTF_K_ENUM64:
		return xasprintf("enum %s", btf_name(b, id));
	case BTF_K_FWD:
		return xasprintf("%s %s", info_kflag(rec_info(b->types[id])) ? "union" : "struct", btf_name(b, id));
	case BTF_K_ARRAY: {
		uint32_t elem, count;
		char *in;
		btf_array(b, id, &elem, &count);
		in = name_at(b, elem, depth + 1);
		char *r = xasprintf("%s[%u]", in, count);
		free(in);
		return r;
	}
	case BTF_K_FUNC_PROTO:
		return xstrdup("function");
	default:
		return xstrdup(btf_name(b, id));
	}
}

char *btf_type_name(const Btf *b, uint32_t id)
{
	return name_at(b, id, 0);
}
