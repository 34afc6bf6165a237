/* preprocess.c - the token filter between the flex scanner and the grammar:
 * %( cond %? a %: b %) conditionals, @define macros, $1/@1 arguments and
 * adjacent string literal concatenation.  Used by parse.c (pass 1). */
#include "parse/parse.h"
#include "parser.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXPANSION_DEPTH 64          /* nested macro expansions */
#define MAX_EXPANDED_TOKENS 1000000     /* per file: bounds exponential macros */
#define MAX_COND_DEPTH 256              /* nested %( */

typedef struct Token {
	int kind;
	STP_YYSTYPE val;
	STP_YYLTYPE loc;
} Token;

typedef struct TokenList {
	Token *items;
	int len, cap;
} TokenList;

typedef struct Macro {
	char *name;
	PtrVec params;                  /* char* */
	TokenList body;
	int library;                    /* defined in a macro library (.stpm): its tokens' lines are another file's */
	struct Macro *next;             /* same hash bucket */
	struct Macro *older;            /* defined just before this one (to undo a file's macros) */
} Macro;

/* A macro argument binding visible while a macro body is read. */
typedef struct Binding {
	const Macro *macro;
	TokenList *args;                /* one list per parameter */
	struct Binding *outer;          /* the bindings the arguments were written under */
} Binding;

/* Where tokens come from: the scanner (list NULL) or a token list. */
typedef struct Frame {
	const TokenList *list;
	int pos;
	Binding *binding;               /* for @param lookups in this list */
	int relocate;                   /* a library macro's body: its tokens take the location of site */
	STP_YYLTYPE site;               /* the @NAME that expanded it, in the file being parsed */
} Frame;

typedef struct Cond {
	int in_else;                    /* reading the %: part */
	STP_YYLTYPE loc;                /* the %( */
} Cond;

struct Preproc {
	ParseCtx *ctx;
	STP_YYLTYPE raw_loc;            /* the scanner's running location */
	Frame frames[MAX_EXPANSION_DEPTH + 1];
	int nframes;                    /* 0 = reading the scanner */
	Cond conds[MAX_COND_DEPTH];
	int nconds;
	long expanded;
	Token peeked;
	int has_peeked;
	int defs_only;                  /* a .stpm library: only @define allowed */
	Macro *macros_before;           /* the newest macro when this file began */
	TokenList *arg_tokens;          /* $N's tokens (env.argc lists), lexed on first use */
	unsigned char *arg_lexed;
	ParseState *st;                 /* what lasts from file to file */
};

#define MACRO_BUCKETS 4096

/* What the preprocessor keeps from one file to the next (parse.h). */
struct ParseState {
	PreprocEnv env;
	Macro *macro_table[MACRO_BUCKETS];   /* library macros, then the file's own */
	Macro *macros_newest;                /* the most recent definition */
	unsigned char args_used[256];        /* which of $1..$argc were used: the driver warns about the others */
	Diag *diag;                          /* pass 1's diagnostics */
};

static unsigned macro_hash(const char *name)
{
	unsigned h = 2166136261u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h % MACRO_BUCKETS;
}

static void add_macro(ParseState *st, Macro *m)
{
	unsigned h = macro_hash(m->name);
	m->next = st->macro_table[h];
	st->macro_table[h] = m;
	m->older = st->macros_newest;
	st->macros_newest = m;
}

/* Forgets the macros defined after mark: a script's macros are its own. */
static void forget_macros_since(ParseState *st, Macro *mark)
{
	while (st->macros_newest && st->macros_newest != mark) {
		Macro *m = st->macros_newest;
		unsigned h = macro_hash(m->name);
		st->macro_table[h] = m->next;   /* the newest of its bucket is always first */
		st->macros_newest = m->older;
	}
}

ParseState *parse_state_new(Diag *d, const PreprocEnv *env)
{
	static const PreprocEnv defaults = {
		.kernel_v = "0", .kernel_vr = "0", .arch = "x86_64", .runtime = "kernel",
		.systemtap_v = "5.1", .privilege = "stapdev",
	};
	ParseState *st = xcalloc(1, sizeof *st);

	st->env = env ? *env : defaults;
	st->diag = d;
	return st;
}

Diag *parse_state_diag(const ParseState *st)
{
	return st->diag;
}

int stp_rawlex(STP_YYSTYPE *lval, STP_YYLTYPE *lloc, void *scanner);
ParseCtx *stp_rawget_extra(void *scanner);

static void pp_error(Preproc *pp, STP_YYLTYPE loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void pp_error(Preproc *pp, STP_YYLTYPE loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(pp->ctx->diag, parse_loc_of(pp->ctx, &loc), "parse error", fmt, ap);
	va_end(ap);
	pp->ctx->errors++;
}

static void list_push(TokenList *l, const Token *t)
{
	if (l->len == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->items = xrealloc(l->items, (size_t)l->cap * sizeof *l->items);
	}
	l->items[l->len++] = *t;
}

static const Macro *find_macro(const ParseState *st, const char *name)
{
	for (const Macro *m = st->macro_table[macro_hash(name)]; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/* ---- token sources ---- */

/* The next token from the innermost source, before any processing. */
static void substitute_arg(Preproc *pp, Token *t);
static int expand_arg_tokens(Preproc *pp, const Token *t);

static int pull(Preproc *pp, Token *t)
{
	while (pp->nframes > 0) {
		Frame *f = &pp->frames[pp->nframes - 1];
		if (f->pos < f->list->len) {
			*t = f->list->items[f->pos++];
			if (f->relocate)
				t->loc = f->site;
			return t->kind;
		}
		pp->nframes--;
	}
	t->kind = stp_rawlex(&t->val, &pp->raw_loc, pp->ctx->scanner);
	t->loc = pp->raw_loc;
	return t->kind;
}

static Binding *current_binding(Preproc *pp)
{
	return pp->nframes ? pp->frames[pp->nframes - 1].binding : NULL;
}

/* Reads list next, under binding b, for the @NAME at; a library macro's body (relocate) reads as
 * if written at the @NAME: diagnostics on what it expands to point at the use, in the file parsed. */
static int push_frame(Preproc *pp, const TokenList *list, Binding *b, STP_YYLTYPE at, int relocate)
{
	if (pp->nframes >= MAX_EXPANSION_DEPTH) {
		pp_error(pp, at, "macro expansion nested more than %d deep", MAX_EXPANSION_DEPTH);
		return -1;
	}
	pp->expanded += list->len;
	if (pp->expanded > MAX_EXPANDED_TOKENS) {
		pp_error(pp, at, "macro expansion produces more than %d tokens", MAX_EXPANDED_TOKENS);
		return -1;
	}
	pp->frames[pp->nframes++] = (Frame){ list, 0, b, relocate, at };
	return 0;
}

/* ---- conditions ---- */

typedef struct CondReader {
	Preproc *pp;
	Token tok;                      /* current token */
	int failed;
} CondReader;

static void cond_advance(CondReader *r)
{
	pull(r->pp, &r->tok);
}

static int cond_or(CondReader *r);

static int compare_numbers(int op, int64_t a, int64_t b)
{
	switch (op) {
	case EQ: return a == b;
	case NE: return a != b;
	case '<': return a < b;
	case '>': return a > b;
	case LE: return a <= b;
	case GE: return a >= b;
	}
	return 0;
}

/* Versions compare like strverscmp; == and != on patterns use globs. */
static int compare_strings(int op, const char *a, const char *b, int versions)
{
	int c;

	if ((op == EQ || op == NE) && strpbrk(b, "*?["))
		return (fnmatch(b, a, 0) == 0) == (op == EQ);
	c = versions ? strverscmp(a, b) : strcmp(a, b);
	return compare_numbers(op, c, 0);
}

static int is_comparison(int kind)
{
	return kind == EQ || kind == NE || kind == '<' || kind == '>' || kind == LE || kind == GE;
}

/* One side of a comparison: what it is and its value. */
typedef enum CondKind {
	CV_VERSION,      /* kernel_v, kernel_vr, systemtap_v: strverscmp, globs */
	CV_NAME,         /* arch, runtime, systemtap_privilege: == and != only */
	CV_CONFIG,       /* CONFIG_FOO: its setting, compared as text or number */
	CV_NUMBER,       /* guru_mode, $#, a number literal */
	CV_STRING,       /* a string literal */
} CondKind;

typedef struct CondValue {
	CondKind kind;
	const char *s;
	int64_t n;
	const char *what;        /* for messages */
} CondValue;

/* Reads a name or literal; 0 with an error when there is none. */
static int cond_value(CondReader *r, CondValue *v)
{
	const PreprocEnv *env = &r->pp->st->env;
	Token t = r->tok;

	memset(v, 0, sizeof *v);
	while (t.kind == ARG_NUMBER && expand_arg_tokens(r->pp, &t)) {
		cond_advance(r);             /* %( $1 > 5 %?: $1's first token */
		t = r->tok;
	}
	if (t.kind == ARG_NUMBER || t.kind == ARG_STRING || t.kind == ARGC_STRING) {
		substitute_arg(r->pp, &t);   /* %( @2 == "fast" %?, a missing $3 */
		r->tok = t;
	}
	if (t.kind == NUMBER || t.kind == '-') {
		int neg = t.kind == '-';
		if (neg)
			cond_advance(r);
		if (r->tok.kind != NUMBER) {
			pp_error(r->pp, r->tok.loc, "expected a number after '-'");
			return 0;
		}
		v->kind = CV_NUMBER;
		v->n = neg ? (int64_t)(0 - (uint64_t)r->tok.val.num) : r->tok.val.num;
		v->what = "a number";
	} else if (t.kind == STRING) {
		v->kind = CV_STRING;
		v->s = t.val.str;
		v->what = "a string";
	} else if (t.kind == ARGC_NUMBER) {
		v->kind = CV_NUMBER;
		v->n = env->argc;
		v->what = "$#";
	} else if (t.kind == IDENT) {
		const char *name = t.val.str;
		v->what = name;
		if (!strcmp(name, "kernel_v") || !strcmp(name, "kernel_vr") || !strcmp(name, "systemtap_v")) {
			v->kind = CV_VERSION;
			v->s = !strcmp(name, "kernel_v") ? env->kernel_v :
			       !strcmp(name, "kernel_vr") ? env->kernel_vr : env->systemtap_v;
		} else if (!strcmp(name, "arch") || !strcmp(name, "runtime") || !strcmp(name, "systemtap_privilege")) {
			v->kind = CV_NAME;
			v->s = !strcmp(name, "arch") ? env->arch : !strcmp(name, "runtime") ? env->runtime : env->privilege;
		} else if (!strcmp(name, "guru_mode")) {
			v->kind = CV_NUMBER;
			v->n = env->guru_mode;
		} else if (!strncmp(name, "CONFIG_", 7)) {
			v->kind = CV_CONFIG;
			v->s = env->config ? env->config(env->config_data, name) : NULL;
			if (!v->s)
				v->s = "";
		} else {
			pp_error(r->pp, t.loc, "unknown preprocessor condition '%s' (expected kernel_v, kernel_vr, arch, "
				 "runtime, systemtap_v, systemtap_privilege, guru_mode, CONFIG_... or @defined)", name);
			return 0;
		}
	} else {
		pp_error(r->pp, t.loc, "expected a condition such as kernel_v >= \"5.0\" after '%%('");
		return 0;
	}
	cond_advance(r);
	return 1;
}

static int is_number_setting(const char *s, int64_t *out)
{
	char *end;
	if (!*s)
		return 0;
	*out = strtoll(s, &end, 0);
	return *end == 0;
}

/* LEFT OP RIGHT by the rules of LEFT's kind; -1 after an error. */
static int cond_apply(CondReader *r, const CondValue *a, int op, const CondValue *b, STP_YYLTYPE at,
		      STP_YYLTYPE b_loc)
{
	int ordering = op != EQ && op != NE;
	int64_t n;

	switch (a->kind) {
	case CV_VERSION:
	case CV_NAME:
		if (b->kind != CV_STRING) {
			pp_error(r->pp, b_loc, "'%s' is compared with a string, not %s", a->what, b->what);
			return -1;
		}
		if (a->kind == CV_NAME && ordering) {
			pp_error(r->pp, at, "'%s' can only be compared with '==' or '!='", a->what);
			return -1;
		}
		if (ordering && strpbrk(b->s, "*?[")) {
			pp_error(r->pp, at, "a wildcard pattern can only be compared with '==' or '!='");
			return -1;
		}
		return compare_strings(op, a->s, b->s, a->kind == CV_VERSION);
	case CV_CONFIG:
		if (b->kind == CV_NUMBER) {
			if (!is_number_setting(a->s, &n))
				return op == NE;
			return compare_numbers(op, n, b->n);
		}
		if (b->kind == CV_STRING || b->kind == CV_CONFIG) {
			if (ordering && b->kind == CV_STRING && strpbrk(b->s, "*?[")) {
				pp_error(r->pp, at, "a wildcard pattern can only be compared with '==' or '!='");
				return -1;
			}
			return compare_strings(op, a->s, b->s, 0);
		}
		break;
	case CV_NUMBER:
		if (b->kind == CV_NUMBER)
			return compare_numbers(op, a->n, b->n);
		break;
	case CV_STRING:
		if (b->kind == CV_STRING)
			return compare_strings(op, a->s, b->s, 0);
		break;
	}
	pp_error(r->pp, b_loc, "cannot compare %s with %s", a->what, b->what);
	return -1;
}

static int cond_compare(CondReader *r)
{
	CondValue a, b;
	STP_YYLTYPE op_loc, b_loc;
	int op, result;

	if (!cond_value(r, &a)) {
		r->failed = 1;
		return 0;
	}
	op = r->tok.kind;
	op_loc = r->tok.loc;
	if (!is_comparison(op)) {
		pp_error(r->pp, r->tok.loc, "expected a comparison operator after %s%s%s",
			 a.kind == CV_STRING || a.kind == CV_NUMBER ? "" : "'", a.what,
			 a.kind == CV_STRING || a.kind == CV_NUMBER ? "" : "'");
		r->failed = 1;
		return 0;
	}
	cond_advance(r);
	if (r->tok.kind == PP_THEN) {
		pp_error(r->pp, r->tok.loc, "expected a value to compare with before '%%?'");
		r->failed = 1;
		return 0;
	}
	b_loc = r->tok.loc;
	if (!cond_value(r, &b)) {
		r->failed = 1;
		return 0;
	}
	result = cond_apply(r, &a, op, &b, op_loc, b_loc);
	if (result < 0) {
		r->failed = 1;
		return 0;
	}
	return result;
}

/* @defined(...) in a condition: target variables need DWARF (not available
 * in pass 1), so they count as not defined; anything else as defined. */
static int cond_defined(CondReader *r)
{
	int depth = 0, target = 0;

	cond_advance(r);
	if (r->tok.kind != '(') {
		pp_error(r->pp, r->tok.loc, "expected '(' after @defined");
		r->failed = 1;
		return 0;
	}
	do {
		if (r->tok.kind == '(')
			depth++;
		else if (r->tok.kind == ')')
			depth--;
		else if (r->tok.kind == TARGET)
			target = 1;
		else if (r->tok.kind == 0 || r->tok.kind == PP_THEN) {
			pp_error(r->pp, r->tok.loc, "unterminated @defined(...) in a condition");
			r->failed = 1;
			return 0;
		}
		cond_advance(r);
	} while (depth > 0);
	return !target;
}

static int cond_primary(CondReader *r)
{
	if (r->tok.kind == '(') {
		int v;
		cond_advance(r);
		v = cond_or(r);
		if (r->tok.kind != ')') {
			if (!r->failed)
				pp_error(r->pp, r->tok.loc, "expected ')' in the condition");
			r->failed = 1;
			return 0;
		}
		cond_advance(r);
		return v;
	}
	if (r->tok.kind == '!') {
		cond_advance(r);
		return !cond_primary(r);
	}
	if (r->tok.kind == AT_NAME && !strcmp(r->tok.val.str, "defined"))
		return cond_defined(r);
	return cond_compare(r);
}

static int cond_and(CondReader *r)
{
	int v = cond_primary(r);
	while (!r->failed && r->tok.kind == ANDAND) {
		cond_advance(r);
		v = cond_primary(r) && v;
	}
	return v;
}

static int cond_or(CondReader *r)
{
	int v = cond_and(r);
	while (!r->failed && r->tok.kind == OROR) {
		cond_advance(r);
		v = cond_and(r) || v;
	}
	return v;
}

/* Skips tokens of a branch not taken, up to the %: (when stop_at_else) or the
 * %) of the conditional; returns that token's kind, or 0 at end of input. */
static int skip_branch(Preproc *pp, int stop_at_else)
{
	int depth = 0, kind;
	Token t;

	for (;;) {
		pp->ctx->skipping = 1;   /* text not taken need not even be tokens */
		kind = pull(pp, &t);
		pp->ctx->skipping = 0;
		switch (kind) {
		case 0:
			return 0;
		case PP_IF:
			depth++;
			break;
		case PP_ELSE:
			if (!depth && stop_at_else)
				return PP_ELSE;
			if (!depth)
				pp_error(pp, t.loc, "a second '%%:' in one conditional");
			break;
		case PP_THEN:
			/* %( a %? b %? c %): one %? per %( */
			if (!depth)
				pp_error(pp, t.loc, "a second '%%?' in one conditional");
			break;
		case PP_END:
			if (!depth)
				return PP_END;
			depth--;
			break;
		}
	}
}

static void begin_conditional(Preproc *pp, const Token *open)
{
	CondReader r = { .pp = pp };
	int value, stop;

	if (pp->nconds >= MAX_COND_DEPTH) {
		pp_error(pp, open->loc, "conditionals nested more than %d deep", MAX_COND_DEPTH);
		skip_branch(pp, 0);
		return;
	}
	cond_advance(&r);
	value = cond_or(&r);
	if (!r.failed && r.tok.kind != PP_THEN)
		pp_error(pp, r.tok.loc, "expected '%%?' after the condition");
	if (r.tok.kind != PP_THEN) {
		/* resynchronize on the %? so that the branches still pair up */
		while (r.tok.kind && r.tok.kind != PP_THEN)
			cond_advance(&r);
		if (!r.tok.kind) {
			pp_error(pp, open->loc, "unterminated conditional '%%('");
			return;
		}
	}
	if (value) {
		pp->conds[pp->nconds++] = (Cond){ 0, open->loc };
		return;
	}
	stop = skip_branch(pp, 1);
	if (stop == PP_ELSE)
		pp->conds[pp->nconds++] = (Cond){ 1, open->loc };
	else if (!stop)
		pp_error(pp, open->loc, "unterminated conditional '%%('");
}

/* ---- macros ---- */

/* @define NAME [(a, b)] %( body %) */
static void define_macro(Preproc *pp, const Token *at)
{
	Macro *m = xcalloc(1, sizeof *m);
	Token t;
	int depth = 0, refused = 0;

	if (pull(pp, &t) != IDENT) {
		pp_error(pp, t.loc, "expected a macro name after @define");
		return;
	}
	m->name = t.val.str;
	m->library = pp->defs_only;
	/* refused names: the definition is still read, so that its body is
	 * not taken for script text */
	if (!strcmp(m->name, "define")) {
		pp_error(pp, t.loc, "'@define' cannot be redefined");
		refused = 1;
	} else if (find_macro(pp->st, m->name)) {
		pp_error(pp, t.loc, "macro @%s redefined", m->name);
		refused = 1;
	}
	pull(pp, &t);
	if (t.kind == '(') {
		do {
			if (pull(pp, &t) != IDENT) {
				pp_error(pp, t.loc, "expected a parameter name in @define %s(...)", m->name);
				return;
			}
			vec_push(&m->params, t.val.str);
		} while (pull(pp, &t) == ',');
		if (t.kind != ')') {
			pp_error(pp, t.loc, "expected ',' or ')' in the parameters of @define %s", m->name);
			return;
		}
		pull(pp, &t);
	}
	if (t.kind != PP_IF) {
		pp_error(pp, t.loc, "expected '%%(' to begin the body of @define %s", m->name);
		return;
	}
	for (;;) {
		switch (pull(pp, &t)) {
		case 0:
			pp_error(pp, at->loc, "unterminated body of @define %s", m->name);
			return;
		case PP_IF:
			depth++;
			break;
		case PP_END:
			if (!depth--) {
				if (!refused)
					add_macro(pp->st, m);
				return;
			}
			break;
		}
		list_push(&m->body, &t);
	}
}

/* The argument token lists of @NAME(a, b); 0 on success. */
static int read_macro_args(Preproc *pp, const Macro *m, const Token *at, TokenList *args)
{
	Token t;
	int arg = 0, depth = 0;

	if (pull(pp, &t) != '(') {
		pp_error(pp, t.loc, "macro @%s takes %d argument%s: expected '('", m->name, m->params.len,
			 m->params.len == 1 ? "" : "s");
		return -1;
	}
	for (;;) {
		switch (pull(pp, &t)) {
		case 0:
			pp_error(pp, at->loc, "unterminated arguments of macro @%s", m->name);
			return -1;
		case '(': case '[': case '{':
			depth++;
			break;
		case ')': case ']': case '}':
			if (t.kind == ')' && depth == 0) {
				if (arg + 1 != m->params.len) {
					pp_error(pp, t.loc, "too few arguments for macro @%s: it takes %d, got %d",
						 m->name, m->params.len, arg + 1);
					return -1;
				}
				return 0;
			}
			depth--;
			break;
		case ',':
			if (depth == 0) {
				if (++arg >= m->params.len) {
					pp_error(pp, t.loc, "too many arguments for macro @%s: it takes %d", m->name,
						 m->params.len);
					return -1;
				}
				continue;
			}
			break;
		}
		list_push(&args[arg], &t);
	}
}

/* @NAME: a parameter of the macro being expanded, or a macro. 1 = handled. */
static int expand_at(Preproc *pp, const Token *at)
{
	Binding *b = current_binding(pp);
	const Macro *m;

	if (b) {
		for (int i = 0; i < b->macro->params.len; i++) {
			if (!strcmp(b->macro->params.items[i], at->val.str)) {
				push_frame(pp, &b->args[i], b->outer, at->loc, 0);
				return 1;
			}
		}
	}
	m = find_macro(pp->st, at->val.str);
	if (!m)
		return 0;
	{
		Binding *nb = xcalloc(1, sizeof *nb);
		nb->macro = m;
		nb->outer = b;
		nb->args = xcalloc((size_t)m->params.len + 1, sizeof *nb->args);
		if (m->params.len && read_macro_args(pp, m, at, nb->args) != 0)
			return 1;
		push_frame(pp, &m->body, nb, at->loc, m->library);
	}
	return 1;
}

/* ---- command-line arguments ---- */

int parse_arg_used(const ParseState *st, int n)
{
	return n >= 1 && n < (int)sizeof st->args_used ? st->args_used[n] : 1;
}

/* The argument's text as script tokens, lexed on its own: the tokens carry
 * their place in it, so a diagnostic names "<argument $N>" and its column. */
int parse_tokens_of(Diag *d, SourceFile *file, Program *prog,
		    void (*emit)(void *data, int kind, const STP_YYSTYPE *val, const StpLoc *loc), void *data);

static void push_arg_token(void *data, int kind, const STP_YYSTYPE *val, const StpLoc *loc)
{
	Token t = { kind, *val, *loc };
	list_push(data, &t);
}

/* As SystemTap: an argument's text is not searched for $N, @N, $# or @# again. */
static void drop_nested_args(Preproc *pp, TokenList *l, int n)
{
	int kept = 0;

	for (int i = 0; i < l->len; i++) {
		int kind = l->items[i].kind;
		if (kind == ARG_NUMBER || kind == ARG_STRING || kind == ARGC_NUMBER || kind == ARGC_STRING) {
			pp_error(pp, l->items[i].loc, "command line argument $%d uses another argument: arguments are "
				 "substituted in the script only, not inside each other", n);
			continue;
		}
		l->items[kept++] = l->items[i];
	}
	l->len = kept;
}

static const TokenList *arg_tokens(Preproc *pp, int n)
{
	if (!pp->arg_tokens) {
		pp->arg_tokens = xcalloc((size_t)pp->st->env.argc, sizeof *pp->arg_tokens);
		pp->arg_lexed = xcalloc((size_t)pp->st->env.argc, 1);
	}
	if (!pp->arg_lexed[n - 1]) {
		const char *text = pp->st->env.argv[n - 1];
		char *name = xasprintf("<argument $%d>", n);
		SourceFile *f = source_new(name, xstrdup(text), strlen(text));
		free(name);
		pp->arg_lexed[n - 1] = 1;
		pp->ctx->errors += parse_tokens_of(pp->ctx->diag, f, pp->ctx->prog, push_arg_token, &pp->arg_tokens[n - 1]);
		drop_nested_args(pp, &pp->arg_tokens[n - 1], n);
	}
	return &pp->arg_tokens[n - 1];
}

/* $N as SystemTap has it: the argument is script text, its tokens read in
 * place of $N (a number, a name, a probe point, an expression).  1 when they
 * are (an empty argument is no tokens); 0 leaves a missing $N to substitute_arg. */
static int expand_arg_tokens(Preproc *pp, const Token *t)
{
	int64_t n = t->val.num;

	if (n < 1 || n > pp->st->env.argc)
		return 0;
	if (n < (int64_t)sizeof pp->st->args_used)
		pp->st->args_used[n] = 1;
	push_frame(pp, arg_tokens(pp, (int)n), NULL, t->loc, 0);
	return 1;
}

/* @N becomes a string, $# / @# the count, a $N not given an error. */
static void substitute_arg(Preproc *pp, Token *t)
{
	int64_t n = t->val.num;
	const char *text;

	if (t->kind == ARGC_NUMBER || t->kind == ARGC_STRING) {
		memset(pp->st->args_used, 1, sizeof pp->st->args_used);   /* $# : the script takes any number */
		if (t->kind == ARGC_NUMBER) {
			t->kind = NUMBER;
			t->val.num = pp->st->env.argc;
		} else {
			t->kind = STRING;
			t->val.str = xasprintf("%d", pp->st->env.argc);
		}
		return;
	}
	if (n < 1 || n > pp->st->env.argc) {
		pp_error(pp, t->loc, "command line argument %s%lld is not given (%d argument%s given)",
			 t->kind == ARG_NUMBER ? "$" : "@", (long long)n, pp->st->env.argc,
			 pp->st->env.argc == 1 ? " was" : "s were");
		t->kind = t->kind == ARG_NUMBER ? NUMBER : STRING;
		if (t->kind == STRING)
			t->val.str = xstrdup("");
		else
			t->val.num = 0;
		return;
	}
	text = pp->st->env.argv[n - 1];
	if (n < (int64_t)sizeof pp->st->args_used)
		pp->st->args_used[n] = 1;
	t->kind = STRING;
	t->val.str = xstrdup(text);
}

/* ---- the filter ---- */

/* The next token after conditionals, macros and arguments. */
static int next_token(Preproc *pp, Token *t)
{
	for (;;) {
		switch (pull(pp, t)) {
		case 0:
			if (pp->nconds) {
				pp_error(pp, pp->conds[pp->nconds - 1].loc, "unterminated conditional '%%('");
				pp->nconds = 0;
			}
			return 0;
		case PP_IF:
			begin_conditional(pp, t);
			continue;
		case PP_THEN:
			if (pp->nconds)
				pp_error(pp, t->loc, "a second '%%?' in one conditional");
			else
				pp_error(pp, t->loc, "'%%?' without a '%%(' before it");
			continue;
		case PP_ELSE:
			if (!pp->nconds || pp->conds[pp->nconds - 1].in_else) {
				pp_error(pp, t->loc, "'%%:' without a '%%(' ... '%%?' before it");
				continue;
			}
			if (!skip_branch(pp, 0))
				pp_error(pp, pp->conds[pp->nconds - 1].loc, "unterminated conditional '%%('");
			pp->nconds--;
			continue;
		case PP_END:
			if (!pp->nconds) {
				pp_error(pp, t->loc, "'%%)' without a '%%(' before it");
				continue;
			}
			pp->nconds--;
			continue;
		case AT_NAME:
			if (!strcmp(t->val.str, "define")) {
				define_macro(pp, t);
				continue;
			}
			if (expand_at(pp, t))
				continue;
			break;
		case ARG_NUMBER:
			if (expand_arg_tokens(pp, t))
				continue;
			substitute_arg(pp, t);
			break;
		case ARG_STRING: case ARGC_NUMBER: case ARGC_STRING:
			substitute_arg(pp, t);
			break;
		}
		if (pp->defs_only) {
			pp_error(pp, t->loc, "a macro library may only hold @define");
			continue;
		}
		return t->kind;
	}
}

static void remember_text(ParseCtx *ctx, const Token *t)
{
	ctx->last_kind = t->kind;
	ctx->last_str = t->kind == IDENT || t->kind == TARGET || t->kind == STRING ? t->val.str : NULL;
	ctx->last_num = t->val.num;
}

/* The grammar's token source: adjacent string literals become one. */
int stp_yylex(STP_YYSTYPE *lval, STP_YYLTYPE *lloc, void *scanner)
{
	Preproc *pp = stp_rawget_extra(scanner)->pp;
	Token t;

	if (pp->has_peeked) {
		t = pp->peeked;
		pp->has_peeked = 0;
	} else {
		next_token(pp, &t);
	}
	if (t.kind == STRING) {
		StrBuf joined;
		Token more;
		int n = 0;
		sb_init(&joined);
		sb_puts(&joined, t.val.str);
		while (next_token(pp, &more) == STRING) {
			sb_puts(&joined, more.val.str);
			t.loc.last_line = more.loc.last_line;
			t.loc.last_column = more.loc.last_column;
			n++;
		}
		pp->peeked = more;
		pp->has_peeked = 1;
		if (n)
			t.val.str = sb_steal(&joined);
		else
			sb_free(&joined);
	}
	*lval = t.val;
	*lloc = t.loc;
	remember_text(pp->ctx, &t);
	return t.kind;
}

Preproc *preproc_new(ParseCtx *ctx, int defs_only)
{
	Preproc *pp = xcalloc(1, sizeof *pp);
	pp->ctx = ctx;
	pp->raw_loc.first_line = pp->raw_loc.last_line = 1;
	pp->raw_loc.first_column = pp->raw_loc.last_column = 1;
	pp->defs_only = defs_only;
	pp->st = ctx->state;
	pp->macros_before = pp->st->macros_newest;
	return pp;
}

/* The end of a file: its own macros go (a library's stay), then the filter. */
void preproc_free(Preproc *pp)
{
	if (!pp->defs_only)
		forget_macros_since(pp->st, pp->macros_before);
	if (pp->arg_tokens)
		for (int i = 0; i < pp->st->env.argc; i++)
			free(pp->arg_tokens[i].items);
	free(pp->arg_tokens);
	free(pp->arg_lexed);
	free(pp);
}

/* Runs a macro library through the filter: only @define may appear. */
int preproc_definitions(Preproc *pp)
{
	Token t;
	while (next_token(pp, &t) != 0)
		;
	return pp->ctx->errors;
}
