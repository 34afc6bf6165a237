/* gen.h - shared state and helpers of code generation (pass 3): one Gen per
 * generated C function.  Used by the files of translator/codegen/ and by the runtimes' writers (kmodule/). */
#ifndef STAP_CODEGEN_GEN_H
#define STAP_CODEGEN_GEN_H

#include "session.h"

#include <stdarg.h>

/* The state of generating one module, owned by translate() while it runs (Session.cg): what
 * one C function learns that another needs.  Every Gen of the module reaches it as g->cg. */
typedef struct CgCalls CgCalls;
struct DerivedProbe;
struct CgBackend;

typedef struct CgState {
	const struct CgBackend *be;   /* translate.c: the runtime's writer (what cg_entry_body's code asks of it) */
	CgCalls *calls;         /* callgraph.c: who calls what, the bodies' actions */
	PtrVec stat_infos;      /* stats.c: StatInfo*, the shape of each statistic */
	PtrVec hist_prints;     /* stats.c: HistPrint*, the histograms printed and by which call */
	struct {                /* match.c: the programs emitted (a pattern used twice is emitted once) */
		StrBuf *tables;         /* the tables they went to */
		StrMap ids;             /* pattern -> 1 + program number */
		int count;
		int insns, threads, sub;   /* the largest program: the matcher's work area */
		int define_at[3];          /* their -D in s->defines, 0 = not there yet */
	} rx;
	int table_counter;      /* targetvars.c: names of static data, unique in the module */
	struct {                /* targetvars.c: the kernel's layout as the bodies read it */
		PtrVec members;         /* TgStepMember* the runtime relocates (CgBackend.member_offset) */
		StrMap symbols;         /* the kernel's symbols it finds by name at load (CgBackend.symbol_address) */
		int fixed;              /* a read at an offset this release fixed: a member no runtime relocates,
		                         * a struct's size as an index's stride, a location computed from DWARF */
	} layout;
	struct {                /* printf formats a runtime formats outside the probe (bpfprog/printf.c: stapio) */
		StrBuf formats, pieces, text;   /* C initializers of their tables */
		int count, npieces, ntext;
	} outside;
} CgState;

/* Code generation state for one C function (a probe body or a script function). */
typedef struct Gen {
	Session *s;
	CgState *cg;            /* the module's (translate()'s) */
	const struct CgBackend *be;   /* the runtime's writer: the shape of its loops */
	const char *name;       /* the C function's ("probe_N", "fn_NAME"): its frame is struct frame_NAME */
	StrBuf body;            /* statements */
	StrBuf hoisted;         /* C functions the writer made of parts of it (loop bodies), before it */
	StrBuf decls;           /* C locals, emitted before the statements */
	StrBuf *frame;          /* members of this function's frame struct */
	int ntmp;
	int indent;
	Function *fn;           /* NULL for a probe body */
	Probe *probe;           /* the probe being generated, NULL in a function */
	int out_used;           /* "goto out" was emitted */
	PtrVec loops;           /* LoopLabels* */
	int nloops;
	PtrVec trys;            /* int*: ids of the enclosing try blocks, innermost last */
	int ntrys;
	StrBuf *tables;         /* static data of the module (regex programs ...), before the code */
	int light;              /* a light probe body (light.c): its probe's index + 1, else 0 */
	int actions;            /* the actions all its blocks charge, summed */
	int has_loop;           /* a loop charges per iteration: its actions have no bound */
	char *uncounted;        /* the macro by which it may charge none (callgraph.c), or NULL */
} Gen;

typedef struct LoopLabels {
	int id;
	int break_used, continue_used;
	int break_placed;       /* the writer's loop_close placed brkN itself */
	void *held;             /* the writer's, between loop_open and loop_close */
} LoopLabels;

/* emit.c: writing code and temporaries */
void cg_line(Gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *cg_long_tmp(Gen *g);                       /* an int64_t C local */
char *cg_str_tmp(Gen *g);                        /* a MAXSTRINGLEN buffer in the frame */
char *cg_named_local(Gen *g, const char *ctype, const char *prefix);
int cg_is_str_tmp(const char *val);              /* val is a cg_str_tmp */
char *cg_str_out_open(Gen *g, const char *dst);  /* output into string dst: its struct stp_out * */
void cg_str_out_close(Gen *g, const char *o, const char *dst);
int cg_c_names(const char *code, const char *const *names, size_t n);   /* C code names one of them */
const char *cg_error_label(Gen *g);              /* "out" or the innermost catch */
void cg_goto_out(Gen *g);                        /* leave the handler (next, return) */
void cg_check_error(Gen *g);                     /* leave it when a script error is set */
void cg_charge_actions(Gen *g, int n, const char *where);   /* n actions against MAXACTION */
void cg_charge_iteration(Gen *g, const char *where);        /* a loop's iteration: one */
void cg_set_location(Gen *g, const char *what, const char *name, SrcLoc loc);
char *cg_location_literal(const char *what, const char *name, SrcLoc loc);   /* name may be NULL */
char *cg_stmt_location(const Stmt *st);          /* the token a statement starts with, as MAXACTION names it */
void cg_loop_charge(Gen *g, const Stmt *loop);   /* a loop's iteration: one action, near the loop */
LoopLabels *cg_loop_push(Gen *g);                /* a loop's labels, innermost (the caller pops them) */
int cg_has_side_effects(const Expr *e);            /* may change state an earlier operand read (optimize.h) */
char *cg_var_ref(const Symbol *sym);
char *cg_materialize(Gen *g, const char *val, Type t);
char *cg_long_literal(int64_t v);
char *cg_string_literal(const char *s);
char *cg_map_slot(Gen *g, const Expr *elem, const char *map, const char *keys, unsigned int comm,
		   const char *ctype);   /* an element's value address, created (maps.c) */
int cg_has_wildcard_key(const PtrVec *keys);
void cg_slice_filter(Gen *g, const Symbol *arr, const char *map, const char *it, char **fixed, int nfixed);
void cg_limit_check(Gen *g, const char *count, const char *limit);

/* expr.c: expressions, the one place their code generation recurses through (the other files
 * generate their kinds of expression and call back only cg_expr and the key evaluators) */
char *cg_expr(Gen *g, Expr *e);
char *cg_long_binop(Gen *g, int op, const char *l, const char *r, SrcLoc loc);
char *cg_keys(Gen *g, const Symbol *arr, PtrVec *keys);   /* into a struct stp_key array */
char *cg_keys_comm(Gen *g, const Symbol *arr, PtrVec *keys, unsigned int *comm);   /* and execname() as words */
char *cg_slice_keys(Gen *g, const Symbol *arr, PtrVec *keys);   /* a[*, k]: "k, want" (struct stp_key k[], bool want[]) */
int cg_param_by_ref(const Function *f, const Symbol *param);   /* a string parameter passed as a pointer */

/* targetvars.c: target variables bound in pass 2 (EX_BOUND: targets/access.h records), @entry values */
char *cg_target(Gen *g, Expr *e);                     /* a read, address, pretty print or $$vars */
char *cg_target_assign(Gen *g, Expr *e);              /* $var = v (guru mode) */
/* the body of .return probe dp's entry function saving its @entry values, NULL when it has none
 * (the context's entry_data holds them; the runtime's writer gives it its frame and signature) */
int cg_entry_body(Session *s, struct DerivedProbe *dp, StrBuf *frame, StrBuf *tables, StrBuf *code);

/* output.c: printf, sprintf */
char *cg_format(Gen *g, Expr *e, const char *out);
/* printf's and sprintf's values, vals[1..]: each copied ((*copied)[i]) where a later one has side effects */
char **cg_format_args(Gen *g, Expr *e, char **copied);
int cg_is_execname(const Expr *arg);              /* execname(): the runtime may write the task's comm itself */

/* stats.c: statistics (<<<, @count ... @hist_*, aggregate arrays) */
char *cg_stats_add(Gen *g, Expr *e);                 /* x <<< v, a[k] <<< v */
char *cg_stats_op(Gen *g, Expr *e);                  /* @count(x) ... @hist_log(x)[i] */
void cg_stats_print(Gen *g, Expr *hist, const char *out);   /* print(@hist_log(x)) */
LoopLabels *cg_stats_foreach(Gen *g, Stmt *st);      /* opens foreach over @hist buckets */
void cg_stats_foreach_array(Gen *g, Stmt *st, LoopLabels *l);   /* opens foreach over a[...] of stats in place */
void cg_stats_delete(Gen *g, Stmt *st);              /* delete x, delete a, delete a[k] */
char *cg_stats_in(Gen *g, Expr *e);                  /* [k] in a, a of stats */
/* what the uses of a statistic ask of its accumulators: one histogram shape per global */
enum { CG_HIST_NONE, CG_HIST_LOG, CG_HIST_LINEAR };
typedef struct CgStatShape {
	int htype;                      /* CG_HIST_* */
	int64_t low, high, width;       /* @hist_linear's */
	int shift, variance;            /* @variance is used, with this bit shift */
} CgStatShape;
CgStatShape cg_stats_shape(CgState *cg, Symbol *sym);
int cg_stats_check(Session *s);                      /* shapes from the uses; returns errors (unsupported.c) */
int cg_stats_lockfree(CgState *cg, const Symbol *sym);   /* x <<< v counts without the lock (after the check) */
int cg_stats_add_unlocked(CgState *cg, const Symbol *sym); /* x <<< v takes no lock: lockfree, or end probes read it alone */
void cg_stats_read_running(CgState *cg, Symbol *sym);       /* a probe running with the session reads it */

/* match.c: =~ and !~ with a literal pattern compiled here */
char *cg_regex_match(Gen *g, Expr *e);
/* the runtime's regex work area (STP_REGEX_MAXINSNS, _MAXTHREADS, _MAXSUB) grown to hold a program of these sizes */
void cg_regex_sizes(Gen *g, int ninsns, int nthreads, int nsub);

/* display.c: the end-of-run display of globals written but never read */
int cg_global_display(Session *s, StrBuf *code);   /* C of stp_display_globals(); 0 if none */
char *cg_globals_displayed(Session *s);              /* per global: printed so (written, never read) */
void cg_add_display_probe(Session *s);                 /* the end probe calling it */

/* unsupported.c: reports constructs not generated yet; returns their count */
int cg_check_generated(Session *s);

/* light.c: probe bodies that run on the light hit path (runtime/core/probe.c) */
int cg_light_eligible(const Probe *p);                   /* the body qualifies (before generating it) */
int cg_light_code_ok(const char *code);                  /* its generated C uses neither c nor f */

/* callgraph.c: functions called from one place (inlined there), bodies that charge no actions */
void cg_calls_analyze(Session *s);   /* before any body is generated */
int cg_called_once(const CgState *cg, const Function *f);
int cg_local_needs_zero(Stmt *body, Symbol *sym);   /* assigned.c: a path may read it before a store */
char *cg_uncounted_macro(const CgState *cg, const Function *f, Stmt *body, const char *name);   /* or NULL */
void cg_calls_record(CgState *cg, const Function *f, const Probe *p, int actions, int loops);
void cg_calls_defines(Session *s, StrBuf *out);   /* after every body */

/* stmt.c */
void cg_stmt(Gen *g, Stmt *st);
void cg_loop_charge(Gen *g, const Stmt *loop);
LoopLabels *cg_loop_push(Gen *g);                /* a loop's labels, innermost (the caller pops them) */   /* a loop's iteration: one action, near the loop */
void cg_block(Gen *g, Stmt *st);
void cg_scoped(Gen *g, Stmt *st);

#endif
