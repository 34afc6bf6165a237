/* autocast.h - pass 2: "->" on values whose type a function's @cast gives (autocast).
 * Used by elaborate.c before DWARF binding. */
#ifndef STAP_AUTOCAST_H
#define STAP_AUTOCAST_H

#include "parse/ast.h"

/* Rewrites (value)->chain into @cast(value, TYPE[, MODULE])->chain where the value's type is known. */
void autocast_program(Program *prog);

#endif
