/* locations.c - the locations of the bound accesses compiled once bound (pass 2): DWARF location expressions to C
 * with placeholders, registers' names, symbols' run-time addresses. Called by bind.c; read by codegen/targetvars.c. */
#include "targets/access.h"
#include "dwarf/dwvars.h"
#include "providers/provider.h"

static void compile_access(DwAccess *a);

static void compile_piece(DwAccess *a, DwPiece *p)
{
	DwLocCtx ctx = { .mod = a->mod, .pc = a->pc, .frame_fn = a->have_frame_fn ? &a->frame_fn : NULL,
			 .fail = TG_CODE_FAIL, .pfx = TG_CODE_PFX };
	StrBuf code;
	char *err = NULL;

	switch (p->kind) {
	case DWLOC_REG:
		p->reg_name = dwloc_reg_name(p->reg);
		break;
	case DWLOC_ADDR:
	case DWLOC_VALUE:
		sb_init(&code);
		if (dwloc_emit(&ctx, p, TG_CODE_DST, &code, &err) != 0) {
			p->code_err = err;
			sb_free(&code);
		} else {
			p->code = code.data ? code.data : xstrdup("");
		}
		break;
	default:
		break;
	}
}

static void compile_access(DwAccess *a)
{
	if (!a || a->compiled)
		return;
	a->compiled = 1;
	a->in_user_file = a->mod && a->mod->is_user;
	if (a->base == DWB_SYMBOL)
		a->sym_c = dwloc_reloc(a->mod, a->sym_addr, &a->sym_err);
	for (int i = 0; i < a->loc.npieces; i++)
		compile_piece(a, &a->loc.pieces[i]);
	for (int i = 0; i < a->var_access.len; i++)
		compile_access(a->var_access.items[i]);
}

static void compile_expr(Expr *e)
{
	for (; e && e->kind == EX_DWARF; e = e->left)
		compile_access(e->dwarf);
}

static int compile_visit(Expr *e, void *ctx)
{
	(void)ctx;
	compile_expr(e);
	return 0;
}

void tg_compile_locations(Session *s)
{
	AstVisitor v = { NULL, compile_visit, NULL };

	ast_walk_program(&s->prog, &v);
	for (int i = 0; i < s->derived.len; i++) {
		PtrVec *exprs = tg_entry_exprs(s, s->derived.items[i]);
		for (int j = 0; exprs && j < exprs->len; j++)
			compile_expr(exprs->items[j]);
	}
}
