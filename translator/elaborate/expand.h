/* expand.h - pass 2 for probe points: alias expansion, wildcards,
 * alternatives, ?, ! and conditions, then binding to probe providers. */
#ifndef STAP_EXPAND_H
#define STAP_EXPAND_H

#include "session.h"

/* Replaces prog->probes by the expanded probes (alias definitions move to
 * prog->aliases) and fills s->derived.  Returns the number of errors. */
int expand_probes(Session *s);

#endif
