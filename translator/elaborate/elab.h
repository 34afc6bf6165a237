/* elab.h - pass 2's own state (Elab) and the parts of elaborate/ that elaborate.c drives: resolution,
 * foreach writes, type inference, unsupported constructs, the call graph, early elision. */
#ifndef STAP_ELAB_H
#define STAP_ELAB_H

#include "session.h"

typedef struct Elab {
	Session *s;
	Program *prog;
	PtrVec *locals;          /* current probe's or function's locals */
	Function *fn;            /* current function, NULL in a probe */
	int loop_depth;
	PtrVec foreach_arrays;   /* Symbol* being iterated (no writes allowed) */
	int changed;             /* type inference made progress */
	int reporting;           /* last inference round: report type errors */
	int errors;
	int library;             /* --dump-functions: no DWARF binding, @cast and friends left as is */
} Elab;

/* ---- resolve.c ---- */
/* A semantic error at loc, counted in el->errors. */
void elab_error(Elab *el, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The symbol of that name in v, or NULL. */
Symbol *elab_find_in(PtrVec *v, const char *name);
/* The global a name means in a file: its own private one, else a public one. */
Symbol *elab_find_global(Program *prog, const char *name, const SourceFile *from);
/* Binds the names and calls of a statement (el->locals, el->fn set by the caller). */
void elab_resolve_stmt(Elab *el, Stmt *st);

/* ---- foreachwrite.c ---- */
/* AstVisitor statement callback (ctx: the Elab): a foreach whose body's calls change its array. */
int elab_check_foreach_body(Stmt *st, void *ctx);

/* ---- infer.c ---- */
/* One inference round over a statement (el->fn set by the caller). */
void elab_infer_stmt(Elab *el, Stmt *st);

/* ---- supported.c ---- */
/* Embedded C is allowed at loc: guru mode or the library. */
int elab_embedded_allowed(Elab *el, SrcLoc loc);
/* Reports what pass 1 accepts but later passes do not handle. */
void elab_check_supported(Elab *el);
/* Reports calls of guru-only functions outside guru mode. */
void elab_check_guru_calls(Elab *el);

/* ---- calldepth.c ---- */
/* Sets prog->call_depth and prog->recursive. */
void elab_analyze_calls(Program *prog);

/* ---- elide_early.c ---- */
/* Drops what SystemTap drops before checking it. */
void elab_elide_early(Elab *el);

#endif
