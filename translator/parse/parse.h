/* parse.h - pass 1 entry point: turns a source file into syntax tree nodes
 * appended to a Program.  Shared by the grammar, the lexer and the preprocessor. */
#ifndef STAP_PARSE_H
#define STAP_PARSE_H

#include "parse/ast.h"

/* What %( conditions and $1/@1 see; given once by the driver (parse_state_new). */
typedef struct PreprocEnv {
	const char *kernel_v;        /* "6.1.0" */
	const char *kernel_vr;       /* "6.1.0-26-amd64" */
	const char *arch;            /* "x86_64" */
	const char *runtime;         /* "kernel" */
	const char *systemtap_v;     /* the SystemTap version we are compatible with */
	const char *privilege;       /* "stapdev", "stapsys" or "stapusr" */
	int guru_mode;
	/* CONFIG_FOO's value ("y", "m", a number or string), NULL when unset */
	const char *(*config)(void *data, const char *name);
	void *config_data;
	int argc;                    /* script arguments $1..$argc */
	char **argv;
} PreprocEnv;

typedef struct Preproc Preproc;

/* What pass 1 keeps from one file to the next: env, the @define macros (the library's, then the
 * file's own) and which $N were used (preprocess.c).  The Session owns one (Session.parse). */
typedef struct ParseState ParseState;

/* env NULL: a kernel "0" on x86_64 (tests' drivers).  Pass 1's diagnostics go to d. */
ParseState *parse_state_new(Diag *d, const PreprocEnv *env);
Diag *parse_state_diag(const ParseState *st);

/* A token's or rule's place: file NULL is the file being parsed; tokens of a
 * command-line argument ($1) carry the argument's own text as their file. */
typedef struct StpLoc {
	int first_line, first_column;
	int last_line, last_column;
	const SourceFile *file;
} StpLoc;

typedef struct ParseCtx {
	SourceFile *file;
	Program *prog;
	void *scanner;               /* flex reentrant scanner */
	Preproc *pp;                 /* token filter state (preprocess.c) */
	ParseState *state;           /* its macros and env */
	Diag *diag;                  /* where its diagnostics go (the state's) */
	int errors;
	int in_function;
	int skipping;                /* inside a %( branch not taken: no lexer diagnostics */             /* parsing a function body ('return' allowed) */
	int last_kind;               /* the last token given to the grammar, for messages */
	const char *last_str;
	int64_t last_num;
	int open_line, open_col;     /* where an unterminated construct began */
	StrBuf embedded;             /* text of the %{ ... %} being scanned */
	/* the foreach head being parsed (the grammar's sub-rules fill it) */
	PtrVec foreach_keys;
	int foreach_bracketed;
	Expr *foreach_value;
	int foreach_sort_on, foreach_sort_dir;
	char *foreach_agg;
} ParseCtx;

/* Whether $n / @n appeared in what was parsed so far. */
int parse_arg_used(const ParseState *st, int n);

/* Reads @define macros from a library file (.stpm); returns the error count. */
int parse_macro_library(ParseState *st, SourceFile *file);

/* Parses one file into prog; returns the number of errors reported. */
int parse_source(ParseState *st, SourceFile *file, Program *prog);
int parse_script(ParseState *st, SourceFile *file, Program *prog);   /* also refuses an empty script */

/* Location helpers used by the grammar actions. */
SrcLoc parse_loc(ParseCtx *ctx, int line, int col);
SrcLoc parse_loc_of(ParseCtx *ctx, const StpLoc *loc);

#endif
