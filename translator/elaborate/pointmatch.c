/* pointmatch.c - probe point patterns: {a,b} alternatives, component text and
 * wildcard matching.  Used by the tapset loader and alias expansion (pass 2). */
#include "elaborate/pointmatch.h"

#include <fnmatch.h>
#include <string.h>

int has_wildcard(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

/* The ?, ! and if (...) of the alternatives chosen so far. */
typedef struct Marks {
	int optional, sufficient;
	Expr *cond;
	const SrcLoc *loc;      /* the innermost alternative taken, for messages */
} Marks;

/* Appends to out every point pp stands for, from component i on, with the
 * components chosen so far in prefix; each point has the marks of pp and of
 * every alternative it went through ({a!,b}: a is sufficient, b is not). */
static void expand_from(const ProbePoint *pp, int i, PtrVec *prefix, Marks m, PtrVec *out)
{
	if (i == pp->components.len) {
		ProbePoint *np = xmalloc(sizeof *np);
		*np = *pp;
		np->optional = pp->optional || m.optional;
		np->sufficient = pp->sufficient || m.sufficient;
		np->cond = expr_and(m.cond, pp->cond);
		if (m.loc)
			np->loc = *m.loc;
		memset(&np->components, 0, sizeof np->components);
		for (int k = 0; k < prefix->len; k++)
			vec_push(&np->components, prefix->items[k]);
		vec_push(out, np);
		return;
	}
	ProbePointComponent *c = pp->components.items[i];
	if (c->name) {
		vec_push(prefix, c);
		expand_from(pp, i + 1, prefix, m, out);
		prefix->len--;
		return;
	}
	for (int a = 0; a < c->alts.len; a++) {
		PtrVec alts = point_alternatives(c->alts.items[a]);
		for (int j = 0; j < alts.len; j++) {
			ProbePoint *alt = alts.items[j];
			Marks inner = { m.optional || alt->optional, m.sufficient || alt->sufficient,
					expr_and(m.cond, alt->cond), &alt->loc };
			int mark = prefix->len;
			for (int k = 0; k < alt->components.len; k++)
				vec_push(prefix, alt->components.items[k]);
			expand_from(pp, i + 1, prefix, inner, out);
			prefix->len = mark;
		}
	}
}

PtrVec point_alternatives(const ProbePoint *pp)
{
	PtrVec out = { 0 }, prefix = { 0 };
	int plain = 1;

	for (int i = 0; i < pp->components.len; i++)
		if (!((ProbePointComponent *)pp->components.items[i])->name)
			plain = 0;
	if (plain) {
		vec_push(&out, (void *)pp);
		return out;
	}
	expand_from(pp, 0, &prefix, (Marks){ 0, 0, NULL, NULL }, &out);
	free(prefix.items);
	return out;
}

static char *arg_text(const Expr *arg)
{
	StrBuf sb;
	if (!arg)
		return xstrdup("");
	sb_init(&sb);
	print_expr(arg, &sb);
	return sb_steal(&sb);
}

char *point_path(const ProbePoint *pp)
{
	StrBuf sb;
	sb_init(&sb);
	for (int i = 0; i < pp->components.len; i++) {
		const ProbePointComponent *c = pp->components.items[i];
		ProbePoint bare;
		if (i)
			sb_putc(&sb, '.');
		if (c->name) {
			sb_puts(&sb, c->name);
			if (c->arg) {
				char *a = arg_text(c->arg);
				sb_printf(&sb, "(%s)", a);
				free(a);
			}
			continue;
		}
		sb_putc(&sb, '{');
		for (int j = 0; j < c->alts.len; j++) {
			bare = *(ProbePoint *)c->alts.items[j];
			bare.optional = bare.sufficient = 0;
			bare.cond = NULL;
			char *t = point_path(&bare);
			sb_printf(&sb, "%s%s", j ? "," : "", t);
			free(t);
		}
		sb_putc(&sb, '}');
	}
	return sb_steal(&sb);
}

int comps_of_point(const ProbePoint *pp, CompText **out)
{
	int n = pp->components.len;
	CompText *c = xcalloc((size_t)n + 1, sizeof *c);

	for (int i = 0; i < n; i++) {
		const ProbePointComponent *pc = pp->components.items[i];
		c[i].name = pc->name ? pc->name : "{}";
		c[i].arg = arg_text(pc->arg);
	}
	*out = c;
	return n;
}

/* Splits at dots outside parentheses and string literals. */
int comps_of_text(const char *text, CompText **out)
{
	PtrVec parts = { 0 };
	const char *start = text;
	int depth = 0, in_str = 0;
	CompText *c;

	for (const char *p = text;; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = 0;
			else if (!*p)
				break;
			continue;
		}
		if (*p == '"')
			in_str = 1;
		else if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if ((*p == '.' && depth == 0) || !*p) {
			vec_push(&parts, xstrndup(start, (size_t)(p - start)));
			start = p + 1;
			if (!*p)
				break;
		}
	}
	c = xcalloc((size_t)parts.len + 1, sizeof *c);
	for (int i = 0; i < parts.len; i++) {
		char *s = parts.items[i];
		char *paren = strchr(s, '(');
		if (paren && s[strlen(s) - 1] == ')') {
			c[i].name = xstrndup(s, (size_t)(paren - s));
			c[i].arg = xstrndup(paren + 1, strlen(paren + 1) - 1);
		} else {
			c[i].name = s;
			c[i].arg = "";
		}
	}
	*out = c;
	free(parts.items);
	return parts.len;
}

int comps_match_prefix(const CompText *pat, int np, const CompText *alias, int na)
{
	if (na > np || na == 0)
		return -1;
	for (int i = 0; i < na; i++) {
		if (has_wildcard(pat[i].name) ? fnmatch(pat[i].name, alias[i].name, 0) != 0
					      : strcmp(pat[i].name, alias[i].name) != 0)
			return -1;
		if (strcmp(pat[i].arg, alias[i].arg) != 0)
			return -1;
	}
	return na;
}

/* A file pattern matches a file name as written or any trailing part of it ("read_write.c",
 * "fs/read_write.c" and "fs/read_*.c" all match "fs/read_write.c"). */
int point_file_matches(const char *pattern, const char *file)
{
	char *suffix;
	int ok;

	if (!file || !*file)
		return 0;
	if (fnmatch(pattern, file, 0) == 0)
		return 1;
	if (pattern[0] == '/' || pattern[0] == '*')
		return 0;
	suffix = xasprintf("*/%s", pattern);
	ok = fnmatch(suffix, file, 0) == 0;
	free(suffix);
	return ok;
}
