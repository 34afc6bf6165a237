/* ast.h - the syntax tree built by the parser (pass 1) and annotated with
 * symbols and types by elaboration (pass 2); read by the code generator. */
#ifndef STAP_AST_H
#define STAP_AST_H

#include "core/limits.h"   /* STP_MAP_MAX_KEYS: the runtime's limits */
#include "lib/diag.h"
#include "lib/util.h"

#include <stdint.h>

typedef enum Type {
	TY_UNKNOWN = 0,
	TY_LONG,
	TY_STRING,
	TY_STATS,        /* a statistics aggregate: filled with <<<, read with @count ... */
} Type;

const char *type_name(Type t);

/* Expr.op: what an operator does, whatever the grammar's tokens are (the
 * parser's actions name these; only pass 1 sees tokens). */
typedef enum Operator {
	OP_NONE = 0,
	/* EX_BINARY: arithmetic, bitwise, string and logical */
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_BITAND, OP_BITOR, OP_BITXOR,
	OP_SHL, OP_SHR, OP_USHR,        /* << >> >>> */
	OP_CONCAT,                      /* . */
	OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE,
	OP_MATCH, OP_NOMATCH,           /* =~ !~ */
	OP_AND, OP_OR,                  /* && || */
	OP_IN,                          /* key in array, [k1, k2] in array */
	/* EX_UNARY */
	OP_NEG, OP_PLUS, OP_NOT, OP_BITNOT,   /* - + ! ~ */
	OP_ADDR,                        /* &: the address of a target value */
	/* EX_ASSIGN */
	OP_ASSIGN,                      /* = */
	OP_ADD_ASSIGN, OP_SUB_ASSIGN, OP_MUL_ASSIGN, OP_DIV_ASSIGN, OP_MOD_ASSIGN,
	OP_CAT_ASSIGN,                  /* .= */
	OP_AND_ASSIGN, OP_OR_ASSIGN, OP_XOR_ASSIGN, OP_SHL_ASSIGN, OP_SHR_ASSIGN,
	OP_AGG_ASSIGN,                  /* <<<: a value into a statistics aggregate */
	/* EX_INCDEC */
	OP_INC, OP_DEC,
	/* EX_AT: an @hist_* not (yet) printed, indexed or iterated; pass 1 reports those left */
	OP_HIST_BARE,
} Operator;

/* The operator as written in a script: "+", "<<<", "in", "++" (ast.c). */
const char *op_text(Operator op);

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
	EX_TARGET,       /* str "$var" / "$$vars" ..., then chain */
	EX_AT,           /* str "cast", "defined", "entry", "var", "count", "hist_log" ...: @str(args) chain */
	EX_EMBEDDED,     /* %{ str %} as an expression */
	EX_AUTOCAST,     /* (left)->member...: chain on a value of inferred pointer type */
	EX_WILDCARD,     /* '*' as an array key: a[*, 1] slices */
	EX_BOUND,        /* pass 2: a target variable, @cast, @var, $$vars or @entry bound by DWARF or BTF
	                  * (targets/access.h TgAccess in bound); args: @cast's address, computed indexes;
	                  * left: the expression @entry saves */
	EX_CONTEXT,      /* pass 2: a probe family's context variable ($value in procfs probes, $skb in
	                  * netfilter ones): str its name, ctxvar how it is read and written */
} ExprKind;

/* One step after a target variable, @cast or @var: ->name, [index], $ or $$. */
typedef enum ChainKind { CH_MEMBER, CH_INDEX, CH_PRETTY } ChainKind;

typedef struct ChainItem {
	ChainKind kind;
	char *name;             /* CH_MEMBER: field; CH_PRETTY: "$" or "$$" */
	struct Expr *index;     /* CH_INDEX */
	SrcLoc loc;
} ChainItem;

typedef struct Expr {
	ExprKind kind;
	SrcLoc loc;
	Type type;
	Operator op;            /* EX_BINARY, EX_UNARY, EX_ASSIGN, EX_INCDEC; OP_NONE elsewhere */
	int postfix;            /* EX_INCDEC: 1 for x++ */
	int discarded;          /* EX_CALL: a statement of its own, its value unused */
	int depth;              /* height of the tree below: bounded by the parser */
	int64_t num;
	char *str;              /* literal text or identifier/function name */
	struct Expr *left, *right, *cond;
	PtrVec args;            /* Expr*: call arguments, array keys, @op arguments */
	PtrVec chain;           /* ChainItem*: EX_TARGET, EX_AT cast/var */
	Symbol *sym;            /* resolved variable for EX_IDENT / EX_INDEX */
	Function *fn;           /* resolved user function for EX_CALL */
	const Builtin *builtin; /* resolved builtin for EX_CALL */
	struct Format *format;  /* printf/sprintf: the format, parsed once by resolution (lib/format.h) */
	struct TgAccess *bound; /* EX_BOUND: what it reads (targets/access.h) */
	const struct ContextVar *ctxvar; /* EX_CONTEXT: the family's description (providers/provider.h) */
} Expr;

typedef enum StmtKind {
	ST_BLOCK, ST_EXPR, ST_IF, ST_WHILE, ST_FOR, ST_FOREACH,
	ST_BREAK, ST_CONTINUE, ST_NEXT, ST_RETURN, ST_DELETE, ST_EMPTY,
	ST_TRY,          /* try then, catch (catch_var) els */
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
	int keys_bracketed;     /* written as [k1, ...] */
	Expr *value;            /* "v = ..." value variable, or NULL */
	Expr *array;            /* EX_IDENT naming the array */
	int sort_on;            /* 0 unsorted, k > 0 key k, -1 the value (marker on the array or v) */
	int sort_dir;           /* +1 ascending, -1 descending */
	Expr *limit;            /* limit N, or NULL */
	PtrVec slice;           /* Expr*: foreach (k in a[*, 1]) keys, empty if none */
	char *sort_agg;         /* "sum" for foreach (k in a @sum-), or NULL */
	/* ST_TRY */
	Expr *catch_var;        /* EX_IDENT, or NULL */
} Stmt;

typedef struct ProbePointComponent {
	char *name;             /* may hold * and ** wildcards; NULL for {a,b} */
	Expr *arg;              /* NULL, EX_NUMBER or EX_STRING */
	PtrVec alts;            /* ProbePoint*: the alternatives of {a, b.c} */
	SrcLoc loc;
} ProbePointComponent;

typedef struct ProbePoint {
	PtrVec components;      /* ProbePointComponent* */
	int optional;           /* ? */
	int sufficient;         /* ! */
	Expr *cond;             /* if (cond), or NULL */
	SrcLoc loc;
} ProbePoint;

typedef enum AliasKind { ALIAS_NONE, ALIAS_PROLOGUE, ALIAS_EPILOGUE } AliasKind;

typedef struct Probe {
	PtrVec points;          /* ProbePoint*: where it fires (alias: what the alias expands to) */
	AliasKind alias;        /* probe NAMES = POINTS (prologue) or += (epilogue) */
	PtrVec alias_names;     /* ProbePoint*: the names an alias defines */
	int is_private;
	Stmt *body;
	Stmt *epilogue;         /* probe NAME = POINTS { prologue }, { epilogue }: run after the user's body */
	SrcLoc loc;
	PtrVec locals;          /* Symbol*, filled by pass 2 */
	int index;
	int handler;            /* pass 3: the probe whose handler it runs (sites with the same code share one) */
	/* pass 2: a probe as expanded from a script probe through aliases */
	struct Probe *origin;   /* the script's probe it came from */
	char *chain;            /* "syscall.read <- syscall.*": the aliases it went through */
	char *alias_name;       /* the alias the script's point matched (stap -l), or NULL */
	char *note;             /* "in probe ...", shown under its diagnostics */
	PtrVec alias_locals;    /* char*: variables the aliases' bodies assign (stap -L) */
	PtrVec params;          /* char*: "$fd:unsigned int", the aliases' @param declarations (pass 2, stap -L) */
} Probe;

typedef enum SymbolKind { SYM_GLOBAL, SYM_LOCAL, SYM_PARAM } SymbolKind;

struct Symbol {
	char *name;
	SymbolKind kind;
	SrcLoc loc;
	Type type;              /* value type */
	int is_array;           /* -1 unknown, 0 scalar, 1 array */
	int nkeys;
	Type keytypes[STP_MAP_MAX_KEYS];
	Expr *init;             /* global initializer (literal) */
	int64_t max_entries;    /* global a[N] */
	int index;              /* position among globals / locals */
	int read, written;      /* used by the code generator for locking */
	int is_private;         /* private global */
	int wrap;               /* global a% : overwrite the oldest entry when full */
	int declared_type;      /* function parameter written name:type */
};

struct Function {
	char *name;             /* as written; overloads share it (one per number of parameters) */
	char *cname;            /* pass 2: the name of its C function and frame, unique in the module */
	int overloaded;         /* pass 2: another definition of the name takes another number of parameters */
	SrcLoc loc;
	PtrVec params;          /* Symbol* (SYM_PARAM) */
	PtrVec locals;          /* Symbol*, filled by pass 2 */
	Stmt *body;             /* NULL when the body is embedded C */
	char *embedded;         /* %{ ... %} body */
	Type ret;
	int declared_ret;       /* written name:type */
	int64_t priority;       /* function f() :N */
	int has_priority;
	int is_private;
	int index;
	int used;
	int pure;               /* embedded C marked pure: no side effects */
	int recursive;          /* on a cycle of the call graph */
	int depth_memo;         /* pass 2: 1 + deepest call chain below it */
};

typedef struct Program {
	PtrVec probes;          /* Probe* */
	PtrVec globals;         /* Symbol* */
	PtrVec functions;       /* Function* */
	PtrVec files;           /* SourceFile* */
	PtrVec embedded;        /* Expr* (EX_EMBEDDED): top-level %{ ... %} blocks */
	PtrVec aliases;         /* Probe*: alias definitions, moved out of probes by pass 2 */
	int call_depth;         /* pass 2: deepest call chain (a recursive call counts 1) */
	int recursive;          /* pass 2: the call graph has a cycle */
} Program;

Expr *expr_new(ExprKind kind, SrcLoc loc);
/* a && b, or the one of them that is not NULL. */
Expr *expr_and(Expr *a, Expr *b);
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

#define AST_WALK_SKIP (-1)   /* a callback's result: do not descend into this node, go on */

int ast_walk_stmt(Stmt *st, const AstVisitor *v);
int ast_walk_expr(Expr *e, const AstVisitor *v);
/* Every function's body, then every probe's body (a nonzero result stops only that body's walk). */
void ast_walk_program(const Program *prog, const AstVisitor *v);

/* "fn was not in seen": adds it and returns 1 (for visitors following calls). */
int first_visit(PtrVec *seen, void *fn);

/* Deep copies (ast_clone.c); symbols are left unresolved. */
Expr *expr_clone(const Expr *e);
Stmt *stmt_clone(const Stmt *st);
ProbePoint *point_clone(const ProbePoint *pp);

/* Is @name a statistics operator (@count ... @hist_linear)? */
int is_stats_op(const char *name);

/* pass 1 printer: prints the program back in a normalized form (stap -p1). */
void print_program(const Program *prog, StrBuf *out);
void print_probe_point(const ProbePoint *pp, StrBuf *out);
void print_expr(const Expr *e, StrBuf *out);

#endif
