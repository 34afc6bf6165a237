/* elaborate.h - pass 2: resolves symbols, functions and probe points and
 * infers types.  Called by the driver after parsing. */
#ifndef STAP_ELABORATE_H
#define STAP_ELABORATE_H

#include "session.h"

/* Returns the number of errors reported. */
int elaborate(Session *s);

/* Resolves and types every function loaded (--dump-functions). */
int elaborate_library(Session *s);

#endif
