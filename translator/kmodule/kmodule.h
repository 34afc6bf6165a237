/* kmodule.h - pass 3's kernel-module writer (kmodule/): the C of the module around the bodies the
 * runtime-neutral lowering (codegen/) generates; km_backend is what codegen/translate.c drives. */
#ifndef STAP_KMODULE_H
#define STAP_KMODULE_H

#include "codegen/backend.h"

extern const CgBackend km_backend;

/* skeleton.c writes the file; the rest of kmodule/ serves it */
void km_globals(Session *s, CgParts *parts);                                 /* globals.c */
void km_lock_table(Session *s, const Probe *p, const char *mode, StrBuf *out);   /* globals.c */
int *km_count_map_sites(const Program *prog);       /* mapfuncs.c: per global, the places naming it */
void km_map_functions(const int *map_sites, const Symbol *arr, StrBuf *decl, StrBuf *init);   /* gm_NAME__ */
void km_embedded_function(Session *s, Function *f, StrBuf *frames, StrBuf *code);   /* embedded.c */
void km_entry_functions(Session *s, StrBuf *out);   /* entry.c: the .return probes' @entry savers */

#endif
