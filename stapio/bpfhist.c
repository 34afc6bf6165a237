/* bpfhist.c - a BPF run's histogram records (runtime/bpf/records.h) drawn as the module draws them: the
 * module's own runtime/stats/hist.c, compiled here over a user-space output; used by bpfrun.c. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfglue.h"
#include "../runtime/bpf/records.h"

/* what hist.c and stats/statdata.h name of the kernel and of the module's runtime */
typedef int64_t s64;
typedef uint64_t u64;
#define __maybe_unused __attribute__((unused))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define READ_ONCE(x) (x)
#define S64_MIN INT64_MIN
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
static int64_t div64_s64(int64_t a, int64_t b) { return a / b; }
static uint64_t div64_u64(uint64_t a, uint64_t b) { return a / b; }
static int fls64(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }
/* the object's settings, from the record: the module's compile-time ones */
static int hist_width = 50, hist_elision = 2;
#define HIST_WIDTH_MAX 1000
#define HIST_WIDTH hist_width
#define HIST_ELISION hist_elision
#include "../runtime/core/limits.h"
#include "../runtime/output/fmtflags.h"
#include "../runtime/stats/statdata.h"

/* the output hist.c writes into: a buffer, then the run's output */
struct stp_out {
	char buf[STP_BPF_HIST_BUCKETS * (HIST_WIDTH_MAX + 64) + 256];
	size_t len;
};
struct stp_fmt {
	unsigned char flags;
	char conv;
	int width, prec;
};

static void stp_out_bytes(struct stp_out *o, const char *s, size_t n)
{
	if (n > sizeof(o->buf) - o->len)
		n = sizeof(o->buf) - o->len;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void stp_out_str(struct stp_out *o, const char *s)
{
	stp_out_bytes(o, s, strlen(s));
}

static void stp_out_pad(struct stp_out *o, char ch, int n)
{
	while (n-- > 0)
		stp_out_bytes(o, &ch, 1);
}

static void stp_out_fmt_long(struct stp_out *o, const struct stp_fmt *f, int64_t v)
{
	char num[HIST_WIDTH_MAX + 64];
	int n = snprintf(num, sizeof(num), "%*lld", f->width < HIST_WIDTH_MAX + 32 ? f->width : HIST_WIDTH_MAX + 32, (long long)v);

	if (n > 0)
		stp_out_bytes(o, num, (size_t)n < sizeof(num) ? (size_t)n : sizeof(num) - 1);
}

#include "../runtime/stats/hist.c"

void bpf_hist_draw(struct bpf_output *out, const void *rec, size_t size)
{
	const struct stp_bpf_hist_rec *h = rec;
	struct stp_stat_shape sh = { 0 };
	struct {
		struct stp_stat_data d;
		int64_t hist[STP_BPF_HIST_BUCKETS];
	} *data = calloc(1, sizeof(*data));
	struct stp_out *o = calloc(1, sizeof(*o));

	if (data && o && size >= sizeof(*h) && h->buckets > 0 && h->buckets <= STP_BPF_HIST_BUCKETS &&
	    h->width > 0 && h->width <= HIST_WIDTH_MAX &&
	    (h->htype == STP_HIST_LOG || (h->htype == STP_HIST_LINEAR && h->interval > 0))) {
		hist_width = h->width;
		hist_elision = h->elision;
		sh.htype = h->htype;
		sh.buckets = h->buckets;
		sh.start = h->start;
		sh.interval = h->interval;
		memcpy(data->d.hist, h->counts, sizeof(h->counts));
		stp_hist_print(o, &sh, &data->d);
		bpf_output_text(out, o->buf, o->len);
	}
	free(data);
	free(o);
}
