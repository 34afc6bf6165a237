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

/* The function name visible from a file (private ones only there). */
Function *find_function_from(Program *prog, const char *name, const SourceFile *from);

int expr_has_side_effects(const Expr *e);

#endif
