/* procglob.h - globs in process("PATH") points (process("/usr/lib* /libfoo.so*")...): each
 * matching file a point of its own, as SystemTap expands them. Used by expand.c. */
#ifndef STAP_PROCGLOB_H
#define STAP_PROCGLOB_H

#include "parse/ast.h"

/* pp is process("PATTERN")... with a glob character (* ? [) in PATTERN */
int procglob_wanted(const ProbePoint *pp);
/* pp once per ELF file PATTERN matches (symbolic links resolved, each file once, in glob's
 * order), pushed onto out as ProbePoint*; the count, or -1 after "no file matches" at PATTERN (reported to d) */
int procglob_expand(Diag *d, const ProbePoint *pp, PtrVec *out);

#endif
