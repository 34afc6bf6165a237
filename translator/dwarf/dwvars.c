/* dwvars.c - the DWARF leaf of target variables: the type and location of $var, $return, @cast and
 * @var at a TgSite with their ->member / [index] chains, answered as an access record
 * (targets/access.h), and the entries of $$vars/$$parms/$$locals/$$return. Asked by the binding
 * pass (targets/bind.c); codegen/targetvars.c writes the records' C. */
#include "dwarf/dwvars.h"
#include "dwarf/userfile.h"

#include <stdarg.h>
#include <string.h>

/* The answer to a question that fails: its first error, reported by the binding pass. */

struct TgLeafAccess *dwarf_leaf_of(TgAccess *a)
{
	if (!a->leaf)
		a->leaf = xcalloc(1, sizeof *a->leaf);
	return a->leaf;
}

static void derr(DwarfBind *b, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void derr(DwarfBind *b, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;
	StrBuf sb;

	if (b->err)
		return;
	sb_init(&sb);
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	b->err = sb_steal(&sb);
	b->err_loc = loc;
}

static void derr_clear(DwarfBind *b)
{
	free(b->err);
	b->err = NULL;
	b->err_shown = 0;
}

/* ---- scopes and variables at the site ---- */

/* The top-level subprogram of the compile unit holding the DIE at offset `off` (an inline
 * instance's out-of-line caller, whose frame base its variables use). */
static int containing_subprogram(Dwarf_Die *cudie, Dwarf_Off off, Dwarf_Die *out)
{
	Dwarf_Die child, best;
	int have = 0;

	if (dwarf_child(cudie, &child) != 0)
		return -1;
	do {
		if (dwarf_dieoffset(&child) > off)
			break;
		if (dwarf_tag(&child) == DW_TAG_subprogram) {
			best = child;
			have = 1;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	if (!have)
		return -1;
	*out = best;
	return 0;
}

/* The scopes whose variables are visible at the site's pc: its function (or inline instance) and
 * the lexical blocks inside it that hold the pc, innermost first. Walking only the function's
 * own DIEs keeps this cheap when one probe has thousands of sites. */
int dwarf_bind_scopes(DwarfBind *b, SrcLoc loc)
{
	DwarfModule *m = b->site->mod;
	PtrVec chain = { 0 };
	Dwarf_Die cur;

	if (b->have_scopes)
		return b->nscopes > 0 ? 0 : -1;
	b->have_scopes = 1;
	if (!dwarf_offdie(m->dw, b->site->cu, &b->cudie) || !dwarf_offdie(m->dw, b->site->scope, &cur)) {
		derr(b, loc, "cannot read the debuginfo of %s in %s", b->site->function, m->path);
		return -1;
	}
	if (b->site->is_tracepoint) {
		/* only the prototype's parameters: the function's own locals are not the tracepoint's */
		b->nscopes = 1;
		b->scopes = xmalloc(sizeof *b->scopes);
		b->scopes[0] = cur;
		b->frame_fn = cur;
		b->have_frame_fn = 1;
		return 0;
	}
	for (int depth = 0; depth < 64; depth++) {
		Dwarf_Die *d = xmalloc(sizeof *d), child;
		int deeper = 0;
		*d = cur;
		vec_push(&chain, d);
		if (dwarf_child(&cur, &child) != 0)
			break;
		do {
			if (dwarf_tag(&child) == DW_TAG_lexical_block && dwarf_haspc(&child, b->site->pc) == 1) {
				cur = child;
				deeper = 1;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!deeper)
			break;
	}
	b->nscopes = chain.len;
	b->scopes = xcalloc((size_t)chain.len, sizeof *b->scopes);
	for (int i = 0; i < chain.len; i++) {
		b->scopes[chain.len - 1 - i] = *(Dwarf_Die *)chain.items[i];
		free(chain.items[i]);
	}
	free(chain.items);
	cur = b->scopes[b->nscopes - 1];
	if (dwarf_tag(&cur) == DW_TAG_subprogram) {
		b->frame_fn = cur;
		b->have_frame_fn = 1;
	} else if (containing_subprogram(&b->cudie, b->site->scope, &b->frame_fn) == 0) {
		b->have_frame_fn = 1;
	}
	return 0;
}

static int is_var_tag(int tag)
{
	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

/* A tracepoint's argument: the position among the tracepoint's parameters (the prototype's after its
 * first, the probe data) of parameter DIE var, or -1 when var is not one of them. */
static int tracepoint_arg_index(DwarfBind *b, Dwarf_Die *var)
{
	Dwarf_Die child;
	int i = -1;

	if (!b->site || !b->site->is_tracepoint || dwarf_child(&b->scopes[0], &child) != 0)
		return -1;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		if (i >= 0 && dwarf_dieoffset(&child) == dwarf_dieoffset(var))
			return i;
		i++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* "$prev $next": the arguments of a tracepoint site, for messages. */
static char *tracepoint_arg_names(DwarfBind *b)
{
	StrBuf sb;
	Dwarf_Die child;

	sb_init(&sb);
	if (dwarf_child(&b->scopes[0], &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_formal_parameter && tracepoint_arg_index(b, &child) >= 0)
				sb_printf(&sb, "%s$%s", sb.len ? " " : "", dwarf_diename(&child) ? dwarf_diename(&child) : "?");
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (!sb.len)
		sb_puts(&sb, "none");
	return sb_steal(&sb);
}

/* The variable `name` visible at the pc: innermost scope first, then the compile unit's. */
static int find_variable(DwarfBind *b, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (b->site->is_tracepoint) {
		if (dwarf_child(&b->scopes[0], &child) != 0)
			return -1;
		do {
			const char *n = dwarf_diename(&child);
			if (dwarf_tag(&child) == DW_TAG_formal_parameter && n && !strcmp(n, name) &&
			    tracepoint_arg_index(b, &child) >= 0) {
				*out = child;
				return 0;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		return -1;
	}

	for (int i = 0; i < b->nscopes; i++) {
		if (dwarf_child(&b->scopes[i], &child) != 0)
			continue;
		do {
			const char *n;
			if (!is_var_tag(dwarf_tag(&child)) || !(n = dwarf_diename(&child)) || strcmp(n, name))
				continue;
			*out = child;
			return 0;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (dwarf_child(&b->cudie, &child) == 0) {
		do {
			const char *n;
			if (dwarf_tag(&child) != DW_TAG_variable || !(n = dwarf_diename(&child)) || strcmp(n, name))
				continue;
			*out = child;
			return 0;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return -1;
}

/* ---- accesses ---- */

enum { W_MEM, W_VAL, W_LOC };

/* Where the designated object is while a chain is bound: in memory, in a value (register or
 * computed), or in the pieces of the variable's location (off bytes in). */
typedef struct Where {
	int kind;
	int64_t off;
	int dims_used;           /* indexes applied to the current (multi-dimensional) array type */
	int cast_ptr;            /* at @cast's own address, nothing applied yet: '[i]' steps over whole objects */
} Where;

static const TgPiece *piece_at(const TgAccess *a, int64_t off, int64_t size)
{
	for (int i = 0; i < a->loc.npieces; i++) {
		const TgPiece *p = &a->loc.pieces[i];
		if (off >= (int64_t)p->offset && off + size <= (int64_t)(p->offset + p->size))
			return p;
	}
	return NULL;
}

static char *pc_text(TgAccess *a)
{
	return xasprintf("pc 0x%llx", (unsigned long long)a->pc);
}

/* Compiles a's location pieces once, so that unsupported operations are reported when binding. */
static int compile_pieces(DwarfBind *b, TgAccess *a, const char *shown, SrcLoc loc)
{
	char *err = NULL;

	for (int i = 0; i < a->loc.npieces; i++) {
		TgPiece *p = &a->loc.pieces[i];
		DwLocCtx ctx = { .mod = dwarf_leaf_of(a)->mod, .pc = a->pc, .frame_fn = dwarf_leaf_of(a)->have_frame_fn ? &dwarf_leaf_of(a)->frame_fn : NULL,
				 .fail = "out" };
		StrBuf scratch;
		if (p->kind == TGL_REG && !dwloc_reg_name(p->reg)) {
			derr(b, loc, "target variable '%s' is in DWARF register %d at %s, which is not supported", shown,
			     p->reg, pc_text(a));
			return -1;
		}
		if (p->kind != TGL_ADDR && p->kind != TGL_VALUE)
			continue;
		sb_init(&scratch);
		if (dwloc_emit(&ctx, p, "x", &scratch, &err) != 0) {
			sb_free(&scratch);
			derr(b, loc, "target variable '%s' is not accessible at this address (%s): %s", shown, pc_text(a), err);
			return -1;
		}
		sb_free(&scratch);
	}
	return 0;
}

/* The location of variable var at the site's pc into a; the start of the chain into *w. */
static int bind_location(DwarfBind *b, TgAccess *a, Dwarf_Die *var, const char *shown, SrcLoc loc, Where *w)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	char *err = NULL;
	int n;

	if (b->site && b->site->is_tracepoint) {
		a->base = TGB_ARG;
		a->arg_index = tracepoint_arg_index(b, var);
		w->kind = W_VAL;
		w->off = 0;
		return a->arg_index >= 0 ? 0 : -1;
	}
	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		Dwarf_Sword sv;
		Dwarf_Word uv;
		a->base = TGB_CONST;
		if (dwarf_formsdata(&attr, &sv) == 0)
			a->const_value = sv;
		else if (dwarf_formudata(&attr, &uv) == 0)
			a->const_value = (int64_t)uv;
		else {
			derr(b, loc, "'%s' is a constant of a form that is not supported", shown);
			return -1;
		}
		w->kind = W_VAL;
		return 0;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &attr)) {
		uint64_t addr;
		const char *name = dwarf_diename(var);
		if (dwarf_hasattr_integrate(var, DW_AT_declaration) && name && dwloc_symbol(dwarf_leaf_of(a)->mod, name, &addr) == 0) {
			char *rel = dwloc_reloc(dwarf_leaf_of(a)->mod, addr, &err);
			if (!rel) {
				derr(b, loc, "'%s' cannot be read: %s", shown, err);
				return -1;
			}
			free(rel);
			a->base = TGB_SYMBOL;
			a->sym_addr = addr;
			a->sym_name = xstrdup(name);
			w->kind = W_MEM;
			return 0;
		}
		derr(b, loc, "target variable '%s' is not accessible at this address (%s): it has no location "
		     "(optimized out)", shown, pc_text(a));
		return -1;
	}
	n = dwarf_getlocation_addr(&attr, a->pc, &ops, &nops, 1);
	if (n <= 0) {
		derr(b, loc, "target variable '%s' is not accessible at this address (%s)", shown, pc_text(a));
		return -1;
	}
	if (dwloc_analyze(ops, nops, &a->loc, &err) != 0) {
		derr(b, loc, "target variable '%s' is not accessible at this address (%s): %s", shown, pc_text(a), err);
		return -1;
	}
	if (compile_pieces(b, a, shown, loc) != 0)
		return -1;
	a->base = TGB_LOCATION;
	w->off = 0;
	if (a->loc.has_pieces) {
		w->kind = W_LOC;
		return 0;
	}
	switch (a->loc.pieces[0].kind) {
	case TGL_ADDR:
		w->kind = W_MEM;
		break;
	case TGL_IMPLICIT:
		w->kind = a->loc.pieces[0].nbytes <= 8 ? W_VAL : W_MEM;
		break;
	case TGL_EMPTY:
		derr(b, loc, "target variable '%s' is not accessible at this address (%s): optimized out", shown,
		     pc_text(a));
		return -1;
	default:
		w->kind = W_VAL;
		break;
	}
	return 0;
}

static TgAccess *variable_access(DwarfBind *b, Dwarf_Die *var, const char *shown, SrcLoc loc, Where *w)
{
	TgAccess *a = tg_access_new(TGA_READ);
	Dwarf_Attribute attr;

	dwarf_leaf_of(a)->mod = b->site->mod;
	a->site = b->site;
	a->pc = b->site->pc;
	dwarf_leaf_of(a)->frame_fn = b->frame_fn;
	dwarf_leaf_of(a)->have_frame_fn = b->have_frame_fn;
	a->name = xstrdup(shown);
	a->loc_base = loc;
	a->loc_last = loc;
	if (dwarf_attr_integrate(var, DW_AT_type, &attr) && dwarf_formref_die(&attr, &dwarf_leaf_of(a)->type))
		dwarf_leaf_of(a)->has_type = 1;
	if (bind_location(b, a, var, shown, loc, w) != 0)
		return NULL;
	return a;
}

/* Checks that the object at w (size bytes) can be read; for W_LOC its piece must hold it. */
static int check_readable(DwarfBind *b, TgAccess *a, Where *w, int64_t size, SrcLoc loc)
{
	if (w->kind == W_VAL && w->off + size > 8 &&
	    !(a->base == TGB_LOCATION && a->loc.pieces[0].kind == TGL_IMPLICIT)) {
		derr(b, loc, "'%s' is held in a register: bytes %lld to %lld of it cannot be read", a->name,
		     (long long)w->off, (long long)(w->off + size));
		return -1;
	}
	if (w->kind == W_LOC) {
		const TgPiece *p = piece_at(a, w->off, size);
		if (!p) {
			derr(b, loc, "'%s' spans several pieces of its location at %s, which is not supported", a->name,
			     pc_text(a));
			return -1;
		}
		if (p->kind == TGL_EMPTY) {
			derr(b, loc, "'%s' is not accessible at this address (%s): optimized out", a->name, pc_text(a));
			return -1;
		}
	}
	return 0;
}

/* The object at w must be in memory (indexes computed at run time, &): W_LOC moves to its piece. */
static int need_memory(DwarfBind *b, TgAccess *a, Where *w, SrcLoc loc, const char *why)
{
	if (w->kind == W_MEM)
		return 0;
	if (w->kind == W_LOC) {
		const TgPiece *p = piece_at(a, w->off, 1);
		if (p && p->kind == TGL_ADDR)
			return 0;   /* codegen resolves the piece to its address */
	}
	derr(b, loc, "%s '%s': it is not in memory at %s (held in a register or computed)", why, a->name,
	     pc_text(a));
	return -1;
}

static void extend_name(TgAccess *a, const char *fmt, const char *arg)
{
	char *n = xasprintf(fmt, a->name, arg);
	free(a->name);
	a->name = n;
}

/* A struct/union type ready for member lookups: stripped and completed. */
static int struct_type(DwarfBind *b, TgAccess *a, Dwarf_Die *type, Dwarf_Die *out, SrcLoc loc)
{
	int tag = dwt_strip(type, out);

	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type)
		return -1;
	if (dwt_complete(dwarf_leaf_of(a)->mod, out, out) != 0) {
		char *n = dwt_name(type);
		derr(b, loc, "%s is only declared in the debuginfo (no definition), so its members are unknown", n);
		free(n);
		return -2;
	}
	return 0;
}

/* The struct or union (in *su) whose member '->NAME' of item it reads, from type; 0, or -1 after
 * an error naming a's type. */
static int member_owner(DwarfBind *b, TgAccess *a, Dwarf_Die *type, Dwarf_Die *su, const ChainItem *it)
{
	int rc = struct_type(b, a, type, su, it->loc);
	char *tn;

	if (rc == -2)
		return -1;
	if (rc != 0) {
		tn = dwt_name(&dwarf_leaf_of(a)->type);
		derr(b, it->loc, "'->%s' needs a struct or union, or a pointer to one: '%s' is %s", it->name,
		     a->name, tn);
		free(tn);
		return -1;
	}
	return 0;
}

/* The member m of holder su as the access's step names it. */
static void step_member(TgAccess *a, Dwarf_Die *su, const char *name, DwMember *m)
{
	const char *holder = dwarf_diename(su);

	tg_access_member(a, &(TgStepMember){
		.name = name, .type_name = dwt_name(&m->type), .offset = m->offset,
		.in_image = dwarf_leaf_of(a)->mod && dwarf_leaf_of(a)->mod->is_kernel,
		.holder = holder ? xasprintf("%s %s", dwarf_tag(su) == DW_TAG_union_type ? "union" : "struct", holder)
				 : NULL,
		.shape = m->bit_size ? (TgShape){ TGSH_OTHER, 0, NULL, 0 } : dwt_shape(&m->type) });
}

static int bind_member(DwarfBind *b, TgAccess *a, Where *w, ChainItem *it)
{
	Dwarf_Die t, su, pointee;
	int tag;
	DwMember m;
	char *tn;

	if (!dwarf_leaf_of(a)->has_type) {
		derr(b, it->loc, "'%s' has no type: '->%s' cannot be applied", a->name, it->name);
		return -1;
	}
	if (a->bit_size) {
		derr(b, it->loc, "'%s' is a bit field: '->%s' cannot be applied", a->name, it->name);
		return -1;
	}
	tag = dwt_strip(&dwarf_leaf_of(a)->type, &t);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type) {
		Dwarf_Attribute attr;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &pointee)) {
			derr(b, it->loc, "'%s' is a void pointer: '->%s' needs a pointer to a struct or union "
			     "(use @cast)", a->name, it->name);
			return -1;
		}
		if (member_owner(b, a, &pointee, &su, it) != 0)
			return -1;
		if (w->kind == W_LOC && check_readable(b, a, w, 8, it->loc) != 0)
			return -1;
		tg_access_step(a, TGS_DEREF, 0, 0, it->loc, "->");
		w->kind = W_MEM;
		w->off = 0;
		dwt_strip_cv(&pointee, &pointee);
		tn = dwt_name(&pointee);
	} else {
		Dwarf_Die plain;
		if (member_owner(b, a, &dwarf_leaf_of(a)->type, &su, it) != 0)
			return -1;
		dwt_strip_cv(&dwarf_leaf_of(a)->type, &plain);
		tn = dwt_name(&plain);
	}
	if (dwt_find_member(&su, it->name, &m) != 0) {
		char *names = dwt_member_list(&su, 12);
		derr(b, it->loc, "%s has no member '%s' (its members: %s)", tn, it->name, *names ? names : "none");
		free(names);
		free(tn);
		return -1;
	}
	free(tn);
	tg_access_step(a, TGS_ADD, m.offset, 0, it->loc, "->");
	step_member(a, &su, it->name, &m);
	w->off += m.offset;
	dwarf_leaf_of(a)->type = m.type;
	a->bit_size = m.bit_size;
	a->bit_offset = m.bit_offset;
	a->loc_last = it->loc;
	a->op_last = "->";
	w->dims_used = 0;
	extend_name(a, "%s->%s", it->name);
	return 0;
}

static int bind_index(DwarfBind *b, Expr *e, TgAccess *a, Where *w, ChainItem *it)
{
	Dwarf_Die t, elem;
	int tag, literal = it->index->kind == EX_NUMBER;
	int64_t stride, counts[8], bound = -1;
	int dims;
	char *tn;

	if (!dwarf_leaf_of(a)->has_type || a->bit_size) {
		derr(b, it->loc, "'%s' cannot be indexed", a->name);
		return -1;
	}
	tag = dwt_strip(&dwarf_leaf_of(a)->type, &t);
	if (w->cast_ptr) {
		/* @cast(p, "T")[i]: p is a T *, so element i is at p + i * sizeof(T) (SystemTap's
		 * meaning; &@cast(0, "T")[1] is sizeof(T)) */
		elem = dwarf_leaf_of(a)->type;
		stride = dwt_size(&elem);
	} else if (tag == DW_TAG_array_type) {
		dims = dwt_array_dims(&t, &elem, counts, 8);
		if (!dims || w->dims_used >= dims) {
			derr(b, it->loc, "the array '%s' has no dimensions described", a->name);
			return -1;
		}
		stride = dwt_size(&elem);
		for (int i = w->dims_used + 1; i < dims && stride >= 0; i++)
			stride = counts[i] < 0 ? -1 : stride * counts[i];
		bound = counts[w->dims_used];
		w->dims_used++;
		if (w->dims_used == dims) {
			dwarf_leaf_of(a)->type = elem;
			w->dims_used = 0;
		}
	} else if (tag == DW_TAG_pointer_type) {
		Dwarf_Attribute attr;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &elem)) {
			derr(b, it->loc, "'%s' is a void pointer, which cannot be indexed (use @cast)", a->name);
			return -1;
		}
		stride = dwt_size(&elem);
		if (w->kind == W_LOC && check_readable(b, a, w, 8, it->loc) != 0)
			return -1;
		tg_access_step(a, TGS_DEREF, 0, 0, it->loc, "[");
		w->kind = W_MEM;
		w->off = 0;
		dwarf_leaf_of(a)->type = elem;
	} else {
		tn = dwt_name(&dwarf_leaf_of(a)->type);
		derr(b, it->loc, "'[' needs an array or a pointer: '%s' is %s", a->name, tn);
		free(tn);
		return -1;
	}
	if (stride <= 0) {
		tn = dwt_name(&elem);
		derr(b, it->loc, "the elements of '%s' (%s) have no known size", a->name, tn);
		free(tn);
		return -1;
	}
	if (literal) {
		int64_t i = it->index->num;
		if (bound >= 0 && (i < 0 || i >= bound)) {
			derr(b, it->index->loc, "index %lld is out of range for '%s' (%lld element%s)", (long long)i,
			     a->name, (long long)bound, bound == 1 ? "" : "s");
			return -1;
		}
		tg_access_step(a, TGS_ADD, i * stride, 0, it->loc, "[");
		w->off += i * stride;
		extend_name(a, "%s[%s]", xasprintf("%lld", (long long)i));
	} else {
		if (need_memory(b, a, w, it->loc, "cannot compute an index into") != 0)
			return -1;
		tg_access_step(a, TGS_INDEX, stride, e->args.len, it->loc, "[");
		vec_push(&e->args, it->index);
		w->kind = W_MEM;
		w->off = 0;
		extend_name(a, "%s[%s]", "...");
	}
	if (dwt_fixed_elements(&elem))
		tg_access_fixed_stride(a);
	a->loc_last = it->loc;
	a->op_last = "[";
	return 0;
}

/* After the chain: what the expression yields. */
static int bind_final(DwarfBind *b, Expr *e, TgAccess *a, Where *w, BindMode mode)
{
	Dwarf_Die t;
	int tag;
	char *tn;

	if (a->what == TGA_PRETTY) {
		if (mode != BM_VALUE) {
			derr(b, e->loc, "a pretty-printed value ('%s$') cannot be %s", a->name,
			     mode == BM_ADDRESS ? "addressed" : "assigned");
			return -1;
		}
		if (w->kind == W_LOC && !piece_at(a, w->off, 1)) {
			derr(b, e->loc, "'%s' is not accessible at this address (%s)", a->name, pc_text(a));
			return -1;
		}
		return 0;
	}
	if (mode == BM_ADDRESS) {
		if (a->bit_size) {
			derr(b, e->loc, "cannot take the address of the bit field '%s'", a->name);
			return -1;
		}
		a->what = TGA_ADDRESS;
		return need_memory(b, a, w, e->loc, "cannot take the address of");
	}
	if (!dwarf_leaf_of(a)->has_type) {
		derr(b, e->loc, "'%s' has no type (void)", a->name);
		return -1;
	}
	tag = dwt_strip(&dwarf_leaf_of(a)->type, &t);
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		if (dwt_is_float(&t)) {
			derr(b, e->loc, "'%s' is a floating point value, which is not supported", a->name);
			return -1;
		}
		a->size = (int)dwt_size(&t);
		a->is_signed = dwt_is_signed(&t);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		a->size = 8;
		a->is_signed = 0;
		break;
	case DW_TAG_array_type:
		if (mode == BM_WRITE) {
			derr(b, e->loc, "the array '%s' cannot be assigned", a->name);
			return -1;
		}
		a->array_address = 1;
		return need_memory(b, a, w, e->loc, "cannot use the array");
	default:
		tn = dwt_name(&dwarf_leaf_of(a)->type);
		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type)
			derr(b, e->loc, "'%s' is a %s, which is not a value: use a member ('->'), its address ('&') or "
			     "pretty-print it ('%s$')", a->name, tn, a->name);
		else
			derr(b, e->loc, "'%s' has the type %s, which cannot be used as a value", a->name, tn);
		free(tn);
		return -1;
	}
	if (a->size < 1 || a->size > 8) {
		tn = dwt_name(&dwarf_leaf_of(a)->type);
		derr(b, e->loc, "'%s' (%s) has a size of %d bytes, which is not supported", a->name, tn, a->size);
		free(tn);
		return -1;
	}
	if (a->bit_size && (a->bit_offset + a->bit_size > 64 || a->bit_size > 64)) {
		derr(b, e->loc, "the bit field '%s' spans more than 8 bytes, which is not supported", a->name);
		return -1;
	}
	if (check_readable(b, a, w, a->bit_size ? (a->bit_offset + a->bit_size + 7) / 8 : a->size, e->loc) != 0)
		return -1;
	if (mode == BM_WRITE) {
		int storage = w->kind == W_MEM;
		if (w->kind == W_VAL && a->base == TGB_LOCATION && a->loc.pieces[0].kind == TGL_REG && !a->bit_size)
			storage = 1;
		if (w->kind == W_VAL && a->base == TGB_RETURN)
			storage = 1;     /* the return register: the caller sees the new value */
		if (w->kind == W_LOC) {
			const TgPiece *p = piece_at(a, w->off, a->size);
			storage = p && (p->kind == TGL_ADDR || (p->kind == TGL_REG && !a->bit_size));
		}
		if (!storage && a->base == TGB_ARG && w->kind == W_VAL) {
			derr(b, e->loc, "'%s' is a tracepoint argument, which cannot be written", a->name);
			return -1;
		}
		if (!storage) {
			derr(b, e->loc, "'%s' cannot be written at %s: it is a computed value, not stored anywhere", a->name,
			     pc_text(a));
			return -1;
		}
	}
	return 0;
}

static int bind_chain(DwarfBind *b, Expr *e, TgAccess *a, Where *w, PtrVec *chain, BindMode mode)
{
	for (int i = 0; i < chain->len; i++) {
		ChainItem *it = chain->items[i];
		int rc = 0;
		switch (it->kind) {
		case CH_MEMBER:
			rc = bind_member(b, a, w, it);
			break;
		case CH_INDEX:
			rc = bind_index(b, e, a, w, it);
			break;
		case CH_PRETTY:
			a->what = TGA_PRETTY;
			a->pretty_full = !strcmp(it->name, "$$");
			break;
		}
		w->cast_ptr = 0;
		if (rc)
			return -1;
	}
	return bind_final(b, e, a, w, mode);
}


/* ---- $return ---- */

static TgAccess *return_access(DwarfBind *b, Expr *e, Where *w)
{
	Dwarf_Die fn;
	Dwarf_Attribute attr;
	TgAccess *a;

	if (!b->site->is_return) {
		derr(b, e->loc, "$return is only available in .return probes");
		return NULL;
	}
	if (b->in_entry) {
		derr(b, e->loc, "$return has no value yet when the function is entered (inside @entry)");
		return NULL;
	}
	if (!dwarf_offdie(b->site->mod->dw, b->site->scope, &fn)) {
		derr(b, e->loc, "cannot read the debuginfo of %s", b->site->function);
		return NULL;
	}
	a = tg_access_new(TGA_READ);
	if (!dwarf_attr_integrate(&fn, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &dwarf_leaf_of(a)->type)) {
		derr(b, e->loc, "'%s' returns nothing: there is no $return", b->site->function);
		return NULL;
	}
	dwarf_leaf_of(a)->has_type = 1;
	a->base = TGB_RETURN;
	dwarf_leaf_of(a)->mod = b->site->mod;
	a->site = b->site;
	a->pc = b->site->pc;
	a->name = xstrdup("$return");
	a->loc_base = a->loc_last = e->loc;
	w->kind = W_VAL;
	w->off = 0;
	if (dwt_size(&dwarf_leaf_of(a)->type) > 8) {
		derr(b, e->loc, "'%s' returns a value larger than 8 bytes, which $return does not support",
		     b->site->function);
		return NULL;
	}
	return a;
}

/* ---- $$vars, $$parms, $$locals, $$return ---- */

static void add_vars_of(DwarfBind *b, TgAccess *list, Dwarf_Die *scope, int params, StrMap *seen, SrcLoc loc)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		TgAccess *a;
		Where w = { 0 };
		if ((params ? tag != DW_TAG_formal_parameter : tag != DW_TAG_variable) || !name ||
		    strmap_get(seen, name) || dwarf_hasattr_integrate(&child, DW_AT_declaration))
			continue;
		if (b->site->is_tracepoint && (!params || tracepoint_arg_index(b, &child) < 0))
			continue;
		strmap_put(seen, name, (void *)name);
		a = variable_access(b, &child, xasprintf("$%s", name), loc, &w);
		if (a && w.kind == W_LOC && !piece_at(a, 0, 1))
			a = NULL;
		derr_clear(b);   /* an entry that cannot be read shows "?" */
		vec_push(&list->var_names, xstrdup(name));
		vec_push(&list->var_access, a);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* ---- @cast ---- */

typedef struct TypeSearch {
	DwarfModule *m;
	int want_tag;            /* 0: any of struct, union, typedef, enum, base */
	Dwarf_Die found;
	int rank;                /* 3 complete struct/union, 2 typedef/enum/base, 1 declaration, 0 none */
} TypeSearch;

static int type_candidate(const DwarfName *n, void *arg)
{
	TypeSearch *ts = arg;
	int rank;
	Dwarf_Die die;

	switch (n->tag) {
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		rank = (n->flags & DWARF_NAME_DECLARATION) ? 1 : 3;
		break;
	case DW_TAG_typedef:
	case DW_TAG_enumeration_type:
	case DW_TAG_base_type:
		rank = 2;
		break;
	default:
		return 0;
	}
	if (ts->want_tag && n->tag != ts->want_tag)
		return 0;
	if (rank <= ts->rank || !dwarf_offdie(ts->m->dw, n->die, &die))
		return 0;
	ts->found = die;
	ts->rank = rank;
	return rank == 3;
}

int dwarf_find_type(Session *s, DwarfModule *m, const char *spec, Dwarf_Die *out)
{
	TypeSearch ts = { .m = m };
	const char *name = spec;
	char *key, *clean;
	Dwarf_Die *cached;
	size_t len;

	while (*name == ' ')
		name++;
	if (!strncmp(name, "struct ", 7)) {
		ts.want_tag = DW_TAG_structure_type;
		name += 7;
	} else if (!strncmp(name, "union ", 6)) {
		ts.want_tag = DW_TAG_union_type;
		name += 6;
	} else if (!strncmp(name, "enum ", 5)) {
		ts.want_tag = DW_TAG_enumeration_type;
		name += 5;
	} else if (!strncmp(name, "class ", 6)) {
		ts.want_tag = DW_TAG_class_type;
		name += 6;
	}
	while (*name == ' ')
		name++;
	len = strlen(name);
	while (len && name[len - 1] == ' ')
		len--;
	clean = xstrndup(name, len);
	key = xasprintf("%s|%d|%s", m->name, ts.want_tag, clean);
	if ((cached = strmap_get(&dwarf_cache(s)->cast_types, key))) {
		*out = *cached;
		free(key);
		free(clean);
		return 0;
	}
	if (*clean && !strpbrk(clean, "*?[ "))
		dwarf_index_each(m, clean, type_candidate, &ts);
	free(clean);
	if (!ts.rank) {
		free(key);
		return -1;
	}
	cached = xmalloc(sizeof *cached);
	*cached = ts.found;
	strmap_put(&dwarf_cache(s)->cast_types, key, cached);
	*out = ts.found;
	return 0;
}

/* "kernel", "kernel<linux/sched.h>", "ext4", "kernel:ext4": the debuginfo to search, in order. */
static int cast_module(DwarfBind *b, const char *spec, SrcLoc loc, PtrVec *mods)
{
	char *copy = xstrdup(spec), *save = NULL;

	for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		DwarfModule *m;
		char *lt = strchr(p, '<'), *user;
		if (lt)
			*lt = 0;   /* kernel<linux/sched.h>: the header only names where the type comes from */
		if (!*p || !strcmp(p, "kernel"))
			m = dwarf_kernel(b->s, loc);
		else if (b->site && b->site->mod && !strcmp(p, b->site->mod->name))
			m = b->site->mod;   /* the probed module, however it was named */
		else if ((user = userfile_path(p))) {
			m = userfile_module(b->s, user, loc);   /* a user binary or library: its DWARF, user reads */
			if (m && !m->dw) {
				diag_at(&b->s->diag, loc, "semantic error", "no DWARF debuginfo in %s (build it with -g), nor separate "
					"debuginfo (install its debug symbols)", user);
				m = NULL;
			}
			free(user);
		} else
			m = dwarf_module(b->s, p, loc);   /* a module name or a .ko path */
		if (!m) {
			b->err_shown = 1;
			free(copy);
			return -1;
		}
		vec_push(mods, m);
	}
	free(copy);
	if (!mods->len) {
		derr(b, loc, "@cast needs a module to find the type in");
		return -1;
	}
	return 0;
}

static TgAccess *cast_access(DwarfBind *b, Expr *e, Where *w)
{
	Expr *tname = e->args.items[1];
	/* by default the probed module's types, then the kernel's */
	const char *spec = e->args.len > 2 ? ((Expr *)e->args.items[2])->str :
			   b->site && b->site->mod && strcmp(b->site->mod->name, "kernel") ?
			   xasprintf(dwarf_kernel_quiet(b->s) ? "%s:kernel" : "%s", b->site->mod->name) :
			   "kernel";
	PtrVec mods = { 0 };
	TgAccess *a;
	int found = 0;

	if (b->quiet)
		diag_mute(&b->s->diag, 1);
	if (cast_module(b, spec, e->loc, &mods) != 0) {
		if (b->quiet)
			diag_mute(&b->s->diag, -1);
		return NULL;
	}
	if (b->quiet)
		diag_mute(&b->s->diag, -1);
	a = tg_access_new(TGA_READ);
	for (int i = 0; i < mods.len && !found; i++) {
		if (dwarf_find_type(b->s, mods.items[i], tname->str, &dwarf_leaf_of(a)->type) == 0) {
			dwarf_leaf_of(a)->mod = mods.items[i];
			found = 1;
		}
	}
	if (!found) {
		derr(b, tname->loc, "type '%s' not found in the debuginfo of %s", tname->str, spec);
		free(mods.items);
		return NULL;
	}
	free(mods.items);
	dwarf_leaf_of(a)->has_type = 1;
	a->base = TGB_POINTER;
	a->site = b->site;
	a->pc = b->site ? b->site->pc : 0;
	a->name = xasprintf("@cast(..., \"%s\")", tname->str);
	a->loc_base = a->loc_last = e->loc;
	a->op_last = "@cast";
	w->kind = W_MEM;
	w->off = 0;
	w->cast_ptr = 1;
	return a;
}

/* ---- @var ---- */

static int cu_matches(Dwarf_Die *cu, const char *file)
{
	const char *name = dwarf_diename(cu);
	size_t n, f = strlen(file);

	if (!name)
		return 0;
	n = strlen(name);
	return n >= f && !strcmp(name + n - f, file) && (n == f || name[n - f - 1] == '/');
}

/* A file-scope variable of the compile unit whose name ends with file (the shortest such name). */
static int find_file_variable(DwarfModule *m, const char *name, const char *file, Dwarf_Die *out, Dwarf_Die *cuout)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	size_t best = (size_t)-1;

	while (dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;
		if (dwarf_offdie(m->dw, off + hsize, &cu) && cu_matches(&cu, file) &&
		    strlen(dwarf_diename(&cu)) < best && dwarf_child(&cu, &child) == 0) {
			do {
				const char *n = dwarf_diename(&child);
				if (dwarf_tag(&child) == DW_TAG_variable && n && !strcmp(n, name)) {
					*out = child;
					*cuout = cu;
					best = strlen(dwarf_diename(&cu));
					break;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return best == (size_t)-1 ? -1 : 0;
}

static TgAccess *var_access(DwarfBind *b, Expr *e, Where *w)
{
	const char *spec = ((Expr *)e->args.items[0])->str;
	const char *at = strchr(spec, '@');
	char *name = at ? xstrndup(spec, (size_t)(at - spec)) : xstrdup(spec);
	char *shown = xasprintf("@var(\"%s\")", spec);
	DwarfModule *m = NULL;
	Dwarf_Die var, cu;
	TgAccess *a;

	if (e->args.len > 1) {
		PtrVec mods = { 0 };
		if (cast_module(b, ((Expr *)e->args.items[1])->str, e->loc, &mods) != 0)
			return NULL;
		m = mods.items[0];
		free(mods.items);
	} else if (b->site) {
		m = b->site->mod;
	} else if (at) {
		/* inside @defined, no kernel DWARF (a host typed from BTF) is just "not defined" */
		m = b->quiet ? dwarf_kernel_quiet(b->s) : dwarf_kernel(b->s, e->loc);
		if (!m) {
			b->err_shown = 1;
			return NULL;
		}
	}
	if (!at) {
		if (!b->site || m != b->site->mod) {
			derr(b, e->loc, "@var(\"%s\") outside a probe on a kernel function needs the file that defines it: "
			     "@var(\"%s@FILE.c\")", spec, spec);
			return NULL;
		}
		if (dwarf_bind_scopes(b, e->loc) != 0)
			return NULL;
		if (find_variable(b, name, &var) != 0) {
			derr(b, e->loc, "no variable '%s' is visible in %s", name, b->site->function);
			return NULL;
		}
		a = variable_access(b, &var, shown, e->loc, w);
		if (a)
			a->op_base = a->op_last = "@var";
		return a;
	}
	if (find_file_variable(m, name, at + 1, &var, &cu) != 0) {
		derr(b, e->loc, "no global variable '%s' in a compile unit '%s' of %s", name, at + 1, m->name);
		return NULL;
	}

	a = tg_access_new(TGA_READ);
	dwarf_leaf_of(a)->mod = m;
	a->site = b->site;
	a->pc = b->site && b->site->mod == m ? b->site->pc : 0;
	a->name = shown;
	a->loc_base = a->loc_last = e->loc;
	a->op_base = a->op_last = "@var";
	{
		Dwarf_Attribute attr;
		if (dwarf_attr_integrate(&var, DW_AT_type, &attr) && dwarf_formref_die(&attr, &dwarf_leaf_of(a)->type))
			dwarf_leaf_of(a)->has_type = 1;
	}
	if (bind_location(b, a, &var, shown, e->loc, w) != 0)
		return NULL;
	return a;
}

/* ---- @cast's module string ---- */

/* What @cast's module string names ("kernel", "nfs", "kernel:nfs", "nfs<linux/nfs_fs.h>", "/bin/ls"): the first
 * module (malloc'd, NULL for none); *user set when it names a user binary. */
char *dwarf_cast_spec_module(const char *spec, int *user)
{
	char *copy = xstrdup(spec), *save = NULL, *found = NULL;

	*user = 0;
	for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		char *path;
		p[strcspn(p, "<")] = 0;
		if (!*p || !strcmp(p, "kernel"))
			continue;
		if ((path = userfile_path(p))) {
			*user = 1;
			free(path);
		} else if (!found)
			found = xstrdup(p);
	}
	free(copy);
	return found;
}

/* ---- the questions the binding pass asks ---- */

/* $NAME or $return at the site: its access, with where its chain starts in *w. */
static TgAccess *target_access(DwarfBind *b, Expr *e, Where *w)
{
	Dwarf_Die var;

	if (!strcmp(e->str, "$return"))
		return return_access(b, e, w);
	if (dwarf_bind_scopes(b, e->loc) != 0)
		return NULL;
	if (find_variable(b, e->str + 1, &var) != 0 && b->site->is_tracepoint) {
		derr(b, e->loc, "tracepoint %s has no argument '%s' (its arguments: %s)",
		     b->site->function + strlen("__traceiter_"), e->str + 1, tracepoint_arg_names(b));
		return NULL;
	}
	if (find_variable(b, e->str + 1, &var) != 0) {
		derr(b, e->loc, "no variable '%s' is visible in %s at this point (%s@%s:%d)", e->str + 1,
		     b->site->function, b->site->function, b->site->decl_file ? b->site->decl_file : "?",
		     b->site->decl_line);
		return NULL;
	}
	return variable_access(b, &var, e->str, e->loc, w);
}

TgAccess *dwarf_bind_target(DwarfBind *b, Expr *e, BindMode mode)
{
	Where w = { 0 };
	TgAccess *a;
	int is_cast = e->kind == EX_AT && !strcmp(e->str, "cast");

	derr_clear(b);
	if (e->kind == EX_TARGET)
		a = target_access(b, e, &w);
	else if (is_cast)
		a = cast_access(b, e, &w);
	else
		a = var_access(b, e, &w);
	if (!a)
		return NULL;
	if (e->kind == EX_AT) {
		/* @cast keeps its address as args[0]; the type and module strings go */
		Expr *addr = e->args.items[0];
		e->args.len = 0;
		if (is_cast)
			vec_push(&e->args, addr);
	}
	if (a->base == TGB_POINTER && !e->chain.len && mode != BM_WRITE)
		a->what = TGA_ADDRESS;   /* @cast(p, "t") alone (or &@cast(p, "t")) is p */
	else if (bind_chain(b, e, a, &w, &e->chain, mode) != 0)
		return NULL;
	return a;
}

void dwarf_bind_vars(DwarfBind *b, const char *which, TgAccess *list, Expr *e)
{
	StrMap seen = { 0 };
	int fn = b->nscopes - 1;

	derr_clear(b);
	if (!strcmp(which, "return")) {
		Where w = { 0 };
		TgAccess *r = return_access(b, e, &w);
		derr_clear(b);   /* a function returning nothing gives "" */
		if (r) {
			vec_push(&list->var_names, xstrdup("return"));
			vec_push(&list->var_access, r);
		}
		return;
	}
	/* parameters of the probed function, then the locals visible at the pc */
	if (strcmp(which, "locals"))
		add_vars_of(b, list, &b->scopes[fn], 1, &seen, e->loc);
	if (strcmp(which, "parms"))
		for (int i = fn; i >= 0; i--)
			add_vars_of(b, list, &b->scopes[i], 0, &seen, e->loc);
	free(seen.keys);
	free(seen.values);
}

void dwarf_bind_reset(DwarfBind *b)
{
	free(b->scopes);
	b->scopes = NULL;
	b->have_scopes = 0;
	b->nscopes = 0;
	b->have_frame_fn = 0;
	derr_clear(b);
}
