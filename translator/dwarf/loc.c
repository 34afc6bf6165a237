/* loc.c - DWARF location expressions (and the pieces of location lists picked at a pc) compiled
 * to C that reads registers from c->regs and memory through the fault-safe readers; frame bases
 * and the CFA from the module's CFI; symbol addresses with KASLR. Used by dwarf/dwvars.c and, at
 * bind time, targets/locations.c. */
#include "dwarf/dwvars.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_STACK 16

const char *dwloc_reg_name(int reg)
{
	static const char *const names[] = {
		"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
	};
	if (reg < 0 || reg >= (int)(sizeof names / sizeof names[0]))
		return NULL;
	return names[reg];
}

static const char *op_name(unsigned atom)
{
	switch (atom) {
	case DW_OP_entry_value: return "DW_OP_entry_value";
	case DW_OP_GNU_entry_value: return "DW_OP_GNU_entry_value";
	case DW_OP_GNU_parameter_ref: return "DW_OP_GNU_parameter_ref";
	case DW_OP_form_tls_address: return "DW_OP_form_tls_address";
	case DW_OP_GNU_push_tls_address: return "DW_OP_GNU_push_tls_address";
	case DW_OP_push_object_address: return "DW_OP_push_object_address";
	case DW_OP_call2: return "DW_OP_call2";
	case DW_OP_call4: return "DW_OP_call4";
	case DW_OP_call_ref: return "DW_OP_call_ref";
	case DW_OP_const_type: case DW_OP_GNU_const_type: return "DW_OP_const_type";
	case DW_OP_regval_type: case DW_OP_GNU_regval_type: return "DW_OP_regval_type";
	case DW_OP_deref_type: case DW_OP_GNU_deref_type: return "DW_OP_deref_type";
	case DW_OP_convert: case DW_OP_GNU_convert: return "DW_OP_convert";
	case DW_OP_reinterpret: case DW_OP_GNU_reinterpret: return "DW_OP_reinterpret";
	case DW_OP_xderef: return "DW_OP_xderef";
	case DW_OP_xderef_size: return "DW_OP_xderef_size";
	case DW_OP_addrx: case DW_OP_GNU_addr_index: return "DW_OP_addrx";
	case DW_OP_constx: case DW_OP_GNU_const_index: return "DW_OP_constx";
	case DW_OP_GNU_variable_value: return "DW_OP_GNU_variable_value";
	default: return NULL;
	}
}

static int is_reg_op(const Dwarf_Op *op)
{
	return (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) || op->atom == DW_OP_regx;
}

static int classify(TgPiece *p, char **err)
{
	const Dwarf_Op *ops = p->ops;
	size_t n = p->nops;

	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom == DW_OP_entry_value || ops[i].atom == DW_OP_GNU_entry_value ||
		    ops[i].atom == DW_OP_GNU_parameter_ref) {
			*err = xstrdup("its value here is only described as the value it had when the function was "
				       "entered (DW_OP_entry_value), which is not available");
			return -1;
		}
	}
	if (n == 0) {
		p->kind = TGL_EMPTY;
	} else if (n == 1 && is_reg_op(&ops[0])) {
		p->kind = TGL_REG;
		p->reg = ops[0].atom == DW_OP_regx ? (int)ops[0].number : (int)(ops[0].atom - DW_OP_reg0);
	} else if (n == 1 && ops[0].atom == DW_OP_implicit_value) {
		p->kind = TGL_IMPLICIT;
		p->nbytes = ops[0].number;
		p->bytes = (const uint8_t *)(uintptr_t)ops[0].number2;
	} else if (ops[0].atom == DW_OP_implicit_pointer || ops[0].atom == DW_OP_GNU_implicit_pointer) {
		p->kind = TGL_EMPTY;
	} else if (ops[n - 1].atom == DW_OP_stack_value) {
		p->kind = TGL_VALUE;
		p->nops = n - 1;
	} else {
		p->kind = TGL_ADDR;
	}
	return 0;
}

int dwloc_analyze(const Dwarf_Op *ops, size_t nops, TgLoc *out, char **err)
{
	PtrVec pieces = { 0 };
	size_t start = 0;
	uint64_t offset = 0;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < nops; i++) {
		TgPiece *p;
		uint64_t size;
		if (ops[i].atom != DW_OP_piece && ops[i].atom != DW_OP_bit_piece)
			continue;
		if (ops[i].atom == DW_OP_bit_piece) {
			if (ops[i].number % 8 || ops[i].number2) {
				*err = xstrdup("it is split into bit pieces (DW_OP_bit_piece), which are not supported");
				return -1;
			}
			size = ops[i].number / 8;
		} else {
			size = ops[i].number;
		}
		p = xcalloc(1, sizeof *p);
		p->ops = ops + start;
		p->nops = i - start;
		p->offset = offset;
		p->size = size;
		if (classify(p, err) != 0)
			return -1;
		vec_push(&pieces, p);
		offset += size;
		start = i + 1;
	}
	if (!pieces.len) {
		TgPiece *p = xcalloc(1, sizeof *p);
		p->ops = ops;
		p->nops = nops;
		if (classify(p, err) != 0)
			return -1;
		vec_push(&pieces, p);
	} else {
		out->has_pieces = 1;
	}
	out->npieces = pieces.len;
	out->pieces = xcalloc((size_t)pieces.len, sizeof *out->pieces);
	for (int i = 0; i < pieces.len; i++) {
		out->pieces[i] = *(TgPiece *)pieces.items[i];
		free(pieces.items[i]);
	}
	free(pieces.items);
	return 0;
}

/* ---- symbols ---- */

typedef struct SymTable {
	DwarfModule *mod;
	StrMap syms;            /* name -> uint64_t* */
} SymTable;

static SymTable *symtable(DwarfModule *m)
{
	SymTable *t;
	Elf_Scn *scn = NULL;

	if (m->symtable)
		return m->symtable;
	t = xcalloc(1, sizeof *t);
	t->mod = m;
	m->symtable = t;
	while (m->elf && (scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int type;
			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_OBJECT && type != STT_FUNC) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(m->elf, sh.sh_link, sym.st_name);
			if (!name || !*name || strmap_get(&t->syms, name))
				continue;
			uint64_t *a = xmalloc(sizeof *a);
			*a = sym.st_value;
			strmap_put(&t->syms, name, a);
		}
	}
	return t;
}

int dwloc_symbol(DwarfModule *m, const char *name, uint64_t *addr)
{
	uint64_t *a = strmap_get(&symtable(m)->syms, name);

	if (!a)
		return -1;
	*addr = *a;
	return 0;
}

char *dwloc_reloc(DwarfModule *m, uint64_t addr, char **err)
{
	uint64_t anchor;

	if (m && !m->is_kernel && m->dwfl_mod) {
		/* a module's sections land anywhere: the symbol holding addr, found at run time in the
		 * loaded module's symbol table */
		GElf_Sym sym;
		const char *name = dwfl_module_addrsym(m->dwfl_mod, addr, &sym, NULL);
		if (!name || !*name) {
			*err = xasprintf("no symbol of module '%s' holds address 0x%llx", m->name, (unsigned long long)addr);
			return NULL;
		}
		return xasprintf("(({ static unsigned long cache[2]; stp_dw_module_symbol(c, \"%s\", \"%s\", cache); }) "
				 "+ %lldUL)", m->name, name, (long long)(addr - sym.st_value));
	}
	if (m && m->is_user) {
		/* a user file: where it is mapped is known in a probe on it (its uprobe's address) */
		GElf_Ehdr eh;
		StrBuf sb;
		if (gelf_getehdr(m->elf, &eh) && eh.e_type == ET_EXEC)
			return xasprintf("0x%llxUL", (unsigned long long)addr);
		sb_init(&sb);
		sb_printf(&sb, "(0x%llxUL + stp_ubias(c, ", (unsigned long long)addr);
		emit_c_string(&sb, m->path);
		sb_puts(&sb, "))");
		return sb_steal(&sb);
	}
	if (!m || !m->is_kernel) {
		*err = xasprintf("addresses of globals in module '%s' are not supported", m ? m->name : "?");
		return NULL;
	}
	if (addr < 0xffff800000000000ULL) {
		*err = xstrdup("it is a per-CPU variable, which is not supported");
		return NULL;
	}
	if (dwloc_symbol(m, "_printk", &anchor) != 0) {
		*err = xstrdup("the kernel's symbol table lacks _printk, needed to relocate global addresses");
		return NULL;
	}
	/* KASLR moves the whole kernel: the run-time address of an exported function minus its
	 * link-time address is the shift */
	return xasprintf("(0x%llxUL + ((unsigned long)&_printk - 0x%llxUL))", (unsigned long long)addr,
			 (unsigned long long)anchor);
}

/* ---- compiling ops to C ---- */

typedef struct Cmp {
	DwLocCtx *ctx;
	StrBuf *code;
	char **err;
	char *pfx;              /* C names of this expansion: pfx_s[], pfx_L3 */
	int nest;               /* frame base -> CFA */
	const char *fb;         /* C variable holding the frame base, once computed */
	const char *cfa;        /* ... the CFA */
} Cmp;

static int cmp_error(Cmp *cm, char *msg)
{
	if (!*cm->err)
		*cm->err = msg;
	else
		free(msg);
	return -1;
}

static int compile_ops(Cmp *cm, const Dwarf_Op *ops, size_t n, const char *dst);

/* The CFA at the pc into a fresh variable (its name in *out). */
static int emit_cfa(Cmp *cm, const char **out)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	int rc;
	char *var;

	if (cm->cfa) {
		*out = cm->cfa;
		return 0;
	}
	if (cm->nest > 2)
		return cmp_error(cm, xstrdup("its frame base refers to itself"));
	if (!cm->ctx->mod->cfi)
		return cmp_error(cm, xasprintf("its frame address needs call frame information, which %s lacks",
					       cm->ctx->mod->path));
	if (dwarf_cfi_addrframe(cm->ctx->mod->cfi, cm->ctx->pc, &frame) != 0 ||
	    dwarf_frame_cfa(frame, &ops, &n) != 0) {
		free(frame);
		return cmp_error(cm, xasprintf("no call frame information covers pc 0x%llx",
					       (unsigned long long)cm->ctx->pc));
	}
	var = xasprintf("%s_cfa", cm->pfx);
	sb_printf(cm->code, "\tunsigned long %s;\n", var);
	{
		Cmp sub = *cm;
		sub.pfx = xasprintf("%s_c", cm->pfx);
		sub.nest = cm->nest + 1;
		sub.fb = sub.cfa = NULL;
		rc = compile_ops(&sub, ops, n, var);
	}
	free(frame);
	if (rc)
		return rc;
	cm->cfa = var;
	*out = var;
	return 0;
}

static int emit_frame_base(Cmp *cm, const char **out)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;
	char *var;
	int rc;

	if (cm->fb) {
		*out = cm->fb;
		return 0;
	}
	if (!cm->ctx->frame_fn || !dwarf_attr_integrate(cm->ctx->frame_fn, DW_AT_frame_base, &attr))
		return cmp_error(cm, xstrdup("it is addressed from a frame base that its function does not give"));
	if (dwarf_getlocation_addr(&attr, cm->ctx->pc, &ops, &n, 1) != 1)
		return cmp_error(cm, xasprintf("its function's frame base is not known at pc 0x%llx",
					       (unsigned long long)cm->ctx->pc));
	var = xasprintf("%s_fb", cm->pfx);
	sb_printf(cm->code, "\tunsigned long %s;\n", var);
	if (n == 1 && is_reg_op(&ops[0])) {
		int reg = ops[0].atom == DW_OP_regx ? (int)ops[0].number : (int)(ops[0].atom - DW_OP_reg0);
		const char *r = dwloc_reg_name(reg);
		if (!r)
			return cmp_error(cm, xasprintf("its frame base is in DWARF register %d, which is not supported", reg));
		sb_printf(cm->code, "\t%s = c->regs->%s;\n", var, r);
	} else {
		Cmp sub = *cm;
		sub.pfx = xasprintf("%s_f", cm->pfx);
		sub.nest = cm->nest + 1;
		sub.fb = NULL;
		rc = compile_ops(&sub, ops, n, var);
		if (rc)
			return rc;
		if (sub.cfa)
			cm->cfa = sub.cfa;
	}
	cm->fb = var;
	*out = var;
	return 0;
}

/* The compilation of one expression: its ops, the stack depth known before each op (-1 = not
 * reached yet), the ops that are branch targets, and the C of its body as it grows. */
typedef struct LocOps {
	Cmp *cm;
	const Dwarf_Op *ops;
	size_t n;
	int *depth;
	int *target;
	int d, maxd;            /* the depth now; the deepest so far */
	StrBuf body;
} LocOps;

#define S(k) xasprintf("%s_s[%d]", lo->cm->pfx, (k))

/* The op index a DW_OP_skip/bra at op i jumps to: n for just past the last op, -1 outside */
static long loc_branch_target(const LocOps *lo, size_t i)
{
	uint64_t to = lo->ops[i].offset + 3 + (uint64_t)(int64_t)(int16_t)lo->ops[i].number;
	uint64_t end_off = lo->ops[lo->n - 1].offset + 1;
	size_t k;

	for (k = 0; k < lo->n && lo->ops[k].offset != to; k++)
		;
	if (k < lo->n)
		return (long)k;
	return to < end_off + 64 && to > lo->ops[lo->n - 1].offset ? (long)lo->n : -1;
}

static int loc_need(LocOps *lo, int k)
{
	return lo->d < k ? cmp_error(lo->cm, xstrdup("its location expression underflows its stack")) : 0;
}

/* Pushes the value of the C expression FMT... */
static int __attribute__((format(printf, 2, 3))) loc_push(LocOps *lo, const char *fmt, ...)
{
	va_list ap;
	char *t;

	if (lo->d >= MAX_STACK)
		return cmp_error(lo->cm, xstrdup("its location expression is too deep"));
	t = S(lo->d);
	sb_printf(&lo->body, "\t%s = ", t);
	va_start(ap, fmt);
	sb_vprintf(&lo->body, fmt, ap);
	va_end(ap);
	sb_puts(&lo->body, ";\n");
	free(t);
	lo->d++;
	return 0;
}

/* Pushes a copy of the entry K below the top (0 = the top) */
static int loc_push_copy(LocOps *lo, int k)
{
	char *u;
	int rc;

	if ((rc = loc_need(lo, k + 1)) != 0)
		return rc;
	u = S(lo->d - 1 - k);
	rc = loc_push(lo, "%s", u);
	free(u);
	return rc;
}

/* FMT's %1$s is the lower operand (and the result), %2$s the top, which is popped */
static int loc_binary(LocOps *lo, const char *fmt)
{
	char *t, *u, *expr;
	int rc;

	if ((rc = loc_need(lo, 2)) != 0)
		return rc;
	t = S(lo->d - 2);
	u = S(lo->d - 1);
	expr = xasprintf(fmt, t, u);
	sb_printf(&lo->body, "\t%s = %s;\n", t, expr);
	free(expr);
	free(t);
	free(u);
	lo->d--;
	return 0;
}

/* FMT's %1$s is the top, changed in place */
static int loc_unary(LocOps *lo, const char *fmt)
{
	char *t, *stmt;
	int rc;

	if ((rc = loc_need(lo, 1)) != 0)
		return rc;
	t = S(lo->d - 1);
	stmt = xasprintf(fmt, t);
	sb_printf(&lo->body, "\t%s\n", stmt);
	free(stmt);
	free(t);
	return 0;
}

/* The C operator form of an arithmetic, logic or comparison op, NULL for others */
static const char *loc_binary_form(unsigned a)
{
	switch (a) {
	case DW_OP_and: return "%1$s & %2$s";
	case DW_OP_or: return "%1$s | %2$s";
	case DW_OP_xor: return "%1$s ^ %2$s";
	case DW_OP_plus: return "%1$s + %2$s";
	case DW_OP_minus: return "%1$s - %2$s";
	case DW_OP_mul: return "%1$s * %2$s";
	case DW_OP_div: return "%2$s ? (unsigned long)((long)%1$s / (long)%2$s) : 0";
	case DW_OP_mod: return "%2$s ? %1$s %% %2$s : 0";
	case DW_OP_shl: return "%2$s < 64 ? %1$s << %2$s : 0";
	case DW_OP_shr: return "%2$s < 64 ? %1$s >> %2$s : 0";
	case DW_OP_shra: return "(unsigned long)((long)%1$s >> (%2$s < 64 ? %2$s : 63))";
	case DW_OP_eq: return "(long)%1$s == (long)%2$s";
	case DW_OP_ne: return "(long)%1$s != (long)%2$s";
	case DW_OP_lt: return "(long)%1$s < (long)%2$s";
	case DW_OP_gt: return "(long)%1$s > (long)%2$s";
	case DW_OP_le: return "(long)%1$s <= (long)%2$s";
	case DW_OP_ge: return "(long)%1$s >= (long)%2$s";
	default: return NULL;
	}
}

/* The ops that push a value from outside the stack: registers, addresses, constants, the frame
 * base and the CFA.  1 = not such an op. */
static int loc_value_op(LocOps *lo, const Dwarf_Op *op)
{
	Cmp *cm = lo->cm;
	unsigned a = op->atom;
	const char *r;
	int rc;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return loc_push(lo, "%uUL", a - DW_OP_lit0);
	if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
		unsigned long long reg = a == DW_OP_bregx ? op->number : a - DW_OP_breg0;
		long long off = (long long)(int64_t)(a == DW_OP_bregx ? op->number2 : op->number);
		if (reg > 31 || !(r = dwloc_reg_name((int)reg)))
			return cmp_error(cm, xasprintf("it is addressed from DWARF register %llu, which is not supported",
						       reg));
		return loc_push(lo, "c->regs->%s + (unsigned long)%lldL", r, off);
	}
	switch (a) {
	case DW_OP_addr: {
		char *err = NULL;
		char *reloc = dwloc_reloc(cm->ctx->mod, op->number, &err);
		if (!reloc)
			return cmp_error(cm, err);
		return loc_push(lo, "%s", reloc);
	}
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u: case DW_OP_constu:
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s: case DW_OP_consts:
		return loc_push(lo, "0x%llxUL", (unsigned long long)op->number);
	case DW_OP_fbreg:
		if ((rc = emit_frame_base(cm, &r)) != 0)
			return rc;
		return loc_push(lo, "%s + (unsigned long)%lldL", r, (long long)(int64_t)op->number);
	case DW_OP_call_frame_cfa:
		if ((rc = emit_cfa(cm, &r)) != 0)
			return rc;
		return loc_push(lo, "%s", r);
	default:
		return 1;
	}
}

/* The ops that work on the stack itself. 1 = not such an op. */
static int loc_stack_op(LocOps *lo, const Dwarf_Op *op)
{
	unsigned a = op->atom;
	const char *form = loc_binary_form(a);
	char *x, *t, *u;
	int rc;

	if (form)
		return loc_binary(lo, form);
	switch (a) {
	case DW_OP_dup: return loc_push_copy(lo, 0);
	case DW_OP_over: return loc_push_copy(lo, 1);
	case DW_OP_pick: return loc_push_copy(lo, (int)op->number);
	case DW_OP_drop:
		if ((rc = loc_need(lo, 1)) == 0)
			lo->d--;
		return rc;
	case DW_OP_swap:
		if ((rc = loc_need(lo, 2)) != 0)
			return rc;
		t = S(lo->d - 2);
		u = S(lo->d - 1);
		sb_printf(&lo->body, "\t{ unsigned long x = %s; %s = %s; %s = x; }\n", t, t, u, u);
		free(t);
		free(u);
		return 0;
	case DW_OP_rot:
		if ((rc = loc_need(lo, 3)) != 0)
			return rc;
		x = S(lo->d - 3);
		t = S(lo->d - 2);
		u = S(lo->d - 1);
		/* (x t u) -> (u x t) */
		sb_printf(&lo->body, "\t{ unsigned long y = %s; %s = %s; %s = %s; %s = y; }\n", u, u, t, t, x, x);
		free(x);
		free(t);
		free(u);
		return 0;
	case DW_OP_deref:
	case DW_OP_deref_size: {
		int size = a == DW_OP_deref ? 8 : (int)op->number;
		Cmp *cm = lo->cm;
		if ((rc = loc_need(lo, 1)) != 0)
			return rc;
		if (size < 1 || size > 8)
			return cmp_error(cm, xstrdup("its location reads memory of a size that is not supported"));
		t = S(lo->d - 1);
		sb_printf(&lo->body, "\t%s = (unsigned long)stp_dw_%s(c, %s, %d, 0);\n", t,
			  cm->ctx->mod && cm->ctx->mod->is_user ? "uread" : "read", t, size);
		sb_printf(&lo->body, "\tif (unlikely(c->last_error)) goto %s;\n", cm->ctx->fail);
		free(t);
		return 0;
	}
	case DW_OP_abs: return loc_unary(lo, "if ((long)%1$s < 0) %1$s = -%1$s;");
	case DW_OP_neg: return loc_unary(lo, "%1$s = -%1$s;");
	case DW_OP_not: return loc_unary(lo, "%1$s = ~%1$s;");
	case DW_OP_plus_uconst:
		if ((rc = loc_need(lo, 1)) != 0)
			return rc;
		t = S(lo->d - 1);
		sb_printf(&lo->body, "\t%s += 0x%llxUL;\n", t, (unsigned long long)op->number);
		free(t);
		return 0;
	case DW_OP_nop:
		return 0;
	default:
		return 1;
	}
}

/* DW_OP_skip or DW_OP_bra at op i: a goto, and the depth the target is reached with */
static int loc_branch_op(LocOps *lo, size_t i)
{
	const Dwarf_Op *op = &lo->ops[i];
	long k = loc_branch_target(lo, i);
	char *t;
	int rc;

	if (op->atom == DW_OP_bra) {
		if ((rc = loc_need(lo, 1)) != 0)
			return rc;
		lo->d--;
		t = S(lo->d);
		sb_printf(&lo->body, "\tif (%s) goto %s_L%ld;\n", t, lo->cm->pfx, k);
		free(t);
	} else {
		sb_printf(&lo->body, "\tgoto %s_L%ld;\n", lo->cm->pfx, k);
	}
	if (lo->depth[k] >= 0 && lo->depth[k] != lo->d)
		return cmp_error(lo->cm, xstrdup("its location expression joins with different stack depths"));
	lo->depth[k] = lo->d;
	return 0;
}

/* One op, into lo->body */
static int loc_op(LocOps *lo, size_t i)
{
	const Dwarf_Op *op = &lo->ops[i];
	unsigned a = op->atom;
	const char *name = op_name(a);
	int rc;

	if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
		return cmp_error(lo->cm, xstrdup("its location expression uses a register location inside a computation"));
	if (name)
		return cmp_error(lo->cm, xasprintf("its location uses %s, which is not supported", name));
	if (a == DW_OP_skip || a == DW_OP_bra)
		return loc_branch_op(lo, i);
	if ((rc = loc_value_op(lo, op)) != 1 || (rc = loc_stack_op(lo, op)) != 1)
		return rc;
	switch (a) {
	case DW_OP_stack_value:
	case DW_OP_piece:
	case DW_OP_bit_piece:
	case DW_OP_implicit_value:
	case DW_OP_regx:
		return cmp_error(lo->cm, xstrdup("its location expression is malformed"));
	default:
		return cmp_error(lo->cm, xasprintf("its location uses DWARF operation 0x%x, which is not supported", a));
	}
}

/* The ops in order, each at the depth it is reached with (falling through or by a branch) */
static int loc_ops(LocOps *lo)
{
	int rc;

	for (size_t i = 0; i < lo->n; i++) {
		if (lo->depth[i] < 0)
			return cmp_error(lo->cm, xstrdup("its location expression has unreachable parts"));
		lo->d = lo->depth[i];
		if (lo->target[i])
			sb_printf(&lo->body, "%s_L%zu:\n", lo->cm->pfx, i);
		if ((rc = loc_op(lo, i)) != 0)
			return rc;
		if (lo->maxd < lo->d)
			lo->maxd = lo->d;
		if (lo->ops[i].atom == DW_OP_skip)
			continue;   /* the next op is reached only by a branch */
		if (lo->depth[i + 1] >= 0 && lo->depth[i + 1] != lo->d)
			return cmp_error(lo->cm, xstrdup("its location expression joins with different stack depths"));
		lo->depth[i + 1] = lo->d;
	}
	if (lo->depth[lo->n] != 1)
		return cmp_error(lo->cm, xstrdup(lo->n ? "its location expression does not leave one value" :
						 "its location expression is empty"));
	return 0;
}

/* The compiled body into cm->code, its value into dst: a lone push as one assignment,
 * otherwise a block with the stack */
static void loc_finish(LocOps *lo, const char *dst)
{
	Cmp *cm = lo->cm;
	StrBuf *body = &lo->body;

	if (lo->n == 1 && lo->maxd == 1 && !lo->target[0] && !lo->target[1]) {
		char *head = xasprintf("\t%s_s[0] = ", cm->pfx);
		size_t hl = strlen(head);
		int lone = !strncmp(body->data, head, hl) && body->data[body->len - 1] == '\n' &&
			   !strchr(body->data + hl, '\n')[1];
		free(head);
		if (lone) {
			sb_printf(cm->code, "\t%s = %.*s\n", dst, (int)(body->len - hl - 1), body->data + hl);
			return;
		}
	}
	if (lo->target[lo->n])
		sb_printf(body, "%s_L%zu:\n", cm->pfx, lo->n);
	sb_printf(cm->code, "\t{\n\tunsigned long %s_s[%d];\n", cm->pfx, lo->maxd ? lo->maxd : 1);
	sb_puts(cm->code, body->data);
	sb_printf(cm->code, "\t%s = %s_s[0];\n\t}\n", dst, cm->pfx);
}

static int compile_ops(Cmp *cm, const Dwarf_Op *ops, size_t n, const char *dst)
{
	LocOps lo = { .cm = cm, .ops = ops, .n = n };
	int rc = 0;

	lo.depth = xcalloc(n + 1, sizeof *lo.depth);
	lo.target = xcalloc(n + 1, sizeof *lo.target);
	sb_init(&lo.body);
	for (size_t i = 0; i <= n; i++)
		lo.depth[i] = -1;
	for (size_t i = 0; i < n && !rc; i++) {
		long k;
		if (ops[i].atom != DW_OP_skip && ops[i].atom != DW_OP_bra)
			continue;
		k = loc_branch_target(&lo, i);
		if (k < 0)
			rc = cmp_error(cm, xstrdup("its location expression branches outside itself"));
		else
			lo.target[k] = 1;
	}
	lo.depth[0] = 0;
	if (!rc)
		rc = loc_ops(&lo);
	if (!rc)
		loc_finish(&lo, dst);
	sb_free(&lo.body);
	free(lo.depth);
	free(lo.target);
	return rc;
}

#undef S

int dwloc_emit(DwLocCtx *ctx, const TgPiece *p, const char *dst, StrBuf *code, char **err)
{
	Cmp cm = { .ctx = ctx, .code = code, .err = err };

	*err = NULL;
	cm.pfx = ctx->pfx ? xstrdup(ctx->pfx) : xasprintf("dw%d", ctx->uniq);
	if (p->kind != TGL_ADDR && p->kind != TGL_VALUE) {
		*err = xstrdup("internal: only addresses and values are computed");
		return -1;
	}
	return compile_ops(&cm, p->ops, p->nops, dst);
}
