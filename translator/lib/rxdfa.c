/* rxdfa.c - the DFA of a compiled pattern by subset construction over the Pike program: a state is the set of
 * instructions the threads resume at (before their closure), the start's alone taking ^; the search tries every
 * position by adding the program's start to each set (unless the pattern is anchored); $ is the string's end. */
#include "lib/rxdfa.h"
#include "lib/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SET_WORDS ((RX_MAX_INSNS + 63) / 64)

typedef struct Set {
	uint64_t w[SET_WORDS];
} Set;

static void set_add(Set *s, int pc)
{
	s->w[pc / 64] |= 1ull << (pc % 64);
}

static int set_has(const Set *s, int pc)
{
	return (s->w[pc / 64] >> (pc % 64)) & 1;
}

/* The instructions that consume a byte, reached from seeds (consume), and whether MATCH is (the result);
 * bol: ^ holds here, eol: $ does. */
static int closure(const RxProgram *p, const Set *seeds, int bol, int eol, Set *consume)
{
	int stack[RX_MAX_INSNS * 2 + 2], n = 0, match = 0;
	Set seen = { { 0 } };

	memset(consume, 0, sizeof *consume);
	for (int pc = 0; pc < p->ninsns; pc++)
		if (set_has(seeds, pc))
			stack[n++] = pc;
	while (n) {
		int pc = stack[--n];
		const struct stp_re_insn *in;
		if (pc < 0 || pc >= p->ninsns || set_has(&seen, pc))
			continue;
		set_add(&seen, pc);
		in = &p->insns[pc];
		switch (in->op) {
		case STP_RE_CHAR: case STP_RE_ANY: case STP_RE_CLASS:
			set_add(consume, pc);
			break;
		case STP_RE_MATCH:
			match = 1;
			break;
		case STP_RE_SPLIT:
			stack[n++] = in->y;
			stack[n++] = in->x;
			break;
		case STP_RE_JMP:
			stack[n++] = in->x;
			break;
		case STP_RE_SAVE:
			stack[n++] = pc + 1;
			break;
		case STP_RE_BOL:
			if (bol)
				stack[n++] = pc + 1;
			break;
		case STP_RE_EOL:
			if (eol)
				stack[n++] = pc + 1;
			break;
		}
	}
	return match;
}

static int consumes(const RxProgram *p, int pc, unsigned char b)
{
	const struct stp_re_insn *in = &p->insns[pc];

	switch (in->op) {
	case STP_RE_CHAR: return in->c == b;
	case STP_RE_ANY: return 1;
	case STP_RE_CLASS: return (p->classes[in->x][b / 8] >> (b % 8)) & 1;
	default: return 0;
	}
}

/* bytes alike for every consuming instruction share a class */
static void byte_classes(const RxProgram *p, RxDfa *d)
{
	Set sig[256];

	memset(sig, 0, sizeof sig);
	for (int b = 0; b < 256; b++)
		for (int pc = 0; pc < p->ninsns; pc++)
			if (consumes(p, pc, (unsigned char)b))
				set_add(&sig[b], pc);
	d->nclasses = 0;
	for (int b = 0; b < 256; b++) {
		int k;
		for (k = 0; k < b; k++)
			if (!memcmp(&sig[k], &sig[b], sizeof sig[b]))
				break;
		d->cls[b] = k < b ? d->cls[k] : (unsigned char)d->nclasses++;
	}
}

typedef struct State {
	Set seeds;
	int start;
} State;

int rxd_build(const RxProgram *p, RxDfa *d)
{
	State *states = xcalloc(RXD_MAX_STATES, sizeof *states);
	int rep[256];

	memset(d, 0, sizeof *d);
	byte_classes(p, d);
	for (int b = 255; b >= 0; b--)
		rep[d->cls[b]] = b;
	d->next = xcalloc((size_t)RXD_MAX_STATES * (size_t)d->nclasses, sizeof *d->next);
	d->accept = xcalloc(RXD_MAX_STATES, 1);
	set_add(&states[0].seeds, 0);
	states[0].start = 1;
	d->nstates = 1;
	for (int s = 0; s < d->nstates; s++) {
		Set consume, ignored;
		int bol = states[s].start;
		d->accept[s] = (unsigned char)((closure(p, &states[s].seeds, bol, 0, &consume) ? RXD_NOW : 0) |
					       (closure(p, &states[s].seeds, bol, 1, &ignored) ? RXD_END : 0));
		for (int k = 0; k < d->nclasses; k++) {
			State next = { { { 0 } }, 0 };
			int t;
			for (int pc = 0; pc < p->ninsns; pc++)
				if (set_has(&consume, pc) && consumes(p, pc, (unsigned char)rep[k]))
					set_add(&next.seeds, pc + 1);
			if (!p->anchored)
				set_add(&next.seeds, 0);
			for (t = 0; t < d->nstates; t++)
				if (!states[t].start && !memcmp(&states[t].seeds, &next.seeds, sizeof next.seeds))
					break;
			if (t == d->nstates) {
				if (d->nstates == RXD_MAX_STATES) {
					free(states);
					rxd_free(d);
					return -1;
				}
				states[d->nstates++] = next;
			}
			d->next[s * d->nclasses + k] = (unsigned short)t;
		}
	}
	free(states);
	return 0;
}

int rxd_match(const RxDfa *d, const char *s)
{
	int st = 0;

	for (;; s++) {
		if (d->accept[st] & RXD_NOW)
			return 1;
		if (!*s)
			return (d->accept[st] & RXD_END) != 0;
		st = d->next[st * d->nclasses + d->cls[(unsigned char)*s]];
	}
}

void rxd_free(RxDfa *d)
{
	free(d->next);
	free(d->accept);
	d->next = NULL;
	d->accept = NULL;
}
