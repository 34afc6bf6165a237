/* regex.h - matched() and ngroups() on the BPF runtime: =~ walks the pattern's threads over the subject as core/regex.h's
 * Pike VM does, its empty transitions followed at translate time (translator/lib/rxclosure.c, whose rxc_exec is this walk
 * in C, held to the VM by tests/unit/regex.t): a bpf_loop each for the positions, a position's threads and a closure's
 * entries, the state in the context (kernels before 6.7 verify a callback once).  Included twice by context.h: the
 * state before the context, the walk after it.  Without =~ patterns that record groups, matched() has none to give. */

#if defined(STP_REGEX_MAXINSNS) && !defined(STP_BPF_REGEX_STATE)
#define STP_BPF_REGEX_STATE

/* a list's threads, a power of two (indexes are masked) */
#define STP_RXC_THREADS								\
	(STP_REGEX_MAXTHREADS <= 8 ? 8 : STP_REGEX_MAXTHREADS <= 16 ? 16 : STP_REGEX_MAXTHREADS <= 32 ? 32 :	\
	 STP_REGEX_MAXTHREADS <= 64 ? 64 : STP_REGEX_MAXTHREADS <= 128 ? 128 : STP_REGEX_MAXTHREADS <= 256 ? 256 : 512)
/* the instructions' marks, a power of two */
#define STP_RXC_INSNS (STP_REGEX_MAXINSNS <= 64 ? 64 : STP_REGEX_MAXINSNS <= 128 ? 128 : STP_REGEX_MAXINSNS <= 256 ? 256 : 512)
#define STP_RXC_SLOTS (2 * STP_REGEX_MAXSUB)
#define STP_RXC_SUB 128                /* sub[]: room for RX_MAX_GROUPS' slots, whatever index matched() masks */
#define STP_RXC_UNSET 0xffff
/* translator/lib/rxclosure.h's kinds of instruction */
#define STP_RXC_CHAR 0
#define STP_RXC_ANY 1
#define STP_RXC_CLASS 2
#define STP_RXC_MATCH 3

struct stp_rxc {
	unsigned int nsub;                 /* groups of the last =~; 0 = it failed */
	u16 sub[STP_RXC_SUB];              /* their start and end offsets in str */
	char str[MAXSTRINGLEN];            /* the subject (the last match's, while nsub) */
	/* the walk: the position, the current list, the match so far */
	unsigned int len, i, cur, found, recorded, best_start;
	/* the closure being appended: to which list, from which thread of the other (or none: fresh), at what position */
	unsigned int add_list, add_from, add_fresh, add_first, add_pos, add_gen;
	unsigned int n[2];
	u32 mark[STP_RXC_INSNS];           /* the generation that last appended a thread at each instruction */
	u16 pc[2 * STP_RXC_THREADS];                   /* the two lists' threads: list l's thread t at STP_RXC_AT(l, t) */
	u16 caps[2 * STP_RXC_THREADS][STP_RXC_SLOTS];
};
/* one index, masked where the verifier sees it (6.1's loses the bounds of two indexes or'ed by the compiler) */
#define STP_RXC_AT(l, t) STP_BOUND((u64)(l) * STP_RXC_THREADS + (t), 2 * STP_RXC_THREADS - 1)
#endif

#if defined(STP_BPF_CONTEXT_COMPLETE) && !defined(STP_BPF_REGEX_WALK)
#define STP_BPF_REGEX_WALK

#ifdef STP_REGEX_MAXINSNS
struct stp_rxc_run {
	struct stp_context *c;
};

/* A closure's entry k: its thread appended to the list add_list, unless one is there already at that instruction, with
 * the slots its path saved set to the position and the others those of the thread it goes on from. */
static __always_inline long stp_rxc_entry(struct stp_rxc_run *r, u64 k, const u16 *target, const u64 *saves,
					  unsigned int nentries, unsigned int emask, unsigned int ninsns, unsigned int nslots)
{
	struct stp_rxc *x = &r->c->rxc;
	u64 e = x->add_first + k, t, l, n, to, from, sv;

	if (e >= nentries)
		return 1;
	e = STP_BOUND(e, emask);
	t = target[e];
	if (t >= ninsns)
		return 1;
	t = STP_BOUND(t, STP_RXC_INSNS - 1);
	if (x->mark[t] == x->add_gen)
		return 0;
	x->mark[t] = x->add_gen;
	l = x->add_list & 1;
	n = x->n[l];
	if (n >= STP_RXC_THREADS)
		return 1;
	to = STP_RXC_AT(l, n);
	from = STP_RXC_AT(l ^ 1, x->add_from & (STP_RXC_THREADS - 1));
	x->pc[to] = (u16)t;
	sv = saves[e];
	for (unsigned int s = 0; s < nslots && s < STP_RXC_SLOTS; s++)
		x->caps[to][s] = (sv >> s) & 1 ? (u16)x->add_pos : x->add_fresh ? STP_RXC_UNSET : x->caps[from][s];
	x->n[l] = (unsigned int)n + 1;
	return 0;
}

/* Thread t of the current list: a MATCH records the match (the first at this position: the leftmost start, then the
 * highest priority); a byte consumed appends the closure after it to the next list.  The tables' sizes are powers of
 * two whose masks (cmask, imask, amask) bound their indexes: clang may load before a test it knows the C's bounds keep. */
static __always_inline long stp_rxc_thread(struct stp_rxc_run *r, u64 t, const u8 *op, const u8 *arg,
					   const u8 (*cls)[32], unsigned int cmask, const u16 *first, const u16 *count,
					   unsigned int ninsns, unsigned int imask, unsigned int amask, unsigned int nslots,
					   long (*entry)(u64, void *))
{
	struct stp_rxc *x = &r->c->rxc;
	u64 cur = x->cur & 1, pc, o, a, i = x->i, at, me;
	unsigned char ch;
	int ok;

	if (t >= x->n[cur])
		return 1;
	me = STP_RXC_AT(cur, t);
	pc = x->pc[me];
	if (pc >= ninsns)
		return 1;
	pc = STP_BOUND(pc, imask);
	if (x->found && x->caps[me][0] > x->best_start)
		return 1;               /* later starts lose to the match found */
	o = op[pc];
	if (o == STP_RXC_MATCH) {
		if (!x->recorded) {
			for (unsigned int s = 0; s < nslots && s < STP_RXC_SLOTS; s++)
				x->sub[s] = x->caps[me][s];
			x->best_start = x->caps[me][0];
			x->found = x->recorded = 1;
		}
		return 0;
	}
	if (i >= x->len)
		return 0;
	ch = (unsigned char)x->str[STP_BOUND(i, MAXSTRINGLEN - 1)];
	a = arg[pc];
	if (o == STP_RXC_ANY)
		ok = 1;
	else if (o == STP_RXC_CHAR)
		ok = ch == a;
	else
		ok = (cls[STP_BOUND(a, cmask)][ch >> 3] >> (ch & 7)) & 1;
	if (!ok)
		return 0;
	at = STP_BOUND((pc + 1) * 4 + (i + 1 == x->len ? 2 : 0), amask);
	x->add_list = (unsigned int)cur ^ 1;
	x->add_from = (unsigned int)t;
	x->add_fresh = 0;
	x->add_pos = (unsigned int)i + 1;
	x->add_gen = (unsigned int)i + 2;
	x->add_first = first[at];
	bpf_loop(count[at], entry, r, 0);
	return 0;
}

/* Position i: a new start (the lowest priority) unless a match was found, then the current list's threads; the walk
 * ends at the string's end or when no thread is left to find a (longer) match. */
static __always_inline long stp_rxc_position(struct stp_rxc_run *r, u64 i, const u16 *first, const u16 *count,
					     int anchored, long (*thread)(u64, void *), long (*entry)(u64, void *))
{
	struct stp_rxc *x = &r->c->rxc;
	unsigned int cur = x->cur & 1, len = x->len;

	if (i > len)
		return 1;
	x->i = (unsigned int)i;
	x->recorded = 0;
	if (!x->found && (i == 0 || !anchored)) {
		unsigned int at = (i == 0 ? 1 : 0) | (i == len ? 2 : 0);
		x->add_list = cur;
		x->add_fresh = 1;
		x->add_pos = (unsigned int)i;
		x->add_gen = (unsigned int)i + 1;
		x->add_first = first[at];
		bpf_loop(count[at], entry, r, 0);
	}
	x->n[cur ^ 1] = 0;
	bpf_loop(x->n[cur], thread, r, 0);
	x->cur = cur ^ 1;
	if (i >= len || (!x->n[cur ^ 1] && (x->found || anchored)))
		return 1;
	return 0;
}

static long stp_rxc_clear(u64 k, void *r)
{
	struct stp_rxc *x = &((struct stp_rxc_run *)r)->c->rxc;

	if (k >= STP_RXC_INSNS)
		return 1;
	x->mark[STP_BOUND(k, STP_RXC_INSNS - 1)] = 0;
	return 0;
}

/* s =~ the pattern whose walk position is (translator/bpfprog/dfamatch.c): 1 or 0, the groups kept for matched() */
static __always_inline int64_t stp_rxc_match(struct stp_context *c, const char *s, unsigned int ninsns, unsigned int nsub,
					     long (*position)(u64, void *))
{
	struct stp_rxc *x = &c->rxc;
	struct stp_rxc_run r = { .c = c };
	long n = bpf_probe_read_kernel_str(x->str, MAXSTRINGLEN, s);

	if (n <= 0)
		x->str[0] = 0;
	x->len = n > 1 ? (unsigned int)STP_BOUND(n - 1, MAXSTRINGLEN - 1) : 0;
	x->nsub = 0;
	x->found = 0;
	x->cur = 0;
	x->n[0] = 0;
	x->best_start = STP_RXC_UNSET;
	bpf_loop(ninsns, stp_rxc_clear, &r, 0);
	bpf_loop(MAXSTRINGLEN, position, &r, 0);
	if (!x->found)
		return 0;
	x->nsub = nsub;
	return 1;
}
#endif

/* matched(n): group n of the last match into out ("" if it took no part) */
static __always_inline char *stp_regex_matched(struct stp_context *c, int64_t n, char *out)
{
	u64 arg = (u64)n;

	out[0] = 0;
#ifdef STP_REGEX_MAXINSNS
	if (c->rxc.nsub) {
		struct stp_rxc *x = &c->rxc;
		u64 so, eo, k;

		if (n < 0 || n >= x->nsub) {
			static const char fmt[] = "Attempted to get nonexistent subexpression %lld";
			stp_error_fmt(c, fmt, &arg, sizeof(arg));
			return out;
		}
		k = STP_BOUND(2 * (u64)n, STP_RXC_SUB - 2);
		so = x->sub[k];
		eo = x->sub[k + 1];
		if (so != STP_RXC_UNSET && eo != STP_RXC_UNSET && so <= eo && eo < MAXSTRINGLEN) {
			u64 len = STP_BOUND(eo - so, MAXSTRINGLEN - 1);

			bpf_probe_read_kernel(out, len, x->str + STP_BOUND(so, MAXSTRINGLEN - 1));
			out[len] = 0;
		}
		return out;
	}
#endif
	{
		static const char fmt[] = "Attempted to get subexpression %lld from failed match";
		stp_error_fmt(c, fmt, &arg, sizeof(arg));
	}
	return out;
}

/* ngroups(): the groups of the last match, counting group 0 */
static __always_inline int64_t stp_regex_ngroups(struct stp_context *c)
{
#ifdef STP_REGEX_MAXINSNS
	if (c->rxc.nsub)
		return c->rxc.nsub;
#endif
	stp_error(c, "Attempted to get subexpression count from failed match");
	return 0;
}
#endif
