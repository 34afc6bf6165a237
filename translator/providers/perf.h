/* perf.h - what the perf family tells code generation: where @perf("NAME") finds its counter.
 * Used by providers/perf.c and the @perf code of codegen/expr.c and elaborate.c. */
#ifndef STAP_PROVIDERS_PERF_H
#define STAP_PROVIDERS_PERF_H

#include "session.h"

/* The position among the perf probes (stp_perf_probes[] of the module) of the one defining counter
 * `name` (perf....counter("name")), or -1 when no probe of the program defines it. */
int perf_counter_index(Session *s, const char *name);

/* A perf point sampling every CPU (neither .process nor .counter): 1 with its event's type, config and rate
 * (events per hit, or hits per second when *freq), else 0.  Used by a runtime that opens the events itself. */
struct DerivedProbe;
int perf_cpu_event(const struct DerivedProbe *dp, int64_t *type, int64_t *config, int64_t *period, int *freq);

/* A perf counter on every CPU (.counter("NAME"), neither .process): 1 with its event's type and config and, when k is
 * not NULL, its position among the perf probes (what perf_counter_index gives for its name), else 0. */
int perf_cpu_counter(Session *s, const struct DerivedProbe *dp, int64_t *type, int64_t *config, int *k);

#endif
