/* strings.h - the BPF runtime's string values (core/strings.h's names): MAXSTRINGLEN buffers in the context's
 * frames or the globals, copied with the kernel's bounded string read. */
#ifndef STP_BPF_STRINGS_H
#define STP_BPF_STRINGS_H

#include "core/utf8.h"

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
	char *dst;              /* str_replace()'s result */
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
/* tokenize() (core/strfuncs.h's stp_tokenize): the string kept in this CPU's context from where the last call left
 * it, a non-empty input replacing it first; the delimiters a 256-bit set (their bytes copied into c->rx), then a
 * bpf_loop over the rest skipping delimiters and copying the token up to the next one */
struct stp_tok_ctx {
	struct stp_context *c;
	char *dst;
	u64 from;               /* the rest's start */
};

/* what the callbacks change lives in the context (c->tok_set, tok_start, tok_end, tok_next), whose values the
 * verifier does not take for constants: kernels before 6.7 verify a callback once, from the caller's state, and
 * would hard-wire a test of a value on the stack that only a later iteration changes */
static long stp_tok_delim(u64 i, void *data)
{
	struct stp_tok_ctx *x = data;
	unsigned char ch = x->c->rx[STP_BOUND(i, MAXSTRINGLEN - 1)];

	if (!ch)
		return 1;
	x->c->tok_set[(ch >> 6) & 3] |= 1ULL << (ch & 63);
	return 0;
}

static long stp_tok_step(u64 i, void *data)
{
	struct stp_tok_ctx *x = data;
	struct stp_context *c = x->c;
	u64 at = STP_BOUND(x->from + i, MAXSTRINGLEN - 1);
	unsigned char ch = c->tok_str[at];

	if (!ch || at == MAXSTRINGLEN - 1) {
		c->tok_end = c->tok_next = (long)at;
		return 1;
	}
	if ((c->tok_set[(ch >> 6) & 3] >> (ch & 63)) & 1) {
		if (c->tok_start < 0)
			return 0;       /* empty tokens are skipped */
		c->tok_end = (long)at;
		c->tok_next = (long)at + 1;
		return 1;
	}
	if (c->tok_start < 0)
		c->tok_start = (long)at;
	x->dst[STP_BOUND((u64)((long)at - c->tok_start), MAXSTRINGLEN - 1)] = ch;
	return 0;
}

static __always_inline void stp_tokenize(struct stp_context *c, char *dst, const char *input, const char *delim)
{
	struct stp_tok_ctx x = { .c = c, .dst = dst };
	long n;

	if (input[0]) {
		if (bpf_probe_read_kernel_str(c->tok_str, MAXSTRINGLEN, input) < 0)
			c->tok_str[0] = 0;
		c->tok_pos = 0;
	}
	if (bpf_probe_read_kernel_str(c->rx, MAXSTRINGLEN, delim) < 0)
		c->rx[0] = 0;
	__builtin_memset(c->tok_set, 0, sizeof(c->tok_set));
	c->tok_start = c->tok_next = -1;
	c->tok_end = 0;
	bpf_loop(MAXSTRINGLEN, stp_tok_delim, &x, 0);
	x.from = STP_BOUND((u64)c->tok_pos, MAXSTRINGLEN - 1);
	bpf_loop(MAXSTRINGLEN - x.from, stp_tok_step, &x, 0);
	n = c->tok_start >= 0 && c->tok_end > c->tok_start ? c->tok_end - c->tok_start : 0;
	dst[STP_BOUND((u64)n, MAXSTRINGLEN - 1)] = 0;
	c->tok_pos = c->tok_next < 0 ? (int)x.from : (int)c->tok_next;
}

/* str_replace() (core/strfuncs.h's stp_str_replace): s in c->cat (its second half zeros), find in c->error_buf (free
 * until an error) as strpos's needle, repl in c->rx; a bpf_loop over s's bytes writing at each either repl (find starts
 * there, as stp_strpos_cmp compares: the bytes it covers skipped) or the byte.  The lengths and positions live in the
 * context, whose values the verifier does not follow from one iteration to the next. */
static long stp_repl_copy(u64 j, void *data)
{
	struct stp_strpos_ctx *x = data;
	struct stp_context *c = x->c;

	if ((long)j >= c->sr_rlen || c->sr_pos >= MAXSTRINGLEN - 1)
		return 1;
	x->dst[STP_BOUND((u64)c->sr_pos, MAXSTRINGLEN - 1)] = c->rx[STP_BOUND(j, MAXSTRINGLEN - 1)];
	c->sr_pos++;
	return 0;
}

static long stp_repl_at(u64 i, void *data)
{
	struct stp_strpos_ctx *x = data;
	struct stp_context *c = x->c;

	if ((long)i >= c->sr_slen || c->sr_pos >= MAXSTRINGLEN - 1)
		return 1;
	if ((long)i < c->sr_skip)
		return 0;
	x->at = STP_BOUND(i, MAXSTRINGLEN - 1);
	x->differs = (long)i + c->sr_flen > c->sr_slen;
	if (!x->differs)
		bpf_loop(MAXSTRINGLEN, stp_strpos_cmp, x, 0);
	if (!x->differs) {
		bpf_loop(MAXSTRINGLEN, stp_repl_copy, x, 0);
		c->sr_skip = (long)i + c->sr_flen;
		return 0;
	}
	x->dst[STP_BOUND((u64)c->sr_pos, MAXSTRINGLEN - 1)] = c->cat[x->at];
	c->sr_pos++;
	return 0;
}

static __always_inline void stp_str_replace(char *dst, const char *s, const char *find, const char *repl)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	struct stp_strpos_ctx x = { .dst = dst };
	long n;

	if (!c) {
		dst[0] = 0;
		return;
	}
	x.c = c;
	__builtin_memset(c->cat + MAXSTRINGLEN, 0, MAXSTRINGLEN);
	n = bpf_probe_read_kernel_str(c->cat, MAXSTRINGLEN, s);
	c->sr_slen = n > 0 ? n - 1 : 0;
	n = bpf_probe_read_kernel_str(c->error_buf, MAXSTRINGLEN, find);
	c->sr_flen = x.nlen = n > 0 ? n - 1 : 0;
	n = bpf_probe_read_kernel_str(c->rx, MAXSTRINGLEN, repl);
	c->sr_rlen = n > 0 ? n - 1 : 0;
	c->sr_pos = 0;
	c->sr_skip = c->sr_flen ? 0 : MAXSTRINGLEN;   /* nothing to find: s unchanged */
	if (!c->sr_flen) {
		if (bpf_probe_read_kernel_str(dst, MAXSTRINGLEN, c->cat) < 0)
			dst[0] = 0;
		return;
	}
	bpf_loop(MAXSTRINGLEN, stp_repl_at, &x, 0);
	dst[STP_BOUND((u64)c->sr_pos, MAXSTRINGLEN - 1)] = 0;
}

/* The letter after '\\' escaping ch in a C literal quoted by quote (" or '), core/deref.h's stp_escape_char's: 0 when
 * ch needs none or an octal escape */
static __always_inline char stp_escape_letter(unsigned char ch, char quote)
{
	if (ch == (unsigned char)quote)
		return quote;
	switch (ch) {
	case '\\': return '\\';
	case '\n': return 'n';
	case '\t': return 't';
	case '\r': return 'r';
	case '\v': return 'v';
	case '\f': return 'f';
	case '\b': return 'b';
	case '\a': return 'a';
	}
	return 0;
}

/* text_str(), text_strn() and string_quoted() (core/strfuncs.h's stp_text_str and stp_text_char), json_string()
 * (its stp_json_str): the input in c->cat (its second half zeros: a sequence's bytes past the end read NUL), each
 * character escaped by a bpf_loop callback, the positions in the context (c->texting).  No static data in a
 * callback: clang 14 then leaves the callback without the BTF func_info the kernel needs. */
struct stp_text_ctx {
	struct stp_context *c;
	char *dst;
};

/* the escape of one character, esc's first len bytes (at most 10), into the output at t->q + t->used */
static __always_inline void stp_text_put(struct stp_text_ctx *x, const char *esc, long len)
{
	struct stp_texting *t = &x->c->texting;

#pragma unroll
	for (int k = 0; k < 10; k++)
		if (k < len)
			x->dst[STP_BOUND((u64)(t->q + t->used + k), MAXSTRINGLEN - 1)] = esc[k];
	t->used += len;
}

static long stp_text_step(u64 i, void *data)
{
	struct stp_text_ctx *x = data;
	struct stp_texting *t = &x->c->texting;
	const unsigned char *s = (const unsigned char *)x->c->cat + STP_BOUND((u64)t->in, MAXSTRINGLEN - 1);
	char esc[12];
	long len, n = stp_utf8_len(s);
	unsigned char b = s[0];
	char letter = stp_escape_letter(b, '"');
	u32 cp;

	if (t->in >= t->end || i >= MAXSTRINGLEN)
		return 1;
	if (t->used == t->budget) {
		t->cut_short = 1;
		return 1;
	}
	if (n > 1) {
		/* \uXXXX or \UXXXXXXXX of the code point */
		cp = n == 2 ? (b & 0x1f) << 6 | (s[1] & 0x3f)
		   : n == 3 ? (b & 0x0f) << 12 | (s[1] & 0x3f) << 6 | (s[2] & 0x3f)
			    : (b & 0x07) << 18 | (s[1] & 0x3f) << 12 | (s[2] & 0x3f) << 6 | (s[3] & 0x3f);
		len = cp <= 0xffff ? 6 : 10;
		esc[0] = '\\';
		esc[1] = cp <= 0xffff ? 'u' : 'U';
#pragma unroll
		for (int k = 9; k >= 2; k--)
			if (k < len) {
				esc[k] = (cp & 0xf) < 10 ? '0' + (cp & 0xf) : 'A' - 10 + (cp & 0xf);
				cp >>= 4;
			}
	} else if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') {
		n = 1;
		len = 1;
		esc[0] = b;
	} else if (letter) {
		n = 1;
		len = 2;
		esc[0] = '\\';
		esc[1] = letter;
	} else {
		n = 1;
		len = 4;
		esc[0] = '\\';
		esc[1] = '0' + ((b >> 6) & 7);
		esc[2] = '0' + ((b >> 3) & 7);
		esc[3] = '0' + (b & 7);
	}
	/* an escape over the cut mark: a cut string ends before it */
	if (len > 1 && t->cut < 0 && t->used < t->mark && t->mark < t->used + len)
		t->cut = t->used;
	if (len > t->budget - t->used) {
		t->cut_short = 1;
		return 1;
	}
	stp_text_put(x, esc, len);
	t->in += n;
	return 0;
}

/* s into c->cat, its second half zeros: its length, 0 without a context */
static __always_inline long stp_text_load(struct stp_context *c, const char *s)
{
	long n;

	__builtin_memset(c->cat + MAXSTRINGLEN, 0, MAXSTRINGLEN);
	n = bpf_probe_read_kernel_str(c->cat, MAXSTRINGLEN, s);
	return n > 0 ? n - 1 : 0;
}

static __always_inline void stp_text_str(char *dst, const char *s, int64_t outlen, bool quoted)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	struct stp_text_ctx x = { .c = c, .dst = dst };
	struct stp_texting *t;
	long used;

	dst[0] = 0;
	if (!c)
		return;
	t = &c->texting;
	t->end = stp_text_load(c, s);
	t->in = t->used = t->cut_short = 0;
	t->cut = -1;
	if (outlen <= 0 || outlen > MAXSTRINGLEN - 1)
		outlen = MAXSTRINGLEN - 1;
	t->budget = outlen;
	t->q = quoted ? 1 : 0;
	if (quoted) {
		t->budget = (t->budget < 5 ? 5 : t->budget) - 2;
		dst[0] = '"';
	}
	t->mark = t->budget - 3;        /* where a cut string's text ends (quoted) */
	bpf_loop(MAXSTRINGLEN, stp_text_step, &x, 0);
	used = t->used;
	if (quoted && t->cut_short) {
		used = t->cut >= 0 ? t->cut : t->mark;
		t->used = used;
		stp_text_put(&x, "\"...", 4);
	} else if (quoted) {
		stp_text_put(&x, "\"", 1);
	}
	dst[STP_BOUND((u64)(t->q + t->used), MAXSTRINGLEN - 1)] = 0;
}

static long stp_json_step(u64 i, void *data)
{
	struct stp_text_ctx *x = data;
	struct stp_texting *t = &x->c->texting;
	const unsigned char *s = (const unsigned char *)x->c->cat + STP_BOUND((u64)t->in, MAXSTRINGLEN - 1);
	int n;
	long len;
	char esc[8];

	if (t->in >= t->end || i >= MAXSTRINGLEN)
		return 1;
	len = stp_json_char(esc, s, &n);
	/* the last place a cut string's ...\" still fits after */
	if (t->cut < 0 && t->used + len > t->budget - 3)
		t->cut = t->used;
	if (t->used + len > t->budget) {
		t->cut_short = 1;
		return 1;
	}
	stp_text_put(x, esc, len);
	t->in += n;
	return 0;
}

static __always_inline void stp_json_str(char *dst, const char *s)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	struct stp_text_ctx x = { .c = c, .dst = dst };
	struct stp_texting *t;

	dst[0] = 0;
	if (!c)
		return;
	t = &c->texting;
	t->end = stp_text_load(c, s);
	t->in = t->cut_short = 0;
	t->used = 0;
	t->q = 1;
	t->cut = -1;
	t->budget = MAXSTRINGLEN - 3;   /* the room but the quotes */
	dst[0] = '"';
	bpf_loop(MAXSTRINGLEN, stp_json_step, &x, 0);
	if (t->cut_short) {
		t->used = t->cut;
		stp_text_put(&x, "...\"", 4);
	} else {
		stp_text_put(&x, "\"", 1);
	}
	dst[STP_BOUND((u64)(t->q + t->used), MAXSTRINGLEN - 1)] = 0;
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
};

/* the state and the result live in the context (c->rx_state, rx_result): kernels before 6.7 verify a callback once,
 * from the caller's state, and would take a state on the stack for the constant it starts as */
static __always_inline long stp_rxd_step(struct stp_rxd_run *r, u64 i, const unsigned char *cls,
					 const unsigned short *next, const unsigned char *accept, unsigned int nstates,
					 unsigned int nclasses)
{
	struct stp_context *c = r->c;
	unsigned int st = c->rx_state, ch;

	if (st >= nstates)
		return 1;
	if (accept[st] & 1) {           /* RXD_NOW */
		c->rx_result = 1;
		return 1;
	}
	ch = (unsigned char)c->rx[i & (MAXSTRINGLEN - 1)];
	if (!ch || i >= MAXSTRINGLEN - 1) {
		c->rx_result = (accept[st] >> 1) & 1;   /* RXD_END */
		return 1;
	}
	st = st * nclasses + cls[ch];
	if (st >= nstates * nclasses)
		return 1;
	c->rx_state = next[st];
	return 0;
}

static __always_inline int64_t stp_rxd_match(struct stp_context *c, const char *s, long (*step)(u64, void *))
{
	struct stp_rxd_run r = { .c = c };

	if (bpf_probe_read_kernel_str(c->rx, MAXSTRINGLEN, s) < 0)
		c->rx[0] = 0;
	c->rx_state = 0;
	c->rx_result = 0;
	bpf_loop(MAXSTRINGLEN, step, &r, 0);
	return c->rx_result;
}

#endif
