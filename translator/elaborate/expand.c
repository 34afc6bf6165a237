/* expand.c - pass 2 for probe points: expands probe aliases (prologue "=",
 * epilogue "+=", alias of alias, suffixes), wildcards, {alternatives}, "?",
 * "!" and "if (cond)", and binds what is left to the probe providers. */
#include "elaborate/expand.h"
#include "elaborate/pointmatch.h"
#include "providers/provider.h"
#include "elaborate/procglob.h"

#include <string.h>

#define MAX_ALIAS_DEPTH 32
#define EXPANDED_TO_NOTHING (-2)   /* an alias matched, but each of its points was optional and absent */

typedef struct AliasDef {
	Probe *def;
	CompText *comps;
	int n;
	char *name;
} AliasDef;

/* The aliases passed through so far, innermost first. */
typedef struct Chain {
	const AliasDef *alias;
	const struct Chain *up;
	char *shown;             /* the alias name plus the suffix used with it */
} Chain;

typedef struct Expander {
	Session *s;
	PtrVec aliases;          /* AliasDef* */
	StrMap globals;          /* declared global names, for conditions */
	Probe *user;             /* the script probe being expanded */
	Probe *direct;           /* its expansion shared by plain provider points */
	PtrVec out;              /* Probe*: the expanded probes */
	int errors;
} Expander;

/* What an expansion puts around the user's body. */
typedef struct Wrap {
	PtrVec pre;              /* Stmt*: alias prologues, innermost first */
	PtrVec post;             /* Stmt*: alias epilogues, outermost first */
	Expr *cond;              /* every if (cond) met, and-ed */
	PtrVec defs;             /* Probe*: the aliases, for their variables */
	int optional;            /* some point on the way was marked '?' */
} Wrap;

static void sem_error(Expander *ex, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void sem_error(Expander *ex, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(&ex->s->diag, loc, "semantic error", fmt, ap);
	va_end(ap);
	ex->errors++;
}

static char *chain_text(const Chain *c, const ProbePoint *user_point)
{
	StrBuf sb;
	const char *outer = NULL;
	char *u = point_path(user_point);

	sb_init(&sb);
	for (; c; c = c->up) {
		sb_printf(&sb, "%s%s", sb.len ? " <- " : "", c->alias->name);
		outer = c->alias->name;
	}
	if (!outer || strcmp(outer, u))
		sb_printf(&sb, " <- %s", u);
	free(u);
	return sb_steal(&sb);
}

static char *chain_note(const Chain *c, const ProbePoint *user_point)
{
	char *u = point_path(user_point);
	char *note = xasprintf("in probe alias '%s' (%s:%d:%d) from '%s' at %s:%d:%d", c->alias->name,
			       c->alias->def->loc.file ? c->alias->def->loc.file->name : "?", c->alias->def->loc.line,
			       c->alias->def->loc.col, u, user_point->loc.file ? user_point->loc.file->name : "?",
			       user_point->loc.line, user_point->loc.col);
	free(u);
	return note;
}


/* ---- building an expanded probe ---- */

static void collect_assigned(Stmt *st, PtrVec *names);

static int assigned_in_expr(Expr *e, void *ctx)
{
	PtrVec *names = ctx;
	if ((e->kind == EX_ASSIGN) && e->left && e->left->kind == EX_IDENT) {
		for (int i = 0; i < names->len; i++)
			if (!strcmp(names->items[i], e->left->str))
				return 0;
		vec_push(names, e->left->str);
	}
	return 0;
}

static void collect_assigned(Stmt *st, PtrVec *names)
{
	AstVisitor v = { NULL, assigned_in_expr, names };
	ast_walk_stmt(st, &v);
}

static Probe *new_expansion(Expander *ex, ProbePoint *pp, const Wrap *w, const Chain *chain,
			    const ProbePoint *user_point)
{
	Probe *p = xcalloc(1, sizeof *p);
	Stmt *body = stmt_new(ST_BLOCK, ex->user->body->loc);

	p->loc = ex->user->loc;
	p->origin = ex->user;
	p->chain = chain ? chain_text(chain, user_point) : NULL;
	for (const Chain *c = chain; c; c = c->up)
		if (!c->up)
			p->alias_name = c->shown;
	vec_push(&p->points, pp);
	if (w->cond) {
		/* if (!(cond)) next; -- the probe is armed only while cond holds */
		Stmt *guard = stmt_new(ST_IF, w->cond->loc);
		Expr *not = expr_new(EX_UNARY, w->cond->loc);
		not->op = OP_NOT;
		not->left = expr_clone(w->cond);
		guard->expr = not;
		guard->then = stmt_new(ST_NEXT, w->cond->loc);
		vec_push(&body->body, guard);
	}
	for (int i = 0; i < w->pre.len; i++)
		vec_push(&body->body, stmt_clone(w->pre.items[i]));
	vec_push(&body->body, stmt_clone(ex->user->body));
	for (int i = 0; i < w->post.len; i++)
		vec_push(&body->body, stmt_clone(w->post.items[i]));
	p->body = body;
	for (int i = 0; i < w->defs.len; i++) {
		collect_assigned(((Probe *)w->defs.items[i])->body, &p->alias_locals);
		collect_assigned(((Probe *)w->defs.items[i])->epilogue, &p->alias_locals);
	}
	vec_push(&ex->out, p);
	return p;
}

/* ---- resolution ---- */

/* Conditions arm and disarm probes: they may read only globals. */
static int check_cond_expr(Expr *e, void *ctx)
{
	Expander *ex = ctx;
	if ((e->kind == EX_IDENT || e->kind == EX_INDEX) && !strmap_get(&ex->globals, e->str))
		sem_error(ex, e->loc, "probe condition uses '%s', which is not a global variable", e->str);
	if (e->kind == EX_ASSIGN || e->kind == EX_INCDEC)
		sem_error(ex, e->loc, "probe condition must not change variables");
	return 0;
}

static int expand_point(Expander *ex, ProbePoint *pp, Wrap *w, const Chain *chain, const ProbePoint *user_point,
			int depth);

/* The conditions of a written point and of the alternatives in its {...}, each once. */
static void check_point_conds(Expander *ex, const ProbePoint *pp)
{
	AstVisitor v = { NULL, check_cond_expr, ex };

	if (pp->cond)
		ast_walk_expr(pp->cond, &v);
	for (int i = 0; i < pp->components.len; i++) {
		const ProbePointComponent *c = pp->components.items[i];
		for (int j = 0; j < c->alts.len; j++)
			check_point_conds(ex, c->alts.items[j]);
	}
}

/* Expands one alias definition matched by pp (best components long). */
static int expand_alias(Expander *ex, const AliasDef *a, ProbePoint *pp, int best, Wrap *w, const Chain *chain,
			const ProbePoint *user_point, int depth)
{
	Chain link = { a, chain, a->name };
	char *note = chain_note(&link, user_point);
	int produced = 0, failed = 0;
	ProbePoint *suffix = point_clone(pp);

	if (best < pp->components.len) {
		ProbePoint tail = *suffix;
		memset(&tail.components, 0, sizeof tail.components);
		for (int i = best; i < suffix->components.len; i++)
			vec_push(&tail.components, suffix->components.items[i]);
		char *t = point_path(&tail);
		link.shown = xasprintf("%s.%s", a->name, t);
		free(t);
	}

	diag_set_context(&ex->s->diag, note);
	for (int t = 0; t < a->def->points.len; t++) {
		PtrVec alts = point_alternatives(a->def->points.items[t]);
		int stop = 0;
		for (int k = 0; k < alts.len && !stop; k++) {
			ProbePoint *target = alts.items[k];
			ProbePoint *q = point_clone(target);
			Wrap inner = *w;
			int n;

			q->loc = target->loc;
			for (int i = best; i < pp->components.len; i++)   /* alias suffix: foo.return */
				vec_push(&q->components, suffix->components.items[i]);
			memset(&inner.pre, 0, sizeof inner.pre);
			memset(&inner.post, 0, sizeof inner.post);
			memset(&inner.defs, 0, sizeof inner.defs);
			if (a->def->alias == ALIAS_PROLOGUE)
				vec_push(&inner.pre, a->def->body);
			for (int i = 0; i < w->pre.len; i++)
				vec_push(&inner.pre, w->pre.items[i]);
			for (int i = 0; i < w->post.len; i++)
				vec_push(&inner.post, w->post.items[i]);
			if (a->def->alias == ALIAS_EPILOGUE)
				vec_push(&inner.post, a->def->body);
			else if (a->def->epilogue)
				vec_push(&inner.post, a->def->epilogue);
			for (int i = 0; i < w->defs.len; i++)
				vec_push(&inner.defs, w->defs.items[i]);
			vec_push(&inner.defs, a->def);
			if (target->cond) {
				AstVisitor v = { NULL, check_cond_expr, ex };
				ast_walk_expr(target->cond, &v);
			}
			inner.cond = expr_and(w->cond, target->cond);
			int errors_before = ex->errors;
			int optional = target->optional || target->sufficient;   /* '!' implies '?' */
			inner.optional = w->optional || optional;
			if (optional)
				diag_mute(&ex->s->diag, 1);
			n = expand_point(ex, q, &inner, &link, user_point, depth + 1);
			if (optional) {
				diag_mute(&ex->s->diag, -1);
				ex->errors = errors_before;
			}
			diag_set_context(&ex->s->diag, note);
			if ((n == 0 || n == EXPANDED_TO_NOTHING) && !optional) {
				char *text = point_path(q);
				sem_error(ex, target->loc, "probe point '%s' matches nothing", text);
				free(text);
				failed = 1;
			}
			if (n == -1 && !optional)
				failed = 1;
			if (n > 0) {
				produced += n;
				if (target->sufficient)
					stop = 1;
			}
		}
		if (stop)
			break;
	}
	diag_set_context(&ex->s->diag, NULL);
	return produced ? produced : failed ? -1 : 0;
}

/* pn(): the alias the script's point matched, else the point as the script wrote it. */
static char *written_name(const Chain *chain, const ProbePoint *user_point, const ProbePoint *pp)
{
	for (const Chain *c = chain; c; c = c->up)
		if (!c->up)
			return xstrdup(c->shown);
	return point_path(user_point ? user_point : pp);
}

/* A point of a family whose points become many probes (DWARF sites): one
 * expansion, with its own copy of the body, per site. */
static int expand_sites(Expander *ex, ProbePoint *pp, Wrap *w, const Chain *chain, const ProbePoint *user_point,
			DerivedProbe *tmpl)
{
	PtrVec sites = { 0 };
	int n = tmpl->provider->resolve_many(ex->s, pp, tmpl, &sites);

	if (n < 0) {
		ex->errors++;
		return -1;
	}
	for (int i = 0; i < sites.len; i++) {
		DerivedProbe *dp = sites.items[i];
		dp->probe = new_expansion(ex, pp, w, chain, user_point);
		dp->index = ex->s->derived.len;
		vec_push(&ex->s->derived, dp);
	}
	free(sites.items);
	return sites.len;
}

static int expand_point(Expander *ex, ProbePoint *pp, Wrap *w, const Chain *chain, const ProbePoint *user_point,
			int depth);

/* process("PATTERN")...: the point once per file PATTERN matches (procglob.c), each expanded as if
 * written with that file's path. Returns the probes made, or -1 after an error. */
static int expand_process_glob(Expander *ex, ProbePoint *pp, Wrap *w, const Chain *chain,
			       const ProbePoint *user_point, int depth)
{
	PtrVec files = { 0 };
	int produced = 0, failed = 0;

	if (procglob_expand(&ex->s->diag, pp, &files) < 0) {
		ex->errors++;
		return -1;
	}
	for (int i = 0; i < files.len; i++) {
		int n = expand_point(ex, files.items[i], w, chain, user_point ? user_point : pp, depth);

		if (n > 0)
			produced += n;
		else if (n < 0)
			failed = 1;
	}
	free(files.items);
	return produced ? produced : failed ? -1 : 0;
}

/* Returns how many probes pp became, 0 when nothing matched, -1 after an
 * error was reported. */
static int expand_point(Expander *ex, ProbePoint *pp, Wrap *w, const Chain *chain, const ProbePoint *user_point,
			int depth)
{
	CompText *pat;
	int np = comps_of_point(pp, &pat);
	int best = 0, produced = 0, failed = 0;
	const ProbeProvider *prov;
	DerivedProbe *dp;
	Probe *p;

	for (int i = 0; i < ex->aliases.len; i++) {
		AliasDef *a = ex->aliases.items[i];
		int m = comps_match_prefix(pat, np, a->comps, a->n);
		if (m > best)
			best = m;
	}
	if (best > 0) {
		if (depth >= MAX_ALIAS_DEPTH) {
			char *text = point_path(pp);
			sem_error(ex, pp->loc, "probe alias expansion of '%s' is more than %d levels deep (an alias that "
				  "refers to itself?)", text, MAX_ALIAS_DEPTH);
			free(text);
			return -1;
		}
		/* a wildcard stands for the aliases that resolve: the others are
		 * skipped quietly, and if none does the wildcard is the error */
		int wild = 0;
		for (int i = 0; i < np; i++)
			wild |= has_wildcard(pat[i].name);
		for (int i = 0; i < ex->aliases.len; i++) {
			AliasDef *a = ex->aliases.items[i];
			if (comps_match_prefix(pat, np, a->comps, a->n) != best)
				continue;
			int before = ex->errors;
			if (wild)
				diag_mute(&ex->s->diag, 1);
			int n = expand_alias(ex, a, pp, best, w, chain, user_point, depth);
			if (wild) {
				diag_mute(&ex->s->diag, -1);
				ex->errors = before;
				if (n < 0)
					n = 0;
			}
			if (n > 0)
				produced += n;
			else if (n < 0)
				failed = 1;
		}
		if (wild && !produced)
			return 0;
		return produced ? produced : failed ? -1 : EXPANDED_TO_NOTHING;
	}
	if (has_wildcard(pat[0].name))
		return 0;
	if (process_fill_command_path(ex->s, pp) != 0) {
		ex->errors++;
		return -1;
	}
	if (procglob_wanted(pp))
		return expand_process_glob(ex, pp, w, chain, user_point, depth);
	prov = provider_find(pat[0].name, np > 1 ? pat[1].name : NULL);
	if (!prov)
		return 0;
	dp = xcalloc(1, sizeof *dp);
	dp->point = pp;
	dp->provider = prov;
	dp->optional = w->optional;
	dp->name = point_path(pp);
	dp->written = written_name(chain, user_point, pp);
	if (prov->resolve_many)
		return expand_sites(ex, pp, w, chain, user_point, dp);
	if (!prov->resolve(ex->s, pp, dp)) {
		ex->errors++;
		return -1;
	}
	if (!chain && !w->cond) {
		if (!ex->direct) {
			ex->direct = new_expansion(ex, pp, w, NULL, user_point);
			ex->direct->body = ex->user->body;   /* nothing wraps it: no copy needed */
		}
		p = ex->direct;
	} else {
		p = new_expansion(ex, pp, w, chain, user_point);
	}
	dp->probe = p;
	dp->index = ex->s->derived.len;
	vec_push(&ex->s->derived, dp);
	return 1;
}

static void expand_user_probe(Expander *ex, Probe *user)
{
	ex->user = user;
	ex->direct = NULL;
	for (int i = 0; i < user->points.len; i++) {
		ProbePoint *written = user->points.items[i];
		PtrVec alts = point_alternatives(written);
		int k;

		check_point_conds(ex, written);
		for (k = 0; k < alts.len; k++) {
			ProbePoint *pp = alts.items[k];
			int optional = pp->optional || pp->sufficient;   /* '!' implies '?' */
			Wrap w = { .cond = pp->cond, .optional = optional };   /* the point's and its alternatives' */
			int n, before = ex->errors;

			if (optional) {
				free(diag_take_muted(&ex->s->diag));
				diag_mute(&ex->s->diag, 1);
			}
			n = expand_point(ex, pp, &w, NULL, written, 0);
			if (optional) {
				diag_mute(&ex->s->diag, -1);
				ex->errors = before;
			}
			if (n == EXPANDED_TO_NOTHING && !optional) {
				/* why the last of them failed: e.g. a function only DWARF describes */
				char *text = point_path(pp), *why = diag_take_muted(&ex->s->diag);
				sem_error(ex, pp->loc, "probe point '%s' matches nothing: the points of its alias are optional "
					  "and none of them exists%s%s%s", text, why ? " (the last: " : "", why ? why : "",
					  why ? ")" : "");
				free(why);
				free(text);
			}
			if (n == 0 && !optional) {
				char *text = point_path(pp);
				if (has_wildcard(text))
					sem_error(ex, pp->loc, "probe point '%s' matches nothing", text);
				else
					sem_error(ex, pp->loc, "unknown probe point '%s'", text);
				free(text);
			}
			if (n > 0 && pp->sufficient)
				break;   /* '!': the points after it, in this {..} and after, are not needed */
		}
		free(alts.items);
		if (k < alts.len)
			break;
	}
}

int expand_probes(Session *s)
{
	Program *prog = &s->prog;
	Expander ex = { .s = s };
	PtrVec users = { 0 };

	for (int i = 0; i < prog->globals.len; i++)
		strmap_put(&ex.globals, ((Symbol *)prog->globals.items[i])->name, (void *)1);
	for (int i = 0; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		if (p->alias == ALIAS_NONE) {
			vec_push(&users, p);
			continue;
		}
		vec_push(&prog->aliases, p);
		for (int j = 0; j < p->alias_names.len; j++) {
			AliasDef *a = xcalloc(1, sizeof *a);
			a->def = p;
			a->name = point_path(p->alias_names.items[j]);
			a->n = comps_of_point(p->alias_names.items[j], &a->comps);
			vec_push(&ex.aliases, a);
		}
	}
	for (int i = 0; i < users.len; i++)
		expand_user_probe(&ex, users.items[i]);
	prog->probes = ex.out;
	for (int i = 0; i < prog->probes.len; i++)
		((Probe *)prog->probes.items[i])->index = i;
	return ex.errors;
}
