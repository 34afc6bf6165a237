/* regex.h - the literal patterns of =~ and !~ (POSIX extended regular expressions)
 * parsed and compiled at translate time into the program runtime/core/regex.h runs.
 * Used by elaborate.c (pass-2 check), codegen/match.c and tests/unit/regex.t. */
#ifndef STAP_REGEX_H
#define STAP_REGEX_H

#include "lib/diag.h"

#include <stddef.h>

#define STP_REGEX_TYPES_ONLY
#include "../../runtime/core/regex.h"
#undef STP_REGEX_TYPES_ONLY

/* Bounds of one pattern: they bound the matcher's per-CPU work area and its time
 * per byte of the subject. */
#define RX_MAX_INSNS 512        /* program instructions */
#define RX_MAX_GROUPS 32        /* groups, counting group 0 (the whole match) */
#define RX_MAX_REPEAT 255       /* m and n of {m,n} */
#define RX_MAX_DEPTH 64         /* nested groups */

typedef struct RxProgram {
	struct stp_re_insn *insns;
	int ninsns;
	unsigned char (*classes)[32];
	int nclasses;
	int nsub;               /* groups counting group 0: what ngroups() returns */
	int nthreads;           /* consuming instructions and MATCH */
	int anchored;           /* every match starts at 0 */
} RxProgram;

/* Compiles pattern into *prog (0), or returns -1 with the byte offset in the pattern
 * where it is wrong and why. */
int rx_compile(const char *pattern, RxProgram *prog, int *errpos, char *errmsg, size_t errlen);
void rx_free(RxProgram *prog);

/* Pass 2: reports to d a bad pattern at its character in the literal at lit ("semantic
 * error: regex compilation error (at position N): ..."); returns 1 if bad. */
int rx_check(Diag *d, const char *pattern, SrcLoc lit);

#endif
