/* stat.c - statistics values (x <<< v): per-CPU accumulators (stats/statdata.h) with count, sum,
 * min, max, variance and an optional histogram, merged on read.  Used by generated code. */

#include <linux/math64.h>

#include "stats/statdata.h"

#define STP_STAT_SHAPE(st) (&(st)->shape)   /* a statistic's or an array of them's (pmap.c) shape */

static int stp_stat_shape_init(struct stp_stat_shape *sh, int htype, int64_t start, int64_t stop,
			       int64_t interval, int shift, int variance)
{
	sh->htype = htype;
	sh->start = start;
	sh->interval = interval;
	sh->shift = shift;
	sh->variance = variance;
	sh->buckets = 0;
	if (htype == STP_HIST_LOG) {
		sh->buckets = STP_HIST_LOG_BUCKETS;
	} else if (htype == STP_HIST_LINEAR) {
		uint64_t n;

		if (interval <= 0 || stop < start)
			return -EINVAL;
		n = div64_u64((uint64_t)stop - (uint64_t)start, interval) + 3;
		if (n > STP_MAX_BUCKETS)
			return -EINVAL;
		sh->buckets = n;
	}
	sh->data_size = sizeof(struct stp_stat_data) + sh->buckets * sizeof(int64_t);
	return 0;
}

/* ---- scalar statistics globals ---- */

struct stp_stat {
	struct stp_stat_shape shape;
	struct stp_stat_data __percpu *pcpu;
	struct stp_stat_data *agg;
};

static __maybe_unused struct stp_stat *stp_stat_new(int htype, int64_t start, int64_t stop, int64_t interval,
						    int shift, int variance)
{
	struct stp_stat *st = kzalloc(sizeof(*st), GFP_KERNEL);

	if (!st)
		return NULL;
	if (stp_stat_shape_init(&st->shape, htype, start, stop, interval, shift, variance))
		goto fail;
	st->pcpu = __alloc_percpu(st->shape.data_size, 8);
	st->agg = kzalloc(st->shape.data_size, GFP_KERNEL);
	if (!st->pcpu || !st->agg)
		goto fail;
	return st;
fail:
	if (st->pcpu)
		free_percpu(st->pcpu);
	kfree(st->agg);
	kfree(st);
	return NULL;
}

static __maybe_unused void stp_stat_free(struct stp_stat *st)
{
	if (!st)
		return;
	free_percpu(st->pcpu);
	kfree(st->agg);
	kfree(st);
}

/* x <<< v: this CPU's accumulator only (preemption is disabled, the global's
 * read lock held: other CPUs add to their own). */
static __maybe_unused void stp_stat_add(struct stp_stat *st, int64_t v)
{
	stp_stat_data_add(&st->shape, this_cpu_ptr(st->pcpu), v);
}

/* The same with the global's shape known at compile time (variance and htype as in st->shape;
 * keep: STP_STAT_*). */
static __always_inline __maybe_unused void stp_stat_add_as(struct stp_stat *st, int64_t v, bool variance, int htype,
							   unsigned int keep)
{
	stp_stat_data_add_as(&st->shape, this_cpu_ptr(st->pcpu), v, variance, htype, keep);
}

/* x <<< v on a statistic that only @count reads and that is never deleted (the translator's
 * choice, translator/codegen/stats.c: cg_stats_lockfree): this CPU's count alone, with one
 * this_cpu_inc and without the global's read lock.  Why no lock is needed:
 *   - Each CPU's count is written only by that CPU, here, with a single read-modify-write
 *     instruction (incq %gs:... on x86-64), which an interrupt or NMI on the same CPU cannot
 *     split; other CPUs only read it.  Nothing else ever writes it: it starts at 0 (alloc_percpu
 *     zeroes) and no `delete x` exists in the script (a clear racing with an add could lose the
 *     clear, so a deleted statistic keeps the lock); sum, min, max and the rest stay 0.
 *   - A reader (stp_stat_get, under the global's write lock, which still serializes the readers
 *     and their shared agg) loads each CPU's count once, whole (READ_ONCE of an aligned 64-bit
 *     word, which x86-64 never tears).  The total it sees is the count of every add that ended
 *     before it read that CPU plus possibly some that ran meanwhile: as if each add overlapping
 *     the read had happened wholly before or after it.  With the lock, such an add would have
 *     waited for the reader (or been skipped for contention): the same set of outcomes, minus
 *     the skips.
 *   - At the end of the session the probes are unregistered (and their hits finished) before
 *     the end probes read it, so @count there is exact.
 * The counter is 64 bits: this relies on this_cpu_inc being one instruction on it (64-bit
 * architectures). */
static __always_inline __maybe_unused void stp_stat_count_inc(struct stp_stat *st)
{
	this_cpu_inc(st->pcpu->count);
}

/* All CPUs merged (the global's write lock held); count 0 when empty. */
static __maybe_unused struct stp_stat_data *stp_stat_get(struct stp_stat *st)
{
	int cpu;

	stp_stat_merge_begin(&st->shape, st->agg);
	for_each_possible_cpu(cpu)
		stp_stat_merge_one(&st->shape, st->agg, per_cpu_ptr(st->pcpu, cpu));
	stp_stat_merge_end(&st->shape, st->agg);
	return st->agg;
}

/* delete x */
static __maybe_unused void stp_stat_clear(struct stp_stat *st)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(st->pcpu, cpu), 0, st->shape.data_size);
}
