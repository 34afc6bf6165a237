/* backend.h - the seam of pass 3: what the runtime-neutral lowering (codegen/) yields for a program
 * (CgParts) and what a runtime's writer supplies (CgBackend): kmodule/ for the kernel module. */
#ifndef STAP_CODEGEN_BACKEND_H
#define STAP_CODEGEN_BACKEND_H

#include "session.h"

struct Gen;
struct LoopLabels;
struct TgStep;
struct TgAccess;

/* What generating the program yields, before any of it is written (codegen/bodies.c). */
typedef struct CgParts {
	StrBuf globals;         /* the globals' declarations (the backend's) */
	StrBuf globals_init;    /* the code setting them up (the backend's) */
	StrBuf globals_free;    /* the code releasing them (the backend's) */
	StrBuf data;            /* static data of the handlers (compiled regular expressions ...) */
	StrBuf frames;          /* struct frame_* of the handlers and functions */
	StrBuf code;            /* the functions and handlers */
	StrBuf tables;          /* per handler, what the backend writes of its globals' modes (locks) */
	char *light;            /* per probe body: generated for the light hit path */
	int *shared;            /* per probe body: the index of the probe whose handler it runs */
} CgParts;

/* A runtime's writer: the C of its own around the bodies the lowering generates.  The bodies
 * follow one calling convention (fn_NAME(c, f), probe_N(c), frames in union stp_frame) and name
 * the runtime's interface (stp_*, gm_NAME__*, STP_* macros), which each runtime implements. */
typedef struct CgBackend {
	const char *name;
	/* what of the program the runtime cannot run, each reported with its reason; the count */
	int (*refuse)(Session *s);
	/* the globals' declarations, set-up and release into parts->globals, _init and _free */
	void (*globals)(Session *s, CgParts *parts);
	/* a function written in embedded C: its frame into frames, its C function into code */
	void (*embedded_function)(Session *s, Function *f, StrBuf *frames, StrBuf *code);
	/* a script function called from more than one place, whose body is generated as the inline
	 * fn_NAME_body(c, f): the declaration (decl) or the definition of the fn_NAME(c, f) its callers call;
	 * NULL: the body is fn_NAME itself, a static function */
	void (*shared_function)(const Function *f, int decl, StrBuf *code);
	/* a handler generated for the light hit path (no context, no frame): its mark before it;
	 * NULL when the runtime has no light path */
	void (*light_handler)(StrBuf *code, int probe, int actions);
	/* per handler, from mode (per global: 0 untouched, 1 read, 2 written): its table of them */
	void (*handler_table)(Session *s, const Probe *p, const char *mode, StrBuf *out);
	/* a while or for loop around the iteration code between them (which starts with the iteration's
	 * charge, ends with its step, breaks with goto brkN and continues with goto contN): open writes
	 * the loop's start, close its end (cg_loop_inline_open/_close: a C for loop in place) */
	void (*loop_open)(struct Gen *g, struct LoopLabels *l);
	void (*loop_close)(struct Gen *g, struct LoopLabels *l);
	/* foreach over a global array (not of statistics) around its body: open writes the loop's start, its
	 * iteration's charge (cg_loop_charge) and the keys and value set; close its end (cg_foreach_inline_*:
	 * a C loop over the runtime's map, sorted in place) */
	void (*foreach_open)(struct Gen *g, Stmt *st, struct LoopLabels *l);
	void (*foreach_close)(struct Gen *g, Stmt *st, struct LoopLabels *l);
	/* printf to the output: its C, its value "0" (cg_printf_in_c: formatted in the probe, as sprintf is) */
	char *(*printf)(struct Gen *g, Expr *e);
	/* s =~ "re", s !~ "re": its value (cg_regex_match: the runtime's Pike VM over the compiled program) */
	char *(*regex_match)(struct Gen *g, Expr *e);
	/* a TGS_ADD step's byte count through kernel memory, as C the running kernel's types give at load
	 * (its members relocated: BPF's CO-RE); NULL when the step is not relocatable (or the runtime, a module
	 * built for its release, relocates nothing): then the lowering adds st->n */
	char *(*member_offset)(struct Gen *g, const struct TgStep *st);
	/* the address of a's symbol, a global of the kernel or a kernel module, as C the runtime resolves by its name
	 * at load (BPF: an untyped __ksym); NULL: the lowering uses a->sym_c (this release's address, moved by
	 * KASLR's shift) */
	char *(*symbol_address)(struct Gen *g, const struct TgAccess *a);
	/* the end-of-run display of the globals written but never read: an end probe after the others
	 * (cg_display_in_c: its C walks the module's maps; cg_display_as_script: foreach and printing) */
	void (*display)(Session *s, CgParts *parts);
	/* the whole file from the parts */
	void (*write)(Session *s, const CgParts *parts, StrBuf *out);
} CgBackend;

/* codegen/stmt.c: a loop written in place, for (;;) { ... } */
void cg_loop_inline_open(struct Gen *g, struct LoopLabels *l);
void cg_loop_inline_close(struct Gen *g, struct LoopLabels *l);
void cg_foreach_inline_open(struct Gen *g, Stmt *st, struct LoopLabels *l);
void cg_foreach_inline_close(struct Gen *g, Stmt *st, struct LoopLabels *l);

/* codegen/output.c: printf formatted in the probe */
char *cg_printf_in_c(struct Gen *g, Expr *e);
/* codegen/match.c: =~ and !~ by the runtime's Pike VM */
char *cg_regex_match(struct Gen *g, Expr *e);

/* codegen/display.c: the display hooks */
void cg_display_in_c(Session *s, CgParts *parts);
void cg_display_as_script(Session *s, CgParts *parts);

/* codegen/bodies.c: every part, in the order their numbering depends on (globals, the end-of-run
 * display, functions, handlers); cg_free_parts releases them */
void cg_generate_parts(Session *s, const CgBackend *be, CgParts *parts);
void cg_free_parts(CgParts *parts);
/* codegen/bodies.c: the comment naming a handler's points and script line, or a function's */
char *cg_probe_comment(const Session *s, const Probe *p, const PtrVec *dps);
char *cg_function_comment(const Session *s, const Function *f);
void cg_frame_members(StrBuf *frame, PtrVec *syms, const Function *fn);   /* locals and params as members */
void cg_embedded_frame(Function *f, StrBuf *frames);   /* an embedded-C function's struct frame_fn_NAME */
/* an embedded-C function's frame and C function, with stap_error the #define of its STAP_ERROR(...) */
void cg_embedded_function(Function *f, StrBuf *frames, StrBuf *code, const char *stap_error);
/* codegen/bodies.c: the file's first lines (STP_MODULE_NAME, -D, the call depth), before its runtime's
 * header; the frames and union stp_frame (STP_FRAME_SIZE), before its runtime's context */
void cg_write_settings(const Session *s, StrBuf *out);
void cg_write_frames(const Session *s, const CgParts *parts, const char *more, StrBuf *out);   /* more: the writer's members */

/* codegen/globalmodes.c: which globals each body reads or writes (the shape of its locks) */
char *cg_global_modes(Session *s, Stmt *body);      /* per global index: 0, 1 read, 2 written */
void cg_mark_running_readers(Session *s);           /* statistics read by probes other than end */

#endif
