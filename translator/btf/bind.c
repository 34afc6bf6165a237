/* bind.c - target variables of probes typed from BTF (no DWARF): $param from the entry registers,
 * $return, and their ->member / [number] chains, as DwAccess nodes codegen/dwarf.c writes. Used by dwarf/targets.c. */
#include "btf.h"
#include "bind.h"
#include "../dwarf/vars.h"

#include <stdio.h>
#include <string.h>

/* x86-64 SysV: the first six integer arguments, as DWARF register numbers (rdi rsi rdx rcx r8 r9) */
static const int arg_regs[] = { 5, 4, 1, 2, 8, 9 };

static DwAccess *fail(BtfBind *bb, SrcLoc loc, char *msg)
{
	bb->err_loc = loc;
	bb->err = msg;
	return NULL;
}

static void rename_access(DwAccess *a, const char *fmt, const char *arg)
{
	char *n = xasprintf(fmt, a->name, arg);
	free(a->name);
	a->name = n;
}

static char *params_of(const Btf *btf, uint32_t proto)
{
	StrBuf sb;
	const char *name;
	uint32_t type;

	sb_init(&sb);
	for (int i = 0; btf_param(btf, proto, i, &name, &type) == 0; i++)
		sb_printf(&sb, "%s$%s", i ? " " : "", name);
	return sb.data ? sb_steal(&sb) : xstrdup("none");
}

/* Parameter i (of the given type) in its entry register; NULL when it is not in one. */
static DwAccess *param_access(const Btf *btf, int i, uint32_t type)
{
	DwAccess *a;

	if (i >= 6 || btf_size(btf, type) > 8)
		return NULL;
	a = dwa_new(DWA_READ);
	a->base = DWB_LOCATION;
	a->loc.npieces = 1;
	a->loc.pieces = xcalloc(1, sizeof *a->loc.pieces);
	a->loc.pieces[0].kind = DWLOC_REG;
	a->loc.pieces[0].reg = arg_regs[i];
	return a;
}

/* The base: $return or a parameter in its register. */
static DwAccess *base_access(BtfBind *bb, Expr *e)
{
	const Btf *btf = bb->btf;
	uint32_t proto = btf_ref(btf, bb->site->btf_func), type;
	DwAccess *a;
	const char *name;
	int i;

	if (!strcmp(e->str, "$return")) {
		if (!bb->site->is_return)
			return fail(bb, e->loc, xstrdup("$return is only available in .return probes"));
		if (bb->in_entry)
			return fail(bb, e->loc, xstrdup("$return has no value yet when the function is entered (inside @entry)"));
		if (!(type = btf_ref(btf, proto)))
			return fail(bb, e->loc, xasprintf("'%s' returns nothing: there is no $return", bb->site->function));
		a = dwa_new(DWA_READ);
		a->base = DWB_RETURN;
	} else {
		for (i = 0; btf_param(btf, proto, i, &name, &type) == 0; i++)
			if (!strcmp(name, e->str + 1))
				break;
		if (btf_param(btf, proto, i, &name, &type) != 0)
			return fail(bb, e->loc, xasprintf("no parameter '%s' in %s (its parameters: %s); the kernel's BTF "
							  "describes parameters only: locals need its DWARF (install "
							  "linux-image-%s-dbg)", e->str + 1, bb->site->function,
							  params_of(btf, proto), bb->kver));
		if (!(a = param_access(btf, i, type)))
			return fail(bb, e->loc, xasprintf("'%s' of %s is not passed in a register (argument %d%s): "
							  "reading it needs the kernel's DWARF (install linux-image-%s-dbg)",
							  e->str, bb->site->function, i + 1,
							  i >= 6 ? ", after the sixth" : ", larger than 8 bytes", bb->kver));
	}
	a->site = bb->site;
	a->name = xstrdup(e->str);
	a->loc_base = a->loc_last = e->loc;
	bb->type = type;
	bb->in_register = 1;
	return a;
}

/* '->NAME': through a pointer (a step reading it) or within a struct value. */
static int member_step(BtfBind *bb, DwAccess *a, ChainItem *it)
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
			dwa_add_step(a, DWS_DEREF, 0, 0, it->loc, "->");
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
	dwa_add_step(a, DWS_ADD, m.offset, 0, it->loc, "->");
	bb->type = m.type;
	a->bit_size = m.bit_size;
	a->bit_offset = m.bit_offset;
	a->loc_last = it->loc;
	a->op_last = "->";
	rename_access(a, "%s->%s", it->name);
	return 0;
}

/* '[N]' with a literal N, on a pointer or an array in memory. */
static int index_step(BtfBind *bb, DwAccess *a, ChainItem *it)
{
	const Btf *btf = bb->btf;
	uint32_t t = btf_strip(btf, bb->type), elem, count;
	int64_t size;
	char num[32];

	if (!it->index || it->index->kind != EX_NUMBER)
		return fail(bb, it->loc, xasprintf("'%s[...]': only a literal index is supported from BTF so far",
						   a->name)), -1;
	if (btf_kind(btf, t) == BTF_K_PTR) {
		elem = btf_ref(btf, t);
		dwa_add_step(a, DWS_DEREF, 0, 0, it->loc, "[");
		bb->in_register = 0;
	} else if (btf_array(btf, t, &elem, &count) != 0 || bb->in_register) {
		char *tn = btf_type_name(btf, bb->type);
		fail(bb, it->loc, xasprintf("'%s' is %s: '[' needs a pointer or an array", a->name, tn));
		free(tn);
		return -1;
	}
	if ((size = btf_size(btf, elem)) <= 0)
		return fail(bb, it->loc, xasprintf("the elements of '%s' have no known size", a->name)), -1;
	dwa_add_step(a, DWS_ADD, it->index->num * size, 0, it->loc, "[");
	bb->type = elem;
	a->loc_last = it->loc;
	a->op_last = "[";
	snprintf(num, sizeof num, "%lld", (long long)it->index->num);
	rename_access(a, "%s[%s]", num);
	return 0;
}

/* The value read at the end of the chain: integers, enums, pointers; arrays as their address. */
static int final_read(BtfBind *bb, DwAccess *a, SrcLoc loc)
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
					" (pretty printing from BTF is not supported yet: use a member)" : ""));
		free(tn);
		return -1;
	}
	if (a->size < 1 || a->size > 8)
		return fail(bb, loc, xasprintf("'%s' has a size of %d bytes, which is not supported", a->name, a->size)), -1;
	return 0;
}

DwAccess *btf_bind_target(BtfBind *bb, Expr *e)
{
	DwAccess *a = base_access(bb, e);

	if (!a)
		return NULL;
	for (int i = 0; i < e->chain.len; i++) {
		ChainItem *it = e->chain.items[i];
		int rc;
		if (it->kind == CH_PRETTY)
			return fail(bb, it->loc, xasprintf("'%s%s': pretty printing from BTF is not supported yet", a->name,
							   it->name));
		rc = it->kind == CH_MEMBER ? member_step(bb, a, it) : index_step(bb, a, it);
		if (rc)
			return NULL;
	}
	return final_read(bb, a, e->loc) == 0 ? a : NULL;
}

/* A $$parms / $$vars / $$return entry's value: integers, enums and pointers; NULL ("?") otherwise. */
static DwAccess *list_entry(const Btf *btf, DwAccess *a, uint32_t type, const char *name)
{
	uint32_t t = btf_strip(btf, type);
	int kind = btf_kind(btf, t);

	if (!a || (kind != BTF_K_INT && kind != BTF_K_ENUM && kind != BTF_K_ENUM64 && kind != BTF_K_PTR))
		return NULL;
	a->size = (int)btf_size(btf, t);
	a->is_signed = kind != BTF_K_PTR && btf_is_signed(btf, t);
	a->name = xasprintf("$%s", name);
	return a;
}

int btf_bind_vars(BtfBind *bb, const char *which, DwAccess *list)
{
	const Btf *btf = bb->btf;
	uint32_t proto = btf_ref(btf, bb->site->btf_func), type;
	const char *name;

	if (!strcmp(which, "return")) {
		DwAccess *a;
		if (!(type = btf_ref(btf, proto)))
			return 0;   /* a function returning nothing gives "" */
		a = dwa_new(DWA_READ);
		a->base = DWB_RETURN;
		vec_push(&list->var_names, xstrdup("return"));
		vec_push(&list->var_access, list_entry(btf, a, type, "return"));
		return 0;
	}
	if (!strcmp(which, "locals"))
		return -1;
	/* $$vars: the parameters only, BTF has no locals */
	for (int i = 0; btf_param(btf, proto, i, &name, &type) == 0; i++) {
		vec_push(&list->var_names, xstrdup(name));
		vec_push(&list->var_access, list_entry(btf, param_access(btf, i, type), type, name));
	}
	return 0;
}

void btf_site_vars(const Btf *btf, const DwarfSite *site, StrBuf *sb)
{
	uint32_t proto = btf ? btf_ref(btf, site->btf_func) : 0, type;
	const char *name;
	char *tn;

	if (!proto)
		return;
	if (site->is_return && (type = btf_ref(btf, proto))) {
		tn = btf_type_name(btf, type);
		sb_printf(sb, " $return:%s", tn);
		free(tn);
	}
	for (int i = 0; btf_param(btf, proto, i, &name, &type) == 0; i++) {
		tn = btf_type_name(btf, type);
		/* one BTF cannot read (on the stack, or larger than a register) is marked */
		sb_printf(sb, " $%s:%s%s", name, tn, i >= 6 || btf_size(btf, type) > 8 ? " (needs DWARF)" : "");
		free(tn);
	}
}
