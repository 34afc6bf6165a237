/* btfvars.c - the BTF leaf of target variables (no DWARF): $param from the entry registers, $return, a
 * tracepoint's arguments, @cast, and their ->member / [number] chains, as access records
 * (targets/access.h) codegen/targetvars.c writes. Asked by the binding pass, targets/bind.c. */
#include "btf/btf.h"
#include "btf/btfvars.h"
#include "targets/access.h"

#include <dwarf.h>

#include <stdio.h>
#include <string.h>

/* x86-64 SysV: the first six integer arguments, as struct pt_regs names them */
static const char *const arg_regs[] = { "di", "si", "dx", "cx", "r8", "r9" };

static TgAccess *fail(BtfBind *bb, SrcLoc loc, char *msg)
{
	bb->err_loc = loc;
	bb->err = msg;
	return NULL;
}

static void rename_access(TgAccess *a, const char *fmt, const char *arg)
{
	char *n = xasprintf(fmt, a->name, arg);
	free(a->name);
	a->name = n;
}

/* A tracepoint's prototype starts with the probe's data: its arguments are the parameters after it. */
static int first_param(const TgSite *site)
{
	return site->is_tracepoint ? 1 : 0;
}

/* Parameter i's name: "argN" (N from 1, the site's first parameter) when the prototype has none
 * (a btf_trace_NAME typedef). */
static const char *param_label(const Btf *btf, const TgSite *site, int i, char *buf, size_t size)
{
	const char *name;
	uint32_t type;

	if (btf_param(btf, btf_func_proto(btf, site->btf_func), i, &name, &type) != 0)
		return NULL;
	if (name[0])
		return name;
	snprintf(buf, size, "arg%d", i - first_param(site) + 1);
	return buf;
}

static char *params_of(const Btf *btf, const TgSite *site)
{
	StrBuf sb;
	const char *name;
	char buf[16];

	sb_init(&sb);
	for (int i = first_param(site); (name = param_label(btf, site, i, buf, sizeof buf)); i++)
		sb_printf(&sb, "%s$%s", sb.len ? " " : "", name);
	return sb.data ? sb_steal(&sb) : xstrdup("none");
}

/* Where a function's parameter i is at its entry (x86-64 SysV, as the kernel uses it: no floating
 * point). The parameters take, in order, the next of the six argument registers, one per eightbyte:
 * a scalar or a struct of up to 8 bytes one, a struct of up to 16 bytes two; one larger, or whose
 * eightbytes no longer fit in the registers left, is passed on the stack instead, in the next 8-byte
 * slots above the return address. Returns the registers parameter i takes (1 or 2, regs[] set), or 0
 * with *stack set (its offset from the stack pointer at entry); -1 when a size is unknown. */
static int param_place(const Btf *btf, uint32_t proto, int i, const char *regs[2], int64_t *stack)
{
	int used = 0, n;
	int64_t slots = 8, size;   /* the return address is at the entry's stack pointer */
	const char *unused;
	uint32_t type;

	for (int j = 0; j <= i; j++) {
		if (btf_param(btf, proto, j, &unused, &type) != 0 || (size = btf_size(btf, type)) <= 0)
			return -1;
		n = size <= 8 ? 1 : size <= 16 ? 2 : 0;
		if (n && used + n <= 6) {
			if (j == i) {
				regs[0] = arg_regs[used];
				regs[1] = n == 2 ? arg_regs[used + 1] : NULL;
				return n;
			}
			used += n;
			continue;
		}
		if (j == i) {
			*stack = slots;
			return 0;
		}
		slots += (size + 7) / 8 * 8;
	}
	return -1;
}

/* Parameter i (of the given type): a tracepoint's argument as the hit saved it, a function's in its
 * entry registers or on the stack; NULL when its place is unknown. */
static TgAccess *param_access(const Btf *btf, const TgSite *site, int i, uint32_t type)
{
	const char *regs[2];
	int n;
	int64_t size = btf_size(btf, type), stack = 0;
	TgAccess *a;

	if (site->is_tracepoint) {
		a = tg_access_new(TGA_READ);
		a->base = TGB_ARG;
		a->arg_index = i - first_param(site);
		return a;
	}
	if ((n = param_place(btf, btf_func_proto(btf, site->btf_func), i, regs, &stack)) < 0)
		return NULL;
	a = tg_access_new(TGA_READ);
	a->base = TGB_LOCATION;
	if (n == 0) {
		/* in memory: the stack pointer at entry + its offset */
		a->loc.npieces = 1;
		a->loc.pieces = xcalloc(1, sizeof *a->loc.pieces);
		a->loc.pieces[0].kind = TGL_MEM_REG;
		a->loc.pieces[0].reg_name = "sp";
		a->loc.pieces[0].reg_offset = stack;
		return a;
	}
	a->loc.npieces = n;
	a->loc.has_pieces = n == 2;
	a->loc.pieces = xcalloc((size_t)n, sizeof *a->loc.pieces);
	for (int k = 0; k < n; k++) {
		a->loc.pieces[k].kind = TGL_REG;
		a->loc.pieces[k].reg_name = regs[k];
		a->loc.pieces[k].offset = (uint64_t)k * 8;
		a->loc.pieces[k].size = n == 2 ? (uint64_t)(k ? size - 8 : 8) : 0;
	}
	return a;
}

/* The parameter named e->str: its access with *type set; NULL with bb->err set. */
static TgAccess *named_param(BtfBind *bb, Expr *e, uint32_t *type)
{
	const Btf *btf = bb->btf;
	const TgSite *site = bb->site;
	const char *name, *unused;
	char buf[16];
	TgAccess *a;
	int i;

	for (i = first_param(site); (name = param_label(btf, site, i, buf, sizeof buf)); i++)
		if (!strcmp(name, e->str + 1))
			break;
	if (!name && site->is_tracepoint)
		return fail(bb, e->loc, xasprintf("tracepoint %s has no argument '%s' (its arguments: %s)",
						  site->function + strlen("__traceiter_"), e->str + 1, params_of(btf, site)));
	if (!name)
		return fail(bb, e->loc, xasprintf("no parameter '%s' in %s (its parameters: %s); the kernel's BTF "
						  "describes parameters only: locals need its DWARF (install "
						  "linux-image-%s-dbg)", e->str + 1, site->function,
						  params_of(btf, site), bb->kver));
	btf_param(btf, btf_func_proto(btf, site->btf_func), i, &unused, type);
	if (!(a = param_access(btf, site, i, *type)))
		return fail(bb, e->loc, xasprintf("the place of '%s' of %s is unknown (a parameter before it, or it, "
						  "has no size in BTF): reading it needs the kernel's DWARF (install "
						  "linux-image-%s-dbg)", e->str, site->function, bb->kver));
	return a;
}

/* The base: $return, a parameter in its register or a tracepoint's argument. */
static TgAccess *base_access(BtfBind *bb, Expr *e)
{
	const Btf *btf = bb->btf;
	uint32_t proto = btf_func_proto(btf, bb->site->btf_func), type;
	TgAccess *a;

	if (!strcmp(e->str, "$return")) {
		if (!bb->site->is_return)
			return fail(bb, e->loc, xstrdup("$return is only available in .return probes"));
		if (bb->in_entry)
			return fail(bb, e->loc, xstrdup("$return has no value yet when the function is entered (inside @entry)"));
		if (!(type = btf_ref(btf, proto)))
			return fail(bb, e->loc, xasprintf("'%s' returns nothing: there is no $return", bb->site->function));
		a = tg_access_new(TGA_READ);
		a->base = TGB_RETURN;
	} else if (!(a = named_param(bb, e, &type))) {
		return NULL;
	}
	a->site = bb->site;
	a->name = xstrdup(e->str);
	a->loc_base = a->loc_last = e->loc;
	bb->type = type;
	/* a parameter passed on the stack is in memory: its members and its address can be taken */
	bb->in_register = !(a->base == TGB_LOCATION &&
			    (a->loc.pieces[0].kind == TGL_ADDR || a->loc.pieces[0].kind == TGL_MEM_REG));
	return a;
}

/* What a stripped type is to a relocating runtime's copy of its holder (access.h), arrays of one dimension. */
static TgShape shape_of(const Btf *btf, uint32_t type)
{
	TgShape sh = { TGSH_OTHER, 0, NULL, 0 };
	uint32_t t = btf_strip(btf, type), elem, count;

	if (btf_kind(btf, t) == BTF_K_ARRAY && btf_array(btf, t, &elem, &count) == 0) {
		sh = shape_of(btf, elem);
		if (sh.count)
			sh.kind = TGSH_OTHER;
		sh.count = count ? (int64_t)count : -1;
		return sh;
	}
	switch (btf_kind(btf, t)) {
	case BTF_K_INT:
		sh.kind = TGSH_INT;
		break;
	case BTF_K_FLOAT:
		sh.kind = TGSH_FLOAT;
		break;
	case BTF_K_PTR:
		sh.kind = TGSH_PTR;
		break;
	case BTF_K_STRUCT:
	case BTF_K_UNION:
		sh.kind = TGSH_COMPOSITE;
		break;
	case BTF_K_ENUM:
	case BTF_K_ENUM64:
		sh.kind = TGSH_ENUM;
		sh.tag = *btf_name(btf, t) ? xstrdup(btf_name(btf, t)) : NULL;
		break;
	}
	sh.size = (int)btf_size(btf, t);
	return sh;
}

/* Whether elements of type elem are laid out as this release has them (a struct's or union's size). */
static int fixed_elements(const Btf *btf, uint32_t elem)
{
	int k = btf_kind(btf, btf_strip(btf, elem));

	return k != BTF_K_INT && k != BTF_K_PTR && k != BTF_K_ENUM && k != BTF_K_ENUM64 && k != BTF_K_FLOAT;
}

/* '->NAME': through a pointer (a step reading it) or within a struct value. */
static int member_step(BtfBind *bb, TgAccess *a, ChainItem *it)
{
	const Btf *btf = bb->btf;
	uint32_t t = btf_strip(btf, bb->type);
	BtfMember m;
	char *tn;

	if (a->bit_size)
		return fail(bb, it->loc, xasprintf("'%s' is a bit field: '->%s' cannot be applied", a->name, it->name)), -1;
	if (btf_kind(btf, t) == BTF_K_PTR) {
		t = btf_complete(btf, btf_strip(btf, btf_ref(btf, t)));
		if (btf_kind(btf, t) == BTF_K_STRUCT || btf_kind(btf, t) == BTF_K_UNION) {
			tg_access_step(a, TGS_DEREF, 0, 0, it->loc, "->");
			bb->in_register = 0;
		}
	} else {
		t = btf_complete(btf, t);
		if (bb->in_register && (btf_kind(btf, t) == BTF_K_STRUCT || btf_kind(btf, t) == BTF_K_UNION))
			return fail(bb, it->loc, xasprintf("'%s' is a struct passed by value: its members need the "
							   "kernel's DWARF", a->name)), -1;
	}
	if (btf_kind(btf, t) != BTF_K_STRUCT && btf_kind(btf, t) != BTF_K_UNION) {
		tn = btf_type_name(btf, bb->type);
		fail(bb, it->loc, xasprintf("'->%s' needs a struct or union, or a pointer to one: '%s' is %s",
					    it->name, a->name, tn));
		free(tn);
		return -1;
	}
	if (btf_member(btf, t, it->name, &m) != 0) {
		tn = btf_type_name(btf, t);
		fail(bb, it->loc, xasprintf("%s has no member '%s'", tn, it->name));
		free(tn);
		return -1;
	}
	tg_access_step(a, TGS_ADD, m.offset, 0, it->loc, "->");
	tg_access_member(a, &(TgStepMember){
		.name = it->name, .type_name = btf_type_name(btf, m.type), .offset = m.offset,
		.in_image = !btf->base || t < btf->first_own,
		.holder = *btf_name(btf, t) ? xasprintf("%s %s", btf_kind(btf, t) == BTF_K_UNION ? "union" : "struct",
							btf_name(btf, t)) : NULL,
		.shape = m.bit_size ? (TgShape){ TGSH_OTHER, 0, NULL, 0 } : shape_of(btf, m.type) });
	bb->type = m.type;
	a->bit_size = m.bit_size;
	a->bit_offset = m.bit_offset;
	a->loc_last = it->loc;
	a->op_last = "->";
	rename_access(a, "%s->%s", it->name);
	return 0;
}

/* Element it->index of a T * or T[] in memory whose elements are size bytes: a literal index moves the
 * object on, a computed one becomes an argument of e that the access adds times size (as DWARF's do). */
static void index_add(TgAccess *a, Expr *e, ChainItem *it, int64_t size, int fixed)
{
	char num[32];

	if (it->index->kind == EX_NUMBER) {
		tg_access_step(a, TGS_ADD, it->index->num * size, 0, it->loc, "[");
		snprintf(num, sizeof num, "%lld", (long long)it->index->num);
		rename_access(a, "%s[%s]", num);
	} else {
		tg_access_step(a, TGS_INDEX, size, e->args.len, it->loc, "[");
		vec_push(&e->args, it->index);
		rename_access(a, "%s[%s]", "...");
	}
	if (fixed)
		tg_access_fixed_stride(a);
}

/* '[i]' on a pointer or an array in memory. */
static int index_step(BtfBind *bb, TgAccess *a, Expr *e, ChainItem *it)
{
	const Btf *btf = bb->btf;
	uint32_t t = btf_strip(btf, bb->type), elem, count;
	int64_t size;

	if (!it->index)
		return fail(bb, it->loc, xasprintf("'%s[]' needs an index", a->name)), -1;
	if (btf_kind(btf, t) == BTF_K_PTR) {
		elem = btf_ref(btf, t);
		tg_access_step(a, TGS_DEREF, 0, 0, it->loc, "[");
		bb->in_register = 0;
	} else if (btf_array(btf, t, &elem, &count) != 0 || bb->in_register) {
		char *tn = btf_type_name(btf, bb->type);
		fail(bb, it->loc, xasprintf("'%s' is %s: '[' needs a pointer or an array", a->name, tn));
		free(tn);
		return -1;
	}
	if ((size = btf_size(btf, elem)) <= 0)
		return fail(bb, it->loc, xasprintf("the elements of '%s' have no known size", a->name)), -1;
	index_add(a, e, it, size, fixed_elements(btf, elem));
	bb->type = elem;
	a->loc_last = it->loc;
	a->op_last = "[";
	return 0;
}

/* The value read at the end of the chain: integers, enums, pointers; arrays as their address. */
static int final_read(BtfBind *bb, TgAccess *a, SrcLoc loc)
{
	const Btf *btf = bb->btf;
	uint32_t t = btf_strip(btf, bb->type);
	char *tn;

	switch (btf_kind(btf, t)) {
	case BTF_K_INT: case BTF_K_ENUM: case BTF_K_ENUM64:
		a->size = (int)btf_size(btf, t);
		a->is_signed = btf_is_signed(btf, t);
		break;
	case BTF_K_PTR:
		a->size = 8;
		break;
	case BTF_K_ARRAY:
		if (bb->in_register)
			return fail(bb, loc, xasprintf("'%s' is an array in a register", a->name)), -1;
		a->array_address = 1;
		return 0;
	default:
		tn = btf_type_name(btf, bb->type);
		fail(bb, loc, xasprintf("'%s' has the type %s, which cannot be used as a value%s", a->name, tn,
					btf_kind(btf, t) == BTF_K_STRUCT || btf_kind(btf, t) == BTF_K_UNION ?
					": use a member ('->'), its address ('&') or pretty-print it ('$')" : ""));
		free(tn);
		return -1;
	}
	if (a->size < 1 || a->size > 8)
		return fail(bb, loc, xasprintf("'%s' has a size of %d bytes, which is not supported", a->name, a->size)), -1;
	return 0;
}

/* The chain of e from item `from` on, then the value read (or, for mode BM_ADDRESS, its address). */
static TgAccess *bind_chain(BtfBind *bb, TgAccess *a, Expr *e, int from, BindMode mode)
{
	for (int i = from; i < e->chain.len; i++) {
		ChainItem *it = e->chain.items[i];
		int rc;
		if (it->kind == CH_PRETTY) {
			/* $var$ / $var$$: printed by pass 3 walking the BTF type through targets/type.c (its last chain item) */
			if (mode != BM_VALUE)
				return fail(bb, e->loc, xasprintf("a pretty-printed value ('%s$') cannot be %s", a->name,
								  mode == BM_ADDRESS ? "addressed" : "assigned"));
			a->what = TGA_PRETTY;
			a->pretty_full = !strcmp(it->name, "$$");
			a->btf = bb->btf;
			a->btf_type = bb->type;
			return a;
		}
		rc = it->kind == CH_MEMBER ? member_step(bb, a, it) : index_step(bb, a, e, it);
		if (rc)
			return NULL;
	}
	if (mode == BM_ADDRESS) {
		if (a->bit_size)
			return fail(bb, e->loc, xasprintf("cannot take the address of the bit field '%s'", a->name));
		if (bb->in_register)
			return fail(bb, e->loc, xasprintf("cannot take the address of '%s': it is not in memory", a->name));
		a->what = TGA_ADDRESS;
		return a;
	}
	return final_read(bb, a, e->loc) == 0 ? a : NULL;
}

TgAccess *btf_bind_target(BtfBind *bb, Expr *e, BindMode mode)
{
	TgAccess *a = base_access(bb, e);

	return a ? bind_chain(bb, a, e, 0, mode) : NULL;
}

TgAccess *btf_bind_cast(BtfBind *bb, Expr *e, const Expr *tname, BindMode mode)
{
	const Btf *btf = bb->btf;
	uint32_t type = btf_find_type(btf, tname->str);
	int64_t size;
	TgAccess *a;
	int from = 0;

	if (!type)
		return fail(bb, tname->loc, xasprintf("type '%s' not found in the kernel's BTF (%s); without its DWARF "
						      "(linux-image-%s-dbg) @cast knows the types BTF describes",
						      tname->str, btf->origin, bb->kver));
	if (mode == BM_WRITE)
		return fail(bb, e->loc, xasprintf("@cast(..., \"%s\") typed from BTF cannot be assigned (the kernel's "
						  "DWARF is needed: install linux-image-%s-dbg)", tname->str, bb->kver));
	a = tg_access_new(TGA_READ);
	a->base = TGB_POINTER;
	a->site = bb->site;
	a->name = xasprintf("@cast(..., \"%s\")", tname->str);
	a->loc_base = a->loc_last = e->loc;
	a->op_last = "@cast";
	bb->type = type;
	bb->in_register = 0;
	if (!e->chain.len) {
		a->what = TGA_ADDRESS;   /* @cast(p, "t") alone (or &@cast(p, "t")) is p */
		return a;
	}
	if (((ChainItem *)e->chain.items[0])->kind == CH_INDEX) {
		/* @cast(p, "T")[i]: p is a T *, element i is at p + i * sizeof(T) */
		ChainItem *it = e->chain.items[0];
		if (!it->index)
			return fail(bb, it->loc, xasprintf("'%s[]' needs an index", a->name));
		if ((size = btf_size(btf, type)) <= 0)
			return fail(bb, it->loc, xasprintf("'%s' has no known size", tname->str));
		index_add(a, e, it, size, fixed_elements(btf, type));
		from = 1;
	}
	return bind_chain(bb, a, e, from, mode);
}

/* A $$parms / $$vars / $$return entry's value: integers, enums and pointers; NULL ("?") otherwise. */
static TgAccess *list_entry(const Btf *btf, TgAccess *a, uint32_t type, const char *name)
{
	uint32_t t = btf_strip(btf, type);
	int kind = btf_kind(btf, t);

	if (!a || (kind != BTF_K_INT && kind != BTF_K_ENUM && kind != BTF_K_ENUM64 && kind != BTF_K_PTR))
		return NULL;
	a->size = (int)btf_size(btf, t);
	a->is_signed = kind != BTF_K_PTR && btf_is_signed(btf, t);
	a->name = xasprintf("$%s", name);
	a->btf = btf;   /* for $$parms$ */
	a->btf_type = type;
	return a;
}

int btf_bind_vars(BtfBind *bb, const char *which, TgAccess *list)
{
	const Btf *btf = bb->btf;
	const TgSite *site = bb->site;
	uint32_t proto = btf_func_proto(btf, site->btf_func), type;
	const char *name, *unused;
	char buf[16];

	if (!strcmp(which, "return")) {
		TgAccess *a;
		if (!(type = btf_ref(btf, proto)))
			return 0;   /* a function returning nothing gives "" */
		a = tg_access_new(TGA_READ);
		a->base = TGB_RETURN;
		vec_push(&list->var_names, xstrdup("return"));
		vec_push(&list->var_access, list_entry(btf, a, type, "return"));
		return 0;
	}
	if (!strcmp(which, "locals"))
		return site->is_tracepoint ? 0 : -1;   /* a tracepoint has none (as from DWARF) */
	/* $$vars: the parameters only, BTF has no locals */
	for (int i = first_param(site); (name = param_label(btf, site, i, buf, sizeof buf)); i++) {
		btf_param(btf, proto, i, &unused, &type);
		vec_push(&list->var_names, xstrdup(name));
		vec_push(&list->var_access, list_entry(btf, param_access(btf, site, i, type), type, name));
	}
	return 0;
}

void btf_site_vars(const Btf *btf, const TgSite *site, StrBuf *sb)
{
	uint32_t proto = btf ? btf_func_proto(btf, site->btf_func) : 0, type;
	const char *name, *unused;
	char *tn, buf[16];

	if (!proto)
		return;
	if (site->is_return && (type = btf_ref(btf, proto))) {
		tn = btf_type_name(btf, type);
		sb_printf(sb, " $return:%s", tn);
		free(tn);
	}
	for (int i = first_param(site); (name = param_label(btf, site, i, buf, sizeof buf)); i++) {
		btf_param(btf, proto, i, &unused, &type);
		tn = btf_type_name(btf, type);
		/* one BTF cannot place (a size unknown) is marked */
		sb_printf(sb, " $%s:%s%s", name, tn, !site->is_tracepoint && btf_size(btf, type) <= 0 ? " (needs DWARF)" : "");
		free(tn);
	}
}
