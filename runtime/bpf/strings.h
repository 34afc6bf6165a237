/* strings.h - the BPF runtime's string values (core/strings.h's names): MAXSTRINGLEN buffers in the context's
 * frames or the globals, copied with the kernel's bounded string read. */
#ifndef STP_BPF_STRINGS_H
#define STP_BPF_STRINGS_H

/* a byte's index in a string already checked against its length, bounded where the verifier sees it
 * (core/strings.h's name) */
#define STP_STRING_INDEX(i) STP_BOUND((i), MAXSTRINGLEN - 1)

/* src (NUL-ended, or cut at size - 1) into dst of size bytes (a constant): dst always ends in a NUL */
static __always_inline void stp_strlcpy(char *dst, const char *src, unsigned int size)
{
	if (bpf_probe_read_kernel_str(dst, size, src) < 0)
		dst[0] = 0;
}

/* src after dst's string, cut at size (MAXSTRINGLEN) - 1: built in the context's scratch, whose second half
 * holds what a bounded copy writes past the first */
static __always_inline char *stp_strlcat(char *dst, const char *src, unsigned int size)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	long n;

	(void)size;
	if (!c)
		return dst;
	n = bpf_probe_read_kernel_str(c->cat, MAXSTRINGLEN, dst);
	n = n > 0 ? STP_BOUND(n - 1, MAXSTRINGLEN - 1) : 0;
	if (bpf_probe_read_kernel_str(c->cat + n, MAXSTRINGLEN, src) < 0)
		c->cat[n] = 0;
	c->cat[MAXSTRINGLEN - 1] = 0;
	if (bpf_probe_read_kernel_str(dst, MAXSTRINGLEN, c->cat) < 0)
		dst[0] = 0;
	return dst;
}

static __always_inline char *stp_concat(char *dst, const char *a, const char *b)
{
	stp_strlcpy(dst, a, MAXSTRINGLEN);
	return stp_strlcat(dst, b, MAXSTRINGLEN);
}

/* a string's length (strlen()): what a bounded copy into the context's scratch counts */
static __always_inline int64_t stp_strlen(const char *s)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	long n;

	if (!c)
		return 0;
	n = bpf_probe_read_kernel_str(c->cat, MAXSTRINGLEN, s);
	return n > 0 ? (int64_t)STP_BOUND(n - 1, MAXSTRINGLEN - 1) : 0;
}
#define strlen(s) stp_strlen(s)

/* substr(): len bytes of s from start (core/strfuncs.h's) */
static __always_inline void stp_substr(char *dst, const char *s, int64_t start, int64_t len)
{
	int64_t slen = stp_strlen(s);
	u64 n;

	dst[0] = 0;
	if (start < 0 || start >= slen || len <= 0)
		return;
	n = (u64)len < (u64)(slen - start) ? (u64)len : (u64)(slen - start);
	n = STP_BOUND(n, MAXSTRINGLEN - 1);
	if (n && bpf_probe_read_kernel(dst, n, s + STP_BOUND(start, MAXSTRINGLEN - 1)) < 0)
		n = 0;
	dst[n] = 0;
}

/* strpos(): where needle first starts in s, -1 if nowhere (0 for an empty needle).  Both are copied into
 * the context's scratch (s into the first half, its second half zeros: a window past any start stays in
 * it), each start a bpf_loop callback comparing at most the needle's length. */
struct stp_strpos_ctx {
	struct stp_context *c;
	long slen, nlen, found;
	u64 at;                 /* the start being compared */
	int differs;
};

/* the needle's byte j against the haystack's at the start being compared: 1 (stop) on a difference */
static long stp_strpos_cmp(u64 j, void *data)
{
	struct stp_strpos_ctx *x = data;
	const char *h = x->c->cat, *nd = x->c->error_buf;

	if ((long)j >= x->nlen)
		return 1;
	if (h[(x->at + STP_BOUND(j, MAXSTRINGLEN - 1)) & (2 * MAXSTRINGLEN - 1)] != nd[STP_BOUND(j, MAXSTRINGLEN - 1)]) {
		x->differs = 1;
		return 1;
	}
	return 0;
}

static long stp_strpos_at(u64 i, void *data)
{
	struct stp_strpos_ctx *x = data;

	if ((long)i + x->nlen > x->slen)
		return 1;
	x->at = STP_BOUND(i, MAXSTRINGLEN - 1);
	x->differs = 0;
	bpf_loop(MAXSTRINGLEN, stp_strpos_cmp, x, 0);
	if (x->differs)
		return 0;
	x->found = (long)i;
	return 1;
}

static __always_inline int64_t stp_strpos(const char *s, const char *needle)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	struct stp_strpos_ctx x = { .found = -1 };
	long n;

	if (!c)
		return -1;
	x.c = c;
	__builtin_memset(c->cat + MAXSTRINGLEN, 0, MAXSTRINGLEN);
	n = bpf_probe_read_kernel_str(c->cat, MAXSTRINGLEN, s);
	x.slen = n > 0 ? n - 1 : 0;
	n = bpf_probe_read_kernel_str(c->error_buf, MAXSTRINGLEN, needle);   /* error_buf: free until an error */
	x.nlen = n > 0 ? n - 1 : 0;
	if (!x.nlen)
		return 0;
	bpf_loop(MAXSTRINGLEN, stp_strpos_at, &x, 0);
	return x.found;
}
/* isinstr()'s strstr(s, needle) != NULL */
#define strstr(s, needle) (stp_strpos((s), (needle)) >= 0 ? (s) : NULL)

/* strtol()'s simple_strtol(s, NULL, base): an optional sign, "0x" for base 16 (base 0: 0x, 0 or decimal),
 * the digits (0-9, a-f) up to the first that is not one in base (the kernel's) */
static __always_inline long simple_strtol(const char *s, void *end, unsigned int base)
{
	char buf[24];
	u64 v = 0;
	int i = 0, neg = 0;

	(void)end;
	if (bpf_probe_read_kernel_str(buf, sizeof(buf), s) < 0)
		return 0;
	if (buf[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (base == 0 || base == 16) {
		if (buf[i] == '0' && (buf[i + 1] == 'x' || buf[i + 1] == 'X')) {
			i += 2;
			base = 16;
		} else if (base == 0) {
			base = buf[i] == '0' ? 8 : 10;
		}
	}
	for (int k = 0; k < 22; k++) {
		char ch = buf[(unsigned int)(i + k) < sizeof(buf) ? (unsigned int)(i + k) : sizeof(buf) - 1];
		unsigned int d;

		if (ch >= '0' && ch <= '9')
			d = ch - '0';
		else if (ch >= 'a' && ch <= 'f')   /* the kernel's digits: hexadecimal ones at most */
			d = ch - 'a' + 10;
		else if (ch >= 'A' && ch <= 'F')
			d = ch - 'A' + 10;
		else
			break;
		if (d >= base)
			break;
		v = v * base + d;
	}
	return neg ? -(long)v : (long)v;
}

/* a string comparison within n bytes (a constant): foreach's order of string values (translator/bpfprog/loops.c) */
static __always_inline int stp_strncmp(const char *a, const char *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		unsigned char x = a[i], y = b[i];

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			return 0;
	}
	return 0;
}
/* the lowering's strcmp for ==, <, ...: at most MAXSTRINGLEN bytes */
#define stp_strcmp(a, b) stp_strncmp((a), (b), MAXSTRINGLEN)
/* two string keys of an array's map (n bytes, a multiple of 8, zeros after the string: bpfmaps.c's keys):
 * strcmp's order, eight bytes at a time (a few steps for the verifier where bytes would take hundreds) */
static __always_inline int stp_key_strcmp(const char *a, const char *b, unsigned int n)
{
	const u64 *x = (const u64 *)a, *y = (const u64 *)b;

	for (unsigned int i = 0; i < n / 8; i++) {
		if (x[i] != y[i]) {
			u64 p = __builtin_bswap64(x[i]), q = __builtin_bswap64(y[i]);
			return p < q ? -1 : 1;
		}
	}
	return 0;
}
#define strcmp(a, b) stp_strcmp((a), (b))

/* =~ and !~ (translator/bpfprog/dfamatch.c): the pattern's DFA (translator/lib/rxdfa.c: classes of bytes, the next
 * states, what each state accepts) walked over the subject, copied into c->rx, one byte per bpf_loop iteration
 * of the pattern's callback; the walk ends at an accepting state or at the string's end */
struct stp_rxd_run {
	struct stp_context *c;
	unsigned int state;
	int result;
};

static __always_inline long stp_rxd_step(struct stp_rxd_run *r, u64 i, const unsigned char *cls,
					 const unsigned short *next, const unsigned char *accept, unsigned int nstates,
					 unsigned int nclasses)
{
	unsigned int st = r->state, ch;

	if (st >= nstates)
		return 1;
	if (accept[st] & 1) {           /* RXD_NOW */
		r->result = 1;
		return 1;
	}
	ch = (unsigned char)r->c->rx[i & (MAXSTRINGLEN - 1)];
	if (!ch || i >= MAXSTRINGLEN - 1) {
		r->result = (accept[st] >> 1) & 1;   /* RXD_END */
		return 1;
	}
	st = st * nclasses + cls[ch];
	if (st >= nstates * nclasses)
		return 1;
	r->state = next[st];
	return 0;
}

static __always_inline int64_t stp_rxd_match(struct stp_context *c, const char *s, long (*step)(u64, void *))
{
	struct stp_rxd_run r = { .c = c };

	if (bpf_probe_read_kernel_str(c->rx, MAXSTRINGLEN, s) < 0)
		c->rx[0] = 0;
	bpf_loop(MAXSTRINGLEN, step, &r, 0);
	return r.result;
}

#endif
