/* emit.c - code generation helpers: indented lines, temporaries, error locations, literals and
 * slice filters; it generates no expression (a leaf of codegen/).  Used by every codegen file. */
#include "codegen/gen.h"
#include "elaborate/optimize.h"

#include <ctype.h>
#include <string.h>

void cg_line(Gen *g, const char *fmt, ...)
{
	va_list ap;
	for (int i = 0; i < g->indent; i++)
		sb_putc(&g->body, '\t');
	va_start(ap, fmt);
	sb_vprintf(&g->body, fmt, ap);
	va_end(ap);
	sb_putc(&g->body, '\n');
}

char *cg_long_tmp(Gen *g)
{
	int n = g->ntmp++;
	sb_printf(&g->decls, "\tint64_t t%d;\n", n);
	return xasprintf("t%d", n);
}

char *cg_str_tmp(Gen *g)
{
	int n = g->ntmp++;
	sb_printf(g->frame, "\tchar t%d[MAXSTRINGLEN];\n", n);
	return xasprintf("f->t%d", n);
}

/* Whether val is the code of a string temporary (cg_str_tmp): a frame member of the function
 * being generated, which no other expression writes. */
int cg_is_str_tmp(const char *val)
{
	if (strncmp(val, "f->t", 4) || !val[4])
		return 0;
	for (const char *p = val + 4; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

char *cg_named_local(Gen *g, const char *ctype, const char *prefix)
{
	int n = g->ntmp++;
	sb_printf(&g->decls, "\t%s %s%d;\n", ctype, prefix, n);
	return xasprintf("%s%d", prefix, n);
}

/* An output into the string dst (sprintf, sprint...): the runtime's STP_OUT_STR, a struct stp_out * named
 * by what this returns, opened here and closed (dst ended) by cg_str_out_close. */
char *cg_str_out_open(Gen *g, const char *dst)
{
	int n = g->ntmp++;

	sb_printf(&g->decls, "\tSTP_OUT_STR(o%d);\n", n);
	cg_line(g, "STP_OUT_STR_OPEN(o%d, %s);", n, dst);
	return xasprintf("o%d", n);
}

void cg_str_out_close(Gen *g, const char *o, const char *dst)
{
	cg_line(g, "STP_OUT_STR_CLOSE(%s, %s);", o, dst);
}

/* Whether C code names one of names (n of them) as an identifier, outside string and character
 * literals and comments (a number's suffix is not one); also when a literal or a comment never
 * ends, as the code cannot be read then. */
int cg_c_names(const char *code, const char *const *names, size_t n)
{
	for (const char *p = code; *p; p++) {
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			if (!end)
				return 1;
			p = end + 1;
		} else if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
			if (!*p)
				return 0;
		} else if (*p == '"' || *p == '\'') {
			char q = *p;
			for (p++; *p && *p != q; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return 1;
		} else if (isalpha((unsigned char)*p) || *p == '_') {
			size_t len = 1;
			while (isalnum((unsigned char)p[len]) || p[len] == '_')
				len++;
			for (size_t i = 0; i < n; i++)
				if (strlen(names[i]) == len && !strncmp(p, names[i], len))
					return 1;
			p += len - 1;
		} else if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)p[1]) || p[1] == '_')
				p++;
		}
	}
	return 0;
}

/* Where a script error goes: the innermost try's catch, else the end of
 * the function (its caller or the probe wrapper then sees c->last_error). */
const char *cg_error_label(Gen *g)
{
	if (g->trys.len) {
		int *id = g->trys.items[g->trys.len - 1];
		return xasprintf("catch%d", *id);
	}
	g->out_used = 1;
	return "out";
}

void cg_goto_out(Gen *g)
{
	g->out_used = 1;
	cg_line(g, "goto out;");
}

void cg_check_error(Gen *g)
{
	g->out_used = 1;
	cg_line(g, "if (unlikely(c->last_error)) goto %s;", cg_error_label(g));
}

/* Charges n actions against MAXACTION; at the limit, the error names where (a C string
 * literal: cg_location_literal()).  One line of the generated C: the runtime's STP_ACTIONS, or
 * STP_ACTIONS_UNLESS (runtime/core/probe.c) in a light body or one that may charge none, which is
 * nothing at all when the translator's sum of the body's actions (and its callees') is within
 * MAXACTION. */
void cg_charge_actions(Gen *g, int n, const char *where)
{
	g->actions += n;
	if (g->light)
		cg_line(g, "STP_ACTIONS_UNLESS(STP_LIGHT_PROBE_%d, %d, %s, %s);", g->light - 1, n, where,
			cg_error_label(g));
	else if (g->uncounted)
		cg_line(g, "STP_ACTIONS_UNLESS(%s, %d, %s, %s);", g->uncounted, n, where, cg_error_label(g));
	else
		cg_line(g, "STP_ACTIONS(%d, %s, %s);", n, where, cg_error_label(g));
}

void cg_charge_iteration(Gen *g, const char *where)
{
	g->has_loop = 1;
	cg_charge_actions(g, 1, where);
}

/* "keyword at f:1:2" / "identifier 'x' at f:1:2": how an error names the
 * token it happened near, as a C string literal. */
char *cg_location_literal(const char *what, const char *name, SrcLoc loc)
{
	StrBuf sb;
	sb_init(&sb);
	if (name)
		sb_printf(&sb, "%s '%s' at ", what, name);
	else
		sb_printf(&sb, "%s at ", what);
	sb_printf(&sb, "%s:%d:%d", loc.file ? loc.file->name : "<input>", loc.line, loc.col);
	return cg_string_literal(sb_steal(&sb));
}

/* Records where a runtime error would be reported ("near identifier 'x' at f:1:2"). */
void cg_set_location(Gen *g, const char *what, const char *name, SrcLoc loc)
{
	char *where = cg_location_literal(what, name, loc);

	cg_line(g, "c->last_stmt = %s;", where);
	free(where);
}


int cg_has_side_effects(const Expr *e)
{
	return (expr_effects(e) & EFFECT_WRITE) != 0;
}

char *cg_var_ref(const Symbol *sym)
{
	if (sym->kind == SYM_GLOBAL)
		return xasprintf("g_%s", sym->name);
	return xasprintf("f->l_%s", sym->name);
}


/* Makes a value stable against later side effects by copying it. */
char *cg_materialize(Gen *g, const char *val, Type t)
{
	char *tmp = t == TY_STRING ? cg_str_tmp(g) : cg_long_tmp(g);
	if (t == TY_STRING)
		cg_line(g, "stp_strlcpy(%s, %s, MAXSTRINGLEN);", tmp, val);
	else
		cg_line(g, "%s = %s;", tmp, val);
	return tmp;
}

char *cg_long_literal(int64_t v)
{
	if (v == INT64_MIN)
		return xstrdup("(-9223372036854775807LL - 1)");
	return xasprintf("%lldLL", (long long)v);
}

char *cg_string_literal(const char *s)
{
	StrBuf sb;
	sb_init(&sb);
	emit_c_string(&sb, s);
	return sb_steal(&sb);
}

int cg_has_wildcard_key(const PtrVec *keys)
{
	for (int i = 0; i < keys->len; i++)
		if (((Expr *)keys->items[i])->kind == EX_WILDCARD)
			return 1;
	return 0;
}

/* Inside a foreach over the map expression `map`: skips the entries whose
 * keys differ from the evaluated slice keys fixed[i] (NULL for a '*'). */
void cg_slice_filter(Gen *g, const Symbol *arr, const char *map, const char *it, char **fixed, int nfixed)
{
	for (int i = 0; i < nfixed; i++) {
		if (!fixed[i])
			continue;
		if (arr->keytypes[i] == TY_STRING)
			cg_line(g, "if (strcmp(stp_map_key_str(%s, %s, %d), %s))", map, it, i, fixed[i]);
		else
			cg_line(g, "if (stp_map_key_long(%s, %s, %d) != %s)", map, it, i, fixed[i]);
		cg_line(g, "\tcontinue;");
	}
}

/* foreach ... limit N: stops after N entries (count starts at 0). */
void cg_limit_check(Gen *g, const char *count, const char *limit)
{
	if (!limit)
		return;
	cg_line(g, "if (%s >= %s)", count, limit);
	cg_line(g, "\tbreak;");
	cg_line(g, "%s++;", count);
}

/* ---- statements' places and loops' labels (stmt.c, stats.c) ---- */

/* The token a statement starts with, as MAXACTION errors name it. */
char *cg_stmt_location(const Stmt *st)
{
	if (st->kind == ST_EXPR) {
		const Expr *e = st->expr;
		while ((e->kind == EX_ASSIGN || (e->kind == EX_INCDEC && e->postfix) || e->kind == EX_BINARY) && e->left)
			e = e->left;
		if (e->kind == EX_IDENT || e->kind == EX_INDEX || (e->kind == EX_CALL && e->str))
			return cg_location_literal("identifier", e->str, e->loc);
		if (e->kind == EX_STRING)
			return cg_location_literal("string", NULL, e->loc);
		if (e->kind == EX_NUMBER)
			return cg_location_literal("number", NULL, e->loc);
		return cg_location_literal("operator", NULL, e->loc);
	}
	return cg_location_literal("keyword", NULL, st->loc);
}

LoopLabels *cg_loop_push(Gen *g)
{
	LoopLabels *l = xcalloc(1, sizeof *l);
	l->id = g->nloops++;
	vec_push(&g->loops, l);
	return l;
}

/* One action per loop iteration, so that even an empty loop body ends at MAXACTION. */
void cg_loop_charge(Gen *g, const Stmt *loop)
{
	cg_charge_iteration(g, cg_stmt_location(loop));
}
