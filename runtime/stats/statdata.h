/* statdata.h - a statistic's accumulator and its arithmetic (shapes, buckets, x <<< v, merging, variance), the
 * same for every runtime: included by stats/stat.c (the module's) and bpf/stats.h, which give div64_s64, div64_u64,
 * fls64, and may set STP_STAT_HIST_DIM (the histogram's array: flexible unless set), STP_STAT_BUCKET_INDEX and
 * STP_STAT_READ_ONCE. */
#ifndef STP_STATDATA_H
#define STP_STATDATA_H

#ifndef STP_STAT_HIST_DIM
#define STP_STAT_HIST_DIM
#endif
#ifndef STP_STAT_BUCKET_INDEX   /* a bucket's number as an index (a runtime may bound it for its checker) */
#define STP_STAT_BUCKET_INDEX(b) (b)
#endif
#ifndef STP_STAT_READ_ONCE
#define STP_STAT_READ_ONCE(x) READ_ONCE(x)
#endif

/* Histogram shapes.  A log histogram has 128 buckets: bucket 64 holds 0,
 * 65 + n holds [2^n, 2^(n+1)), 63 - n holds (-2^(n+1), -2^n] (so 63 is -1,
 * 62 is -2 and -3, 0 is INT64_MIN).  A linear one @hist_linear(v, L, H, W)
 * has (H - L) / W + 3 buckets: 0 is the underflow (v < L), bucket i (1 ...)
 * holds [L + (i-1)W, L + iW), the last one the overflow; the bucket just
 * before the overflow is the one starting at H (it holds [H, H + W)). */
enum { STP_HIST_NONE, STP_HIST_LOG, STP_HIST_LINEAR };

#define STP_HIST_LOG_ZERO 64    /* STP_HIST_LOG_BUCKETS, STP_MAX_BUCKETS: core/limits.h */

/* What every accumulator of one statistics global looks like (fixed at load). */
struct stp_stat_shape {
	int htype;
	int buckets;
	int64_t start, interval;        /* linear */
	int shift;                      /* @variance(x, shift): scaled integer arithmetic */
	bool variance;                  /* @variance is used: keep its running state */
	unsigned int data_size;         /* bytes of one struct stp_stat_data */
};

/* One accumulator.  Per CPU, avg_s, m2 and variance_s are Welford's running
 * mean (scaled by 2^shift), sum of squared deviations and variance.  In a
 * merged result they are the mean and variance (scaled) of all CPUs; t1, t2
 * and s2 are scratch of the merge of a scalar. */
struct stp_stat_data {
	int64_t count, sum, min, max;
	int64_t avg_s, m2, variance_s;
	int64_t t1, t2, s2;
	int64_t hist[STP_STAT_HIST_DIM];
};

/* ---- buckets ---- */

static __maybe_unused int stp_hist_log_bucket(int64_t v)
{
	if (v == 0)
		return STP_HIST_LOG_ZERO;
	if (v > 0)
		return STP_HIST_LOG_ZERO + fls64(v);
	return STP_HIST_LOG_ZERO - fls64(0 - (uint64_t)v);
}

/* The value a log bucket is labelled with: its bound nearest to zero. */
static __maybe_unused int64_t stp_hist_log_value(int b)
{
	if (b == STP_HIST_LOG_ZERO)
		return 0;
	if (b < STP_HIST_LOG_ZERO)
		return S64_MIN >> b;
	return 1LL << (b - STP_HIST_LOG_ZERO - 1);
}

static __maybe_unused int stp_hist_bucket(const struct stp_stat_shape *sh, int64_t v)
{
	uint64_t n;

	if (sh->htype == STP_HIST_LOG)
		return stp_hist_log_bucket(v);
	if (v < sh->start)
		return 0;
	n = div64_u64((uint64_t)v - (uint64_t)sh->start, sh->interval) + 1;
	return n >= (uint64_t)sh->buckets - 1 ? sh->buckets - 1 : (int)n;
}

/* ---- adding ---- */

static inline __maybe_unused int64_t stp_shl_wrap(int64_t v, int shift)
{
	return (int64_t)((uint64_t)v << shift);
}

/* What an add keeps besides the count, when the translator knows which operators read the
 * statistic: STP_STAT_COUNT (0) nothing more, as only @count reads it; the sum (@sum, @avg, the
 * variance's mean); the extremes (@min, @max).  The rest stay as they are. */
#define STP_STAT_COUNT  0
#define STP_STAT_SUM    1
#define STP_STAT_MINMAX 2
#define STP_STAT_ALL    (STP_STAT_SUM | STP_STAT_MINMAX)

/* Adds v; variance and htype are sh's, given apart so that a caller that knows them at compile
 * time (generated code: x <<< v) gets only the work its global's shape needs, as keep says. */
static __always_inline __maybe_unused void stp_stat_data_add_as(const struct stp_stat_shape *sh, struct stp_stat_data *sd,
						 int64_t v, bool variance, int htype, unsigned int keep)
{
	if (keep == STP_STAT_COUNT) {
		sd->count++;
		return;
	}
	if (sd->count == 0) {
		sd->count = 1;
		sd->sum = v;
		if (keep & STP_STAT_MINMAX)
			sd->min = sd->max = v;
		sd->avg_s = stp_shl_wrap(v, sh->shift);
		sd->m2 = 0;
	} else {
		sd->count++;
		sd->sum = (int64_t)((uint64_t)sd->sum + (uint64_t)v);
		if ((keep & STP_STAT_MINMAX) && v > sd->max)
			sd->max = v;
		if ((keep & STP_STAT_MINMAX) && v < sd->min)
			sd->min = v;
		if (variance) {
			/* Welford's online update, in integers scaled by 2^shift */
			int64_t vs = stp_shl_wrap(v, sh->shift);
			int64_t delta = (int64_t)((uint64_t)vs - (uint64_t)sd->avg_s);

			sd->avg_s = (int64_t)((uint64_t)sd->avg_s + (uint64_t)div64_s64(delta, sd->count));
			sd->m2 = (int64_t)((uint64_t)sd->m2 +
					   (uint64_t)delta * ((uint64_t)vs - (uint64_t)sd->avg_s));
			sd->variance_s = div64_s64(sd->m2, sd->count - 1);
		}
	}
	if (htype != STP_HIST_NONE)
		sd->hist[STP_STAT_BUCKET_INDEX(stp_hist_bucket(sh, v))]++;
}

static __maybe_unused void stp_stat_data_add(const struct stp_stat_shape *sh, struct stp_stat_data *sd, int64_t v)
{
	stp_stat_data_add_as(sh, sd, v, sh->variance, sh->htype, STP_STAT_ALL);
}

/* ---- merging ---- */

static __maybe_unused void stp_stat_merge_begin(const struct stp_stat_shape *sh, struct stp_stat_data *agg)
{
	memset(agg, 0, sh->data_size);
}

/* Adds one CPU's accumulator into agg.  The CPUs' variances are combined by
 * the total variance formula: (sum n_i (a_i - A)^2 + sum (n_i - 1) v_i) /
 * (N - 1), A the mean of all; the first sum is gathered as sum n_i a_i^2 and
 * sum n_i a_i (t1, t2), equal to it in wrapping 64-bit arithmetic. */
static __maybe_unused void stp_stat_merge_one(const struct stp_stat_shape *sh, struct stp_stat_data *agg,
			       const struct stp_stat_data *sd)
{
	/* read once: a statistic counted without a lock (stp_stat_count_inc) may grow meanwhile */
	int64_t count = STP_STAT_READ_ONCE(sd->count);
	int i;

	if (!count)
		return;
	if (!agg->count || sd->min < agg->min)
		agg->min = sd->min;
	if (!agg->count || sd->max > agg->max)
		agg->max = sd->max;
	agg->count += count;
	agg->sum = (int64_t)((uint64_t)agg->sum + (uint64_t)sd->sum);
	agg->t1 = (int64_t)((uint64_t)agg->t1 + (uint64_t)count * (uint64_t)sd->avg_s * (uint64_t)sd->avg_s);
	agg->t2 = (int64_t)((uint64_t)agg->t2 + (uint64_t)count * (uint64_t)sd->avg_s);
	agg->s2 = (int64_t)((uint64_t)agg->s2 + (uint64_t)(count - 1) * (uint64_t)sd->variance_s);
	for (i = 0; i < sh->buckets && i < STP_MAX_BUCKETS; i++)
		agg->hist[i] += sd->hist[i];
}

static __maybe_unused void stp_stat_merge_end(const struct stp_stat_shape *sh, struct stp_stat_data *agg)
{
	uint64_t a, s1;

	if (!agg->count)
		return;
	agg->avg_s = div64_s64(stp_shl_wrap(agg->sum, sh->shift), agg->count);
	a = agg->avg_s;
	s1 = (uint64_t)agg->t1 - 2 * a * (uint64_t)agg->t2 + a * a * (uint64_t)agg->count;
	agg->variance_s = agg->count > 1 ? div64_s64((int64_t)(s1 + (uint64_t)agg->s2), agg->count - 1) : 0;
}

/* Statistics arrays merge their CPUs pairwise, as SystemTap's do: the first
 * CPU's accumulator is copied (its running mean and variance with it), each
 * next one combined into it by the same total variance formula over the two,
 * the mean of the pair recomputed from their sum.  Both counts are > 0. */
static __maybe_unused void stp_stat_merge_pair(const struct stp_stat_shape *sh, struct stp_stat_data *d,
				const struct stp_stat_data *s)
{
	int64_t c1 = d->count, a1 = d->avg_s;
	int i;

	d->count += s->count;
	d->sum = (int64_t)((uint64_t)d->sum + (uint64_t)s->sum);
	if (s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	if (sh->variance) {
		int64_t a = div64_s64(stp_shl_wrap(d->sum, sh->shift), d->count);
		uint64_t x = (uint64_t)a1 - (uint64_t)a, y = (uint64_t)s->avg_s - (uint64_t)a;
		uint64_t t = (uint64_t)c1 * x * x + (uint64_t)(c1 - 1) * (uint64_t)d->variance_s +
			     (uint64_t)s->count * y * y + (uint64_t)(s->count - 1) * (uint64_t)s->variance_s;

		d->avg_s = a;
		d->variance_s = div64_s64((int64_t)t, d->count - 1);
	}
	for (i = 0; i < sh->buckets; i++)
		d->hist[i] += s->hist[i];
}

/* The operators on a merged accumulator (count > 0 for all but @count/@sum). */
static inline __maybe_unused int64_t stp_stat_avg(const struct stp_stat_data *sd)
{
	return div64_s64(sd->sum, sd->count);
}

static inline __maybe_unused int64_t stp_stat_variance(const struct stp_stat_shape *sh, const struct stp_stat_data *sd)
{
	int s = 2 * sh->shift;

	if (s >= 64)
		return sd->variance_s < 0 ? -1 : 0;
	return sd->variance_s >> s;
}

#endif
