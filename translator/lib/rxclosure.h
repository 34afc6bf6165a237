/* rxclosure.h - a compiled pattern's empty transitions followed at translate time: from each instruction a thread
 * goes on at, and for each kind of position, the threads reached in priority order and the group slots set on the way.
 * The BPF runtime's matcher for matched() and ngroups() walks these tables (bpfprog/dfamatch.c, runtime/bpf/regex.h). */
#ifndef STAP_RXCLOSURE_H
#define STAP_RXCLOSURE_H

#include "lib/regex.h"

#include <stdint.h>

/* the kind of position a closure is followed at: ^ holds (the string's start), $ holds (its end) */
#define RXC_AT_START 1
#define RXC_AT_END 2
#define RXC_ATS 4

/* op[] of an instruction: what a thread there does (RXC_NONE: no thread stops there) */
enum { RXC_CHAR, RXC_ANY, RXC_CLASS, RXC_MATCH, RXC_NONE };

#define RXC_MAX_ENTRIES 65535   /* a pattern with more is refused: its tables would be too large */

typedef struct RxClosures {
	int ninsns, nsub, nthreads, anchored;
	unsigned char *op, *arg;        /* per instruction: RXC_*, its byte or class */
	const unsigned char (*classes)[32];   /* the program's (it must outlive this) */
	unsigned short *first;          /* [pc * RXC_ATS + at]: the closure of pc's first entry */
	unsigned short *count;          /* [pc * RXC_ATS + at]: its entries; 0 where no thread goes on */
	int nentries, maxcount;
	unsigned short *target;         /* per entry: the instruction of the thread reached */
	uint64_t *saves;                /* per entry: the slots (bit 2g: group g's start, 2g+1 its end) set on the way */
} RxClosures;

/* 0, or -1 when the tables would have more than RXC_MAX_ENTRIES entries */
int rxc_build(const RxProgram *p, RxClosures *c);
/* whether s (NUL-ended) matches, its groups' slots into sub (2 * nsub offsets, 0xffff where a group took no part):
 * the walk the BPF runtime does, which answers as the Pike VM of runtime/core/regex.h (tests/unit/regex.t) */
int rxc_exec(const RxClosures *c, const char *s, unsigned short *sub);
void rxc_free(RxClosures *c);

#endif
