/* parser.y - the bison grammar of the script language (pass 1): probes and
 * aliases, globals, functions, embedded C, statements and expressions. */
%define api.pure full
%define api.prefix {stp_yy}
%define parse.error custom
%locations
%define api.location.type {StpLoc}
%param {void *scanner}
%parse-param {ParseCtx *ctx}

%code requires {
#include "parse/parse.h"
}

%code {
/* A rule's location is its first symbol's (with its file), through its last. */
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                             \
	do {                                                                    \
		if (N) {                                                        \
			(Cur).first_line = YYRHSLOC(Rhs, 1).first_line;         \
			(Cur).first_column = YYRHSLOC(Rhs, 1).first_column;     \
			(Cur).file = YYRHSLOC(Rhs, 1).file;                     \
			(Cur).last_line = YYRHSLOC(Rhs, N).last_line;           \
			(Cur).last_column = YYRHSLOC(Rhs, N).last_column;       \
		} else {                                                        \
			(Cur).first_line = (Cur).last_line = YYRHSLOC(Rhs, 0).last_line;       \
			(Cur).first_column = (Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
			(Cur).file = YYRHSLOC(Rhs, 0).file;                     \
		}                                                               \
	} while (0)
}

%code {
/* bounds the parser's stack: statements and parentheses nested deeper than
 * this are reported, never a crash further on */
#define YYMAXDEPTH 4000
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stp_yylex(STP_YYSTYPE *lval, STP_YYLTYPE *lloc, void *scanner);
static void stp_yyerror(STP_YYLTYPE *loc, void *scanner, ParseCtx *ctx, const char *msg);

#define LOC(l) parse_loc_of(ctx, &(l))

/* An @hist_* where a histogram may stand (printed, indexed or iterated) is no longer bare. */
static void clear_bare_histogram(Expr *e)
{
	if (e->op == OP_HIST_BARE)
		e->op = OP_NONE;
}

static void syntax_error(ParseCtx *ctx, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void syntax_error(ParseCtx *ctx, SrcLoc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(ctx->diag, loc, "parse error", fmt, ap);
	va_end(ap);
	ctx->errors++;
}

/* Later passes walk expressions recursively: a chain like 1+1+1+... that the
 * grammar builds without nesting its own stack must still stay shallow. */
#define MAX_EXPR_DEPTH 1000

static void set_depth(ParseCtx *ctx, Expr *e, const Expr *a, const Expr *b)
{
	int d = a ? a->depth : 0;
	if (b && b->depth > d)
		d = b->depth;
	e->depth = d + 1;
	if (e->depth == MAX_EXPR_DEPTH + 1)
		syntax_error(ctx, e->loc, "expression nested more than %d deep", MAX_EXPR_DEPTH);
	if (e->depth > MAX_EXPR_DEPTH) {
		/* the parse has failed: keep the tree shallow for what still walks it */
		e->left = e->right = e->cond = NULL;
		e->depth = MAX_EXPR_DEPTH + 1;
	}
}

static Expr *mk_binary(ParseCtx *ctx, STP_YYLTYPE l, Operator op, Expr *a, Expr *b)
{
	Expr *e = expr_new(EX_BINARY, LOC(l));
	e->op = op;
	e->left = a;
	e->right = b;
	set_depth(ctx, e, a, b);
	return e;
}

static Expr *mk_unary(ParseCtx *ctx, STP_YYLTYPE l, ExprKind kind, Operator op, Expr *a)
{
	Expr *e = expr_new(kind, LOC(l));
	e->op = op;
	e->left = a;
	set_depth(ctx, e, a, NULL);
	return e;
}

/* autocast members too (p->f = 1): pass 2 wants their type and guru mode */
static int is_lvalue(const Expr *e)
{
	return e->kind == EX_IDENT || e->kind == EX_INDEX || e->kind == EX_TARGET ||
	       (e->kind == EX_AUTOCAST && e->chain.len) ||
	       (e->kind == EX_AT && (!strcmp(e->str, "cast") || !strcmp(e->str, "var")));
}

static Expr *mk_assign(ParseCtx *ctx, STP_YYLTYPE l, Operator op, Expr *lhs, Expr *rhs)
{
	if (!is_lvalue(lhs))
		syntax_error(ctx, lhs->loc, "expected a variable or array element on the left of the assignment");
	Expr *e = mk_unary(ctx, l, EX_ASSIGN, op, lhs);
	e->right = rhs;
	set_depth(ctx, e, lhs, rhs);
	return e;
}

static Expr *mk_incdec(ParseCtx *ctx, STP_YYLTYPE l, Operator op, Expr *x, int postfix)
{
	if (!is_lvalue(x))
		syntax_error(ctx, x->loc, "expected a variable or array element as operand of '%s'",
			     op_text(op));
	Expr *e = mk_unary(ctx, l, EX_INCDEC, op, x);
	e->postfix = postfix;
	return e;
}

static Expr *mk_number(ParseCtx *ctx, STP_YYLTYPE l, int64_t v)
{
	Expr *e = expr_new(EX_NUMBER, LOC(l));
	e->num = v;
	return e;
}

static Expr *mk_ident(ParseCtx *ctx, STP_YYLTYPE l, char *name)
{
	Expr *e = expr_new(EX_IDENT, LOC(l));
	e->str = name;
	return e;
}

/* s =~ "regex": the pattern is compiled at translate time, so it must be a literal. */
static Expr *mk_regex(ParseCtx *ctx, STP_YYLTYPE l, Operator op, Expr *s, Expr *re)
{
	if (re->kind != EX_STRING)
		syntax_error(ctx, re->loc, "the right side of '%s' must be a literal string (a regular expression)",
			     op_text(op));
	return mk_binary(ctx, l, op, s, re);
}

static PtrVec *vec_new(void)
{
	return xcalloc(1, sizeof(PtrVec));
}

static ChainItem *chain_item(ParseCtx *ctx, STP_YYLTYPE l, ChainKind kind, char *name, Expr *index)
{
	ChainItem *c = xcalloc(1, sizeof *c);
	c->kind = kind;
	c->name = name;
	c->index = index;
	c->loc = LOC(l);
	return c;
}

/* Checks the arguments of @cast, @defined ... as far as pass 1 can. */
static Expr *mk_at(ParseCtx *ctx, STP_YYLTYPE l, char *name, PtrVec *args)
{
	static const struct { const char *name; int min, max; } ops[] = {
		{ "cast", 2, 3 }, { "defined", 1, 1 }, { "choose_defined", 2, 2 }, { "entry", 1, 1 },
		{ "var", 1, 2 }, { "count", 1, 1 }, { "sum", 1, 1 }, { "min", 1, 1 }, { "max", 1, 1 },
		{ "avg", 1, 1 }, { "variance", 1, 2 }, { "hist_log", 1, 1 }, { "hist_linear", 4, 4 },
		{ "kregister", 1, 1 }, { "uregister", 1, 1 }, { "module", 0, 1 }, { "const", 1, 1 },
		{ "probewrite", 1, 1 }, { "perf", 1, 1 }, { "param", 2, 3 },
	};
	Expr *e = expr_new(EX_AT, LOC(l));
	size_t i;

	e->str = name;
	e->args = *args;
	for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		if (strcmp(ops[i].name, name))
			continue;
		if (args->len < ops[i].min || args->len > ops[i].max) {
			if (ops[i].min == ops[i].max)
				syntax_error(ctx, e->loc, "@%s takes %d argument%s, not %d", name, ops[i].min,
					     ops[i].min == 1 ? "" : "s", args->len);
			else
				syntax_error(ctx, e->loc, "@%s takes %d to %d arguments, not %d", name, ops[i].min,
					     ops[i].max, args->len);
		}
		break;
	}
	if (i == sizeof ops / sizeof ops[0])
		syntax_error(ctx, e->loc, "unknown operator or macro '@%s'", name);
	if (!strcmp(name, "hist_linear")) {
		for (int a = 1; a < args->len; a++) {
			Expr *n = args->items[a];
			if (n->kind != EX_NUMBER)
				syntax_error(ctx, n->loc, "@hist_linear takes literal numbers for low, high and width");
		}
	}
	if (!strcmp(name, "cast") || !strcmp(name, "var")) {
		for (int a = !strcmp(name, "cast"); a < args->len; a++) {
			Expr *s = args->items[a];
			if (s->kind != EX_STRING)
				syntax_error(ctx, s->loc, "@%s expects a literal string here", name);
		}
	}
	return e;
}

/* Components of a probe point name must touch: "syscall.*stat" is one, "a * b" is not. */
static int adjacent(STP_YYLTYPE a, STP_YYLTYPE b)
{
	return a.file == b.file && a.last_line == b.first_line && a.last_column == b.first_column;
}

/* Whether an alternative of pp's last {...} (at any depth) has '?' or '!'
 * (cond 0) or an 'if' (cond 1): as in SystemTap, the whole point may not
 * give them again. */
static int marked_alternative(const ProbePoint *pp, int cond)
{
	const ProbePointComponent *last = pp->components.len ? pp->components.items[pp->components.len - 1] : NULL;

	for (int i = 0; last && i < last->alts.len; i++) {
		const ProbePoint *alt = last->alts.items[i];
		if (cond ? alt->cond != NULL : alt->optional || alt->sufficient)
			return 1;
		if (marked_alternative(alt, cond))
			return 1;
	}
	return 0;
}

/* probe NAME = ...: one plain name, no ?, ! or if. */
static void check_alias_names(ParseCtx *ctx, PtrVec *names)
{
	ProbePoint *pp = names->items[0];
	if (names->len > 1) {
		pp = names->items[1];
		syntax_error(ctx, pp->loc, "a probe alias defines one name: expected '=' or '+=' before this point");
		return;
	}
	if (pp->optional || pp->sufficient || pp->cond)
		syntax_error(ctx, pp->loc, "a probe alias name cannot be optional ('?'), sufficient ('!') or "
			     "conditional ('if')");
}

/* Adds a ->member, [index] or $ step after a value: onto the chain of a
 * target variable, @cast or @var, or around any other value (autocast). */
static Expr *add_chain(ParseCtx *ctx, Expr *base, ChainItem *item)
{
	Expr *e = base;
	clear_bare_histogram(base);   /* @hist_log(s)[bucket] is a count */
	ChainItem *last = base->chain.len ? base->chain.items[base->chain.len - 1] : NULL;

	if (last && last->kind == CH_PRETTY)
		syntax_error(ctx, item->loc, "nothing can follow the pretty-print '%s'", last->name);
	if (base->kind != EX_TARGET && base->kind != EX_AT && base->kind != EX_AUTOCAST) {
		e = expr_new(EX_AUTOCAST, base->loc);
		e->left = base;
	}
	vec_push(&e->chain, item);
	return e;
}

static int compare_params(const void *a, const void *b)
{
	const Symbol *x = *(Symbol *const *)a, *y = *(Symbol *const *)b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->loc.line != y->loc.line ? (x->loc.line > y->loc.line) - (x->loc.line < y->loc.line)
					  : (x->loc.col > y->loc.col) - (x->loc.col < y->loc.col);
}

/* Parameters named once, a positive priority; the body that follows is a function's. */
static void check_function_head(ParseCtx *ctx, Function *f, STP_YYLTYPE prio)
{
	if (f->params.len > 1) {
		/* sorted by name, then by position: a repeat is the later of two neighbours */
		Symbol **sorted = xmalloc((size_t)f->params.len * sizeof *sorted);
		memcpy(sorted, f->params.items, (size_t)f->params.len * sizeof *sorted);
		qsort(sorted, (size_t)f->params.len, sizeof *sorted, compare_params);
		for (int i = 1; i < f->params.len; i++)
			if (!strcmp(sorted[i - 1]->name, sorted[i]->name))
				syntax_error(ctx, sorted[i]->loc, "duplicate parameter '%s' of function '%s'",
					     sorted[i]->name, f->name);
		free(sorted);
	}
	if (f->has_priority && f->priority <= 0)
		syntax_error(ctx, LOC(prio), "a function priority must be a positive number");
	vec_push(&ctx->prog->functions, f);
	ctx->in_function = 1;
}

static Type type_from_name(ParseCtx *ctx, STP_YYLTYPE l, const char *name)
{
	if (!strcmp(name, "long"))
		return TY_LONG;
	if (!strcmp(name, "string"))
		return TY_STRING;
	syntax_error(ctx, LOC(l), "unknown type '%s' (expected long or string)", name);
	return TY_UNKNOWN;
}
}

%union {
	int64_t num;
	char *str;
	Expr *expr;
	Stmt *stmt;
	PtrVec *vec;
	ProbePoint *pp;
	ProbePointComponent *ppc;
	Symbol *sym;
	Function *fn;
	Probe *probe;
}

%token PROBE "probe" GLOBAL "global" PRIVATE "private" FUNCTION "function"
%token IF "if" ELSE "else" WHILE "while" FOR "for" FOREACH "foreach" IN "in"
%token BREAK "break" CONTINUE "continue" NEXT "next" RETURN "return" DELETE "delete"
%token TRY "try" CATCH "catch"
%token <str> IDENT "identifier" STRING "string" TARGET "target variable" AT_NAME "@operator"
%token <str> PRETTY "'$'" EMBEDDED_C "embedded C"
%token <num> NUMBER "number"
%token <num> ARG_NUMBER "$N" ARG_STRING "@N"
%token ARGC_NUMBER "$#" ARGC_STRING "@#"
%token PP_IF "%(" PP_THEN "%?" PP_ELSE "%:" PP_END "%)"
%token EQ "==" NE "!=" LE "<=" GE ">=" ANDAND "&&" OROR "||" SHL "<<" SHR ">>" USHR ">>>"
%token INC "++" DEC "--" ARROW "->" MATCH "=~" NOMATCH "!~"
%token ADD_ASSIGN "+=" SUB_ASSIGN "-=" MUL_ASSIGN "*=" DIV_ASSIGN "/=" MOD_ASSIGN "%="
%token CAT_ASSIGN ".=" AND_ASSIGN "&=" OR_ASSIGN "|=" XOR_ASSIGN "^=" SHL_ASSIGN "<<=" SHR_ASSIGN ">>="
%token AGG_ASSIGN "<<<"
%token ERROR_TOKEN "invalid token"

%type <expr> expr opt_expr primary literal postfix
%type <stmt> stmt simple_stmt block else_part catch_part foreach_head
%type <num> foreach_sort
%type <vec> opt_slice index_args
%type <expr> index_arg
%type <str> member_name
%type <vec> stmts args opt_args probe_points params opt_params alternatives
%type <pp> probe_point point_path
%type <ppc> component
%type <str> name_piece component_name
%type <sym> global_decl param
%type <fn> function_head
%type <num> sort_mark opt_priority

%right '=' ADD_ASSIGN SUB_ASSIGN MUL_ASSIGN DIV_ASSIGN MOD_ASSIGN CAT_ASSIGN AND_ASSIGN OR_ASSIGN XOR_ASSIGN SHL_ASSIGN SHR_ASSIGN AGG_ASSIGN
%right '?' ':'
%left OROR
%left ANDAND
%left '|'
%left '^'
%left '&'
%precedence IN
%left EQ NE MATCH NOMATCH '<' '>' LE GE
%left SHL SHR USHR
%left '.'
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY INC DEC '!' '~'

/* Statements need no separators, so "a = b -c" or "return -1" could end
 * early: the grammar reads on (shift) as SystemTap does.  All these
 * conflicts are of that kind: an expression or "return" followed by a token
 * that can continue it or start a new statement (- + ! ~ & ++ -- ( [ literal
 * name target @op embedded-C), and a simple statement followed by the
 * optional ";" that may end it, and the dangling else (bound to the nearest if). */
%expect 32

%%

program:
	  %empty
	| program toplevel
	;

toplevel:
	  PROBE probe_points block {
		Probe *p = xcalloc(1, sizeof *p);
		p->points = *$2;
		p->body = $3;
		p->loc = LOC(@1);
		vec_push(&ctx->prog->probes, p);
	  }
	| PROBE probe_points '=' probe_points block {
		Probe *p = xcalloc(1, sizeof *p);
		check_alias_names(ctx, $2);
		p->alias = ALIAS_PROLOGUE;
		p->alias_names = *$2;
		p->points = *$4;
		p->body = $5;
		p->loc = LOC(@1);
		vec_push(&ctx->prog->probes, p);
	  }
	| PROBE probe_points '=' probe_points block ',' block {
		/* a prologue and an epilogue in one definition */
		Probe *p = xcalloc(1, sizeof *p);
		check_alias_names(ctx, $2);
		p->alias = ALIAS_PROLOGUE;
		p->alias_names = *$2;
		p->points = *$4;
		p->body = $5;
		p->epilogue = $7;
		p->loc = LOC(@1);
		vec_push(&ctx->prog->probes, p);
	  }
	| PROBE probe_points ADD_ASSIGN probe_points block ',' block {
		syntax_error(ctx, LOC(@6), "a prologue and an epilogue in one definition are written with '=', not '+='");
	  }
	| PROBE probe_points ADD_ASSIGN probe_points block {
		Probe *p = xcalloc(1, sizeof *p);
		check_alias_names(ctx, $2);
		p->alias = ALIAS_EPILOGUE;
		p->alias_names = *$2;
		p->points = *$4;
		p->body = $5;
		p->loc = LOC(@1);
		vec_push(&ctx->prog->probes, p);
	  }
	| GLOBAL global_decls opt_semi
	| PRIVATE GLOBAL private_global_decls opt_semi
	| PRIVATE private_global_decls opt_semi
	| function_head block { $1->body = $2; ctx->in_function = 0; }
	| function_head EMBEDDED_C { $1->embedded = $2; ctx->in_function = 0; }
	| PRIVATE function_head block { $2->body = $3; $2->is_private = 1; ctx->in_function = 0; }
	| PRIVATE function_head EMBEDDED_C { $2->embedded = $3; $2->is_private = 1; ctx->in_function = 0; }
	| EMBEDDED_C {
		Expr *e = expr_new(EX_EMBEDDED, LOC(@1));
		e->str = $1;
		vec_push(&ctx->prog->embedded, e);
	  }
	| error '}' { yyerrok; }
	| error ';' { yyerrok; }
	;

opt_semi: %empty | ';' ;

global_decls:
	  global_decl { vec_push(&ctx->prog->globals, $1); }
	| global_decls ',' global_decl { vec_push(&ctx->prog->globals, $3); }
	;

private_global_decls:
	  global_decl { $1->is_private = 1; vec_push(&ctx->prog->globals, $1); }
	| private_global_decls ',' global_decl { $3->is_private = 1; vec_push(&ctx->prog->globals, $3); }
	;

/* NAME, NAME%, NAME[N], NAME%[N], NAME[N]%, NAME[], NAME = literal */
global_decl:
	  IDENT { $$ = symbol_new($1, SYM_GLOBAL, LOC(@1)); }
	| global_decl '%' {
		$$ = $1;
		if ($$->wrap)
			syntax_error(ctx, LOC(@2), "'%%' given twice for '%s'", $$->name);
		else if ($$->is_array == 1)
			syntax_error(ctx, LOC(@2), "the wrap flag comes before the size: %s%%[N], saw '%%' after it",
				     $$->name);
		$$->wrap = 1;
		$$->is_array = 1;
	  }
	| global_decl '[' ']' {
		$$ = $1;
		$$->is_array = 1;
	  }
	| global_decl '[' NUMBER ']' {
		$$ = $1;
		$$->is_array = 1;
		if ($3 <= 0)
			syntax_error(ctx, LOC(@3), "array size must be positive");
		if ($$->max_entries)
			syntax_error(ctx, LOC(@2), "array size given twice for '%s'", $$->name);
		$$->max_entries = $3;
	  }
	| global_decl '=' literal {
		$$ = $1;
		if ($$->is_array == 1 || $$->init)
			syntax_error(ctx, LOC(@2), "only a scalar global can have an initial value");
		$$->init = $3;
		$$->is_array = 0;
	  }
	;

literal:
	  NUMBER { $$ = mk_number(ctx, @1, $1); }
	| '-' NUMBER { $$ = mk_number(ctx, @1, (int64_t)(0 - (uint64_t)$2)); }
	| STRING { $$ = expr_new(EX_STRING, LOC(@1)); $$->str = $1; }
	;

function_head:
	  FUNCTION IDENT '(' opt_params ')' opt_priority {
		$$ = xcalloc(1, sizeof *$$);
		$$->name = $2;
		$$->loc = LOC(@2);
		$$->params = *$4;
		$$->priority = $6;
		$$->has_priority = @6.first_line != @6.last_line || @6.first_column != @6.last_column;
		check_function_head(ctx, $$, @6);
	  }
	| FUNCTION IDENT ':' IDENT '(' opt_params ')' opt_priority {
		$$ = xcalloc(1, sizeof *$$);
		$$->name = $2;
		$$->loc = LOC(@2);
		$$->ret = type_from_name(ctx, @4, $4);
		$$->declared_ret = 1;
		$$->params = *$6;
		$$->priority = $8;
		$$->has_priority = @8.first_line != @8.last_line || @8.first_column != @8.last_column;
		check_function_head(ctx, $$, @8);
	  }
	;

opt_priority:
	  %empty { $$ = 0; }
	| ':' NUMBER { $$ = $2; @$ = @2; }
	| ':' '-' NUMBER { $$ = -$3; @$ = @2; }
	;

opt_params: %empty { $$ = vec_new(); } | params ;
params:
	  param { $$ = vec_new(); vec_push($$, $1); }
	| params ',' param { $$ = $1; vec_push($$, $3); }
	;
param:
	  IDENT { $$ = symbol_new($1, SYM_PARAM, LOC(@1)); }
	| IDENT ':' IDENT {
		$$ = symbol_new($1, SYM_PARAM, LOC(@1));
		$$->type = type_from_name(ctx, @3, $3);
		$$->declared_type = 1;
	  }
	;

/* ---- probe points ---- */

probe_points:
	  probe_point { $$ = vec_new(); vec_push($$, $1); }
	| probe_points ',' probe_point { $$ = $1; vec_push($$, $3); }
	;

probe_point:
	  point_path
	| probe_point '?' {
		$$ = $1;
		if ($$->optional || $$->sufficient || $$->cond)
			syntax_error(ctx, LOC(@2), "unexpected '?': the probe point is already optional, sufficient or conditional");
		else if (marked_alternative($$, 0))
			syntax_error(ctx, LOC(@2), "'?' given twice: an alternative of the {...} already has '?' or '!'");
		$$->optional = 1;
	  }
	| probe_point '!' {
		$$ = $1;
		if ($$->optional || $$->sufficient || $$->cond)
			syntax_error(ctx, LOC(@2), "unexpected '!': the probe point is already optional, sufficient or conditional");
		else if (marked_alternative($$, 0))
			syntax_error(ctx, LOC(@2), "'!' given twice: an alternative of the {...} already has '?' or '!'");
		$$->sufficient = 1;
	  }
	| probe_point IF '(' expr ')' {
		$$ = $1;
		if ($$->cond)
			syntax_error(ctx, LOC(@2), "a probe point takes one 'if' condition");
		else if (marked_alternative($$, 1))
			syntax_error(ctx, LOC(@2), "'if' given twice: an alternative of the {...} already has one");
		$$->cond = $4;
	  }
	;

point_path:
	  component {
		$$ = xcalloc(1, sizeof *$$);
		$$->loc = $1->loc;
		vec_push(&$$->components, $1);
	  }
	| point_path '.' component {
		ProbePointComponent *prev = $1->components.items[$1->components.len - 1];
		for (int i = 0; i < prev->alts.len; i++) {
			ProbePoint *alt = prev->alts.items[i];
			if (alt->optional || alt->sufficient || alt->cond)
				syntax_error(ctx, alt->loc, "'?', '!' and 'if' belong at the end of a whole probe point, "
					     "not inside a {...} followed by more components");
		}
		$$ = $1;
		vec_push(&$$->components, $3);
	  }
	;

/* each alternative may end with ?, ! or if (...) when nothing follows the group */
alternatives:
	  probe_point { $$ = vec_new(); vec_push($$, $1); }
	| alternatives ',' probe_point { $$ = $1; vec_push($$, $3); }
	;

component:
	  component_name {
		$$ = xcalloc(1, sizeof *$$);
		$$->name = $1;
		$$->loc = LOC(@1);
	  }
	| component_name '(' literal ')' {
		$$ = xcalloc(1, sizeof *$$);
		$$->name = $1;
		$$->arg = $3;
		$$->loc = LOC(@1);
	  }
	| '{' alternatives '}' {
		$$ = xcalloc(1, sizeof *$$);
		$$->alts = *$2;
		$$->loc = LOC(@1);
	  }
	;

/* a name with wildcards: "function", "*", "**", "*stat", "sys_*_at" */
component_name:
	  name_piece
	| component_name name_piece {
		if (!adjacent(@1, @2))
			syntax_error(ctx, LOC(@2), "expected '.', '(' or the end of the probe point, saw '%s'", $2);
		$$ = xasprintf("%s%s", $1, $2);
	  }
	;

/* keywords may name components, e.g. kernel.function("f").return, netfilter.arp.in */
name_piece:
	  IDENT
	| '*' { $$ = xstrdup("*"); }
	| RETURN { $$ = xstrdup("return"); }
	| FUNCTION { $$ = xstrdup("function"); }
	| IN { $$ = xstrdup("in"); }
	;

/* ---- statements ---- */

block:
	  '{' stmts '}' {
		$$ = stmt_new(ST_BLOCK, LOC(@1));
		$$->body = *$2;
	  }
	| '{' stmts error '}' {
		/* resume after the block with the error; no yyerrok: a '}' of a
		 * nested block may have closed it early, and the stray '}' that
		 * follows should not be reported as a second error */
		$$ = stmt_new(ST_BLOCK, LOC(@1));
		$$->body = *$2;
	  }
	;

stmts:
	  %empty { $$ = vec_new(); }
	| stmts stmt { $$ = $1; vec_push($$, $2); }
	| stmts error ';' { yyerrok; $$ = $1; }
	;

stmt:
	  block
	| ';' { $$ = stmt_new(ST_EMPTY, LOC(@1)); }
	| simple_stmt
	| simple_stmt ';'
	| IF '(' expr ')' stmt else_part {
		$$ = stmt_new(ST_IF, LOC(@1));
		$$->expr = $3;
		$$->then = $5;
		$$->els = $6;
	  }
	| WHILE '(' expr ')' stmt {
		$$ = stmt_new(ST_WHILE, LOC(@1));
		$$->expr = $3;
		$$->then = $5;
	  }
	| FOR '(' opt_expr ';' opt_expr ';' opt_expr ')' stmt {
		$$ = stmt_new(ST_FOR, LOC(@1));
		$$->init = $3;
		$$->expr = $5;
		$$->step = $7;
		$$->then = $9;
	  }
	| foreach_head ')' stmt { $$ = $1; $$->then = $3; }
	| foreach_head IDENT expr ')' stmt {
		$$ = $1;
		if (strcmp($2, "limit"))
			syntax_error(ctx, LOC(@2), "expected 'limit' or ')', saw identifier '%s'", $2);
		$$->limit = $3;
		$$->then = $5;
	  }
	| TRY block catch_part {
		$$ = $3;
		$$->then = $2;
	  }
	;

catch_part:
	  CATCH block { $$ = stmt_new(ST_TRY, LOC(@1)); $$->els = $2; }
	| CATCH '(' IDENT ')' block {
		$$ = stmt_new(ST_TRY, LOC(@1));
		$$->catch_var = mk_ident(ctx, @3, $3);
		$$->els = $5;
	  }
	;

/* foreach (k in a), ([k1, k2+] in a), (v = k in a-), (v = [k1, k2] in a[*, 1] @sum+) */
foreach_head:
	  FOREACH '(' foreach_vars IN AT_NAME '(' opt_args ')' {
		$$ = stmt_new(ST_FOREACH, LOC(@1));
		$$->keys = ctx->foreach_keys;
		$$->keys_bracketed = ctx->foreach_bracketed;
		$$->value = ctx->foreach_value;
		$$->sort_on = ctx->foreach_sort_on;
		$$->sort_dir = ctx->foreach_sort_dir;
		$$->array = mk_at(ctx, @5, $5, $7);   /* a histogram's buckets */
	  }
	| FOREACH '(' foreach_vars IN IDENT opt_slice foreach_sort {
		$$ = stmt_new(ST_FOREACH, LOC(@1));
		$$->keys = ctx->foreach_keys;
		$$->keys_bracketed = ctx->foreach_bracketed;
		$$->value = ctx->foreach_value;
		$$->sort_on = ctx->foreach_sort_on;
		$$->sort_dir = ctx->foreach_sort_dir;
		$$->array = mk_ident(ctx, @5, $5);
		if ($6)
			$$->slice = *$6;
		if ($7) {
			if ($$->sort_on)
				syntax_error(ctx, LOC(@7), "foreach takes one sort marker");
			$$->sort_on = -1;
			$$->sort_dir = $7 > 0 ? 1 : -1;
			$$->sort_agg = ctx->foreach_agg;
		}
	  }
	;

foreach_vars:
	  foreach_keys
	| IDENT sort_mark '=' foreach_keys {
		ctx->foreach_value = mk_ident(ctx, @1, $1);
		if ($2) {
			if (ctx->foreach_sort_on)
				syntax_error(ctx, LOC(@2), "foreach takes one sort marker");
			ctx->foreach_sort_on = -1;
			ctx->foreach_sort_dir = (int)$2;
		}
	  }
	;

/* the key list is gathered in ctx: its sort marker position matters */
foreach_keys:
	  IDENT sort_mark {
		ctx->foreach_keys = (PtrVec){ 0 };
		ctx->foreach_bracketed = 0;
		ctx->foreach_value = NULL;
		ctx->foreach_sort_on = $2 ? 1 : 0;
		ctx->foreach_sort_dir = (int)$2;
		vec_push(&ctx->foreach_keys, mk_ident(ctx, @1, $1));
	  }
	| '[' bracketed_keys ']' { ctx->foreach_bracketed = 1; }
	;

bracketed_keys:
	  IDENT sort_mark {
		ctx->foreach_keys = (PtrVec){ 0 };
		ctx->foreach_value = NULL;
		ctx->foreach_sort_on = $2 ? 1 : 0;
		ctx->foreach_sort_dir = (int)$2;
		vec_push(&ctx->foreach_keys, mk_ident(ctx, @1, $1));
	  }
	| bracketed_keys ',' IDENT sort_mark {
		vec_push(&ctx->foreach_keys, mk_ident(ctx, @3, $3));
		if ($4) {
			if (ctx->foreach_sort_on)
				syntax_error(ctx, LOC(@4), "foreach takes one sort marker");
			ctx->foreach_sort_on = ctx->foreach_keys.len;
			ctx->foreach_sort_dir = (int)$4;
		}
	  }
	;

opt_slice: %empty { $$ = NULL; } | '[' index_args ']' { $$ = $2; } ;

/* a sort marker on the array: a+, a-, a @sum+ ... (0 = none) */
foreach_sort:
	  %empty { $$ = 0; ctx->foreach_agg = NULL; }
	| '+' { $$ = 1; ctx->foreach_agg = NULL; }
	| '-' { $$ = -1; ctx->foreach_agg = NULL; }
	| AT_NAME sort_mark {
		static const char *const aggs[] = { "count", "sum", "min", "max", "avg" };
		int known = 0;
		for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++)
			known |= !strcmp($1, aggs[i]);
		if (!known)
			syntax_error(ctx, LOC(@1), "expected @count, @sum, @min, @max or @avg to sort by, saw '@%s'", $1);
		if (!$2)
			syntax_error(ctx, LOC(@2), "expected '+' or '-' after @%s", $1);
		$$ = $2 ? $2 : 1;
		ctx->foreach_agg = $1;
	  }
	;

sort_mark:
	  %empty { $$ = 0; }
	| '+' { $$ = 1; }
	| '-' { $$ = -1; }
	;

simple_stmt:
	  expr { $$ = stmt_new(ST_EXPR, $1->loc); $$->expr = $1; }
	| BREAK { $$ = stmt_new(ST_BREAK, LOC(@1)); }
	| CONTINUE { $$ = stmt_new(ST_CONTINUE, LOC(@1)); }
	| NEXT { $$ = stmt_new(ST_NEXT, LOC(@1)); }
	| RETURN {
		$$ = stmt_new(ST_RETURN, LOC(@1));
		if (!ctx->in_function)
			syntax_error(ctx, LOC(@1), "'return' is only allowed in a function (use 'next' to leave a probe)");
	  }
	| RETURN expr {
		$$ = stmt_new(ST_RETURN, LOC(@1));
		$$->expr = $2;
		if (!ctx->in_function)
			syntax_error(ctx, LOC(@1), "'return' is only allowed in a function (use 'next' to leave a probe)");
	  }
	| DELETE expr {
		$$ = stmt_new(ST_DELETE, LOC(@1));
		$$->expr = $2;
		if ($2->kind != EX_IDENT && $2->kind != EX_INDEX)
			syntax_error(ctx, $2->loc, "expected a variable, an array or an array element after 'delete'");
	  }
	;

else_part:
	  %empty %prec IF { $$ = NULL; }
	| ELSE stmt { $$ = $2; }
	;

/* ---- expressions ---- */

opt_expr: %empty { $$ = NULL; } | expr ;

expr:
	  expr '=' expr        { $$ = mk_assign(ctx, @2, OP_ASSIGN, $1, $3); }
	| expr ADD_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_ADD_ASSIGN, $1, $3); }
	| expr SUB_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_SUB_ASSIGN, $1, $3); }
	| expr MUL_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_MUL_ASSIGN, $1, $3); }
	| expr DIV_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_DIV_ASSIGN, $1, $3); }
	| expr MOD_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_MOD_ASSIGN, $1, $3); }
	| expr CAT_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_CAT_ASSIGN, $1, $3); }
	| expr AND_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_AND_ASSIGN, $1, $3); }
	| expr OR_ASSIGN expr  { $$ = mk_assign(ctx, @2, OP_OR_ASSIGN, $1, $3); }
	| expr XOR_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_XOR_ASSIGN, $1, $3); }
	| expr SHL_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_SHL_ASSIGN, $1, $3); }
	| expr SHR_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_SHR_ASSIGN, $1, $3); }
	| expr AGG_ASSIGN expr { $$ = mk_assign(ctx, @2, OP_AGG_ASSIGN, $1, $3); }
	| expr '?' expr ':' expr {
		$$ = expr_new(EX_TERNARY, LOC(@2));
		$$->cond = $1;
		$$->left = $3;
		$$->right = $5;
		set_depth(ctx, $$, $1, $3);
		set_depth(ctx, $$, $$, $5);
	  }
	| expr OROR expr    { $$ = mk_binary(ctx, @2, OP_OR, $1, $3); }
	| expr ANDAND expr  { $$ = mk_binary(ctx, @2, OP_AND, $1, $3); }
	| expr '|' expr     { $$ = mk_binary(ctx, @2, OP_BITOR, $1, $3); }
	| expr '^' expr     { $$ = mk_binary(ctx, @2, OP_BITXOR, $1, $3); }
	| expr '&' expr     { $$ = mk_binary(ctx, @2, OP_BITAND, $1, $3); }
	| expr EQ expr      { $$ = mk_binary(ctx, @2, OP_EQ, $1, $3); }
	| expr NE expr      { $$ = mk_binary(ctx, @2, OP_NE, $1, $3); }
	| expr MATCH expr   { $$ = mk_regex(ctx, @2, OP_MATCH, $1, $3); }
	| expr NOMATCH expr { $$ = mk_regex(ctx, @2, OP_NOMATCH, $1, $3); }
	| expr '<' expr     { $$ = mk_binary(ctx, @2, OP_LT, $1, $3); }
	| expr '>' expr     { $$ = mk_binary(ctx, @2, OP_GT, $1, $3); }
	| expr LE expr      { $$ = mk_binary(ctx, @2, OP_LE, $1, $3); }
	| expr GE expr      { $$ = mk_binary(ctx, @2, OP_GE, $1, $3); }
	| expr SHL expr     { $$ = mk_binary(ctx, @2, OP_SHL, $1, $3); }
	| expr SHR expr     { $$ = mk_binary(ctx, @2, OP_SHR, $1, $3); }
	| expr USHR expr    { $$ = mk_binary(ctx, @2, OP_USHR, $1, $3); }
	| expr '+' expr     { $$ = mk_binary(ctx, @2, OP_ADD, $1, $3); }
	| expr '-' expr     { $$ = mk_binary(ctx, @2, OP_SUB, $1, $3); }
	| expr '.' expr     { $$ = mk_binary(ctx, @2, OP_CONCAT, $1, $3); }
	| expr '*' expr     { $$ = mk_binary(ctx, @2, OP_MUL, $1, $3); }
	| expr '/' expr     { $$ = mk_binary(ctx, @2, OP_DIV, $1, $3); }
	| expr '%' expr     { $$ = mk_binary(ctx, @2, OP_MOD, $1, $3); }
	| expr IN IDENT     { $$ = mk_binary(ctx, @2, OP_IN, $1, mk_ident(ctx, @3, $3)); }
	| '[' index_args ']' IN IDENT {
		Expr *keys = expr_new(EX_CALL, LOC(@1));   /* key list holder: str NULL */
		keys->args = *$2;
		$$ = mk_binary(ctx, @4, OP_IN, keys, mk_ident(ctx, @5, $5));
	  }
	| '-' expr %prec UNARY {
		if ($2->kind == EX_NUMBER) {   /* a negative literal, also -9223372036854775808 */
			$$ = $2;
			$$->num = (int64_t)(0 - (uint64_t)$2->num);
			$$->op = OP_NONE;
			$$->loc = LOC(@1);
		} else {
			$$ = mk_unary(ctx, @1, EX_UNARY, OP_NEG, $2);
		}
	  }
	| '+' expr %prec UNARY { $$ = mk_unary(ctx, @1, EX_UNARY, OP_PLUS, $2); }
	| '!' expr             { $$ = mk_unary(ctx, @1, EX_UNARY, OP_NOT, $2); }
	| '~' expr             { $$ = mk_unary(ctx, @1, EX_UNARY, OP_BITNOT, $2); }
	/* as SystemTap, '&' makes a target value of what follows (an autocast
	 * when it is not one already); it binds tighter than 'in': &p in a */
	| '&' postfix %prec UNARY {
		Expr *v = $2;
		if (!(v->kind == EX_TARGET || v->kind == EX_AUTOCAST ||
		      (v->kind == EX_AT && (!strcmp(v->str, "cast") || !strcmp(v->str, "var"))))) {
			v = expr_new(EX_AUTOCAST, $2->loc);
			v->left = $2;
			set_depth(ctx, v, $2, NULL);
		}
		$$ = mk_unary(ctx, @1, EX_UNARY, OP_ADDR, v);
	  }
	| INC expr             { $$ = mk_incdec(ctx, @1, OP_INC, $2, 0); }
	| DEC expr             { $$ = mk_incdec(ctx, @1, OP_DEC, $2, 0); }
	/* one postfix operator on a value, as SystemTap: "a--" then "--a" on the
	 * next line are two statements, not (a--)-- */
	| postfix INC          { $$ = mk_incdec(ctx, @2, OP_INC, $1, 1); }
	| postfix DEC          { $$ = mk_incdec(ctx, @2, OP_DEC, $1, 1); }
	| postfix
	;

/* values with ->member, [index] and $ / $$ steps: $var->f[2], @cast(p, "t")->f,
 * @var("x")$, and autocast: task_current()->pid */
postfix:
	  primary
	| TARGET {
		$$ = expr_new(EX_TARGET, LOC(@1));
		$$->str = $1;
	  }
	| postfix ARROW member_name { $$ = add_chain(ctx, $1, chain_item(ctx, @2, CH_MEMBER, $3, NULL)); }
	| postfix '[' expr ']' { $$ = add_chain(ctx, $1, chain_item(ctx, @2, CH_INDEX, NULL, $3)); }
	| postfix PRETTY { $$ = add_chain(ctx, $1, chain_item(ctx, @2, CH_PRETTY, $2, NULL)); }
	;

/* struct members may be spelled like keywords: $task->next */
member_name:
	  IDENT
	| NEXT { $$ = xstrdup("next"); }
	| IN { $$ = xstrdup("in"); }
	| DELETE { $$ = xstrdup("delete"); }
	| IF { $$ = xstrdup("if"); }
	| ELSE { $$ = xstrdup("else"); }
	| WHILE { $$ = xstrdup("while"); }
	| FOR { $$ = xstrdup("for"); }
	| FOREACH { $$ = xstrdup("foreach"); }
	| BREAK { $$ = xstrdup("break"); }
	| CONTINUE { $$ = xstrdup("continue"); }
	| RETURN { $$ = xstrdup("return"); }
	| FUNCTION { $$ = xstrdup("function"); }
	| GLOBAL { $$ = xstrdup("global"); }
	| PRIVATE { $$ = xstrdup("private"); }
	| PROBE { $$ = xstrdup("probe"); }
	| TRY { $$ = xstrdup("try"); }
	| CATCH { $$ = xstrdup("catch"); }
	;

primary:
	  NUMBER { $$ = mk_number(ctx, @1, $1); }
	| STRING { $$ = expr_new(EX_STRING, LOC(@1)); $$->str = $1; }
	| IDENT  { $$ = mk_ident(ctx, @1, $1); }
	| IDENT '[' index_args ']' {
		$$ = expr_new(EX_INDEX, LOC(@1));
		$$->str = $1;
		$$->args = *$3;
	  }
	| IDENT '(' opt_args ')' {
		$$ = expr_new(EX_CALL, LOC(@1));
		$$->str = $1;
		$$->args = *$3;
		if (!strcmp($1, "print") || !strcmp($1, "println") || !strcmp($1, "sprint"))   /* they draw histograms */
			for (int i = 0; i < $$->args.len; i++)
				clear_bare_histogram($$->args.items[i]);
		/* as in SystemTap, a pass-1 rule: the delimited prints need their delimiter */
		if ((!strcmp($1, "printd") || !strcmp($1, "printdln") || !strcmp($1, "sprintd")) && $$->args.len < 2)
			syntax_error(ctx, LOC(@1), "%s needs a delimiter and at least one value", $1);
	  }
	| AT_NAME '(' opt_args ')' {
		$$ = mk_at(ctx, @1, $1, $3);
		if (!strncmp($1, "hist_", 5))
			$$->op = OP_HIST_BARE;   /* cleared where a histogram may stand */
	  }
	| EMBEDDED_C { $$ = expr_new(EX_EMBEDDED, LOC(@1)); $$->str = $1; }
	| '(' expr ')' { $$ = $2; }
	;

opt_args: %empty { $$ = vec_new(); } | args ;

/* array keys; '*' matches any key in a slice: a[*, 1] */
index_args:
	  index_arg { $$ = vec_new(); vec_push($$, $1); }
	| index_args ',' index_arg { $$ = $1; vec_push($$, $3); }
	;
index_arg:
	  expr
	| '*' { $$ = expr_new(EX_WILDCARD, LOC(@1)); }
	;
args:
	  expr { $$ = vec_new(); vec_push($$, $1); }
	| args ',' expr { $$ = $1; vec_push($$, $3); }
	;

%%


SrcLoc parse_loc(ParseCtx *ctx, int line, int col)
{
	SrcLoc l = { ctx->file, line, col };
	return l;
}

SrcLoc parse_loc_of(ParseCtx *ctx, const StpLoc *l)
{
	SrcLoc at = { l->file ? l->file : ctx->file, l->first_line, l->first_column };
	return at;
}

static void stp_yyerror(STP_YYLTYPE *loc, void *scanner, ParseCtx *ctx, const char *msg)
{
	(void)scanner;
	if (!strcmp(msg, "memory exhausted"))
		msg = "the program is nested too deeply (more than 4000 open blocks, parentheses or operators)";
	diag_at(ctx->diag, LOC(*loc), "parse error", "%s", msg);
	ctx->errors++;
}

/* Token names as a user would write them: "'probe'", "identifier". */
static const char *describe(yysymbol_kind_t sym, char *buf, size_t n)
{
	const char *name = yysymbol_name(sym);
	if (sym == YYSYMBOL_YYEOF)
		return "end of input";
	if (name[0] == '\'' || !strcmp(name, "identifier") || !strcmp(name, "number") || !strcmp(name, "string") ||
	    !strcmp(name, "invalid token") || !strcmp(name, "target variable") || !strcmp(name, "@operator") ||
	    !strcmp(name, "embedded C"))
		return name;
	snprintf(buf, n, "'%s'", name);
	return buf;
}

static int starts_expression(yysymbol_kind_t sym)
{
	static const char *const starters[] = {
		"identifier", "number", "string", "++", "--", "target variable", "@operator", "embedded C",
		"9223372036854775808", "'('", "'-'", "'+'", "'!'", "'~'", "'['", "'&'",
	};
	const char *name = yysymbol_name(sym);
	for (size_t i = 0; i < sizeof starters / sizeof starters[0]; i++)
		if (!strcmp(name, starters[i]))
			return 1;
	return 0;
}

/* "expected X, Y or Z, saw W": tokens that start an expression are summed up
 * as "an expression"; long lists are cut. */
static int yyreport_syntax_error(const yypcontext_t *pctx, void *scanner, ParseCtx *ctx)
{
	enum { MAX_SHOWN = 6 };
	yysymbol_kind_t expected[YYNTOKENS];
	const char *names[YYNTOKENS];
	yysymbol_kind_t saw = yypcontext_token(pctx);
	int n = yypcontext_expected_tokens(pctx, expected, YYNTOKENS);
	int nnames = 0, expr = 0, ident = 0, number = 0;
	char bufs[YYNTOKENS][48];
	StrBuf msg;

	(void)scanner;
	if (saw == YYSYMBOL_ERROR_TOKEN)
		return 0;   /* the lexer already reported it */
	if (n > 1) {   /* "end of input" is only worth naming alone */
		int k = 0;
		for (int i = 0; i < n; i++)
			if (expected[i] != YYSYMBOL_YYEOF)
				expected[k++] = expected[i];
		n = k;
	}
	for (int i = 0; i < n; i++) {
		ident |= expected[i] == YYSYMBOL_IDENT;
		number |= expected[i] == YYSYMBOL_NUMBER;
	}
	expr = ident && number && n > 3;
	if (expr)
		names[nnames++] = "an expression";
	for (int i = 0; i < n; i++) {
		if (expr && starts_expression(expected[i]))
			continue;
		names[nnames++] = describe(expected[i], bufs[i], sizeof bufs[i]);
	}
	sb_init(&msg);
	if (nnames > 0) {
		sb_puts(&msg, "expected ");
		for (int i = 0; i < nnames && i < MAX_SHOWN; i++) {
			if (i)
				sb_puts(&msg, i == nnames - 1 ? " or " : ", ");
			sb_puts(&msg, names[i]);
		}
		if (nnames > MAX_SHOWN)
			sb_puts(&msg, ", ...");
		sb_puts(&msg, ", ");
	}
	if (saw == YYSYMBOL_NUMBER)
		sb_printf(&msg, "saw number '%lld'", (long long)ctx->last_num);
	else if ((saw == YYSYMBOL_IDENT || saw == YYSYMBOL_STRING || saw == YYSYMBOL_TARGET) && ctx->last_str)
		sb_printf(&msg, "saw %s '%.40s'", describe(saw, bufs[0], sizeof bufs[0]), ctx->last_str);
	else
		sb_printf(&msg, "saw %s", describe(saw, bufs[0], sizeof bufs[0]));
	diag_at(ctx->diag, LOC(*yypcontext_location(pctx)), "parse error", "%s", msg.data);
	sb_free(&msg);
	ctx->errors++;
	return 0;
}
