/* rxdfa.h - a compiled pattern (lib/regex.h's program) as a DFA over classes of bytes, which answers =~ and !~
 * (whether the pattern matches anywhere) where the Pike VM cannot run: the BPF runtime (bpfprog/dfamatch.c).
 * Used by tests/unit/regex.t's driver too, against the VM. */
#ifndef STAP_RXDFA_H
#define STAP_RXDFA_H

#include "lib/regex.h"

#define RXD_NOW 1               /* accept[]: a match ends here, whatever follows */
#define RXD_END 2               /* accept[]: a match if the string ends here */
#define RXD_MAX_STATES 1024     /* a pattern with more is refused: its tables would be too large */

typedef struct RxDfa {
	unsigned char cls[256];   /* each byte's class */
	int nclasses;
	int nstates;              /* state 0 is the start */
	unsigned short *next;     /* next[state * nclasses + class] */
	unsigned char *accept;    /* per state: RXD_NOW, RXD_END */
} RxDfa;

/* 0, or -1 when the DFA would have more than RXD_MAX_STATES states */
int rxd_build(const RxProgram *p, RxDfa *d);
/* whether s (NUL-ended) matches: the walk the BPF runtime does (runtime/bpf/strings.h's stp_rxd_*) */
int rxd_match(const RxDfa *d, const char *s);
void rxd_free(RxDfa *d);

#endif
