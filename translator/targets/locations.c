/* locations.c - the locations of the bound accesses compiled once bound (pass 2): DWARF location expressions to C
 * with placeholders, registers' names, symbols' run-time addresses. Called by bind.c; read by codegen/targetvars.c. */
#include "targets/access.h"
#include "dwarf/dwvars.h"
#include "providers/provider.h"

static void compile_access(TgAccess *a);

static void compile_piece(TgAccess *a, TgPiece *p)
{
	struct TgLeafAccess *l = a->leaf;
	DwLocCtx ctx = { .mod = l ? l->mod : NULL, .pc = a->pc, .frame_fn = l && l->have_frame_fn ? &l->frame_fn : NULL,
			 .fail = TG_CODE_FAIL, .pfx = TG_CODE_PFX };
	StrBuf code;
	char *err = NULL;

	switch (p->kind) {
	case TGL_REG:
		if (!p->reg_name)        /* the BTF leaf names its registers */
			p->reg_name = dwloc_reg_name(p->reg);
		break;
	case TGL_ADDR:
	case TGL_VALUE:
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

static void compile_access(TgAccess *a)
{
	if (!a || a->compiled)
		return;
	a->compiled = 1;
	a->in_user_file = a->leaf && a->leaf->mod && a->leaf->mod->is_user;
	if (a->base == TGB_SYMBOL)
		a->sym_c = dwloc_reloc(a->leaf ? a->leaf->mod : NULL, a->sym_addr, &a->sym_err);
	for (int i = 0; i < a->loc.npieces; i++)
		compile_piece(a, &a->loc.pieces[i]);
	for (int i = 0; i < a->var_access.len; i++)
		compile_access(a->var_access.items[i]);
}

static void compile_expr(Expr *e)
{
	for (; e && e->kind == EX_BOUND; e = e->left)
		compile_access(e->bound);
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
