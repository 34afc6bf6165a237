/* parser.y - the bison grammar of the script language (pass 1): probes,
 * globals, functions, statements and expressions into the syntax tree. */
%define api.pure full
%define api.prefix {stp_yy}
%define parse.error custom
%locations
%param {void *scanner}
%parse-param {ParseCtx *ctx}

%code requires {
#include "parse.h"
}

%code {
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stp_yylex(STP_YYSTYPE *lval, STP_YYLTYPE *lloc, void *scanner);
static void stp_yyerror(STP_YYLTYPE *loc, void *scanner, ParseCtx *ctx, const char *msg);

#define LOC(l) parse_loc(ctx, (l).first_line, (l).first_column)

static Expr *mk_binary(ParseCtx *ctx, STP_YYLTYPE l, int op, Expr *a, Expr *b)
{
	Expr *e = expr_new(EX_BINARY, LOC(l));
	e->op = op;
	e->left = a;
	e->right = b;
	return e;
}

static Expr *mk_unary(ParseCtx *ctx, STP_YYLTYPE l, ExprKind kind, int op, Expr *a)
{
	Expr *e = expr_new(kind, LOC(l));
	e->op = op;
	e->left = a;
	return e;
}

static int is_lvalue(const Expr *e)
{
	return e->kind == EX_IDENT || e->kind == EX_INDEX;
}

static Expr *mk_assign(ParseCtx *ctx, STP_YYLTYPE l, int op, Expr *lhs, Expr *rhs)
{
	if (!is_lvalue(lhs)) {
		diag_at(lhs->loc, "parse error", "expected a variable or array element on the left of the assignment");
		ctx->errors++;
	}
	Expr *e = mk_unary(ctx, l, EX_ASSIGN, op, lhs);
	e->right = rhs;
	return e;
}

static Expr *mk_incdec(ParseCtx *ctx, STP_YYLTYPE l, int op, Expr *x, int postfix)
{
	if (!is_lvalue(x)) {
		diag_at(x->loc, "parse error", "expected a variable or array element as operand of '%s'",
			op == INC ? "++" : "--");
		ctx->errors++;
	}
	Expr *e = mk_unary(ctx, l, EX_INCDEC, op, x);
	e->postfix = postfix;
	return e;
}

static PtrVec *vec_new(void)
{
	return xcalloc(1, sizeof(PtrVec));
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
}

%token PROBE "probe" GLOBAL "global" FUNCTION "function"
%token IF "if" ELSE "else" WHILE "while" FOR "for" FOREACH "foreach" IN "in"
%token BREAK "break" CONTINUE "continue" NEXT "next" RETURN "return" DELETE "delete"
%token <str> IDENT "identifier" STRING "string"
%token <num> NUMBER "number"
%token EQ "==" NE "!=" LE "<=" GE ">=" ANDAND "&&" OROR "||" SHL "<<" SHR ">>"
%token INC "++" DEC "--"
%token ADD_ASSIGN "+=" SUB_ASSIGN "-=" MUL_ASSIGN "*=" DIV_ASSIGN "/=" MOD_ASSIGN "%="
%token CAT_ASSIGN ".=" AND_ASSIGN "&=" OR_ASSIGN "|=" XOR_ASSIGN "^=" SHL_ASSIGN "<<=" SHR_ASSIGN ">>="
%token ERROR_TOKEN "invalid token"

%type <expr> expr opt_expr primary literal
%type <stmt> stmt simple_stmt block else_part
%type <vec> stmts args opt_args foreach_keys probe_points params opt_params
%type <pp> probe_point
%type <ppc> component
%type <str> component_name

%right '=' ADD_ASSIGN SUB_ASSIGN MUL_ASSIGN DIV_ASSIGN MOD_ASSIGN CAT_ASSIGN AND_ASSIGN OR_ASSIGN XOR_ASSIGN SHL_ASSIGN SHR_ASSIGN
%right '?' ':'
%left OROR
%left ANDAND
%left '|'
%left '^'
%left '&'
%left EQ NE
%left '<' '>' LE GE
%precedence IN
%left SHL SHR
%left '+' '-' '.'
%left '*' '/' '%'
%right UNARY INC DEC '!' '~'


/* Statements need no separators, so "a = b -c" or "return -1" could end
 * early: the grammar reads on (shift) as SystemTap does.  All 27 conflicts
 * are of that kind: an expression or "return" followed by a token that can
 * continue it or start a new statement (- + ! ~ ++ -- ( [ literal name),
 * and a simple statement followed by the optional ";" that may end it. */
%expect 27

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
	| GLOBAL global_decls opt_semi
	| FUNCTION IDENT '(' opt_params ')' block {
		Function *f = xcalloc(1, sizeof *f);
		f->name = $2;
		f->loc = LOC(@2);
		f->params = *$4;
		f->body = $6;
		vec_push(&ctx->prog->functions, f);
	  }
	| error '}'
	;

opt_semi: %empty | ';' ;

global_decls:
	  global_decl
	| global_decls ',' global_decl
	;

global_decl:
	  IDENT {
		vec_push(&ctx->prog->globals, symbol_new($1, SYM_GLOBAL, LOC(@1)));
	  }
	| IDENT '=' literal {
		Symbol *s = symbol_new($1, SYM_GLOBAL, LOC(@1));
		s->init = $3;
		s->is_array = 0;
		vec_push(&ctx->prog->globals, s);
	  }
	| IDENT '[' NUMBER ']' {
		Symbol *s = symbol_new($1, SYM_GLOBAL, LOC(@1));
		s->is_array = 1;
		s->max_entries = $3;
		if ($3 <= 0) {
			diag_at(LOC(@3), "parse error", "array size must be positive");
			ctx->errors++;
		}
		vec_push(&ctx->prog->globals, s);
	  }
	;

literal:
	  NUMBER { $$ = expr_new(EX_NUMBER, LOC(@1)); $$->num = $1; }
	| '-' NUMBER { $$ = expr_new(EX_NUMBER, LOC(@1)); $$->num = (int64_t)(0 - (uint64_t)$2); }
	| STRING { $$ = expr_new(EX_STRING, LOC(@1)); $$->str = $1; }
	;

opt_params: %empty { $$ = vec_new(); } | params ;
params:
	  IDENT { $$ = vec_new(); vec_push($$, symbol_new($1, SYM_PARAM, LOC(@1))); }
	| params ',' IDENT { $$ = $1; vec_push($$, symbol_new($3, SYM_PARAM, LOC(@3))); }
	;

probe_points:
	  probe_point { $$ = vec_new(); vec_push($$, $1); }
	| probe_points ',' probe_point { $$ = $1; vec_push($$, $3); }
	;

probe_point:
	  component {
		$$ = xcalloc(1, sizeof *$$);
		$$->loc = $1->loc;
		vec_push(&$$->components, $1);
	  }
	| probe_point '.' component { $$ = $1; vec_push(&$$->components, $3); }
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
	;

/* probe point components may reuse keyword spellings, e.g. ".return" */
component_name:
	  IDENT
	| RETURN { $$ = xstrdup("return"); }
	| FUNCTION { $$ = xstrdup("function"); }
	;

block:
	  '{' stmts '}' {
		$$ = stmt_new(ST_BLOCK, LOC(@1));
		$$->body = *$2;
	  }
	;

stmts:
	  %empty { $$ = vec_new(); }
	| stmts stmt { $$ = $1; vec_push($$, $2); }
	| stmts error { $$ = $1; }
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
	| FOREACH '(' foreach_keys IN IDENT ')' stmt {
		$$ = stmt_new(ST_FOREACH, LOC(@1));
		$$->keys = *$3;
		$$->array = expr_new(EX_IDENT, LOC(@5));
		$$->array->str = $5;
		$$->then = $7;
	  }
	;

simple_stmt:
	  expr { $$ = stmt_new(ST_EXPR, $1->loc); $$->expr = $1; }
	| BREAK { $$ = stmt_new(ST_BREAK, LOC(@1)); }
	| CONTINUE { $$ = stmt_new(ST_CONTINUE, LOC(@1)); }
	| NEXT { $$ = stmt_new(ST_NEXT, LOC(@1)); }
	| RETURN { $$ = stmt_new(ST_RETURN, LOC(@1)); }
	| RETURN expr { $$ = stmt_new(ST_RETURN, LOC(@1)); $$->expr = $2; }
	| DELETE expr {
		$$ = stmt_new(ST_DELETE, LOC(@1));
		$$->expr = $2;
		if (!is_lvalue($2)) {
			diag_at($2->loc, "parse error", "expected an array or array element after 'delete'");
			ctx->errors++;
		}
	  }
	;

else_part:
	  %empty %prec IF { $$ = NULL; }
	| ELSE stmt { $$ = $2; }
	;

foreach_keys:
	  IDENT {
		Expr *k = expr_new(EX_IDENT, LOC(@1));
		k->str = $1;
		$$ = vec_new();
		vec_push($$, k);
	  }
	| '[' args ']' {
		$$ = $2;
		for (int i = 0; i < $$->len; i++) {
			Expr *k = $$->items[i];
			if (k->kind != EX_IDENT) {
				diag_at(k->loc, "parse error", "expected a variable name as foreach key");
				ctx->errors++;
			}
		}
	  }
	;

opt_expr: %empty { $$ = NULL; } | expr ;

expr:
	  expr '=' expr        { $$ = mk_assign(ctx, @2, '=', $1, $3); }
	| expr ADD_ASSIGN expr { $$ = mk_assign(ctx, @2, ADD_ASSIGN, $1, $3); }
	| expr SUB_ASSIGN expr { $$ = mk_assign(ctx, @2, SUB_ASSIGN, $1, $3); }
	| expr MUL_ASSIGN expr { $$ = mk_assign(ctx, @2, MUL_ASSIGN, $1, $3); }
	| expr DIV_ASSIGN expr { $$ = mk_assign(ctx, @2, DIV_ASSIGN, $1, $3); }
	| expr MOD_ASSIGN expr { $$ = mk_assign(ctx, @2, MOD_ASSIGN, $1, $3); }
	| expr CAT_ASSIGN expr { $$ = mk_assign(ctx, @2, CAT_ASSIGN, $1, $3); }
	| expr AND_ASSIGN expr { $$ = mk_assign(ctx, @2, AND_ASSIGN, $1, $3); }
	| expr OR_ASSIGN expr  { $$ = mk_assign(ctx, @2, OR_ASSIGN, $1, $3); }
	| expr XOR_ASSIGN expr { $$ = mk_assign(ctx, @2, XOR_ASSIGN, $1, $3); }
	| expr SHL_ASSIGN expr { $$ = mk_assign(ctx, @2, SHL_ASSIGN, $1, $3); }
	| expr SHR_ASSIGN expr { $$ = mk_assign(ctx, @2, SHR_ASSIGN, $1, $3); }
	| expr '?' expr ':' expr {
		$$ = expr_new(EX_TERNARY, LOC(@2));
		$$->cond = $1;
		$$->left = $3;
		$$->right = $5;
	  }
	| expr OROR expr  { $$ = mk_binary(ctx, @2, OROR, $1, $3); }
	| expr ANDAND expr { $$ = mk_binary(ctx, @2, ANDAND, $1, $3); }
	| expr '|' expr   { $$ = mk_binary(ctx, @2, '|', $1, $3); }
	| expr '^' expr   { $$ = mk_binary(ctx, @2, '^', $1, $3); }
	| expr '&' expr   { $$ = mk_binary(ctx, @2, '&', $1, $3); }
	| expr EQ expr    { $$ = mk_binary(ctx, @2, EQ, $1, $3); }
	| expr NE expr    { $$ = mk_binary(ctx, @2, NE, $1, $3); }
	| expr '<' expr   { $$ = mk_binary(ctx, @2, '<', $1, $3); }
	| expr '>' expr   { $$ = mk_binary(ctx, @2, '>', $1, $3); }
	| expr LE expr    { $$ = mk_binary(ctx, @2, LE, $1, $3); }
	| expr GE expr    { $$ = mk_binary(ctx, @2, GE, $1, $3); }
	| expr SHL expr   { $$ = mk_binary(ctx, @2, SHL, $1, $3); }
	| expr SHR expr   { $$ = mk_binary(ctx, @2, SHR, $1, $3); }
	| expr '+' expr   { $$ = mk_binary(ctx, @2, '+', $1, $3); }
	| expr '-' expr   { $$ = mk_binary(ctx, @2, '-', $1, $3); }
	| expr '.' expr   { $$ = mk_binary(ctx, @2, '.', $1, $3); }
	| expr '*' expr   { $$ = mk_binary(ctx, @2, '*', $1, $3); }
	| expr '/' expr   { $$ = mk_binary(ctx, @2, '/', $1, $3); }
	| expr '%' expr   { $$ = mk_binary(ctx, @2, '%', $1, $3); }
	| expr IN IDENT {
		Expr *arr = expr_new(EX_IDENT, LOC(@3));
		arr->str = $3;
		$$ = mk_binary(ctx, @2, IN, $1, arr);
	  }
	| '[' args ']' IN IDENT {
		Expr *keys = expr_new(EX_CALL, LOC(@1));   /* key list holder */
		Expr *arr = expr_new(EX_IDENT, LOC(@5));
		keys->args = *$2;
		keys->str = NULL;
		arr->str = $5;
		$$ = mk_binary(ctx, @4, IN, keys, arr);
	  }
	| '-' expr %prec UNARY { $$ = mk_unary(ctx, @1, EX_UNARY, '-', $2); }
	| '+' expr %prec UNARY { $$ = mk_unary(ctx, @1, EX_UNARY, '+', $2); }
	| '!' expr           { $$ = mk_unary(ctx, @1, EX_UNARY, '!', $2); }
	| '~' expr           { $$ = mk_unary(ctx, @1, EX_UNARY, '~', $2); }
	| INC expr           { $$ = mk_incdec(ctx, @1, INC, $2, 0); }
	| DEC expr           { $$ = mk_incdec(ctx, @1, DEC, $2, 0); }
	| expr INC           { $$ = mk_incdec(ctx, @2, INC, $1, 1); }
	| expr DEC           { $$ = mk_incdec(ctx, @2, DEC, $1, 1); }
	| primary
	;

primary:
	  NUMBER { $$ = expr_new(EX_NUMBER, LOC(@1)); $$->num = $1; }
	| STRING { $$ = expr_new(EX_STRING, LOC(@1)); $$->str = $1; }
	| IDENT  { $$ = expr_new(EX_IDENT, LOC(@1)); $$->str = $1; }
	| IDENT '[' args ']' {
		$$ = expr_new(EX_INDEX, LOC(@1));
		$$->str = $1;
		$$->args = *$3;
	  }
	| IDENT '(' opt_args ')' {
		$$ = expr_new(EX_CALL, LOC(@1));
		$$->str = $1;
		$$->args = *$3;
	  }
	| '(' expr ')' { $$ = $2; }
	;

opt_args: %empty { $$ = vec_new(); } | args ;
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

static void stp_yyerror(STP_YYLTYPE *loc, void *scanner, ParseCtx *ctx, const char *msg)
{
	(void)scanner;
	diag_at(LOC(*loc), "parse error", "%s", msg);
	ctx->errors++;
}

/* Token names as a user would write them: "'probe'", "identifier". */
static const char *describe(yysymbol_kind_t sym, char *buf, size_t n)
{
	const char *name = yysymbol_name(sym);
	if (sym == YYSYMBOL_YYEOF)
		return "end of input";
	if (name[0] == '\'' || !strcmp(name, "identifier") || !strcmp(name, "number") || !strcmp(name, "string") ||
	    !strcmp(name, "invalid token"))
		return name;
	snprintf(buf, n, "'%s'", name);
	return buf;
}

static int starts_expression(yysymbol_kind_t sym)
{
	static const char *const starters[] = {
		"identifier", "number", "string", "++", "--",
		"'('", "'-'", "'+'", "'!'", "'~'", "'['",
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
	expr = ident && number;
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
	if (saw == YYSYMBOL_IDENT || saw == YYSYMBOL_NUMBER || saw == YYSYMBOL_STRING)
		sb_printf(&msg, "saw %s '%s'", describe(saw, bufs[0], sizeof bufs[0]), ctx->last_text);
	else
		sb_printf(&msg, "saw %s", describe(saw, bufs[0], sizeof bufs[0]));
	diag_at(LOC(*yypcontext_location(pctx)), "parse error", "%s", msg.data);
	sb_free(&msg);
	ctx->errors++;
	return 0;
}
