/* rxclosure.c - the Pike VM's empty transitions (runtime/core/regex.h's stp_re_add) followed once per instruction
 * and kind of position at translate time, so that a matcher without recursion or a stack (BPF) only copies threads;
 * rxc_exec is that matcher's walk, kept beside the tables it reads so that tests/unit/regex.t holds it to the VM. */
#include "lib/rxclosure.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

#define UNSET 0xffff

typedef struct Builder {
	RxClosures *c;
	int cap;
} Builder;

static void add_entry(Builder *b, int target, uint64_t saves)
{
	RxClosures *c = b->c;

	if (c->nentries == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		c->target = xrealloc(c->target, (size_t)b->cap * sizeof *c->target);
		c->saves = xrealloc(c->saves, (size_t)b->cap * sizeof *c->saves);
	}
	c->target[c->nentries] = (unsigned short)target;
	c->saves[c->nentries] = saves;
	c->nentries++;
}

/* From pc at a position of kind at, the threads reached in the order stp_re_add appends them (a depth-first walk,
 * the higher priority first, each instruction visited once), each with the slots saved on its path. */
static void closure(Builder *b, const RxProgram *p, int pc, int at)
{
	struct { int pc; uint64_t saves; } stack[2 * RX_MAX_INSNS + 2];
	unsigned char seen[RX_MAX_INSNS] = { 0 };
	int n = 0;

	stack[n].pc = pc;
	stack[n++].saves = 0;
	while (n) {
		uint64_t saves;
		n--;
		pc = stack[n].pc;
		saves = stack[n].saves;
		for (;;) {
			const struct stp_re_insn *in = &p->insns[pc];

			if (seen[pc])
				break;
			seen[pc] = 1;
			if (in->op == STP_RE_JMP) {
				pc = in->x;
			} else if (in->op == STP_RE_SPLIT) {
				stack[n].pc = in->y;
				stack[n++].saves = saves;
				pc = in->x;
			} else if (in->op == STP_RE_SAVE) {
				saves |= 1ull << in->x;
				pc++;
			} else if (in->op == STP_RE_BOL || in->op == STP_RE_EOL) {
				if (!(at & (in->op == STP_RE_BOL ? RXC_AT_START : RXC_AT_END)))
					break;
				pc++;
			} else {
				add_entry(b, pc, saves);
				break;
			}
		}
	}
}

static int consuming(int op)
{
	return op == STP_RE_CHAR || op == STP_RE_ANY || op == STP_RE_CLASS;
}

int rxc_build(const RxProgram *p, RxClosures *c)
{
	Builder b = { c, 0 };
	size_t n = (size_t)p->ninsns * RXC_ATS;

	memset(c, 0, sizeof *c);
	c->ninsns = p->ninsns;
	c->nsub = p->nsub;
	c->nthreads = p->nthreads;
	c->anchored = p->anchored;
	c->classes = (const unsigned char (*)[32])p->classes;
	c->op = xcalloc((size_t)p->ninsns, 1);
	c->arg = xcalloc((size_t)p->ninsns, 1);
	c->first = xcalloc(n, sizeof *c->first);
	c->count = xcalloc(n, sizeof *c->count);
	for (int pc = 0; pc < p->ninsns; pc++) {
		const struct stp_re_insn *in = &p->insns[pc];
		c->op[pc] = in->op == STP_RE_CHAR ? RXC_CHAR : in->op == STP_RE_ANY ? RXC_ANY :
			    in->op == STP_RE_CLASS ? RXC_CLASS : in->op == STP_RE_MATCH ? RXC_MATCH : RXC_NONE;
		c->arg[pc] = in->op == STP_RE_CLASS ? (unsigned char)in->x : in->c;
	}
	/* where threads go on: the start (any kind of position), after a byte consumed (never the string's start) */
	for (int pc = 0; pc < p->ninsns; pc++) {
		if (pc && !consuming(p->insns[pc - 1].op))
			continue;
		for (int at = 0; at < RXC_ATS; at++) {
			int before = c->nentries;
			if (pc && (at & RXC_AT_START))
				continue;
			closure(&b, p, pc, at);
			if (c->nentries > RXC_MAX_ENTRIES) {
				rxc_free(c);
				return -1;
			}
			c->first[pc * RXC_ATS + at] = (unsigned short)before;
			c->count[pc * RXC_ATS + at] = (unsigned short)(c->nentries - before);
			if (c->nentries - before > c->maxcount)
				c->maxcount = c->nentries - before;
		}
	}
	return 0;
}

/* ---- the walk ---- */

typedef struct Threads {
	int n;
	unsigned short *pc, *caps;   /* caps: 2 * nsub per thread */
} Threads;

/* the closure of (from, at) appended to l, each thread's slots those of caps but the ones saved on its way */
static void add(const RxClosures *c, Threads *l, unsigned *mark, unsigned gen, int from, int at,
		const unsigned short *caps, unsigned pos)
{
	int e = c->first[from * RXC_ATS + at], end = e + c->count[from * RXC_ATS + at], nslots = 2 * c->nsub;

	for (; e < end; e++) {
		int t = c->target[e];
		if (mark[t] == gen)
			continue;
		mark[t] = gen;
		l->pc[l->n] = (unsigned short)t;
		for (int k = 0; k < nslots; k++)
			l->caps[l->n * nslots + k] = (c->saves[e] >> k) & 1 ? (unsigned short)pos : caps[k];
		l->n++;
	}
}

int rxc_exec(const RxClosures *c, const char *s, unsigned short *sub)
{
	size_t slen = strlen(s);
	unsigned len = slen < 0xfffe ? (unsigned)slen : 0xfffe, best_start = UNSET, i;
	int nslots = 2 * c->nsub, found = 0;
	unsigned *mark = xcalloc((size_t)c->ninsns, sizeof *mark);
	unsigned short *unset = xmalloc((size_t)nslots * sizeof *unset);
	Threads lists[2], *cl = &lists[0], *nl = &lists[1], *tmp;

	for (int k = 0; k < nslots; k++)
		unset[k] = UNSET;
	for (int l = 0; l < 2; l++) {
		lists[l].n = 0;
		lists[l].pc = xcalloc((size_t)c->nthreads + 1, sizeof *lists[l].pc);
		lists[l].caps = xcalloc(((size_t)c->nthreads + 1) * (size_t)nslots + 1, sizeof *lists[l].caps);
	}
	for (i = 0;; i++) {
		unsigned char ch = i < len ? (unsigned char)s[i] : 0;
		int recorded = 0;

		if (!found && (i == 0 || !c->anchored))
			add(c, cl, mark, i + 1, 0, (i == 0 ? RXC_AT_START : 0) | (i == len ? RXC_AT_END : 0), unset, i);
		nl->n = 0;
		for (int t = 0; t < cl->n; t++) {
			int pc = cl->pc[t], ok;
			unsigned short *caps = &cl->caps[t * nslots];

			if (found && caps[0] > best_start)
				break;
			if (c->op[pc] == RXC_MATCH) {
				if (!recorded) {
					memcpy(sub, caps, (size_t)nslots * sizeof *sub);
					best_start = caps[0];
					found = recorded = 1;
				}
				continue;
			}
			ok = c->op[pc] == RXC_ANY || (c->op[pc] == RXC_CHAR && ch == c->arg[pc]) ||
			     (c->op[pc] == RXC_CLASS && ((c->classes[c->arg[pc]][ch >> 3] >> (ch & 7)) & 1));
			if (ok && i < len)
				add(c, nl, mark, i + 2, pc + 1, i + 1 == len ? RXC_AT_END : 0, caps, i + 1);
		}
		tmp = cl;
		cl = nl;
		nl = tmp;
		if (i >= len || (!cl->n && (found || c->anchored)))
			break;
	}
	for (int l = 0; l < 2; l++) {
		free(lists[l].pc);
		free(lists[l].caps);
	}
	free(unset);
	free(mark);
	return found;
}

void rxc_free(RxClosures *c)
{
	free(c->op);
	free(c->arg);
	free(c->first);
	free(c->count);
	free(c->target);
	free(c->saves);
	memset(c, 0, sizeof *c);
}
