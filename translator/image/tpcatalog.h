/* tpcatalog.h - the tracepoints one source defines (tpcatalog.c): DWARF's (dwarf/dwtracepoints.c) or BTF's
 * (btf/btftracepoints.c), each read into the same records, matched by providers/tracepoint.c. */
#ifndef STAP_IMAGE_TPCATALOG_H
#define STAP_IMAGE_TPCATALOG_H

#include "lib/util.h"

#include <stdint.h>

struct TgLeafFile;

/* One tracepoint and where its prototype is described: the DWARF of its __traceiter_NAME function,
 * or with no DWARF the kernel's BTF (btf/btftracepoints.c): the catalog both leaves fill in. */
typedef struct Tracepoint {
	char *system;               /* TRACE_SYSTEM: "sched"; "" when BTF's tracepoint is in no header */
	char *name;                 /* "sched_switch" */
	int nargs;                  /* its arguments (the probe function's parameters after its data) */
	struct TgLeafFile *mod;     /* from DWARF: its debuginfo file (the DWARF leaf's, opaque); NULL: from the kernel's BTF */
	uint64_t cu, die;           /* from DWARF: the __traceiter_NAME DIE and its compile unit (DIE offsets) */
	uint32_t btf_id;            /* from BTF: the __traceiter_NAME FUNC, else the btf_trace_NAME typedef */
} Tracepoint;

/* The tracepoints one source defines, sorted by system and name (shared by both sources). */
typedef struct TpCatalog {
	Tracepoint *tps;
	int n;
} TpCatalog;

/* A catalog of found (Tracepoint*, each freed; their strings kept), sorted. */
TpCatalog *tp_catalog_new(PtrVec *found);
/* Pushes onto out the tracepoints whose system matches system_glob (NULL: any) and name matches
 * name_glob; returns how many. */
int tp_catalog_match(const TpCatalog *cat, const char *system_glob, const char *name_glob, PtrVec *out);
/* Whether a tracepoint's system matches system_glob. */
int tp_catalog_system_known(const TpCatalog *cat, const char *system_glob);

#endif
