/* stats.h - scalar statistics on the BPF runtime (runtime/stats/stat.c's names): x <<< v into this CPU's
 * accumulator of a per-CPU array, the extractors reading every CPU's merged (no histograms or variance yet). */
#ifndef STP_BPF_STATS_H
#define STP_BPF_STATS_H

enum { STP_HIST_NONE, STP_HIST_LOG, STP_HIST_LINEAR };
#define STP_STAT_COUNT  0
#define STP_STAT_SUM    1
#define STP_STAT_MINMAX 2
#define STP_STAT_ALL    (STP_STAT_SUM | STP_STAT_MINMAX)
#define STP_BPF_MAX_CPUS 1024           /* the CPUs a merge looks at, at most */

static __always_inline void stp_stat_data_add_as(struct stp_stat_data *sd, int64_t v, unsigned int keep)
{
	if (keep == STP_STAT_COUNT) {
		sd->count++;
		return;
	}
	if (sd->count == 0) {
		sd->count = 1;
		sd->sum = v;
		sd->min = sd->max = v;
		return;
	}
	sd->count++;
	sd->sum = (int64_t)((u64)sd->sum + (u64)v);
	if ((keep & STP_STAT_MINMAX) && v > sd->max)
		sd->max = v;
	if ((keep & STP_STAT_MINMAX) && v < sd->min)
		sd->min = v;
}

/* x <<< v (variance and htype are the translator's: none here) */
#define stp_stat_add_as(st, v, variance, htype, keep)				\
	do {									\
		u32 zero_ = 0;							\
		struct stp_stat_data *sd_ = bpf_map_lookup_elem(&(st), &zero_);	\
		if (sd_)							\
			stp_stat_data_add_as(sd_, (v), (keep));			\
	} while (0)

#define stp_stat_count_inc(st)							\
	do {									\
		u32 zero_ = 0;							\
		struct stp_stat_data *sd_ = bpf_map_lookup_elem(&(st), &zero_);	\
		if (sd_)							\
			sd_->count++;						\
	} while (0)

/* one CPU's accumulator into the merge (a bpf_loop callback: BPF cannot follow a loop over every CPU) */
struct stp_stat_merge {
	void *map;
	struct stp_stat_data *agg;
	int clear;                      /* zero each instead */
};

static long stp_stat_merge_one(u32 cpu, void *ctx)
{
	struct stp_stat_merge *m = ctx;
	struct stp_stat_data *agg = m->agg, *sd;
	u32 zero = 0;

	sd = bpf_map_lookup_percpu_elem(m->map, &zero, cpu);
	if (!sd)
		return 1;
	if (m->clear) {
		__builtin_memset(sd, 0, sizeof(*sd));
		return 0;
	}
	if (!sd->count || !agg)
		return 0;
	if (!agg->count || sd->min < agg->min)
		agg->min = sd->min;
	if (!agg->count || sd->max > agg->max)
		agg->max = sd->max;
	agg->count += sd->count;
	agg->sum = (int64_t)((u64)agg->sum + (u64)sd->sum);
	return 0;
}

/* every CPU's accumulator merged into this CPU's context (count 0 when empty) */
static __always_inline struct stp_stat_data *stp_stat_merge(void *map)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	struct stp_stat_merge m = { .map = map };

	if (!c)
		return NULL;
	m.agg = &c->stat;
	__builtin_memset(m.agg, 0, sizeof(*m.agg));
	bpf_loop(STP_BPF_MAX_CPUS, stp_stat_merge_one, &m, 0);
	return &c->stat;
}
#define stp_stat_get(st) stp_stat_merge(&(st))

static __always_inline void stp_stat_reset(void *map)
{
	struct stp_stat_merge m = { .map = map, .clear = 1 };

	bpf_loop(STP_BPF_MAX_CPUS, stp_stat_merge_one, &m, 0);
}
#define stp_stat_clear(st) stp_stat_reset(&(st))

static __always_inline int64_t stp_stat_avg(const struct stp_stat_data *sd)
{
	u64 q = stp_abs64(sd->sum) / stp_abs64(sd->count);

	return sd->sum < 0 ? (int64_t)(0 - q) : (int64_t)q;
}

#endif
