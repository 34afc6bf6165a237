/* access.c - building the neutral access record of a bound target variable (access.h), and the
 * values .return probes save at entry. Used by the DWARF and BTF leaves, bind.c and codegen/targetvars.c. */
#include "targets/access.h"
#include "dwarf/dwarf.h"
#include "providers/provider.h"

TgAccess *tg_access_new(TgWhat what)
{
	TgAccess *a = xcalloc(1, sizeof *a);

	a->what = what;
	a->slot = -1;
	return a;
}

void tg_access_step(TgAccess *a, TgStepKind kind, int64_t n, int arg, SrcLoc loc, const char *op)
{
	TgStep *st;

	if (kind == TGS_ADD && a->steps.len) {
		TgStep *last = a->steps.items[a->steps.len - 1];
		if (last->kind == TGS_ADD) {
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

void tg_access_member(TgAccess *a, const TgStepMember *m)
{
	TgStep *st = a->steps.items[a->steps.len - 1];
	TgStepMember *copy = xmalloc(sizeof *copy);

	*copy = *m;
	copy->name = xstrdup(m->name);
	vec_push(&st->members, copy);
}

void tg_access_fixed_stride(TgAccess *a)
{
	TgStep *st = a->steps.items[a->steps.len - 1];

	st->fixed_stride = 1;
}

/* ---- the entry expressions of .return probes ---- */

typedef struct EntryList {
	const struct DerivedProbe *dp;
	PtrVec exprs;            /* Expr* (EX_BOUND, TGA_ENTRY) */
} EntryList;

/* the lists live in the session's DWARF cache (dwarf_cache(s)->entry_lists): per run, not per process */
PtrVec *tg_entry_list(Session *s, const struct DerivedProbe *dp)
{
	PtrVec *lists = &dwarf_cache(s)->entry_lists;

	for (int i = 0; i < lists->len; i++) {
		EntryList *l = lists->items[i];
		if (l->dp == dp)
			return &l->exprs;
	}
	return NULL;
}

void tg_add_entry_expr(Session *s, const struct DerivedProbe *dp, Expr *e)
{
	PtrVec *v = tg_entry_list(s, dp);

	if (!v) {
		EntryList *l = xcalloc(1, sizeof *l);
		l->dp = dp;
		vec_push(&dwarf_cache(s)->entry_lists, l);
		v = &l->exprs;
	}
	vec_push(v, e);
}

PtrVec *tg_entry_exprs(Session *s, const struct DerivedProbe *dp)
{
	return (dp->site ? dp->site->entry_size : dp->entry_size) ? tg_entry_list(s, dp) : NULL;
}

char *tg_code_fill(const char *code, const char *pfx, const char *dst, const char *fail)
{
	StrBuf sb;

	sb_init(&sb);
	for (const char *p = code; *p; p++) {
		if (*p != '\001' || !p[1]) {
			sb_putc(&sb, *p);
			continue;
		}
		p++;
		sb_puts(&sb, *p == 'P' ? pfx : *p == 'D' ? dst : fail);
	}
	return sb.data ? sb.data : xstrdup("");
}
