/* perf.h - what the perf family tells code generation: where @perf("NAME") finds its counter.
 * Used by providers/perf.c and the @perf code of codegen/expr.c and elaborate.c. */
#ifndef STAP_PROVIDERS_PERF_H
#define STAP_PROVIDERS_PERF_H

#include "session.h"

/* The position among the perf probes (stp_perf_probes[] of the module) of the one defining counter
 * `name` (perf....counter("name")), or -1 when no probe of the program defines it. */
int perf_counter_index(Session *s, const char *name);

#endif
