/* tpsystems.c - the TRACE_SYSTEM of each trace event the target kernel's headers declare, or the running kernel's
 * tracefs lists (BTF has the tracepoints but not their systems). Used by btf/btftracepoints.c when it builds its catalog. */
#include "btf/btf.h"
#include "session.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* A trace header (include/trace/events/sched.h) says "#define TRACE_SYSTEM sched" and declares its
 * events with macros whose first argument (TRACE_EVENT, DECLARE_TRACE and their _FN/_CONDITION forms)
 * or second (DEFINE_EVENT and its forms, after the class) is the event's name. Many headers wrap them
 * ("#define DEFINE_IRQ_VECTOR_EVENT(name) DEFINE_EVENT_FN(x86_irq_vector, name##_entry, ...)"): a
 * wrapper is learned from its body as rules building names from its own arguments, so that its
 * uses name their events too. Preprocessor conditions are ignored: a name the kernel did not build
 * is simply not in its BTF. */

enum { TK_WORD, TK_PASTE, TK_PUNCT, TK_DIRECTIVE };

typedef struct Token {
	int kind;
	const char *p;
	int len;
} Token;

typedef struct TokenVec {
	Token *t;
	int n, cap;
} TokenVec;

/* One way a macro names an event: the concatenation of its parts, each an argument's text (arg >= 0)
 * or a literal. */
typedef struct NamePart {
	int arg;
	char *lit;
} NamePart;

typedef struct NameRule {
	NamePart *parts;
	int nparts;
} NameRule;

typedef struct TpHeaders {
	StrMap rules;            /* macro name -> PtrVec* of NameRule* */
	StrMap *systems;         /* the result: event name -> system */
	PtrVec owned;            /* the macro names rules' keys point to */
} TpHeaders;

static void tph_free_rule(NameRule *r)
{
	for (int p = 0; p < r->nparts; p++)
		free(r->parts[p].lit);
	free(r->parts);
	free(r);
}

/* The macros naming an event by their first argument, and by their second (after the class). */
static const char *const tph_by_first[] = { "TRACE_EVENT", "TRACE_EVENT_FN", "TRACE_EVENT_FN_COND",
					     "TRACE_EVENT_CONDITION", "DECLARE_TRACE", "DECLARE_TRACE_CONDITION", NULL };
static const char *const tph_by_second[] = { "DEFINE_EVENT", "DEFINE_EVENT_FN", "DEFINE_EVENT_PRINT",
					      "DEFINE_EVENT_CONDITION", NULL };

static int tph_is_base(const char *macro)
{
	for (int i = 0; tph_by_first[i]; i++)
		if (!strcmp(macro, tph_by_first[i]))
			return 1;
	for (int i = 0; tph_by_second[i]; i++)
		if (!strcmp(macro, tph_by_second[i]))
			return 1;
	return 0;
}

static void tph_push(TokenVec *v, int kind, const char *p, int len)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 256;
		v->t = xrealloc(v->t, (size_t)v->cap * sizeof *v->t);
	}
	v->t[v->n++] = (Token){ kind, p, len };
}

/* Skips a comment or a string/char literal at p (end e): the position after it, or p when none. */
static const char *tph_skip(const char *p, const char *e)
{
	if (p + 1 < e && p[0] == '/' && p[1] == '*') {
		const char *c = memmem(p + 2, (size_t)(e - p - 2), "*/", 2);
		return c ? c + 2 : e;
	}
	if (p + 1 < e && p[0] == '/' && p[1] == '/') {
		while (p < e && *p != '\n')
			p++;
		return p;
	}
	if (*p == '"' || *p == '\'') {
		char q = *p++;
		while (p < e && *p != q && *p != '\n')
			p += *p == '\\' && p + 1 < e ? 2 : 1;
		return p < e ? p + 1 : e;
	}
	return p;
}

/* The end of a directive starting at p: its line and the lines continued with a backslash. */
static const char *tph_directive_end(const char *p, const char *e)
{
	while (p < e && *p != '\n') {
		const char *q = tph_skip(p, e);
		if (q != p) {
			p = q;
			continue;
		}
		if (*p == '\\' && p + 1 < e && p[1] == '\n')
			p++;
		p++;
	}
	return p;
}

/* Tokens of [p, e): words, "##", other characters one by one; with directives, a '#' first on a line
 * makes one TK_DIRECTIVE token of the whole directive. Comments and literals are dropped. */
static void tph_tokenize(const char *p, const char *e, int directives, TokenVec *out)
{
	int line_start = 1;

	while (p < e) {
		const char *q = tph_skip(p, e);
		if (q != p) {
			p = q;
			continue;
		}
		if (*p == '\n') {
			line_start = 1;
			p++;
		} else if (isspace((unsigned char)*p) || (*p == '\\' && p + 1 < e && p[1] == '\n')) {
			p++;
		} else if (*p == '#' && directives && line_start) {
			q = tph_directive_end(p, e);
			tph_push(out, TK_DIRECTIVE, p, (int)(q - p));
			p = q;
		} else if (isalnum((unsigned char)*p) || *p == '_') {
			for (q = p; q < e && (isalnum((unsigned char)*q) || *q == '_'); q++)
				;
			tph_push(out, TK_WORD, p, (int)(q - p));
			p = q;
			line_start = 0;
		} else {
			int paste = *p == '#' && p + 1 < e && p[1] == '#';
			tph_push(out, paste ? TK_PASTE : TK_PUNCT, p, paste ? 2 : 1);
			p += paste ? 2 : 1;
			line_start = 0;
		}
	}
}

static int tph_is(const Token *t, const char *s)
{
	return (int)strlen(s) == t->len && !memcmp(t->p, s, (size_t)t->len);
}

/* The arguments of the invocation whose '(' is t[i]: args[k] = { first token, count }, directives
 * inside skipped over. Returns the number of arguments (at most max), -1 when it is not closed. */
static int tph_args(const TokenVec *v, int i, int args[][2], int max)
{
	int depth = 0, n = 0;

	for (int k = i; k < v->n; k++) {
		const Token *t = &v->t[k];
		if (t->kind == TK_DIRECTIVE)
			continue;
		if (t->kind == TK_PUNCT && *t->p == '(' && depth++ == 0) {
			args[0][0] = k + 1, args[0][1] = 0;
			continue;
		}
		if (t->kind == TK_PUNCT && *t->p == ')' && --depth == 0)
			return n + 1 <= max ? n + 1 : max;
		if (t->kind == TK_PUNCT && *t->p == ',' && depth == 1) {
			if (++n < max)
				args[n][0] = k + 1, args[n][1] = 0;
			continue;
		}
		if (n < max)
			args[n][1]++;
	}
	return -1;
}

#define TPH_MAX_ARGS 16

static void tph_add_rule(TpHeaders *h, const char *macro, NameRule *r)
{
	PtrVec *rules = strmap_get(&h->rules, macro);

	if (!rules) {
		char *key = xstrdup(macro);
		rules = xcalloc(1, sizeof *rules);
		vec_push(&h->owned, key);
		strmap_put(&h->rules, key, rules);
	}
	vec_push(rules, r);
}

static void tph_base_rules(TpHeaders *h)
{
	for (int by = 0; by < 2; by++) {
		const char *const *names = by ? tph_by_second : tph_by_first;
		for (int i = 0; names[i]; i++) {
			NameRule *r = xcalloc(1, sizeof *r);
			r->parts = xcalloc(1, sizeof *r->parts);
			r->nparts = 1;
			r->parts[0].arg = by;
			tph_add_rule(h, names[i], r);
		}
	}
}

/* The name an invocation of a rule's macro gives (args as in tph_args), NULL when it is not a word. */
static char *tph_apply(const TokenVec *v, const NameRule *r, int args[][2], int nargs)
{
	StrBuf sb;

	sb_init(&sb);
	for (int i = 0; i < r->nparts; i++) {
		const NamePart *p = &r->parts[i];
		if (p->lit) {
			sb_puts(&sb, p->lit);
			continue;
		}
		if (p->arg >= nargs || args[p->arg][1] != 1 || v->t[args[p->arg][0]].kind != TK_WORD) {
			sb_free(&sb);
			return NULL;
		}
		sb_putn(&sb, v->t[args[p->arg][0]].p, (size_t)v->t[args[p->arg][0]].len);
	}
	return sb.data ? sb_steal(&sb) : NULL;
}

/* A wrapper's rule from its body's invocation of a rule r: the argument r names, in terms of the
 * wrapper's parameters (params[0..nparams)); NULL when it is not made of words and pastes. */
static NameRule *tph_derive(const TokenVec *body, const NameRule *r, int args[][2], int nargs, const TokenVec *params)
{
	NameRule *out = xcalloc(1, sizeof *out);

	for (int i = 0; i < r->nparts; i++) {
		const NamePart *p = &r->parts[i];
		int at, n;
		if (p->lit || p->arg >= nargs) {
			if (!p->lit)
				goto fail;
			out->parts = xrealloc(out->parts, (size_t)(out->nparts + 1) * sizeof *out->parts);
			out->parts[out->nparts++] = (NamePart){ -1, xstrdup(p->lit) };
			continue;
		}
		at = args[p->arg][0], n = args[p->arg][1];
		for (int k = at; k < at + n; k++) {
			const Token *t = &body->t[k];
			NamePart np = { -1, NULL };
			if (t->kind == TK_PASTE)
				continue;
			if (t->kind != TK_WORD || (k > at && body->t[k - 1].kind != TK_PASTE))
				goto fail;
			for (int j = 0; j < params->n; j++)
				if (params->t[j].len == t->len && !memcmp(params->t[j].p, t->p, (size_t)t->len))
					np.arg = j;
			if (np.arg < 0)
				np.lit = xstrndup(t->p, (size_t)t->len);
			out->parts = xrealloc(out->parts, (size_t)(out->nparts + 1) * sizeof *out->parts);
			out->parts[out->nparts++] = np;
		}
	}
	if (out->nparts)
		return out;
fail:
	tph_free_rule(out);
	return NULL;
}

/* A wrapper defined again: the rules it had go. */
static void tph_forget(TpHeaders *h, const char *macro)
{
	PtrVec *rules = strmap_get(&h->rules, macro);

	if (!rules || tph_is_base(macro))
		return;
	for (int r = 0; r < rules->len; r++)
		tph_free_rule(rules->items[r]);
	rules->len = 0;
}

static NameRule *tph_copy(const NameRule *r)
{
	NameRule *c = xcalloc(1, sizeof *c);

	c->nparts = r->nparts;
	c->parts = xcalloc((size_t)r->nparts, sizeof *c->parts);
	for (int i = 0; i < r->nparts; i++)
		c->parts[i] = (NamePart){ r->parts[i].arg, r->parts[i].lit ? xstrdup(r->parts[i].lit) : NULL };
	return c;
}

/* "#define TRACE_SYSTEM x": x into *system; "#define W(a, b) BODY": the rules W gets from the
 * macros BODY invokes; "#define A B": A is B. A macro defined again with rules has those (a header
 * means its own wrapper); one defined as something else (the other branch of an #ifdef, a NOP) keeps
 * the rules it had. */
static void tph_define(TpHeaders *h, const Token *d, char **system)
{
	TokenVec dv = { 0 }, params = { 0 };
	int body = 3, args[TPH_MAX_ARGS][2];
	PtrVec fresh = { 0 };
	char *name;

	tph_tokenize(d->p + 1, d->p + d->len, 0, &dv);
	if (dv.n < 3 || !tph_is(&dv.t[0], "define") || dv.t[1].kind != TK_WORD)
		goto out;
	if (tph_is(&dv.t[1], "TRACE_SYSTEM")) {
		if (dv.n == 3 && dv.t[2].kind == TK_WORD) {
			free(*system);
			*system = xstrndup(dv.t[2].p, (size_t)dv.t[2].len);
		}
		goto out;
	}
	name = xstrndup(dv.t[1].p, (size_t)dv.t[1].len);
	if (dv.t[2].kind == TK_PUNCT && *dv.t[2].p == '(' && dv.t[2].p == dv.t[1].p + dv.t[1].len) {
		for (body = 3; body < dv.n && !(dv.t[body].kind == TK_PUNCT && *dv.t[body].p == ')'); body++)
			if (dv.t[body].kind == TK_WORD)
				tph_push(&params, TK_WORD, dv.t[body].p, dv.t[body].len);
		body++;
	} else {
		body = 2;
	}
	for (int i = body; i < dv.n; i++) {
		char word[128];
		PtrVec *rules;
		int nargs;
		if (dv.t[i].kind != TK_WORD || dv.t[i].len >= (int)sizeof word)
			continue;
		snprintf(word, sizeof word, "%.*s", dv.t[i].len, dv.t[i].p);
		if (!(rules = strmap_get(&h->rules, word)))
			continue;
		if (i == body && dv.n == body + 1) {
			/* an alias of a known macro: its rules copied */
			for (int r = 0; r < rules->len; r++)
				vec_push(&fresh, tph_copy(rules->items[r]));
			break;
		}
		if (i + 1 >= dv.n || dv.t[i + 1].kind != TK_PUNCT || *dv.t[i + 1].p != '(' ||
		    (nargs = tph_args(&dv, i + 1, args, TPH_MAX_ARGS)) < 0)
			continue;
		for (int r = 0; r < rules->len; r++) {
			NameRule *nr = tph_derive(&dv, rules->items[r], args, nargs, &params);
			if (nr)
				vec_push(&fresh, nr);
		}
	}
	if (fresh.len)
		tph_forget(h, name);
	for (int r = 0; r < fresh.len; r++)
		tph_add_rule(h, name, fresh.items[r]);
	free(fresh.items);
	free(name);
out:
	free(dv.t);
	free(params.t);
}

/* One header: its TRACE_SYSTEM and the events it declares. */
static void tph_scan(TpHeaders *h, const char *text, size_t len)
{
	TokenVec v = { 0 };
	char *system = NULL;
	int args[TPH_MAX_ARGS][2];

	tph_tokenize(text, text + len, 1, &v);
	for (int i = 0; i < v.n; i++) {
		const Token *t = &v.t[i];
		char word[128];
		PtrVec *rules;
		int nargs;
		if (t->kind == TK_DIRECTIVE) {
			tph_define(h, t, &system);
			continue;
		}
		if (t->kind != TK_WORD || !system || t->len >= (int)sizeof word)
			continue;
		snprintf(word, sizeof word, "%.*s", t->len, t->p);
		if (!(rules = strmap_get(&h->rules, word)) || i + 1 >= v.n || v.t[i + 1].kind != TK_PUNCT ||
		    *v.t[i + 1].p != '(' || (nargs = tph_args(&v, i + 1, args, TPH_MAX_ARGS)) < 0)
			continue;
		for (int r = 0; r < rules->len; r++) {
			char *event = tph_apply(&v, rules->items[r], args, nargs);
			if (event && !strmap_get(h->systems, event)) {
				strmap_put(h->systems, event, xstrdup(system));   /* the caller owns both */
			} else {
				free(event);
			}
		}
	}
	free(system);
	free(v.t);
}

/* The headers of a directory ending in ".h" whose name contains filter (NULL: all), in name order. */
static int tph_scan_dir(TpHeaders *h, const char *dir, const char *filter)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), nread = 0;

	for (int i = 0; i < n; i++) {
		const char *f = names[i]->d_name;
		size_t fl = strlen(f);
		if (fl > 2 && !strcmp(f + fl - 2, ".h") && (!filter || strstr(f, filter))) {
			char *path = path_join(dir, f);
			size_t len;
			char *text = read_file(path, &len);
			if (text) {
				tph_scan(h, text, len);
				nread++;
			}
			free(text);
			free(path);
		}
		free(names[i]);
	}
	free(n >= 0 ? names : NULL);
	return nread;
}

char *btf_tp_headers_tree(Session *s)
{
	char *cands[4], *mk, *text;
	size_t len;
	int n = 0;

	cands[n++] = xstrdup(s->kbuild_dir);
	cands[n++] = path_join(s->kbuild_dir, "source");
	cands[n++] = xasprintf("/lib/modules/%s/source", s->kver);
	/* Debian's headers: the build tree's Makefile includes the common tree's */
	mk = path_join(s->kbuild_dir, "Makefile");
	if ((text = read_file(mk, &len))) {
		char dir[4096];
		if (sscanf(text, "include %4095s", dir) == 1 && strlen(dir) > 9 && !strcmp(dir + strlen(dir) - 9, "/Makefile")) {
			dir[strlen(dir) - 9] = 0;
			cands[n++] = xstrdup(dir);
		}
		free(text);
	}
	free(mk);
	char *found = NULL;
	for (int i = 0; i < n; i++) {
		char *events = path_join(cands[i], "include/trace/events");
		if (!found && dir_exists(events))
			found = xstrdup(cands[i]);
		free(events);
		free(cands[i]);
	}
	return found;
}

int btf_tp_systems(const char *tree, StrMap *systems)
{
	static const struct { const char *dir, *filter; } where[] = {
		{ "include/trace/events", NULL }, { "arch/x86/include/asm/trace", NULL },
		{ "arch/x86/include/asm", "trace" }, { "include/ras", NULL },
	};
	TpHeaders h = { .systems = systems };
	int read = 0;

	tph_base_rules(&h);
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
		char *dir = path_join(tree, where[i].dir);
		read += tph_scan_dir(&h, dir, where[i].filter);
		free(dir);
	}
	for (int i = 0; i < h.rules.cap; i++) {
		PtrVec *rules = h.rules.keys && h.rules.keys[i] ? h.rules.values[i] : NULL;
		for (int r = 0; rules && r < rules->len; r++)
			tph_free_rule(rules->items[r]);
		if (rules)
			free(rules->items);
		free(rules);
	}
	free(h.rules.keys);
	free(h.rules.values);
	for (int i = 0; i < h.owned.len; i++)
		free(h.owned.items[i]);
	free(h.owned.items);
	return read;
}

/* where the running kernel's tracefs shows its events, the first readable */
static const char *const tracefs_events[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };

const char *btf_tp_tracefs_events(void)
{
	for (size_t i = 0; i < sizeof tracefs_events / sizeof tracefs_events[0]; i++) {
		char *probe = path_join(tracefs_events[i], "enable");   /* a mounted tracefs has it; the bare directory not */
		int ok = file_exists(probe);
		free(probe);
		if (ok)
			return tracefs_events[i];
	}
	return NULL;
}

int btf_tp_systems_tracefs(const char *events, StrMap *systems)
{
	DIR *top = opendir(events);
	struct dirent *sys;
	int n = 0;

	if (!top)
		return -1;
	while ((sys = readdir(top))) {
		char *dir;
		DIR *d;
		struct dirent *ev;

		if (sys->d_name[0] == '.' || sys->d_type != DT_DIR)
			continue;
		dir = path_join(events, sys->d_name);
		if ((d = opendir(dir))) {
			while ((ev = readdir(d)))
				if (ev->d_name[0] != '.' && ev->d_type == DT_DIR && !strmap_get(systems, ev->d_name)) {
					strmap_put(systems, xstrdup(ev->d_name), xstrdup(sys->d_name));   /* the caller owns both */
					n++;
				}
			closedir(d);
		}
		free(dir);
	}
	closedir(top);
	return n;
}
