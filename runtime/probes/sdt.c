/* sdt.c - SDT marker probes (process("PATH").mark): uprobes with the marker's semaphore as reference
 * counter (probes/uprobes.c); their arguments are read by core/sdt.h.  Included by code of providers/sdt.c. */
#include "probes/uprobes.c"
