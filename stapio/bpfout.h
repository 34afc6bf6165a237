/* bpfout.h - the kernel's names the runtime's shared formatting uses (output/fmtconv.h, stats/hist.c), for user
 * space, and struct stp_out as a growing buffer: how bpfhist.c and bpfformat.c write as the module writes. */
#ifndef STAPIO_BPFOUT_H
#define STAPIO_BPFOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t s64;
typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
#define __maybe_unused __attribute__((unused))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define READ_ONCE(x) (x)
#define S64_MIN INT64_MIN
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
static inline int64_t div64_s64(int64_t a, int64_t b) { return a / b; }
static inline uint64_t div64_u64(uint64_t a, uint64_t b) { return a / b; }
static inline int fls64(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* what is written, up to STP_OUT_LIMIT bytes (one record's formatting; the rest is cut) */
#define STP_OUT_LIMIT (1u << 20)
struct stp_out {
	char *buf;
	size_t len, cap;
};

static inline void stp_out_bytes(struct stp_out *o, const char *s, size_t n)
{
	if (n > STP_OUT_LIMIT - o->len)
		n = STP_OUT_LIMIT - o->len;
	if (!n)
		return;
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		char *b;

		while (cap < o->len + n)
			cap *= 2;
		b = realloc(o->buf, cap);
		if (!b)
			return;
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void stp_out_str(struct stp_out *o, const char *s)
{
	stp_out_bytes(o, s, strlen(s));
}

#include "../runtime/core/limits.h"      /* MAXSTRINGLEN: a record's strings are the object's */
#include "../runtime/output/fmtconv.h"

#endif
