/* elaborate.h - pass 2: resolves symbols, functions and probe points and
 * infers types.  Called by the driver after parsing. */
#ifndef STAP_ELABORATE_H
#define STAP_ELABORATE_H

#include "session.h"

/* Returns the number of errors reported. */
int elaborate(Session *s);

/* stap -p2 output: the resolved program. */
void print_resolved(Session *s, StrBuf *out);

#endif
