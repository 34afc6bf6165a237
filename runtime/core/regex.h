/* regex.h - the matcher of =~ and !~ (a Pike VM over a program translator/lib/regex.c
 * compiled at translate time) and the last match for matched()/ngroups().
 * Included by runtime.h before context.h; the same source builds in userspace for
 * tests/unit/regex.t, and with STP_REGEX_TYPES_ONLY the translator takes the
 * program format from here. */
#ifndef STP_REGEX_TYPES_H
#define STP_REGEX_TYPES_H

/* ---- the program format, shared with the translator ---- */

enum stp_re_op {
	STP_RE_CHAR,    /* c: consume this byte */
	STP_RE_ANY,     /* consume any byte */
	STP_RE_CLASS,   /* consume a byte of bitmap classes[x] */
	STP_RE_SPLIT,   /* go on at x, else (lower priority) at y */
	STP_RE_JMP,     /* go on at x */
	STP_RE_SAVE,    /* position into group slot x (2n = start, 2n+1 = end) */
	STP_RE_BOL,     /* ^: only at the start of the string */
	STP_RE_EOL,     /* $: only at its end */
	STP_RE_MATCH,   /* the whole pattern matched */
};

struct stp_re_insn {
	unsigned char op, c;
	unsigned short x, y;
};

struct stp_re_prog {
	const struct stp_re_insn *insns;
	const unsigned char (*classes)[32];     /* 256-bit byte sets */
	unsigned short ninsns;
	unsigned short nthreads;    /* consuming instructions and MATCH: a step's most threads */
	unsigned short nsub;        /* groups, counting group 0 (the whole match) */
	unsigned char anchored;     /* begins with ^: tried at position 0 only */
};

#endif /* STP_REGEX_TYPES_H */

#if !defined(STP_REGEX_TYPES_ONLY) && !defined(STP_REGEX_H)
#define STP_REGEX_H

#ifdef __KERNEL__
#define STP_RE_UNUSED __maybe_unused
#else
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define STP_RE_UNUSED __attribute__((unused))
#endif

/* The work area is sized for the largest program of the module: the translator
 * defines these when the script matches (defaults: a module without =~). */
#ifndef STP_REGEX_MAXINSNS
#define STP_REGEX_MAXINSNS 1
#endif
#ifndef STP_REGEX_MAXTHREADS
#define STP_REGEX_MAXTHREADS 1
#endif
#ifndef STP_REGEX_MAXSUB
#define STP_REGEX_MAXSUB 1
#endif

/* Positions in the subject; STP_RE_UNSET = a group that did not take part. */
typedef unsigned short stp_re_pos;
#define STP_RE_UNSET 0xffff
#define STP_RE_MAXLEN (MAXSTRINGLEN - 1 < 0xfffe ? MAXSTRINGLEN - 1 : 0xfffe)
#define STP_RE_RESTORE 0xffff   /* a stack entry that restores a group slot */

struct stp_re_thread_list {
	unsigned int n;
	unsigned short pc[STP_REGEX_MAXTHREADS];
	stp_re_pos caps[STP_REGEX_MAXTHREADS][2 * STP_REGEX_MAXSUB];
};

/* One per CPU, in the probe context: the last match and the matcher's work area. */
struct stp_regex_state {
	unsigned int nsub;                      /* groups of the last =~; 0 = it failed */
	stp_re_pos sub[2 * STP_REGEX_MAXSUB];   /* their start/end offsets in str */
	char str[MAXSTRINGLEN];                 /* the string the last =~ matched */
	/* work area */
	unsigned int mark[STP_REGEX_MAXINSNS];  /* step that last visited each instruction */
	struct {
		unsigned short pc;                  /* or STP_RE_RESTORE */
		stp_re_pos slot, val;
	} stack[STP_REGEX_MAXINSNS + 1];
	stp_re_pos caps[2 * STP_REGEX_MAXSUB];  /* the path being followed */
	struct stp_re_thread_list list[2];
};

/* Follows the empty transitions from pc at position pos (in priority order, an
 * explicit stack: each instruction is visited once per step, so the stack holds at
 * most ninsns + 1 entries) and appends the threads reached to l. */
static void stp_re_add(struct stp_regex_state *st, const struct stp_re_prog *p, struct stp_re_thread_list *l,
		       unsigned int pc, const stp_re_pos *caps, unsigned int pos, unsigned int len, unsigned int step)
{
	unsigned int nslots = 2u * p->nsub, sp = 0;

	if (st->mark[pc] == step)
		return;
	if (caps != st->caps)
		memcpy(st->caps, caps, nslots * sizeof(stp_re_pos));
	st->stack[sp].pc = (unsigned short)pc;
	sp++;
	while (sp) {
		sp--;
		if (st->stack[sp].pc == STP_RE_RESTORE) {
			st->caps[st->stack[sp].slot] = st->stack[sp].val;
			continue;
		}
		pc = st->stack[sp].pc;
		for (;;) {
			const struct stp_re_insn *in = &p->insns[pc];

			if (st->mark[pc] == step)
				break;
			st->mark[pc] = step;
			if (in->op == STP_RE_JMP) {
				pc = in->x;
			} else if (in->op == STP_RE_SPLIT) {
				st->stack[sp].pc = in->y;
				sp++;
				pc = in->x;
			} else if (in->op == STP_RE_SAVE) {
				st->stack[sp].pc = STP_RE_RESTORE;
				st->stack[sp].slot = in->x;
				st->stack[sp].val = st->caps[in->x];
				sp++;
				st->caps[in->x] = (stp_re_pos)pos;
				pc++;
			} else if (in->op == STP_RE_BOL) {
				if (pos != 0)
					break;
				pc++;
			} else if (in->op == STP_RE_EOL) {
				if (pos != len)
					break;
				pc++;
			} else {        /* a thread: consumes a byte, or MATCH */
				l->pc[l->n] = (unsigned short)pc;
				memcpy(l->caps[l->n], st->caps, nslots * sizeof(stp_re_pos));
				l->n++;
				break;
			}
		}
	}
}

/* Does p match s (anywhere, leftmost-longest as POSIX says; among the ways to match
 * that span, the groups of the first in priority order: greedy, left alternative
 * first, as glibc reports them)?  Returns 1 or 0; st then holds the match for
 * matched(), or nsub = 0.  Time O(len * ninsns * nsub), no allocation. */
static STP_RE_UNUSED int stp_regex_exec(struct stp_regex_state *st, const struct stp_re_prog *p, const char *s,
					const char **errp, char *errbuf, size_t errlen)
{
	struct stp_re_thread_list *cl = &st->list[0], *nl = &st->list[1], *tmp;
	unsigned int len = (unsigned int)strnlen(s, STP_RE_MAXLEN);
	unsigned int nslots = 2u * p->nsub, i, t, k;
	stp_re_pos best_start = STP_RE_UNSET;
	int found = 0;

	st->nsub = 0;
	if (p->ninsns > STP_REGEX_MAXINSNS || p->nthreads > STP_REGEX_MAXTHREADS || p->nsub > STP_REGEX_MAXSUB) {
		if (!*errp) {
			snprintf(errbuf, errlen, "regular expression too large for STP_REGEX_MAXINSNS/MAXTHREADS/MAXSUB");
			*errp = errbuf;
		}
		return 0;
	}
	memset(st->mark, 0, p->ninsns * sizeof(st->mark[0]));
	cl->n = 0;
	/* the threads at position i were gathered with step i + 1 */
	for (i = 0;; i++) {
		unsigned char c = i < len ? (unsigned char)s[i] : 0;
		int recorded = 0;

		if (!found && (i == 0 || !p->anchored)) {
			/* a new start, the lowest priority: threads stay sorted by start */
			for (k = 0; k < nslots; k++)
				st->caps[k] = STP_RE_UNSET;
			stp_re_add(st, p, cl, 0, st->caps, i, len, i + 1);
		}
		nl->n = 0;
		for (t = 0; t < cl->n; t++) {
			const struct stp_re_insn *in = &p->insns[cl->pc[t]];
			stp_re_pos *caps = cl->caps[t];
			int ok;

			if (found && caps[0] > best_start)
				break;          /* later starts lose to the match found */
			switch (in->op) {
			case STP_RE_MATCH:
				/* the first to match here has the leftmost start (later ones
				 * are cut above), then the highest priority */
				if (!recorded) {
					memcpy(st->sub, caps, nslots * sizeof(stp_re_pos));
					best_start = caps[0];
					found = 1;
					recorded = 1;
				}
				continue;
			case STP_RE_CHAR:
				ok = c == in->c;
				break;
			case STP_RE_ANY:
				ok = 1;
				break;
			default:        /* STP_RE_CLASS */
				ok = (p->classes[in->x][c >> 3] >> (c & 7)) & 1;
				break;
			}
			if (ok && i < len)
				stp_re_add(st, p, nl, cl->pc[t] + 1u, caps, i + 1, len, i + 2);
		}
		tmp = cl;
		cl = nl;
		nl = tmp;
		if (i >= len || (!cl->n && (found || p->anchored)))
			break;
	}
	if (!found)
		return 0;
	memcpy(st->str, s, len);
	st->str[len] = 0;
	st->nsub = p->nsub;
	return 1;
}

static STP_RE_UNUSED void stp_re_fail(const char **errp, char *errbuf, size_t errlen, const char *fmt, long long n)
{
	if (*errp)
		return;
	snprintf(errbuf, errlen, fmt, n);
	*errp = errbuf;
}

/* matched(n): group n of the last match into out ("" if it did not take part). */
static STP_RE_UNUSED char *stp_regex_group(const struct stp_regex_state *st, int64_t n, char *out,
					   const char **errp, char *errbuf, size_t errlen)
{
	stp_re_pos so, eo;

	out[0] = 0;
	if (!st->nsub) {
		stp_re_fail(errp, errbuf, errlen, "Attempted to get subexpression %lld from failed match", (long long)n);
		return out;
	}
	if (n < 0 || n >= st->nsub) {
		stp_re_fail(errp, errbuf, errlen, "Attempted to get nonexistent subexpression %lld", (long long)n);
		return out;
	}
	so = st->sub[2 * n];
	eo = st->sub[2 * n + 1];
	if (so != STP_RE_UNSET && eo != STP_RE_UNSET && so <= eo && eo < MAXSTRINGLEN) {
		memcpy(out, st->str + so, eo - so);
		out[eo - so] = 0;
	}
	return out;
}

/* ngroups(): the groups of the last match, counting group 0. */
static STP_RE_UNUSED int64_t stp_regex_count(const struct stp_regex_state *st, const char **errp, char *errbuf,
					     size_t errlen)
{
	if (!st->nsub)
		stp_re_fail(errp, errbuf, errlen, "Attempted to get subexpression count from failed match", 0);
	return st->nsub;
}

/* What generated code calls, c being the probe context (complete by then). */
#define stp_regex_match(c, prog, s) \
	((int64_t)stp_regex_exec(&(c)->regex, (prog), (s), &(c)->last_error, (c)->error_buf, sizeof((c)->error_buf)))
#define stp_regex_matched(c, n, out) \
	stp_regex_group(&(c)->regex, (n), (out), &(c)->last_error, (c)->error_buf, sizeof((c)->error_buf))
#define stp_regex_ngroups(c) \
	stp_regex_count(&(c)->regex, &(c)->last_error, (c)->error_buf, sizeof((c)->error_buf))

#endif /* STP_REGEX_H */
