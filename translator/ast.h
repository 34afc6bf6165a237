/* ast.h - the syntax tree built by the parser (pass 1) and annotated with
 * symbols and types by elaboration (pass 2); read by the code generator. */
#ifndef STAP_AST_H
#define STAP_AST_H

#include "diag.h"
#include "util.h"

#include <stdint.h>

typedef enum Type {
	TY_UNKNOWN = 0,
	TY_LONG,
	TY_STRING,
} Type;

const char *type_name(Type t);

typedef struct Symbol Symbol;
typedef struct Function Function;
typedef struct Builtin Builtin;

typedef enum ExprKind {
	EX_NUMBER,       /* num */
	EX_STRING,       /* str */
	EX_IDENT,        /* name: a scalar variable (sym after pass 2) */
	EX_INDEX,        /* name[args]: array element */
	EX_CALL,         /* name(args): function or builtin */
	EX_BINARY,       /* left op right: arithmetic, comparison, ".", &&, || */
	EX_UNARY,        /* op left: - ! ~ + */
	EX_ASSIGN,       /* left op right: = += -= ... .= */
	EX_INCDEC,       /* op left, prefix or postfix ++ / -- */
	EX_TERNARY,      /* cond ? left : right */
} ExprKind;

typedef struct Expr {
	ExprKind kind;
	SrcLoc loc;
	Type type;
	int op;                 /* operator token (parser.h values or a char) */
	int postfix;            /* EX_INCDEC: 1 for x++ */
	int64_t num;
	char *str;              /* literal text or identifier/function name */
	struct Expr *left, *right, *cond;
	PtrVec args;            /* Expr*: call arguments or array keys */
	Symbol *sym;            /* resolved variable for EX_IDENT / EX_INDEX */
	Function *fn;           /* resolved user function for EX_CALL */
	const Builtin *builtin; /* resolved builtin for EX_CALL */
} Expr;

typedef enum StmtKind {
	ST_BLOCK, ST_EXPR, ST_IF, ST_WHILE, ST_FOR, ST_FOREACH,
	ST_BREAK, ST_CONTINUE, ST_NEXT, ST_RETURN, ST_DELETE, ST_EMPTY,
} StmtKind;

typedef struct Stmt {
	StmtKind kind;
	SrcLoc loc;
	PtrVec body;            /* ST_BLOCK: Stmt* */
	Expr *expr;             /* EXPR, RETURN, DELETE; IF/WHILE/FOR condition */
	Expr *init, *step;      /* ST_FOR */
	struct Stmt *then, *els;/* IF then/else; loops: then = body */
	/* ST_FOREACH */
	PtrVec keys;            /* Expr* (EX_IDENT) loop variables */
	Expr *array;            /* EX_IDENT naming the array */
} Stmt;

typedef struct ProbePointComponent {
	char *name;
	Expr *arg;              /* NULL, EX_NUMBER or EX_STRING */
	SrcLoc loc;
} ProbePointComponent;

typedef struct ProbePoint {
	PtrVec components;      /* ProbePointComponent* */
	SrcLoc loc;
} ProbePoint;

typedef struct Probe {
	PtrVec points;          /* ProbePoint* */
	Stmt *body;
	SrcLoc loc;
	PtrVec locals;          /* Symbol*, filled by pass 2 */
	int index;
} Probe;

typedef enum SymbolKind { SYM_GLOBAL, SYM_LOCAL, SYM_PARAM } SymbolKind;

#define MAX_ARRAY_KEYS 9

struct Symbol {
	char *name;
	SymbolKind kind;
	SrcLoc loc;
	Type type;              /* value type */
	int is_array;           /* -1 unknown, 0 scalar, 1 array */
	int nkeys;
	Type keytypes[MAX_ARRAY_KEYS];
	Expr *init;             /* global initializer (literal) */
	int64_t max_entries;    /* global a[N] */
	int index;              /* position among globals / locals */
	int read, written;      /* used by the code generator for locking */
};

struct Function {
	char *name;
	SrcLoc loc;
	PtrVec params;          /* Symbol* (SYM_PARAM) */
	PtrVec locals;          /* Symbol*, filled by pass 2 */
	Stmt *body;
	Type ret;
	int index;
	int used;
};

typedef struct Program {
	PtrVec probes;          /* Probe* */
	PtrVec globals;         /* Symbol* */
	PtrVec functions;       /* Function* */
	PtrVec files;           /* SourceFile* */
} Program;

Expr *expr_new(ExprKind kind, SrcLoc loc);
Stmt *stmt_new(StmtKind kind, SrcLoc loc);
Symbol *symbol_new(const char *name, SymbolKind kind, SrcLoc loc);

/* Visits every statement and expression under a node, parents first.  A
 * callback returning nonzero stops the walk, which then returns that value.
 * Calls are not followed into function bodies: a visitor that needs that
 * walks fn->body itself. */
typedef struct AstVisitor {
	int (*stmt)(Stmt *st, void *ctx);     /* may be NULL */
	int (*expr)(Expr *e, void *ctx);      /* may be NULL */
	void *ctx;
} AstVisitor;

int ast_walk_stmt(Stmt *st, const AstVisitor *v);
int ast_walk_expr(Expr *e, const AstVisitor *v);

/* "fn was not in seen": adds it and returns 1 (for visitors following calls). */
int first_visit(PtrVec *seen, void *fn);

/* pass 1 printer: prints the program back in a normalized form (stap -p1). */
void print_program(const Program *prog, StrBuf *out);
void print_probe_point(const ProbePoint *pp, StrBuf *out);
void print_expr(const Expr *e, StrBuf *out);

#endif
