/* targetvars.c - code generation for bound target variables (EX_BOUND): locations, member and index
 * chains, fault-checked reads and writes with their error locations, pretty printers ($var$,
 * $$vars), @entry values, and the bodies of the entry functions that save them (cg_entry_body).
 * Used by expr.c and the runtimes' writers (kmodule/entry.c). */
#include "codegen/backend.h"
#include "codegen/gen.h"
#include "targets/type.h"
#include "providers/provider.h"
#include "core/limits.h"

#include <string.h>

enum { PL_MEM, PL_VAL, PL_LOC };

/* Where an object is while its code is written: at address c + off (+ rel, offsets the runtime relocates)
 * (PL_MEM), in the value c from byte off (PL_VAL), or off bytes into the pieces of a's location (PL_LOC). */
typedef struct Place {
	int kind;
	char *c;
	int64_t off;
	TgAccess *a;
	char *rel;
} Place;

static void emit_code(Gen *g, const char *code)
{
	const char *p = code;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n) {
			for (int i = 0; i < g->indent; i++)
				sb_putc(&g->body, '\t');
			while (n && *p == '\t') {
				p++;
				n--;
			}
			sb_putn(&g->body, p, n);
			sb_putc(&g->body, '\n');
		}
		p += n + (nl ? 1 : 0);
	}
}

/* The location literal of an access: near its operator, or its name when it has none. */
static char *where_literal(const char *op, const char *name, SrcLoc loc)
{
	return op ? cg_location_literal("operator", op, loc) : cg_location_literal("identifier", name, loc);
}

static void where(Gen *g, const char *op, const char *name, SrcLoc loc)
{
	char *w = where_literal(op, name, loc);

	cg_line(g, "c->last_stmt = %s;", w);
	free(w);
}

static char *base_name(TgAccess *a)
{
	size_t n = strcspn(a->name, "-[");
	return xstrndup(a->name, n);
}

static Place piece_place(Gen *g, TgAccess *a, const TgPiece *p)
{
	Place pl = { PL_VAL, NULL, 0, a, NULL };

	switch (p->kind) {
	case TGL_REG:
		pl.c = xasprintf("c->regs->%s", p->reg_name);
		break;
	case TGL_ADDR:
	case TGL_MEM_REG:
	case TGL_VALUE: {
		char *var = cg_named_local(g, "unsigned long", "dwl");
		const char *fail = cg_error_label(g);
		char *pfx = xasprintf("dw%d", g->ntmp++), *bn = base_name(a);
		where(g, a->op_base, bn, a->loc_base);
		if (p->kind == TGL_MEM_REG) {
			cg_line(g, "%s = c->regs->%s + (unsigned long)%lldL;", var, p->reg_name, (long long)p->reg_offset);
		} else if (!p->code) {
			diag_at(&g->s->diag, a->loc_base, "error", "cannot generate the location of '%s': %s", a->name,
				p->code_err);
			cg_line(g, "%s = 0;", var);
		} else {
			emit_code(g, tg_code_fill(p->code, pfx, var, fail));
			if (!a->in_user_file)
				g->cg->layout.fixed = 1;   /* DWARF's expression of this release's code */
		}
		g->out_used = 1;
		free(pfx);
		free(bn);
		pl.kind = p->kind == TGL_VALUE ? PL_VAL : PL_MEM;
		pl.c = var;
		break;
	}
	case TGL_IMPLICIT:
		if (p->nbytes <= 8) {
			uint64_t v = 0;
			for (size_t i = 0; i < p->nbytes; i++)
				v |= (uint64_t)p->bytes[i] << (8 * i);
			pl.c = xasprintf("0x%llxULL", (unsigned long long)v);
		} else {
			char *name = xasprintf("stp_dw_implicit%d", g->cg->table_counter++);
			sb_printf(g->tables, "static const u8 %s[%zu] = {", name, p->nbytes);
			for (size_t i = 0; i < p->nbytes; i++)
				sb_printf(g->tables, "%s0x%02x", i ? ", " : " ", p->bytes[i]);
			sb_puts(g->tables, " };\n");
			pl.kind = PL_MEM;
			pl.c = xasprintf("((unsigned long)%s)", name);
		}
		break;
	case TGL_EMPTY:
		pl.c = xstrdup("0");
		break;
	}
	return pl;
}

/* A PL_LOC place becomes the piece holding size bytes at its offset; -1 when none does. */
static int resolve(Gen *g, Place *pl, int64_t size)
{
	TgAccess *a = pl->a;

	if (pl->kind != PL_LOC)
		return 0;
	for (int i = 0; i < a->loc.npieces; i++) {
		const TgPiece *p = &a->loc.pieces[i];
		Place q;
		if (pl->off < (int64_t)p->offset || pl->off + size > (int64_t)(p->offset + p->size))
			continue;
		if (p->kind == TGL_EMPTY)
			return -1;
		q = piece_place(g, a, p);
		q.off += pl->off - (int64_t)p->offset;
		*pl = q;
		return 0;
	}
	return -1;
}

static Place base_place(Gen *g, Expr *e, TgAccess *a)
{
	Place pl = { PL_VAL, NULL, 0, a, NULL };

	switch (a->base) {
	case TGB_POINTER: {
		char *v = cg_expr(g, e->args.items[0]);
		pl.kind = PL_MEM;
		pl.c = cg_named_local(g, "unsigned long", "dwp");
		cg_line(g, "%s = (unsigned long)(%s);", pl.c, v);
		break;
	}
	case TGB_RETURN:
		pl.c = xstrdup("c->regs->ax");
		break;
	case TGB_CONST:
		pl.c = xasprintf("0x%llxULL", (unsigned long long)a->const_value);
		break;
	case TGB_ARG:
		pl.c = xasprintf("((const unsigned long *)c->entry_data)[%d]", a->arg_index);
		break;
	case TGB_SYMBOL:
		pl.kind = PL_MEM;
		if (a->sym_name && !a->in_user_file && g->be->symbol_address && (pl.c = g->be->symbol_address(g, a)))
			break;
		pl.c = a->sym_c ? xstrdup(a->sym_c) : NULL;
		if (!a->in_user_file)
			g->cg->layout.fixed = 1;   /* this release's address */
		if (!pl.c) {
			diag_at(&g->s->diag, a->loc_base, "error", "cannot read '%s': %s", a->name, a->sym_err);
			pl.c = xstrdup("0UL");
		}
		break;
	case TGB_LOCATION:
		if (a->loc.has_pieces)
			pl.kind = PL_LOC;
		else
			pl = piece_place(g, a, &a->loc.pieces[0]);
		break;
	}
	return pl;
}

static char *mem_addr(Place *pl)
{
	if (pl->rel)
		return xasprintf("(%s + (unsigned long)%lldL + %s)", pl->c, (long long)pl->off, pl->rel);
	if (!pl->off)
		return xasprintf("(%s)", pl->c);
	return xasprintf("(%s + (unsigned long)%lldL)", pl->c, (long long)pl->off);
}

/* Memory at pl belongs to the current process: a user pointer, or a variable of a user binary. */
static int user_place(const Place *pl)
{
	return pl->a && (pl->a->user_mem || pl->a->in_user_file);
}

/* Step st moves pl on: through kernel memory by what the runtime relocates when it can, else by the
 * offsets of this release's layout. */
static void add_step(Gen *g, Place *pl, const TgStep *st)
{
	int kernel = !user_place(pl);
	char *rel = NULL;

	if (pl->kind == PL_MEM && kernel && st->members.len && g->be->member_offset)
		rel = g->be->member_offset(g, st);
	if (rel)
		pl->rel = pl->rel ? xasprintf("%s + %s", pl->rel, rel) : rel;
	else
		pl->off += st->n;
	if (kernel && ((!rel && st->members.len) || st->fixed_stride))
		g->cg->layout.fixed = 1;
}

/* size bytes at pl as a number (sign-extended when is_signed), then its bit field; faults are
 * script errors reported near op/name at loc. */
static char *read_place(Gen *g, Place pl, int size, int is_signed, int bit_size, int bit_off, const char *op,
			const char *name, SrcLoc loc)
{
	int n = bit_size ? (bit_off + bit_size + 7) / 8 : size;
	char *t = cg_long_tmp(g);

	if (resolve(g, &pl, n) != 0) {
		cg_line(g, "%s = 0;", t);
		return t;
	}
	if (pl.kind == PL_MEM && user_place(&pl)) {
		where(g, op, name, loc);
		cg_line(g, "%s = stp_dw_uread(c, %s, %d, %d);", t, mem_addr(&pl), n, bit_size ? 0 : is_signed);
		cg_check_error(g);
	} else if (pl.kind == PL_MEM) {
		/* the place named on the fault path only: nothing stored on a read that succeeds */
		g->out_used = 1;
		char *w = where_literal(op, name, loc);

		cg_line(g, "STP_DW_READ(%s, c, %s, %d, %d, %s, %s);", t, mem_addr(&pl), n, bit_size ? 0 : is_signed, w,
			cg_error_label(g));
		free(w);
	} else {
		cg_line(g, "%s = stp_dw_extract((u64)(%s), %lld, %d, %d);", t, pl.c, (long long)pl.off, n,
		     bit_size ? 0 : is_signed);
	}
	if (bit_size)
		cg_line(g, "%s = stp_dw_bits((u64)%s, %d, %d, %d);", t, t, bit_off, bit_size, is_signed);
	return t;
}

static Place apply_steps(Gen *g, Expr *e, TgAccess *a, Place pl)
{
	for (int i = 0; i < a->steps.len; i++) {
		TgStep *st = a->steps.items[i];
		switch (st->kind) {
		case TGS_ADD:
			add_step(g, &pl, st);
			break;
		case TGS_DEREF: {
			char *v = read_place(g, pl, 8, 0, 0, 0, st->op, NULL, st->loc);
			pl.kind = PL_MEM;
			pl.c = cg_named_local(g, "unsigned long", "dwa");
			pl.off = 0;
			pl.rel = NULL;
			cg_line(g, "%s = (unsigned long)%s;", pl.c, v);
			break;
		}
		case TGS_INDEX: {
			char *idx = cg_expr(g, e->args.items[st->arg]);
			char *var;
			resolve(g, &pl, 1);
			var = cg_named_local(g, "unsigned long", "dwa");
			cg_line(g, "%s = %s + (unsigned long)(%s) * %lldUL;", var, mem_addr(&pl), idx, (long long)st->n);
			if (st->fixed_stride && !user_place(&pl))
				g->cg->layout.fixed = 1;
			pl.kind = PL_MEM;
			pl.c = var;
			pl.off = 0;
			pl.rel = NULL;
			break;
		}
		}
	}
	return pl;
}

static char *address_of(Gen *g, Place pl)
{
	if (resolve(g, &pl, 1) != 0 || pl.kind != PL_MEM)
		return xstrdup("0LL");
	return xasprintf("((int64_t)%s)", mem_addr(&pl));
}

/* ---- pretty printing ---- */

typedef struct PP {
	Gen *g;
	TgAccess *a;
	char *o;                 /* the struct stp_out * (cg_str_out_open's) */
	char *bad;               /* bool set by quiet reads */
	char *fail;              /* label: a read failed */
	int fail_used;
	int leaves;              /* values printed: at most MAX_LEAVES, then "..." */
	int full;                /* $$: nested structs and arrays too */
	StrBuf lit;              /* literal text not yet written */
} PP;

#define MAX_LEAVES 32
#define MAX_DEPTH 8

static void pp_lit(PP *pp, const char *s)
{
	sb_puts(&pp->lit, s);
}

static void pp_flush(PP *pp)
{
	if (!pp->lit.len)
		return;
	cg_line(pp->g, "stp_out_str(%s, %s);", pp->o, cg_string_literal(pp->lit.data));
	pp->lit.len = 0;
	pp->lit.data[0] = 0;
}

/* A quiet read for printing: NULL when the place cannot be read at all (then "?"). */
static char *pp_read(PP *pp, Place pl, int size, int is_signed, int bit_size, int bit_off)
{
	Gen *g = pp->g;
	int n = bit_size ? (bit_off + bit_size + 7) / 8 : size;
	char *t;

	if (resolve(g, &pl, n) != 0)
		return NULL;
	pp_flush(pp);
	t = cg_long_tmp(g);
	if (pl.kind == PL_MEM) {
		cg_line(g, "%s = stp_dw_%s(%s, %d, %d, &%s);", t, user_place(&pl) ? "upeek" : "peek", mem_addr(&pl), n,
		     bit_size ? 0 : is_signed, pp->bad);
		cg_line(g, "if (unlikely(%s)) goto %s;", pp->bad, pp->fail);
		pp->fail_used = 1;
	} else {
		cg_line(g, "%s = stp_dw_extract((u64)(%s), %lld, %d, %d);", t, pl.c, (long long)pl.off, n,
		     bit_size ? 0 : is_signed);
	}
	if (bit_size)
		cg_line(g, "%s = stp_dw_bits((u64)%s, %d, %d, %d);", t, t, bit_off, bit_size, is_signed);
	pp->leaves++;
	return t;
}

static void pp_put(PP *pp, const char *fn, const char *v)
{
	pp_flush(pp);
	cg_line(pp->g, "%s(%s, %s);", fn, pp->o, v);
}

static void pp_object(PP *pp, Place pl, TgType *type, int bit_size, int bit_off, int top, int depth);

static void pp_struct(PP *pp, Place pl, TgType *t, int top, int depth)
{
	TgMember *members = NULL;
	int n = 0;

	if ((!top && !pp->full) || depth >= MAX_DEPTH || tg_type_members(t, &members, &n) != 0) {
		pp_lit(pp, "{...}");
		free(members);
		return;
	}
	if (!user_place(&pl))
		pp->g->cg->layout.fixed = 1;   /* its members at this release's offsets */
	pp_lit(pp, "{");
	for (int i = 0; i < n; i++) {
		TgMember *m = &members[i];
		Place mp = pl;
		if (i)
			pp_lit(pp, ", ");
		if (pp->leaves >= MAX_LEAVES) {
			pp_lit(pp, "...");
			break;
		}
		if (m->name) {
			pp_lit(pp, ".");
			pp_lit(pp, m->name);
		} else {
			pp_lit(pp, m->anon == 2 ? "<union>" : "<struct>");
		}
		pp_lit(pp, "=");
		mp.off += m->offset;
		pp_object(pp, mp, &m->type, m->bit_size, m->bit_offset, 0, depth + 1);
	}
	pp_lit(pp, "}");
	free(members);
}

static void pp_array(PP *pp, Place pl, TgType *t, int top, int depth)
{
	TgType elem, es;
	int64_t esize, count;
	int dims = tg_type_array(t, &elem, &count);

	if (dims != 1) {
		pp_lit(pp, "[...]");
		return;
	}
	if ((!top && !pp->full) || depth >= MAX_DEPTH) {
		pp_lit(pp, "[...]");
		return;
	}
	if (tg_type_strip(&elem, &es) == TK_CHAR) {
		/* char[N]: the string it holds */
		if (resolve(pp->g, &pl, 1) != 0 || pl.kind != PL_MEM) {
			pp_lit(pp, "?");
			return;
		}
		pp_put(pp, "stp_dw_put_string", xasprintf("%s, %lld", mem_addr(&pl),
							   (long long)(count > 0 ? count : 0)));
		pp->leaves++;
		return;
	}
	esize = tg_type_size(&elem);
	if (esize <= 0) {
		pp_lit(pp, "[...]");
		return;
	}
	/* as SystemTap: the first element, then "..." */
	pp_lit(pp, "[");
	if (pp->leaves >= MAX_LEAVES) {
		pp_lit(pp, "...]");
		return;
	}
	if (count != 0)
		pp_object(pp, pl, &elem, 0, 0, 0, depth + 1);
	pp_lit(pp, ", ...]");
}

static void pp_object(PP *pp, Place pl, TgType *type, int bit_size, int bit_off, int top, int depth)
{
	TgType t, pointee, ps;
	TgKind kind = type ? tg_type_strip(type, &t) : TK_NONE;
	char *v;

	if (bit_size) {
		if (kind != TK_INT && kind != TK_CHAR && kind != TK_ENUM) {
			pp_lit(pp, "?");
			return;
		}
		v = pp_read(pp, pl, 0, tg_type_signed(&t), bit_size, bit_off);
		if (!v)
			pp_lit(pp, "?");
		else
			pp_put(pp, tg_type_signed(&t) ? "stp_dw_put_dec" : "stp_dw_put_udec", v);
		return;
	}
	switch (kind) {
	case TK_INT:
	case TK_CHAR:
	case TK_ENUM: {
		int64_t size = tg_type_size(&t);
		if (size < 1 || size > 8 || !(v = pp_read(pp, pl, (int)size, tg_type_signed(&t), 0, 0))) {
			pp_lit(pp, "?");
			return;
		}
		if (kind == TK_CHAR)
			pp_put(pp, "stp_dw_put_char", v);
		else
			pp_put(pp, tg_type_signed(&t) ? "stp_dw_put_dec" : "stp_dw_put_udec", v);
		return;
	}
	case TK_PTR: {
		TgKind pkind = tg_type_pointee(&t, &pointee) ? tg_type_strip(&pointee, &ps) : TK_NONE;
		if (!(v = pp_read(pp, pl, 8, 0, 0, 0))) {
			pp_lit(pp, "?");
			return;
		}
		if (pkind == TK_CHAR) {
			pp_put(pp, "stp_dw_put_string", xasprintf("(unsigned long)%s, MAXSTRINGLEN - 1", v));
			return;
		}
		if (top && pkind != TK_NONE && pkind != TK_FUNC && depth < MAX_DEPTH) {
			/* the top-level pointer is followed: $file$ shows the struct file */
			Place to = { PL_MEM, xasprintf("(unsigned long)%s", v), 0, pl.a, NULL };
			pp->leaves--;
			pp_object(pp, to, &pointee, 0, 0, 1, depth + 1);
			return;
		}
		pp_put(pp, "stp_dw_put_ptr", v);
		return;
	}
	case TK_ARRAY:
		pp_array(pp, pl, &t, top, depth);
		return;
	case TK_STRUCT:
		pp_struct(pp, pl, &t, top, depth);
		return;
	default:
		pp_lit(pp, "?");
		return;
	}
}

static void pp_begin(PP *pp, Gen *g, TgAccess *a, const char *o, const char *bad)
{
	memset(pp, 0, sizeof *pp);
	pp->g = g;
	pp->a = a;
	pp->o = xstrdup(o);
	pp->bad = xstrdup(bad);
	pp->fail = xasprintf("dwpp_fail%d", g->ntmp++);
	sb_init(&pp->lit);
}

/* Ends one printed value: on a failed read, the text written since `mark` is replaced by repl. */
static void pp_end(PP *pp, const char *mark, const char *repl)
{
	Gen *g = pp->g;

	pp_flush(pp);
	if (pp->fail_used) {
		int n = g->ntmp++;
		cg_line(g, "goto dwpp_done%d;", n);
		cg_line(g, "%s:", pp->fail);
		cg_line(g, "%s->len = %s;", pp->o, mark);
		cg_line(g, "%s = false;", pp->bad);
		cg_line(g, "stp_out_str(%s, %s);", pp->o, cg_string_literal(repl));
		cg_line(g, "dwpp_done%d: ;", n);
	}
	sb_free(&pp->lit);
}

static char *gen_pretty(Gen *g, TgAccess *a, Place pl)
{
	char *dst = cg_str_tmp(g);
	char *bad = cg_named_local(g, "bool", "dwbad");
	char *o;
	TgType type;
	PP pp;

	cg_line(g, "%s = false;", bad);
	o = cg_str_out_open(g, dst);
	pp_begin(&pp, g, a, o, bad);
	pp.full = a->pretty_full;
	pp_object(&pp, pl, tg_type_of(a, &type) ? &type : NULL, a->bit_size, a->bit_offset, 1, 0);
	pp_end(&pp, "0", "ERROR");
	cg_str_out_close(g, o, dst);
	return dst;
}

/* $$vars and friends: "name=0x1 other=?" or, with $ / $$, each pretty-printed ("ERROR" for one
 * whose memory cannot be read, as a single $var$ gives). */
static char *gen_vars(Gen *g, TgAccess *list)
{
	char *dst = cg_str_tmp(g);
	char *bad = cg_named_local(g, "bool", "dwbad");
	char *mark = cg_named_local(g, "unsigned int", "dwmark");
	char *o;

	cg_line(g, "%s = false;", bad);
	o = cg_str_out_open(g, dst);
	for (int i = 0; i < list->var_names.len; i++) {
		TgAccess *a = list->var_access.items[i];
		char *lead = xasprintf("%s%s=", i ? " " : "", (char *)list->var_names.items[i]);
		PP pp;
		TgType type;
		TgKind kind;
		int64_t size = 0;
		int is_signed = 0;
		Place pl;

		pp_begin(&pp, g, a ? a : list, o, bad);
		pp_lit(&pp, lead);
		if (!a) {
			pp_lit(&pp, "?");
			pp_flush(&pp);
			continue;
		}
		pp_flush(&pp);
		cg_line(g, "%s = %s->len;", mark, o);
		pl = base_place(g, NULL, a);
		if (list->pretty_full) {
			pp.full = list->pretty_full == 2;
			pp_object(&pp, pl, tg_type_of(a, &type) ? &type : NULL, 0, 0, 1, 0);
		} else {
			kind = tg_type_vars_entry(a, &size, &is_signed);
			if (kind == TK_INT) {
				char *v = NULL;
				if (size)
					v = pp_read(&pp, pl, (int)size, is_signed, 0, 0);
				if (v)
					pp_put(&pp, "stp_dw_put_hex", v);
				else
					pp_lit(&pp, "?");
			} else if (kind == TK_NONE && a->size) {
				/* typed from BTF (btf/btfvars.c): the size and signedness only */
				char *v = pp_read(&pp, pl, a->size, a->is_signed, 0, 0);
				if (v)
					pp_put(&pp, "stp_dw_put_hex", v);
				else
					pp_lit(&pp, "?");
			} else if (kind == TK_STRUCT) {
				pp_lit(&pp, "{...}");
			} else if (kind == TK_ARRAY) {
				pp_lit(&pp, "[...]");
			} else {
				pp_lit(&pp, "?");
			}
		}
		pp_end(&pp, mark, list->pretty_full ? "ERROR" : "?");
	}
	cg_str_out_close(g, o, dst);
	return dst;
}

/* ---- @entry values ---- */

static int entry_string_size(Session *s)
{
	for (int i = 0; i < s->defines.len; i++) {
		const char *d = s->defines.items[i];
		if (!strncmp(d, "MAXSTRINGLEN=", 13) && atoi(d + 13) >= 16)
			return atoi(d + 13);
	}
	return MAXSTRINGLEN;
}

static void place_entry_slot(Session *s, Expr *e, TgAccess *a)
{
	int size = e->type == TY_STRING ? entry_string_size(s) : 8;
	int *used = a->site ? &a->site->entry_size : &a->dp->entry_size;   /* DWARF site, or kprobe .return */
	int at = (*used + 7) & ~7;

	a->slot = at;
	a->slot_size = size;
	*used = at + size;
}

static char *gen_entry_read(Gen *g, Expr *e, TgAccess *a)
{
	if (a->slot < 0)
		place_entry_slot(g->s, e, a);
	if (e->type == TY_STRING) {
		char *t = cg_str_tmp(g);
		cg_line(g, "stp_strlcpy(%s, c->entry_data ? (const char *)c->entry_data + %d : \"\", MAXSTRINGLEN);", t,
		     a->slot);
		return t;
	}
	return xasprintf("(c->entry_data ? *(const int64_t *)((const char *)c->entry_data + %d) : 0LL)", a->slot);
}

/* ---- entry points ---- */

char *cg_target(Gen *g, Expr *e)
{
	TgAccess *a = e->bound;
	Place pl;
	char *bn;

	if (a->what == TGA_ENTRY)
		return gen_entry_read(g, e, a);
	if (a->what == TGA_VARS)
		return gen_vars(g, a);
	pl = apply_steps(g, e, a, base_place(g, e, a));
	switch (a->what) {
	case TGA_ADDRESS:
		return address_of(g, pl);
	case TGA_PRETTY:
		return gen_pretty(g, a, pl);
	default:
		break;
	}
	if (a->array_address)
		return address_of(g, pl);
	bn = base_name(a);
	return read_place(g, pl, a->size, a->is_signed, a->bit_size, a->bit_offset, a->op_last, bn, a->loc_last);
}

/* $var = value (guru mode): memory through the fault-safe writer, registers in the probe's pt_regs. */
char *cg_target_assign(Gen *g, Expr *e)
{
	TgAccess *a = e->left->bound;
	char *rhs = cg_materialize(g, cg_expr(g, e->right), TY_LONG);
	int n = a->bit_size ? (a->bit_offset + a->bit_size + 7) / 8 : a->size;
	Place pl = apply_steps(g, e->left, a, base_place(g, e->left, a));
	char *bn = base_name(a);

	if (resolve(g, &pl, n) != 0)
		return rhs;
	if (pl.kind == PL_MEM) {
		where(g, a->op_last, bn, a->loc_last);
		if (a->bit_size) {
			char *old = cg_long_tmp(g);
			cg_line(g, "%s = stp_dw_read(c, %s, %d, 0);", old, mem_addr(&pl), n);
			cg_check_error(g);
			cg_line(g, "stp_dw_write(c, %s, %d, (int64_t)stp_dw_set_bits((u64)%s, %d, %d, (u64)%s));", mem_addr(&pl),
			     n, old, a->bit_offset, a->bit_size, rhs);
		} else {
			cg_line(g, "stp_dw_write(c, %s, %d, %s);", mem_addr(&pl), n, rhs);
		}
		cg_check_error(g);
	} else if (n >= 8 && !pl.off) {
		cg_line(g, "%s = (unsigned long)%s;", pl.c, rhs);
	} else {
		cg_line(g, "%s = (unsigned long)stp_dw_set_bits((u64)%s, %lld, %d, (u64)%s);", pl.c, pl.c,
		     (long long)pl.off * 8, n * 8, rhs);
	}
	return rhs;
}

/* The body of the function each .return probe with @entry values runs at the function's entry: it
 * evaluates them with the entry's registers (c->regs) into c->entry_data.  Its frame's members into
 * frame, its static data into tables, its locals and statements into code. */
int cg_entry_body(Session *s, DerivedProbe *dp, StrBuf *frame, StrBuf *tables, StrBuf *code)
{
	PtrVec *exprs = tg_entry_exprs(s, dp);
	Gen g = { .s = s, .cg = s->cg, .be = s->cg->be, .indent = 1, .frame = frame, .tables = tables };

	if (!exprs)
		return 0;
	sb_init(&g.body);
	sb_init(&g.decls);
	for (int i = 0; i < exprs->len; i++) {
		Expr *e = exprs->items[i];
		TgAccess *a = e->bound;
		char *v;
		if (a->slot < 0)
			continue;   /* the return body never reads it */
		v = cg_expr(&g, e->left);
		if (e->type == TY_STRING)
			cg_line(&g, "stp_strlcpy((char *)c->entry_data + %d, %s, %d);", a->slot, v, a->slot_size);
		else
			cg_line(&g, "*(int64_t *)((char *)c->entry_data + %d) = %s;", a->slot, v);
	}
	sb_puts(code, g.decls.data);
	sb_puts(code, "\t(void)f;\n");
	sb_puts(code, g.body.data);
	if (g.out_used)
		sb_puts(code, "out:\n\t;\n");
	sb_free(&g.body);
	sb_free(&g.decls);
	return 1;
}
