/* targets.c - pass 2 for target variables: binds $var, $var->a[i], &..., $var$, $$vars, $return,
 * @cast, @var, @entry, @defined and @choose_defined to DWARF (the probe's DwarfSite, or the kernel's
 * types for @cast), rewriting them into EX_DWARF nodes. Called by elaborate.c; codegen/dwarf.c
 * writes their C. */
#include "vars.h"
#include "../providers/provider.h"
#include "../providers/ulibs.h"
#include "../btf/bind.h"

#include <string.h>

typedef struct Bind {
	Session *s;
	Probe *probe;            /* the probe being bound, NULL in a function */
	DerivedProbe *dp;        /* its DWARF derived probe, NULL when it has none */
	DwarfSite *site;
	int quiet;               /* inside @defined / the first choice of @choose_defined */
	int failed;              /* a quiet binding failed */
	int errors;
	int entry;               /* inside what is evaluated at function entry */
	int kret;                /* no DWARF site, but every point is a kprobe.function(...).return: @entry
	                          * values are saved by the kretprobe's entry handler (dp is the first) */
	/* the variables visible at the site's pc, found on first use */
	int have_scopes;
	Dwarf_Die *scopes;       /* innermost first, ending with the site's scope DIE */
	int nscopes;
	Dwarf_Die cudie;
	Dwarf_Die frame_fn;      /* the (out-of-line) subprogram holding the pc: its frame base */
	int have_frame_fn;
	AstVisitor v;
	PtrVec params;           /* Expr* (EX_AT "param"): the target variables the probe's alias declared */
	const char *nodwarf;     /* a point of the probe with a site but no DWARF scope (a process probe from
	                          * the symbol table, a .plt or .absolute one): its name, for the errors */
	StrMap reported;         /* "file:line:col" of errors shown: one per place, not one per site */
} Bind;

static int bind_visit(Expr *e, void *ctx);
static int const_cond(const Expr *e, int64_t *val);

static void berr(Bind *b, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void berr(Bind *b, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;
	char *key;

	if (b->quiet) {
		b->failed = 1;
		return;
	}
	b->errors++;
	/* a body copied to many sites would repeat the same error at the same place */
	key = xasprintf("%p:%d:%d", (const void *)loc.file, loc.line, loc.col);
	if (strmap_get(&b->reported, key)) {
		free(key);
		return;
	}
	strmap_put(&b->reported, key, key);
	va_start(ap, fmt);
	diag_vat(loc, "semantic error", fmt, ap);
	va_end(ap);
}

/* ---- the entry expressions of .return probes ---- */

typedef struct EntryList {
	const DerivedProbe *dp;
	PtrVec exprs;            /* Expr* (EX_DWARF, DWA_ENTRY) */
} EntryList;

static PtrVec entry_lists;   /* EntryList* */

PtrVec *dwarf_entry_exprs(const DerivedProbe *dp)
{
	for (int i = 0; i < entry_lists.len; i++) {
		EntryList *l = entry_lists.items[i];
		if (l->dp == dp)
			return &l->exprs;
	}
	return NULL;
}

static void add_entry_expr(const DerivedProbe *dp, Expr *e)
{
	PtrVec *v = dwarf_entry_exprs(dp);

	if (!v) {
		EntryList *l = xcalloc(1, sizeof *l);
		l->dp = dp;
		vec_push(&entry_lists, l);
		v = &l->exprs;
	}
	vec_push(v, e);
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
static int site_scopes(Bind *b, SrcLoc loc)
{
	DwarfModule *m = b->site->mod;
	PtrVec chain = { 0 };
	Dwarf_Die cur;

	if (b->have_scopes)
		return b->nscopes > 0 ? 0 : -1;
	b->have_scopes = 1;
	if (!dwarf_offdie(m->dw, b->site->cu, &b->cudie) || !dwarf_offdie(m->dw, b->site->scope, &cur)) {
		berr(b, loc, "cannot read the debuginfo of %s in %s", b->site->function, m->path);
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
static int tracepoint_arg_index(Bind *b, Dwarf_Die *var)
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
static char *tracepoint_arg_names(Bind *b)
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
static int find_variable(Bind *b, const char *name, Dwarf_Die *out)
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

DwAccess *dwa_new(DwWhat what)
{
	DwAccess *a = xcalloc(1, sizeof *a);

	a->what = what;
	a->slot = -1;
	return a;
}

void dwa_add_step(DwAccess *a, DwStepKind kind, int64_t n, int arg, SrcLoc loc, const char *op)
{
	DwStep *st;

	if (kind == DWS_ADD && a->steps.len) {
		DwStep *last = a->steps.items[a->steps.len - 1];
		if (last->kind == DWS_ADD) {
			last->n += n;
			return;
		}
	}
	st = xcalloc(1, sizeof *st);
	st->kind = kind;
	st->n = n;
	st->arg = arg;
	st->loc = loc;
	st->op = op;
	vec_push(&a->steps, st);
}

static const DwPiece *piece_at(const DwAccess *a, int64_t off, int64_t size)
{
	for (int i = 0; i < a->loc.npieces; i++) {
		const DwPiece *p = &a->loc.pieces[i];
		if (off >= (int64_t)p->offset && off + size <= (int64_t)(p->offset + p->size))
			return p;
	}
	return NULL;
}

static char *pc_text(DwAccess *a)
{
	return xasprintf("pc 0x%llx", (unsigned long long)a->pc);
}

/* The location of variable var at the site's pc into a; the start of the chain into *w. */
static int bind_location(Bind *b, DwAccess *a, Dwarf_Die *var, const char *shown, SrcLoc loc, Where *w)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	char *err = NULL;
	int n;

	if (b->site && b->site->is_tracepoint) {
		a->base = DWB_ARG;
		a->arg_index = tracepoint_arg_index(b, var);
		w->kind = W_VAL;
		w->off = 0;
		return a->arg_index >= 0 ? 0 : -1;
	}
	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		Dwarf_Sword sv;
		Dwarf_Word uv;
		a->base = DWB_CONST;
		if (dwarf_formsdata(&attr, &sv) == 0)
			a->const_value = sv;
		else if (dwarf_formudata(&attr, &uv) == 0)
			a->const_value = (int64_t)uv;
		else {
			berr(b, loc, "'%s' is a constant of a form that is not supported", shown);
			return -1;
		}
		w->kind = W_VAL;
		return 0;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &attr)) {
		uint64_t addr;
		const char *name = dwarf_diename(var);
		if (dwarf_hasattr_integrate(var, DW_AT_declaration) && name && dwloc_symbol(a->mod, name, &addr) == 0) {
			char *rel = dwloc_reloc(a->mod, addr, &err);
			if (!rel) {
				berr(b, loc, "'%s' cannot be read: %s", shown, err);
				return -1;
			}
			free(rel);
			a->base = DWB_SYMBOL;
			a->sym_addr = addr;
			w->kind = W_MEM;
			return 0;
		}
		berr(b, loc, "target variable '%s' is not accessible at this address (%s): it has no location "
		     "(optimized out)", shown, pc_text(a));
		return -1;
	}
	n = dwarf_getlocation_addr(&attr, a->pc, &ops, &nops, 1);
	if (n <= 0) {
		berr(b, loc, "target variable '%s' is not accessible at this address (%s)", shown, pc_text(a));
		return -1;
	}
	if (dwloc_analyze(ops, nops, &a->loc, &err) != 0) {
		berr(b, loc, "target variable '%s' is not accessible at this address (%s): %s", shown, pc_text(a), err);
		return -1;
	}
	/* compile once now, so that unsupported operations are reported here */
	for (int i = 0; i < a->loc.npieces; i++) {
		DwPiece *p = &a->loc.pieces[i];
		DwLocCtx ctx = { .mod = a->mod, .pc = a->pc, .frame_fn = a->have_frame_fn ? &a->frame_fn : NULL,
				 .fail = "out" };
		StrBuf scratch;
		if (p->kind == DWLOC_REG && !dwloc_reg_name(p->reg)) {
			berr(b, loc, "target variable '%s' is in DWARF register %d at %s, which is not supported", shown,
			     p->reg, pc_text(a));
			return -1;
		}
		if (p->kind != DWLOC_ADDR && p->kind != DWLOC_VALUE)
			continue;
		sb_init(&scratch);
		if (dwloc_emit(&ctx, p, "x", &scratch, &err) != 0) {
			sb_free(&scratch);
			berr(b, loc, "target variable '%s' is not accessible at this address (%s): %s", shown, pc_text(a), err);
			return -1;
		}
		sb_free(&scratch);
	}
	a->base = DWB_LOCATION;
	w->off = 0;
	if (a->loc.has_pieces) {
		w->kind = W_LOC;
		return 0;
	}
	switch (a->loc.pieces[0].kind) {
	case DWLOC_ADDR:
		w->kind = W_MEM;
		break;
	case DWLOC_IMPLICIT:
		w->kind = a->loc.pieces[0].nbytes <= 8 ? W_VAL : W_MEM;
		break;
	case DWLOC_EMPTY:
		berr(b, loc, "target variable '%s' is not accessible at this address (%s): optimized out", shown,
		     pc_text(a));
		return -1;
	default:
		w->kind = W_VAL;
		break;
	}
	return 0;
}

static DwAccess *variable_access(Bind *b, Dwarf_Die *var, const char *shown, SrcLoc loc, Where *w)
{
	DwAccess *a = dwa_new(DWA_READ);
	Dwarf_Attribute attr;

	a->mod = b->site->mod;
	a->site = b->site;
	a->pc = b->site->pc;
	a->frame_fn = b->frame_fn;
	a->have_frame_fn = b->have_frame_fn;
	a->name = xstrdup(shown);
	a->loc_base = loc;
	a->loc_last = loc;
	if (dwarf_attr_integrate(var, DW_AT_type, &attr) && dwarf_formref_die(&attr, &a->type))
		a->has_type = 1;
	if (bind_location(b, a, var, shown, loc, w) != 0)
		return NULL;
	return a;
}

/* Checks that the object at w (size bytes) can be read; for W_LOC its piece must hold it. */
static int check_readable(Bind *b, DwAccess *a, Where *w, int64_t size, SrcLoc loc)
{
	if (w->kind == W_VAL && w->off + size > 8 &&
	    !(a->base == DWB_LOCATION && a->loc.pieces[0].kind == DWLOC_IMPLICIT)) {
		berr(b, loc, "'%s' is held in a register: bytes %lld to %lld of it cannot be read", a->name,
		     (long long)w->off, (long long)(w->off + size));
		return -1;
	}
	if (w->kind == W_LOC) {
		const DwPiece *p = piece_at(a, w->off, size);
		if (!p) {
			berr(b, loc, "'%s' spans several pieces of its location at %s, which is not supported", a->name,
			     pc_text(a));
			return -1;
		}
		if (p->kind == DWLOC_EMPTY) {
			berr(b, loc, "'%s' is not accessible at this address (%s): optimized out", a->name, pc_text(a));
			return -1;
		}
	}
	return 0;
}

/* The object at w must be in memory (indexes computed at run time, &): W_LOC moves to its piece. */
static int need_memory(Bind *b, DwAccess *a, Where *w, SrcLoc loc, const char *why)
{
	if (w->kind == W_MEM)
		return 0;
	if (w->kind == W_LOC) {
		const DwPiece *p = piece_at(a, w->off, 1);
		if (p && p->kind == DWLOC_ADDR)
			return 0;   /* codegen resolves the piece to its address */
	}
	berr(b, loc, "%s '%s': it is not in memory at %s (held in a register or computed)", why, a->name,
	     pc_text(a));
	return -1;
}

static void extend_name(DwAccess *a, const char *fmt, const char *arg)
{
	char *n = xasprintf(fmt, a->name, arg);
	free(a->name);
	a->name = n;
}

/* A struct/union type ready for member lookups: stripped and completed. */
static int struct_type(Bind *b, DwAccess *a, Dwarf_Die *type, Dwarf_Die *out, SrcLoc loc)
{
	int tag = dwt_strip(type, out);

	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type)
		return -1;
	if (dwt_complete(a->mod, out, out) != 0) {
		char *n = dwt_name(type);
		berr(b, loc, "%s is only declared in the debuginfo (no definition), so its members are unknown", n);
		free(n);
		return -2;
	}
	return 0;
}

/* The struct or union (in *su) whose member '->NAME' of item it reads, from type; 0, or -1 after
 * an error naming a's type. */
static int member_owner(Bind *b, DwAccess *a, Dwarf_Die *type, Dwarf_Die *su, const ChainItem *it)
{
	int rc = struct_type(b, a, type, su, it->loc);
	char *tn;

	if (rc == -2)
		return -1;
	if (rc != 0) {
		tn = dwt_name(&a->type);
		berr(b, it->loc, "'->%s' needs a struct or union, or a pointer to one: '%s' is %s", it->name,
		     a->name, tn);
		free(tn);
		return -1;
	}
	return 0;
}

static int bind_member(Bind *b, DwAccess *a, Where *w, ChainItem *it)
{
	Dwarf_Die t, su, pointee;
	int tag;
	DwMember m;
	char *tn;

	if (!a->has_type) {
		berr(b, it->loc, "'%s' has no type: '->%s' cannot be applied", a->name, it->name);
		return -1;
	}
	if (a->bit_size) {
		berr(b, it->loc, "'%s' is a bit field: '->%s' cannot be applied", a->name, it->name);
		return -1;
	}
	tag = dwt_strip(&a->type, &t);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type) {
		Dwarf_Attribute attr;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &pointee)) {
			berr(b, it->loc, "'%s' is a void pointer: '->%s' needs a pointer to a struct or union "
			     "(use @cast)", a->name, it->name);
			return -1;
		}
		if (member_owner(b, a, &pointee, &su, it) != 0)
			return -1;
		if (w->kind == W_LOC && check_readable(b, a, w, 8, it->loc) != 0)
			return -1;
		dwa_add_step(a, DWS_DEREF, 0, 0, it->loc, "->");
		w->kind = W_MEM;
		w->off = 0;
		dwt_strip_cv(&pointee, &pointee);
		tn = dwt_name(&pointee);
	} else {
		Dwarf_Die plain;
		if (member_owner(b, a, &a->type, &su, it) != 0)
			return -1;
		dwt_strip_cv(&a->type, &plain);
		tn = dwt_name(&plain);
	}
	if (dwt_find_member(&su, it->name, &m) != 0) {
		char *names = dwt_member_list(&su, 12);
		berr(b, it->loc, "%s has no member '%s' (its members: %s)", tn, it->name, *names ? names : "none");
		free(names);
		free(tn);
		return -1;
	}
	free(tn);
	dwa_add_step(a, DWS_ADD, m.offset, 0, it->loc, "->");
	w->off += m.offset;
	a->type = m.type;
	a->bit_size = m.bit_size;
	a->bit_offset = m.bit_offset;
	a->loc_last = it->loc;
	a->op_last = "->";
	w->dims_used = 0;
	extend_name(a, "%s->%s", it->name);
	return 0;
}

static int bind_index(Bind *b, Expr *e, DwAccess *a, Where *w, ChainItem *it)
{
	Dwarf_Die t, elem;
	int tag, literal = it->index->kind == EX_NUMBER;
	int64_t stride, counts[8], bound = -1;
	int dims;
	char *tn;

	if (!a->has_type || a->bit_size) {
		berr(b, it->loc, "'%s' cannot be indexed", a->name);
		return -1;
	}
	tag = dwt_strip(&a->type, &t);
	if (w->cast_ptr) {
		/* @cast(p, "T")[i]: p is a T *, so element i is at p + i * sizeof(T) (SystemTap's
		 * meaning; &@cast(0, "T")[1] is sizeof(T)) */
		elem = a->type;
		stride = dwt_size(&elem);
	} else if (tag == DW_TAG_array_type) {
		dims = dwt_array_dims(&t, &elem, counts, 8);
		if (!dims || w->dims_used >= dims) {
			berr(b, it->loc, "the array '%s' has no dimensions described", a->name);
			return -1;
		}
		stride = dwt_size(&elem);
		for (int i = w->dims_used + 1; i < dims && stride >= 0; i++)
			stride = counts[i] < 0 ? -1 : stride * counts[i];
		bound = counts[w->dims_used];
		w->dims_used++;
		if (w->dims_used == dims) {
			a->type = elem;
			w->dims_used = 0;
		}
	} else if (tag == DW_TAG_pointer_type) {
		Dwarf_Attribute attr;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &elem)) {
			berr(b, it->loc, "'%s' is a void pointer, which cannot be indexed (use @cast)", a->name);
			return -1;
		}
		stride = dwt_size(&elem);
		if (w->kind == W_LOC && check_readable(b, a, w, 8, it->loc) != 0)
			return -1;
		dwa_add_step(a, DWS_DEREF, 0, 0, it->loc, "[");
		w->kind = W_MEM;
		w->off = 0;
		a->type = elem;
	} else {
		tn = dwt_name(&a->type);
		berr(b, it->loc, "'[' needs an array or a pointer: '%s' is %s", a->name, tn);
		free(tn);
		return -1;
	}
	if (stride <= 0) {
		tn = dwt_name(&elem);
		berr(b, it->loc, "the elements of '%s' (%s) have no known size", a->name, tn);
		free(tn);
		return -1;
	}
	if (literal) {
		int64_t i = it->index->num;
		if (bound >= 0 && (i < 0 || i >= bound)) {
			berr(b, it->index->loc, "index %lld is out of range for '%s' (%lld element%s)", (long long)i,
			     a->name, (long long)bound, bound == 1 ? "" : "s");
			return -1;
		}
		dwa_add_step(a, DWS_ADD, i * stride, 0, it->loc, "[");
		w->off += i * stride;
		extend_name(a, "%s[%s]", xasprintf("%lld", (long long)i));
	} else {
		if (need_memory(b, a, w, it->loc, "cannot compute an index into") != 0)
			return -1;
		dwa_add_step(a, DWS_INDEX, stride, e->args.len, it->loc, "[");
		vec_push(&e->args, it->index);
		w->kind = W_MEM;
		w->off = 0;
		extend_name(a, "%s[%s]", "...");
	}
	a->loc_last = it->loc;
	a->op_last = "[";
	return 0;
}

/* After the chain: what the expression yields. */
static int bind_final(Bind *b, Expr *e, DwAccess *a, Where *w, BindMode mode)
{
	Dwarf_Die t;
	int tag;
	char *tn;

	if (a->what == DWA_PRETTY) {
		if (mode != BM_VALUE) {
			berr(b, e->loc, "a pretty-printed value ('%s$') cannot be %s", a->name,
			     mode == BM_ADDRESS ? "addressed" : "assigned");
			return -1;
		}
		if (w->kind == W_LOC && !piece_at(a, w->off, 1)) {
			berr(b, e->loc, "'%s' is not accessible at this address (%s)", a->name, pc_text(a));
			return -1;
		}
		return 0;
	}
	if (mode == BM_ADDRESS) {
		if (a->bit_size) {
			berr(b, e->loc, "cannot take the address of the bit field '%s'", a->name);
			return -1;
		}
		a->what = DWA_ADDRESS;
		return need_memory(b, a, w, e->loc, "cannot take the address of");
	}
	if (!a->has_type) {
		berr(b, e->loc, "'%s' has no type (void)", a->name);
		return -1;
	}
	tag = dwt_strip(&a->type, &t);
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		if (dwt_is_float(&t)) {
			berr(b, e->loc, "'%s' is a floating point value, which is not supported", a->name);
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
			berr(b, e->loc, "the array '%s' cannot be assigned", a->name);
			return -1;
		}
		a->array_address = 1;
		return need_memory(b, a, w, e->loc, "cannot use the array");
	default:
		tn = dwt_name(&a->type);
		if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type)
			berr(b, e->loc, "'%s' is a %s, which is not a value: use a member ('->'), its address ('&') or "
			     "pretty-print it ('%s$')", a->name, tn, a->name);
		else
			berr(b, e->loc, "'%s' has the type %s, which cannot be used as a value", a->name, tn);
		free(tn);
		return -1;
	}
	if (a->size < 1 || a->size > 8) {
		tn = dwt_name(&a->type);
		berr(b, e->loc, "'%s' (%s) has a size of %d bytes, which is not supported", a->name, tn, a->size);
		free(tn);
		return -1;
	}
	if (a->bit_size && (a->bit_offset + a->bit_size > 64 || a->bit_size > 64)) {
		berr(b, e->loc, "the bit field '%s' spans more than 8 bytes, which is not supported", a->name);
		return -1;
	}
	if (check_readable(b, a, w, a->bit_size ? (a->bit_offset + a->bit_size + 7) / 8 : a->size, e->loc) != 0)
		return -1;
	if (mode == BM_WRITE) {
		int storage = w->kind == W_MEM;
		if (w->kind == W_VAL && a->base == DWB_LOCATION && a->loc.pieces[0].kind == DWLOC_REG && !a->bit_size)
			storage = 1;
		if (w->kind == W_VAL && a->base == DWB_RETURN)
			storage = 1;     /* the return register: the caller sees the new value */
		if (w->kind == W_LOC) {
			const DwPiece *p = piece_at(a, w->off, a->size);
			storage = p && (p->kind == DWLOC_ADDR || (p->kind == DWLOC_REG && !a->bit_size));
		}
		if (!storage && a->base == DWB_ARG && w->kind == W_VAL) {
			berr(b, e->loc, "'%s' is a tracepoint argument, which cannot be written", a->name);
			return -1;
		}
		if (!storage) {
			berr(b, e->loc, "'%s' cannot be written at %s: it is a computed value, not stored anywhere", a->name,
			     pc_text(a));
			return -1;
		}
	}
	return 0;
}

static int bind_chain(Bind *b, Expr *e, DwAccess *a, Where *w, PtrVec *chain, BindMode mode)
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
			a->what = DWA_PRETTY;
			a->pretty_full = !strcmp(it->name, "$$");
			break;
		}
		w->cast_ptr = 0;
		if (rc)
			return -1;
	}
	return bind_final(b, e, a, w, mode);
}

/* Turns e into the EX_DWARF node of a; the chain's computed indexes are already in e->args. */
static void make_dwarf(Expr *e, DwAccess *a)
{
	e->kind = EX_DWARF;
	e->dwarf = a;
	e->chain.len = 0;
	e->type = a->what == DWA_PRETTY || a->what == DWA_VARS ? TY_STRING : TY_LONG;
}

/* In a .return probe, a target read at the function's entry: e becomes a saved value. */
static void wrap_entry(Bind *b, Expr *e)
{
	Expr *inner = xcalloc(1, sizeof *inner);
	DwAccess *a = dwa_new(DWA_ENTRY);

	*inner = *e;
	memset(&e->args, 0, sizeof e->args);
	memset(&e->chain, 0, sizeof e->chain);
	e->kind = EX_DWARF;
	e->left = inner;
	e->right = e->cond = NULL;
	e->type = inner->type;
	a->dp = b->dp;
	a->site = b->site;
	a->name = xstrdup(inner->dwarf ? inner->dwarf->name : "@entry");
	e->dwarf = a;
	add_entry_expr(b->dp, e);
}

static int in_dwarf_probe(Bind *b, Expr *e, const char *what)
{
	if (b->site)
		return 1;
	if (b->nodwarf) {
		(void)what;
		berr(b, e->loc, "'%s' is not available: no DWARF describes probe point '%s' (a probe from the symbol "
		     "table, a .plt or an .absolute one has no target variables)", e->str, b->nodwarf);
		return 0;
	}
	if (!b->probe)
		berr(b, e->loc, "%s can only be used in probes on kernel functions and statements, not in a function",
		     what);
	else
		berr(b, e->loc, "%s can only be used in kernel.function(), module().function(), kernel.statement() "
		     "and kernel.trace() probes", what);
	return 0;
}

static void bind_args(Bind *b, Expr *e, int from)
{
	for (int i = from; i < e->args.len; i++)
		ast_walk_expr(e->args.items[i], &b->v);
}

/* ---- $$vars, $$parms, $$locals, $$return ---- */

static DwAccess *return_access(Bind *b, Expr *e, Where *w);

static void add_vars_of(Bind *b, DwAccess *list, Dwarf_Die *scope, int params, StrMap *seen, SrcLoc loc)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		DwAccess *a;
		Where w = { 0 };
		int q = b->quiet, f = b->failed;
		if ((params ? tag != DW_TAG_formal_parameter : tag != DW_TAG_variable) || !name ||
		    strmap_get(seen, name) || dwarf_hasattr_integrate(&child, DW_AT_declaration))
			continue;
		if (b->site->is_tracepoint && (!params || tracepoint_arg_index(b, &child) < 0))
			continue;
		strmap_put(seen, name, (void *)name);
		b->quiet = 1;
		b->failed = 0;
		a = variable_access(b, &child, xasprintf("$%s", name), loc, &w);
		if (a && w.kind == W_LOC && !piece_at(a, 0, 1))
			a = NULL;
		b->quiet = q;
		b->failed = f;
		vec_push(&list->var_names, xstrdup(name));
		vec_push(&list->var_access, a);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The BTF a target variable of a BTF-typed site is typed from: its module's or the kernel's. */
static Btf *site_btf(const Bind *b)
{
	return b->site->btf ? b->site->btf : b->s->btf;
}

static int bind_vars(Bind *b, Expr *e)
{
	const char *which = e->str + 2;
	DwAccess *list;
	StrMap seen = { 0 };

	if (strcmp(which, "vars") && strcmp(which, "parms") && strcmp(which, "locals") && strcmp(which, "return")) {
		berr(b, e->loc, "unknown context variable list '%s': $$vars, $$parms, $$locals or $$return", e->str);
		return -1;
	}
	if (!in_dwarf_probe(b, e, e->str))
		return -1;
	if (!b->site->btf_func && site_scopes(b, e->loc) != 0)
		return -1;
	list = dwa_new(DWA_VARS);
	list->name = xstrdup(e->str);
	list->site = b->site;
	list->mod = b->site->mod;
	list->pc = b->site->pc;
	for (int i = 0; i < e->chain.len; i++) {
		ChainItem *it = e->chain.items[i];
		if (it->kind != CH_PRETTY) {
			berr(b, it->loc, "'%s' is a string: '->' and '[' cannot be applied to it", e->str);
			return -1;
		}
		list->pretty_full = !strcmp(it->name, "$$") ? 2 : 1;
	}
	if (b->site->btf_func) {
		BtfBind bb = { .btf = site_btf(b), .site = b->site, .kver = b->s->kver };
		if (!strcmp(which, "return") && !b->site->is_return) {
			berr(b, e->loc, "$$return is only available in .return probes");
			return -1;
		}
		if (btf_bind_vars(&bb, which, list) != 0) {
			berr(b, e->loc, "'%s' in a probe typed from BTF is not supported (BTF has no locals): it needs the "
			     "kernel's DWARF (install linux-image-%s-dbg)", e->str, b->s->kver);
			return -1;
		}
	} else if (!strcmp(which, "return")) {
		Where w = { 0 };
		DwAccess *r;
		int q = b->quiet, f = b->failed;
		if (!b->site->is_return) {
			berr(b, e->loc, "$$return is only available in .return probes");
			return -1;
		}
		/* a function returning nothing gives "" */
		b->quiet = 1;
		r = return_access(b, e, &w);
		b->quiet = q;
		b->failed = f;
		if (r) {
			vec_push(&list->var_names, xstrdup("return"));
			vec_push(&list->var_access, r);
		}
	} else {
		/* parameters of the probed function, then the locals visible at the pc */
		int fn = b->nscopes - 1;
		if (strcmp(which, "locals"))
			add_vars_of(b, list, &b->scopes[fn], 1, &seen, e->loc);
		if (strcmp(which, "parms"))
			for (int i = fn; i >= 0; i--)
				add_vars_of(b, list, &b->scopes[i], 0, &seen, e->loc);
	}
	free(seen.keys);
	free(seen.values);
	make_dwarf(e, list);
	if (b->site->is_return && strcmp(which, "return") && !b->entry)
		wrap_entry(b, e);
	return 0;
}

/* ---- $return ---- */

static DwAccess *return_access(Bind *b, Expr *e, Where *w)
{
	Dwarf_Die fn;
	Dwarf_Attribute attr;
	DwAccess *a;

	if (!b->site->is_return) {
		berr(b, e->loc, "$return is only available in .return probes");
		return NULL;
	}
	if (b->entry) {
		berr(b, e->loc, "$return has no value yet when the function is entered (inside @entry)");
		return NULL;
	}
	if (!dwarf_offdie(b->site->mod->dw, b->site->scope, &fn)) {
		berr(b, e->loc, "cannot read the debuginfo of %s", b->site->function);
		return NULL;
	}
	a = dwa_new(DWA_READ);
	if (!dwarf_attr_integrate(&fn, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &a->type)) {
		berr(b, e->loc, "'%s' returns nothing: there is no $return", b->site->function);
		return NULL;
	}
	a->has_type = 1;
	a->base = DWB_RETURN;
	a->mod = b->site->mod;
	a->site = b->site;
	a->pc = b->site->pc;
	a->name = xstrdup("$return");
	a->loc_base = a->loc_last = e->loc;
	w->kind = W_VAL;
	w->off = 0;
	if (dwt_size(&a->type) > 8) {
		berr(b, e->loc, "'%s' returns a value larger than 8 bytes, which $return does not support",
		     b->site->function);
		return NULL;
	}
	return a;
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

static StrMap cast_types;   /* "module|name" -> Dwarf_Die* */

static int find_type(DwarfModule *m, const char *spec, Dwarf_Die *out)
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
	if ((cached = strmap_get(&cast_types, key))) {
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
	strmap_put(&cast_types, key, cached);
	*out = ts.found;
	return 0;
}

/* "kernel", "kernel<linux/sched.h>", "ext4", "kernel:ext4": the debuginfo to search, in order. */
static int cast_module(Bind *b, const char *spec, SrcLoc loc, PtrVec *mods)
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
		else if ((user = ulib_user_path(p))) {
			m = ulib_module(b->s, user, loc);   /* a user binary or library: its DWARF, user reads */
			if (m && !m->dw) {
				diag_at(loc, "semantic error", "no DWARF debuginfo in %s (build it with -g), nor separate "
					"debuginfo (install its debug symbols)", user);
				m = NULL;
			}
			free(user);
		} else
			m = dwarf_module(b->s, p, loc);   /* a module name or a .ko path */
		if (!m) {
			if (b->quiet)
				b->failed = 1;
			else
				b->errors++;
			free(copy);
			return -1;
		}
		vec_push(mods, m);
	}
	free(copy);
	if (!mods->len) {
		berr(b, loc, "@cast needs a module to find the type in");
		return -1;
	}
	return 0;
}

static DwAccess *cast_access(Bind *b, Expr *e, Where *w)
{
	Expr *tname = e->args.items[1];
	/* by default the probed module's types, then the kernel's */
	const char *spec = e->args.len > 2 ? ((Expr *)e->args.items[2])->str :
			   b->site && b->site->mod && strcmp(b->site->mod->name, "kernel") ?
			   xasprintf(dwarf_kernel_quiet(b->s) ? "%s:kernel" : "%s", b->site->mod->name) :
			   "kernel";
	PtrVec mods = { 0 };
	DwAccess *a;
	int found = 0;

	if (b->quiet)
		diag_mute(1);
	if (cast_module(b, spec, e->loc, &mods) != 0) {
		if (b->quiet)
			diag_mute(-1);
		return NULL;
	}
	if (b->quiet)
		diag_mute(-1);
	a = dwa_new(DWA_READ);
	for (int i = 0; i < mods.len && !found; i++) {
		if (find_type(mods.items[i], tname->str, &a->type) == 0) {
			a->mod = mods.items[i];
			found = 1;
		}
	}
	if (!found) {
		berr(b, tname->loc, "type '%s' not found in the debuginfo of %s", tname->str, spec);
		free(mods.items);
		return NULL;
	}
	free(mods.items);
	a->has_type = 1;
	a->base = DWB_POINTER;
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

static DwAccess *var_access(Bind *b, Expr *e, Where *w)
{
	const char *spec = ((Expr *)e->args.items[0])->str;
	const char *at = strchr(spec, '@');
	char *name = at ? xstrndup(spec, (size_t)(at - spec)) : xstrdup(spec);
	char *shown = xasprintf("@var(\"%s\")", spec);
	DwarfModule *m = NULL;
	Dwarf_Die var, cu;
	DwAccess *a;

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
			if (b->quiet)
				b->failed = 1;
			else
				b->errors++;
			return NULL;
		}
	}
	if (!at) {
		if (!b->site || m != b->site->mod) {
			berr(b, e->loc, "@var(\"%s\") outside a probe on a kernel function needs the file that defines it: "
			     "@var(\"%s@FILE.c\")", spec, spec);
			return NULL;
		}
		if (site_scopes(b, e->loc) != 0)
			return NULL;
		if (find_variable(b, name, &var) != 0) {
			berr(b, e->loc, "no variable '%s' is visible in %s", name, b->site->function);
			return NULL;
		}
		a = variable_access(b, &var, shown, e->loc, w);
		if (a)
			a->op_base = a->op_last = "@var";
		return a;
	}
	if (find_file_variable(m, name, at + 1, &var, &cu) != 0) {
		berr(b, e->loc, "no global variable '%s' in a compile unit '%s' of %s", name, at + 1, m->name);
		return NULL;
	}

	a = dwa_new(DWA_READ);
	a->mod = m;
	a->site = b->site;
	a->pc = b->site && b->site->mod == m ? b->site->pc : 0;
	a->name = shown;
	a->loc_base = a->loc_last = e->loc;
	a->op_base = a->op_last = "@var";
	{
		Dwarf_Attribute attr;
		if (dwarf_attr_integrate(&var, DW_AT_type, &attr) && dwarf_formref_die(&attr, &a->type))
			a->has_type = 1;
	}
	if (bind_location(b, a, &var, shown, e->loc, w) != 0)
		return NULL;
	return a;
}

/* ---- one target expression ---- */

/* Binds e (EX_TARGET, or EX_AT cast/var) with its chain, rewriting it in place. */
/* A target variable of a probe typed from BTF (no DWARF): btf/bind.c types it. */
static int bind_btf(Bind *b, Expr *e, BindMode mode)
{
	BtfBind bb = { .btf = site_btf(b), .site = b->site, .kver = b->s->kver, .in_entry = b->entry };
	int implicit_entry = b->site->is_return && !b->entry && strcmp(e->str, "$return");
	DwAccess *a;

	if (mode == BM_WRITE) {
		berr(b, e->loc, "'%s' cannot be assigned in a probe typed from BTF (the kernel's DWARF is needed: install "
		     "linux-image-%s-dbg)", e->str, b->s->kver);
		return -1;
	}
	if (!(a = btf_bind_target(&bb, e, mode))) {
		berr(b, bb.err_loc, "%s", bb.err);
		free(bb.err);
		return -1;
	}
	make_dwarf(e, a);
	if (implicit_entry)
		wrap_entry(b, e);
	return 0;
}

/* What @cast's module string names ("kernel", "nfs", "kernel:nfs", "nfs<linux/nfs_fs.h>", "/bin/ls"): the first
 * module (malloc'd, NULL for none); *user set when it names a user binary. */
static char *cast_spec_module(const char *spec, int *user)
{
	char *copy = xstrdup(spec), *save = NULL, *found = NULL;

	*user = 0;
	for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		char *path;
		p[strcspn(p, "<")] = 0;
		if (!*p || !strcmp(p, "kernel"))
			continue;
		if ((path = ulib_user_path(p))) {
			*user = 1;
			free(path);
		} else if (!found)
			found = xstrdup(p);
	}
	free(copy);
	return found;
}

/* Whether @cast is typed from BTF, and which: the kernel's when its types are asked for ("kernel",
 * "kernel<HEADER>", none outside module probes) and it has no DWARF; a module's when it has none (its split BTF
 * holds the kernel's types too). NULL: DWARF types it (or reports why it cannot). *why: no BTF either. */
static Btf *cast_btf(Bind *b, Expr *e, const char **why)
{
	const char *spec = e->args.len > 2 ? ((Expr *)e->args.items[2])->str : NULL;
	char *module;
	int user;
	Btf *btf = NULL;
	Dwarf_Die type;

	*why = NULL;
	if (!spec && b->site && b->site->btf)
		return b->site->btf;   /* a module's BTF-typed probe: its types, then the kernel's */
	/* a module probe's: its module's DWARF types first, then the kernel's DWARF, or its BTF without that */
	if (!spec && b->site && b->site->mod && !b->site->mod->is_kernel)
		return !dwarf_kernel_quiet(b->s) && find_type(b->site->mod, ((Expr *)e->args.items[1])->str, &type) != 0 ?
		       btf_kernel(b->s, why) : NULL;
	module = cast_spec_module(spec ? spec : "kernel", &user);
	if (user) {
		free(module);
		return NULL;   /* a user binary's types: its DWARF */
	}
	if (module) {
		if (!dwarf_module_quiet(b->s, module))
			btf = btf_module(b->s, module, why);
		free(module);
		return btf;
	}
	return dwarf_kernel_quiet(b->s) ? NULL : btf_kernel(b->s, why);
}

static int bind_cast_btf(Bind *b, Expr *e, BindMode mode, Btf *btf)
{
	BtfBind bb = { .btf = btf, .site = b->site, .kver = b->s->kver };
	DwAccess *a;
	Expr *addr = e->args.items[0], *tname = e->args.items[1];

	/* the address stays args[0]; the type and module strings go, computed indexes follow */
	e->args.len = 0;
	vec_push(&e->args, addr);
	if (!(a = btf_bind_cast(&bb, e, tname, mode))) {
		berr(b, bb.err_loc, "%s", bb.err);
		free(bb.err);
		return -1;
	}
	make_dwarf(e, a);
	bind_args(b, e, 0);   /* the address may hold target variables */
	return 0;
}

static int bind_target(Bind *b, Expr *e, BindMode mode)
{
	DwAccess *a = NULL;
	Where w = { 0 };
	int implicit_entry = 0;
	int first_arg = 0;
	const char *why;
	Btf *btf;

	if (e->kind == EX_TARGET) {
		if (!strncmp(e->str, "$$", 2)) {
			if (mode != BM_VALUE) {
				berr(b, e->loc, "'%s' is a string: it cannot be %s", e->str,
				     mode == BM_ADDRESS ? "addressed" : "assigned");
				return -1;
			}
			return bind_vars(b, e);
		}
		if (!in_dwarf_probe(b, e, "target variables like '$x'"))
			return -1;
		if (b->site->btf_func)
			return bind_btf(b, e, mode);
		if (!strcmp(e->str, "$return")) {
			a = return_access(b, e, &w);
		} else {
			Dwarf_Die var;
			if (site_scopes(b, e->loc) != 0)
				return -1;
			if (find_variable(b, e->str + 1, &var) != 0 && b->site->is_tracepoint) {
				berr(b, e->loc, "tracepoint %s has no argument '%s' (its arguments: %s)",
				     b->site->function + strlen("__traceiter_"), e->str + 1, tracepoint_arg_names(b));
				return -1;
			}
			if (find_variable(b, e->str + 1, &var) != 0) {
				berr(b, e->loc, "no variable '%s' is visible in %s at this point (%s@%s:%d)", e->str + 1,
				     b->site->function, b->site->function, b->site->decl_file ? b->site->decl_file : "?",
				     b->site->decl_line);
				return -1;
			}
			a = variable_access(b, &var, e->str, e->loc, &w);
			implicit_entry = b->site->is_return && !b->entry;
		}
	} else if (!strcmp(e->str, "cast") && ((btf = cast_btf(b, e, &why)) || why)) {
		if (!btf) {
			berr(b, e->loc, "@cast needs the types of %s: no DWARF (install linux-image-%s-dbg) and %s",
			     e->args.len > 2 ? ((Expr *)e->args.items[2])->str : "the kernel", b->s->kver, why);
			return -1;
		}
		return bind_cast_btf(b, e, mode, btf);
	} else if (b->site && b->site->btf_func && strcmp(e->str, "cast")) {
		berr(b, e->loc, "@%s in a probe typed from BTF is not supported yet: it needs the kernel's DWARF (install "
		     "linux-image-%s-dbg)", e->str, b->s->kver);
		return -1;
	} else if (!strcmp(e->str, "cast")) {
		a = cast_access(b, e, &w);
		first_arg = 1;
	} else {
		a = var_access(b, e, &w);
		/* @var("local") in a .return probe: its value at entry, like $local */
		implicit_entry = b->site && b->site->is_return && !b->entry &&
				 !strchr(((Expr *)e->args.items[0])->str, '@');
	}
	if (!a)
		return -1;
	if (e->kind == EX_AT) {
		/* @cast keeps its address as args[0]; the type and module strings go */
		if (first_arg) {
			Expr *addr = e->args.items[0];
			e->args.len = 0;
			vec_push(&e->args, addr);
		} else {
			e->args.len = 0;
		}
	}
	if (a->base == DWB_POINTER && !e->chain.len && mode != BM_WRITE)
		a->what = DWA_ADDRESS;   /* @cast(p, "t") alone (or &@cast(p, "t")) is p */
	else if (bind_chain(b, e, a, &w, &e->chain, mode) != 0)
		return -1;
	if (implicit_entry && mode == BM_WRITE) {
		berr(b, e->loc, "'%s' cannot be written in a .return probe: it holds the value saved at entry", a->name);
		return -1;
	}
	make_dwarf(e, a);
	/* indexes (and @cast's address) may hold target variables themselves */
	{
		int was = b->entry;
		if (implicit_entry)
			b->entry = 1;
		bind_args(b, e, 0);
		b->entry = was;
	}
	if (implicit_entry)
		wrap_entry(b, e);
	return 0;
}

/* ---- context variables of families without DWARF ($value, $skb ...) ---- */

/* The context variable e names in every probe point of the current probe, when its family has
 * context variables: returns 1 with *out set, 1 with *out NULL after an error, 0 when the
 * probe's family has none (e is then a DWARF target variable, or not available). */
static int find_context_var(Bind *b, Expr *e, const ContextVar **out)
{
	const ContextVar *found = NULL;
	int any = 0;

	*out = NULL;
	if (!b->probe || e->kind != EX_TARGET)
		return 0;
	for (int i = 0; i < b->s->derived.len; i++) {
		DerivedProbe *dp = b->s->derived.items[i];
		const ContextVar *cv;
		if (dp->probe != b->probe)
			continue;
		if (!dp->provider->context_var) {
			if (any) {
				berr(b, e->loc, "context variable '%s' is not available in probe point '%s'", e->str, dp->name);
				return 1;
			}
			return 0;
		}
		any = 1;
		cv = dp->provider->context_var(b->s, dp, e->str);
		if (!cv && !strncmp(e->str, "$$", 2) && !found)
			return 0;   /* $$parms and friends of a family that does not define them */
		if (!cv && dp->site && !found)
			return 0;   /* a site's own variables (DWARF ones, or the error saying it has none) in a
			             * family with context variables elsewhere (.plt's $$name) */
		if (!cv) {
			berr(b, e->loc, "context variable '%s' is not available in probe point '%s'", e->str, dp->name);
			return 1;
		}
		if (found && (found->type != cv->type || strcmp(found->read, cv->read))) {
			berr(b, e->loc, "context variable '%s' differs between the probe's points: write one probe each",
			     e->str);
			return 1;
		}
		found = cv;
	}
	*out = found;
	return any;
}

/* Binds e to a family's context variable; returns 0 when e is not one (see find_context_var). */
static int bind_context(Bind *b, Expr *e, BindMode mode)
{
	const ContextVar *cv;

	if (!find_context_var(b, e, &cv))
		return 0;
	if (!cv)
		return 1;
	if (e->chain.len) {
		ChainItem *it = e->chain.items[0];
		berr(b, it->loc, "'%s' is a %s: '%s' cannot be applied to it", e->str,
		     cv->type == TY_STRING ? "string" : "number",
		     it->kind == CH_MEMBER ? "->" : it->kind == CH_INDEX ? "[" : it->name);
		return 1;
	}
	if (mode == BM_ADDRESS) {
		berr(b, e->loc, "the context variable '%s' has no address", e->str);
		return 1;
	}
	if (mode == BM_WRITE && !cv->write) {
		berr(b, e->loc, "the context variable '%s' cannot be written", e->str);
		return 1;
	}
	if (mode == BM_WRITE && cv->write_needs_guru && !b->s->guru) {
		berr(b, e->loc, "writing to the context variable '%s' needs guru mode (-g)", e->str);
		return 1;
	}
	e->kind = EX_CONTEXT;
	e->ctxvar = cv;
	e->type = cv->type;
	return 1;
}

/* ---- @param: target variables a probe alias declares ---- */

/* `@param("$fd", VALUE, "C type")` in an alias body (the generated syscall aliases) declares the
 * target variable $fd for the rest of the probe: its uses become copies of VALUE (evaluated where
 * they are), `$fd->member` a @cast of VALUE to the type it points to (read from the process's
 * memory when the type says __user), `$$parms`/`$$vars` list them all. For probes with no DWARF of their own
 * (kprobe.function on a syscall wrapper), whose C type the alias knows. */
/* A declared C type as -L shows it: without __user, "long" when none is given. */
static char *param_type_shown(Expr *type)
{
	StrBuf sb;
	char *copy, *save = NULL;

	if (!type || type->kind != EX_STRING)
		return xstrdup("long");
	sb_init(&sb);
	copy = xstrdup(type->str);
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (strcmp(w, "__user"))
			sb_printf(&sb, "%s%s", sb.len && strcmp(w, "*") ? " " : "", w);
	}
	free(copy);
	return sb_steal(&sb);
}

static int declare_param(Bind *b, Stmt *st)
{
	Expr *e = st->expr, *name, *type;

	if (!e || e->kind != EX_AT || strcmp(e->str, "param"))
		return 0;
	name = e->args.items[0];
	type = e->args.len > 2 ? e->args.items[2] : NULL;
	if (name->kind != EX_STRING || name->str[0] != '$' || name->str[1] == '$' || !name->str[1])
		berr(b, name->loc, "@param declares a target variable: its first argument is its name, \"$name\"");
	else if (type && type->kind != EX_STRING)
		berr(b, type->loc, "@param's third argument is the variable's C type, a literal string");
	else if (!b->probe)
		berr(b, e->loc, "@param declares a target variable of a probe: it belongs in a probe alias's body");
	else {
		vec_push(&b->params, e);
		vec_push(&b->probe->params, xasprintf("%s:%s", name->str, param_type_shown(type)));
	}
	st->kind = ST_EMPTY;
	st->expr = NULL;
	return 1;
}

static Expr *find_param(Bind *b, const char *name)
{
	for (int i = b->params.len - 1; i >= 0; i--) {
		Expr *d = b->params.items[i];
		if (!strcmp(((Expr *)d->args.items[0])->str, name))
			return d;
	}
	return NULL;
}

/* "$fd, $buf, $count" (or "none") */
static char *param_names(Bind *b)
{
	StrBuf sb;

	sb_init(&sb);
	for (int i = 0; i < b->params.len; i++) {
		Expr *d = b->params.items[i];
		sb_printf(&sb, "%s%s", i ? ", " : "", ((Expr *)d->args.items[0])->str);
	}
	if (!b->params.len)
		sb_printf(&sb, "none");
	return sb_steal(&sb);
}

/* The type a declared pointer type points to: "const struct stat __user *" -> "struct stat";
 * NULL when it is not a pointer (or points to void). */
static char *param_pointee(Expr *decl)
{
	const char *t = decl->args.len > 2 ? ((Expr *)decl->args.items[2])->str : "";
	StrBuf sb;
	char *copy, *save = NULL, *star = strrchr(t, '*');
	size_t words = 0;

	if (!star)
		return NULL;
	sb_init(&sb);
	copy = xstrndup(t, (size_t)(star - t));
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(w, "const") || !strcmp(w, "volatile") || !strcmp(w, "__user"))
			continue;
		sb_printf(&sb, "%s%s", words++ ? " " : "", w);
	}
	free(copy);
	if (!words || !strcmp(sb.data, "void")) {
		free(sb_steal(&sb));
		return NULL;
	}
	return sb_steal(&sb);
}

static Expr *string_expr(SrcLoc loc, char *s)
{
	Expr *e = expr_new(EX_STRING, loc);
	e->str = s;
	return e;
}

/* $$parms / $$vars of a probe with declared parameters: "fd=0x1 buf=0x7ffd... count=0x5" */
static void bind_param_list(Bind *b, Expr *e)
{
	StrBuf fmt;
	Expr *call = expr_new(EX_CALL, e->loc);

	sb_init(&fmt);
	for (int i = 0; i < e->chain.len; i++) {
		ChainItem *it = e->chain.items[i];
		if (it->kind != CH_PRETTY) {
			berr(b, it->loc, "'%s' is a string: '->' and '[' cannot be applied to it", e->str);
			return;
		}
	}
	call->str = xstrdup("sprintf");
	vec_push(&call->args, NULL);
	for (int i = 0, n = 0; i < b->params.len; i++) {
		Expr *d = b->params.items[i];
		const char *name = ((Expr *)d->args.items[0])->str;
		if (!strcmp(name, "$return"))
			continue;   /* a .return's value is no parameter (as $$parms in DWARF .return probes) */
		sb_printf(&fmt, "%s%s=0x%%x", n++ ? " " : "", name + 1);
		vec_push(&call->args, expr_clone(d->args.items[1]));
	}
	call->args.items[0] = string_expr(e->loc, sb_steal(&fmt));
	*e = *call;
	ast_walk_expr(e, &b->v);
}

/* Binds e to a declared parameter; returns 0 when the probe declares none (or e is not one and the
 * probe has DWARF variables of its own). */
static int bind_param(Bind *b, Expr *e, BindMode mode)
{
	Expr *decl, *value;
	char *pointee;
	SrcLoc loc = e->loc;

	if (!b->params.len || e->kind != EX_TARGET)
		return 0;
	if (!strcmp(e->str, "$$parms") || !strcmp(e->str, "$$vars")) {
		if (mode != BM_VALUE)
			berr(b, e->loc, "'%s' is a string: it cannot be %s", e->str,
			     mode == BM_ADDRESS ? "addressed" : "assigned");
		else
			bind_param_list(b, e);
		return 1;
	}
	decl = find_param(b, e->str);
	if (!decl) {
		if (b->site)
			return 0;
		berr(b, e->loc, "'%s' is not a parameter of this probe (its parameters: %s)", e->str, param_names(b));
		return 1;
	}
	if (mode != BM_VALUE) {
		berr(b, e->loc, "the parameter '%s' cannot be %s", e->str, mode == BM_ADDRESS ? "addressed" : "assigned");
		return 1;
	}
	value = expr_clone(decl->args.items[1]);
	if (!e->chain.len) {
		*e = *value;
		e->loc = loc;
		ast_walk_expr(e, &b->v);
		return 1;
	}
	pointee = param_pointee(decl);
	if (!pointee) {
		ChainItem *it = e->chain.items[0];
		berr(b, it->loc, "'%s' is not a pointer (%s): '%s' cannot be applied to it", e->str,
		     decl->args.len > 2 ? ((Expr *)decl->args.items[2])->str : "no type declared",
		     it->kind == CH_MEMBER ? "->" : it->kind == CH_INDEX ? "[" : it->name);
		return 1;
	}
	{
		PtrVec chain = e->chain;
		e->kind = EX_AT;
		e->str = xstrdup("cast");
		e->args = (PtrVec){ 0 };
		vec_push(&e->args, value);
		vec_push(&e->args, string_expr(loc, pointee));
		e->chain = chain;
	}
	if (bind_target(b, e, mode) == 0 && e->kind == EX_DWARF &&
	    strstr(((Expr *)decl->args.items[2])->str, "__user"))
		e->dwarf->user_mem = 1;   /* a user pointer: what it points to is in the process's memory */
	return 1;
}

/* ---- @defined, @choose_defined, @entry ---- */

static int script_variable(Expr *e, void *ctx)
{
	Bind *b = ctx;

	if (e->kind == EX_IDENT || e->kind == EX_INDEX) {
		berr(b, e->loc, "@entry cannot use the script variable '%s': it is evaluated when the function is "
		     "entered", e->str);
		return 1;
	}
	if (e->kind == EX_ASSIGN || e->kind == EX_INCDEC) {
		berr(b, e->loc, "@entry cannot assign: it is evaluated when the function is entered");
		return 1;
	}
	return 0;
}

static int bind_at(Bind *b, Expr *e)
{
	if (!strcmp(e->str, "defined")) {
		int q = b->quiet, f = b->failed, defined;
		b->quiet = 1;
		b->failed = 0;
		ast_walk_expr(e->args.items[0], &b->v);
		defined = !b->failed;
		b->quiet = q;
		b->failed = f;
		e->kind = EX_NUMBER;
		e->num = defined;
		e->type = TY_LONG;
		e->args.len = 0;
		e->chain.len = 0;
		return 0;
	}
	if (!strcmp(e->str, "choose_defined")) {
		int q = b->quiet, f = b->failed, defined;
		Expr *first = e->args.items[0], *second = e->args.items[1];
		b->quiet = 1;
		b->failed = 0;
		ast_walk_expr(first, &b->v);
		defined = !b->failed;
		b->quiet = q;
		b->failed = f;
		if (defined) {
			*e = *first;
			return 0;
		}
		*e = *second;
		return ast_walk_expr(e, &b->v) > 0 ? -1 : 0;
	}
	if (!strcmp(e->str, "entry")) {
		Expr *inner = e->args.items[0];
		AstVisitor check = { NULL, script_variable, b };
		DwAccess *a;
		if ((!b->site || !b->site->is_return) && !b->kret) {
			berr(b, e->loc, "@entry is only available in .return probes on kernel functions");
			return -1;
		}
		if (b->entry) {
			/* @entry(@entry(x)) is @entry(x): in a .return alias whose @param values are @entry
			 * ones (syscall.read.return's $fd), the script's @entry($fd) is that value */
			*e = *inner;
			return ast_walk_expr(e, &b->v) > 0 ? -1 : 0;
		}
		if (ast_walk_expr(inner, &check))
			return -1;
		b->entry = 1;
		ast_walk_expr(inner, &b->v);
		b->entry = 0;
		a = dwa_new(DWA_ENTRY);
		a->dp = b->dp;
		a->site = b->site;
		a->name = xstrdup("@entry");
		e->kind = EX_DWARF;
		e->dwarf = a;
		e->left = inner;
		e->args.len = 0;
		e->type = TY_UNKNOWN;   /* inferred from the saved expression */
		add_entry_expr(b->dp, e);
		return 0;
	}
	return 1;   /* not ours */
}

static int is_target(const Expr *e)
{
	return e->kind == EX_TARGET ||
	       (e->kind == EX_AT && (!strcmp(e->str, "cast") || !strcmp(e->str, "var")));
}

static int bind_visit(Expr *e, void *ctx)
{
	Bind *b = ctx;

	if (is_target(e)) {
		if (!bind_param(b, e, BM_VALUE) && !bind_context(b, e, BM_VALUE))
			bind_target(b, e, BM_VALUE);
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_UNARY && e->op == OP_ADDR && is_target(e->left)) {
		Expr *t = e->left;
		if (bind_param(b, t, BM_ADDRESS) || bind_context(b, t, BM_ADDRESS))
			return AST_WALK_SKIP;
		if (bind_target(b, t, BM_ADDRESS) == 0) {
			SrcLoc amp = e->loc;
			*e = *t;
			e->loc = amp;
		}
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_ASSIGN && is_target(e->left) && e->op != OP_AGG_ASSIGN) {
		const char *shown = e->left->kind == EX_TARGET ? e->left->str : "@cast";
		if (bind_param(b, e->left, BM_WRITE)) {
			ast_walk_expr(e->right, &b->v);
			return AST_WALK_SKIP;
		}
		if ((e->op == OP_ASSIGN || e->op == OP_CAT_ASSIGN) && bind_context(b, e->left, BM_WRITE)) {
			if (e->op == OP_CAT_ASSIGN && e->left->kind == EX_CONTEXT && !e->left->ctxvar->append)
				berr(b, e->loc, "only '=' can assign to the context variable '%s'", e->left->str);
			ast_walk_expr(e->right, &b->v);
			return AST_WALK_SKIP;
		}
		if (e->op != OP_ASSIGN)
			berr(b, e->loc, "only '=' can assign to the target variable '%s'", shown);
		else if (!b->s->guru)
			berr(b, e->left->loc, "writing to the target variable '%s' needs guru mode (-g)", shown);
		else
			bind_target(b, e->left, BM_WRITE);
		ast_walk_expr(e->right, &b->v);
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_INCDEC && is_target(e->left)) {
		berr(b, e->loc, "'%s' cannot be applied to a target variable: assign it with '=' (guru mode)",
		     e->op == OP_INC ? "++" : "--");
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_BINARY && (e->op == OP_AND || e->op == OP_OR)) {
		/* "@defined($x) && $x": a left side that decides leaves the right one unbound */
		int64_t val;
		ast_walk_expr(e->left, &b->v);
		if (const_cond(e->left, &val) && (e->op == OP_AND ? !val : val)) {
			SrcLoc loc = e->loc;
			int64_t num = e->op == OP_AND ? 0 : 1;
			memset(e, 0, sizeof(*e));
			e->kind = EX_NUMBER;
			e->loc = loc;
			e->num = num;
			e->type = TY_LONG;
			return AST_WALK_SKIP;
		}
		ast_walk_expr(e->right, &b->v);
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_TERNARY) {
		int64_t val;
		ast_walk_expr(e->cond, &b->v);
		if (!const_cond(e->cond, &val)) {
			ast_walk_expr(e->left, &b->v);
			ast_walk_expr(e->right, &b->v);
		} else {
			*e = *(val ? e->left : e->right);
			ast_walk_expr(e, &b->v);
		}
		return AST_WALK_SKIP;
	}
	if (e->kind == EX_AT) {
		int rc = bind_at(b, e);
		if (rc <= 0)
			return AST_WALK_SKIP;
	}
	return 0;
}

/* ---- branches that @defined rules out ---- */

/* The value of a condition made of numbers (what @defined became), !, && and ||; 0 when it is not
 * such a constant. */
static int const_cond(const Expr *e, int64_t *val)
{
	int64_t l, r;

	if (!e)
		return 0;
	switch (e->kind) {
	case EX_NUMBER:
		*val = e->num;
		return 1;
	case EX_UNARY:
		if (e->op != OP_NOT || !const_cond(e->left, &l))
			return 0;
		*val = !l;
		return 1;
	case EX_BINARY:
		if (e->op != OP_AND && e->op != OP_OR)
			return 0;
		if (!const_cond(e->left, &l))
			return 0;
		if (e->op == OP_AND && !l) {
			*val = 0;
			return 1;
		}
		if (e->op == OP_OR && l) {
			*val = 1;
			return 1;
		}
		if (!const_cond(e->right, &r))
			return 0;
		*val = !!r;
		return 1;
	default:
		return 0;
	}
}

/* "if (@defined($x)) use($x)": once the condition is bound, a branch it rules out is dropped
 * unbound, so the target variables there are no errors (as in SystemTap, where such a branch is
 * elided before its errors count). */
static int bind_stmt(Stmt *st, void *ctx)
{
	Bind *b = ctx;
	int64_t val;

	if (st->kind == ST_EXPR && declare_param(b, st))
		return AST_WALK_SKIP;
	if (st->kind != ST_IF)
		return 0;
	ast_walk_expr(st->expr, &b->v);
	if (!const_cond(st->expr, &val)) {
		ast_walk_stmt(st->then, &b->v);
		ast_walk_stmt(st->els, &b->v);
		return AST_WALK_SKIP;
	}
	if (val) {
		st->els = NULL;
		ast_walk_stmt(st->then, &b->v);
	} else {
		st->then = stmt_new(ST_EMPTY, st->loc);
		ast_walk_stmt(st->els, &b->v);
	}
	return AST_WALK_SKIP;
}

/* ---- driver ---- */

static int program_needs_binding(Expr *e, void *ctx)
{
	(void)ctx;
	return is_target(e) || (e->kind == EX_AT && (!strcmp(e->str, "defined") || !strcmp(e->str, "choose_defined") ||
						     !strcmp(e->str, "entry") || !strcmp(e->str, "param")));
}

static void bind_body(Bind *b, Stmt *body)
{
	AstVisitor need = { NULL, program_needs_binding, NULL };

	if (!ast_walk_stmt(body, &need))
		return;
	ast_walk_stmt(body, &b->v);
}

/* A body whose points are all kprobe.function(...).return (the syscall.*.return aliases): @entry
 * works there too, the first such derived probe holding the entry values for all of them. */
static void kretprobe_body(Session *s, Bind *b)
{
	DerivedProbe *first = NULL;

	for (int j = 0; j < s->derived.len; j++) {
		DerivedProbe *dp = s->derived.items[j];
		if (dp->probe != b->probe)
			continue;
		if (dp->provider != &kprobe_provider || !dp->is_return)
			return;
		if (!first)
			first = dp;
	}
	if (first) {
		b->dp = first;
		b->kret = 1;
	}
}

int dwarf_bind_program(Session *s)
{
	Program *prog = &s->prog;
	Bind b = { .s = s };

	b.v = (AstVisitor){ bind_stmt, bind_visit, &b };
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		b.probe = p;
		b.dp = NULL;
		b.site = NULL;
		b.kret = 0;
		b.nodwarf = NULL;
		for (int j = 0; j < s->derived.len; j++) {
			DerivedProbe *dp = s->derived.items[j];
			if (dp->probe == p && dp->site && !dp->site->scope && !dp->site->is_tracepoint && !dp->site->btf_func &&
			    !b.nodwarf)
				b.nodwarf = dp->name;
			if (dp->probe == p && dp->site && !b.site) {
				b.dp = dp;
				b.site = dp->site;
			}
		}
		if (b.nodwarf) {
			b.dp = NULL;
			b.site = NULL;
		}
		if (!b.site)
			kretprobe_body(s, &b);
		b.params.len = 0;
		b.have_scopes = 0;
		b.have_frame_fn = 0;
		b.nscopes = 0;
		if (p->note)
			diag_set_context(p->note);
		else if (p->chain)
			diag_set_context(p->note = xasprintf("in probe %s (from the script's probe at %s:%d:%d)", p->chain,
							     p->loc.file ? p->loc.file->name : "?", p->loc.line, p->loc.col));
		bind_body(&b, p->body);
		diag_set_context(NULL);
		free(b.scopes);
		b.scopes = NULL;
	}
	b.probe = NULL;
	b.dp = NULL;
	b.site = NULL;
	b.kret = 0;
	b.params.len = 0;
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (f->body)
			bind_body(&b, f->body);
	}
	free(b.params.items);
	return b.errors;
}
