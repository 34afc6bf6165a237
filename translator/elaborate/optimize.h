/* optimize.h - pass 2 clean-up: unused functions, globals and locals and
 * statements without effect are dropped (warnings for the script's own). */
#ifndef STAP_OPTIMIZE_H
#define STAP_OPTIMIZE_H

#include "session.h"

/* Before symbol resolution: keeps only the functions the probes call
 * (transitively) and the globals some code names. */
void prune_unused(Session *s);

/* After type inference: removes assignments to locals nothing reads and
 * side-effect-free expression statements, then the unused locals. */
void elide_unused_locals(Session *s);

/* The function a call of name with nargs arguments means from a file (private ones only there):
 * the definition of that arity, else another of the name (for the caller's error), else NULL. */
Function *find_function_from(Program *prog, const char *name, int nargs, const SourceFile *from);

/* What evaluating e may do besides giving its value: change state (a variable, matched(), anything
 * an impure function or embedded C may touch) or end the hit with an error. The one answer both
 * the optimizer (what may be dropped) and code generation (what must be evaluated in order) use. */
enum { EFFECT_WRITE = 1, EFFECT_FAIL = 2 };
int expr_effects(const Expr *e);
/* expr_effects(e) != 0: e cannot be dropped. */
int expr_has_side_effects(const Expr *e);

#endif
