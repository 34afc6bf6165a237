/* stats.h - statistics on the BPF runtime (runtime/stats/stat.c's names over stats/statdata.h's arithmetic,
 * shared with the module): x <<< v into this CPU's accumulator of a per-CPU array, the extractors reading every
 * CPU's merged; a histogram leaves as a record that stapio draws (stapio/bpfhist.c). */
#ifndef STP_BPF_STATS_H
#define STP_BPF_STATS_H

#define STP_BPF_MAX_CPUS 1024           /* the CPUs a merge looks at, at most */

/* a statistic's shape: translator/bpfprog/object.c's NAME__shape beside its map NAME */
#define STP_STAT_SHAPE(st) (&st##__shape)

static __always_inline struct stp_stat_data *stp_stat_this_cpu(void *map)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(map, &zero);
}

/* x <<< v (variance and htype are the translator's: its shape's) */
#define stp_stat_add_as(st, v, variance, htype, keep)				\
	do {									\
		struct stp_stat_data *sd_ = stp_stat_this_cpu(&(st));		\
		if (sd_)							\
			stp_stat_data_add_as(STP_STAT_SHAPE(st), sd_, (v), (variance), (htype), (keep)); \
	} while (0)

#define stp_stat_count_inc(st)							\
	do {									\
		struct stp_stat_data *sd_ = stp_stat_this_cpu(&(st));		\
		if (sd_)							\
			sd_->count++;						\
	} while (0)

/* an accumulator zeroed, its histogram too when it has one (in halves: clang inlines no larger memset) */
static __always_inline void stp_stat_zero(struct stp_stat_data *sd, bool hist)
{
	__builtin_memset(sd, 0, __builtin_offsetof(struct stp_stat_data, hist));
	if (hist) {   /* the barriers keep clang from joining them into one */
		asm volatile("" ::: "memory");
		__builtin_memset(sd->hist, 0, sizeof(sd->hist) / 2);
		asm volatile("" ::: "memory");
		__builtin_memset(sd->hist + STP_MAX_BUCKETS / 2, 0, sizeof(sd->hist) / 2);
	}
}

/* src's accumulator into dst, its histogram too when it has one */
static __always_inline void stp_stat_copy(struct stp_stat_data *dst, const struct stp_stat_data *src, bool hist)
{
	__builtin_memcpy(dst, src, __builtin_offsetof(struct stp_stat_data, hist));
	if (hist) {
		asm volatile("" ::: "memory");
		__builtin_memcpy(dst->hist, src->hist, sizeof(dst->hist) / 2);
		asm volatile("" ::: "memory");
		__builtin_memcpy(dst->hist + STP_MAX_BUCKETS / 2, src->hist + STP_MAX_BUCKETS / 2, sizeof(dst->hist) / 2);
	}
}

/* one CPU's accumulator into the merge (a bpf_loop callback: BPF cannot follow a loop over every CPU) */
struct stp_stat_merge {
	void *map;
	const void *key;                /* an array's entry (stp_pmap_*), NULL for a statistic */
	const struct stp_stat_shape *sh;
	struct stp_stat_data *agg;
	int clear;                      /* zero each instead */
};

static long stp_stat_merge_cpu(u32 cpu, void *ctx)
{
	struct stp_stat_merge *m = ctx;
	struct stp_stat_data *sd;
	u32 zero = 0;

	sd = bpf_map_lookup_percpu_elem(m->map, m->key ? m->key : &zero, cpu);
	if (!sd)
		return m->key ? 0 : 1;   /* an entry absent here (deleted meanwhile); a statistic's CPUs end */
	if (m->clear) {
		stp_stat_zero(sd, m->sh->htype != STP_HIST_NONE);
		return 0;
	}
	{
		struct stp_stat_shape sh = *m->sh;
		if (sh.htype == STP_HIST_NONE)   /* the map's values have no histogram */
			sh.buckets = 0;
		if (!m->key)
			stp_stat_merge_one(&sh, m->agg, sd);
		else if (!sd->count)
			;   /* a CPU that added nothing to the entry */
		else if (m->agg->count)   /* an array's entry: its CPUs pairwise, as the module's (stats/pmap.c) */
			stp_stat_merge_pair(&sh, m->agg, sd);
		else if (sd->count)
			stp_stat_copy(m->agg, sd, sh.htype != STP_HIST_NONE);
	}
	return 0;
}

/* every CPU's accumulator merged into this CPU's context (count 0 when empty) */
static __always_inline struct stp_stat_data *stp_stat_merge_key(void *map, const struct stp_stat_shape *sh,
								 const void *key)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);
	struct stp_stat_merge m = { .map = map, .sh = sh, .key = key };

	if (!c)
		return NULL;
	m.agg = &c->stat;
	stp_stat_zero(m.agg, sh->htype != STP_HIST_NONE);
	bpf_loop(STP_BPF_MAX_CPUS, stp_stat_merge_cpu, &m, 0);
	if (!key)
		stp_stat_merge_end(sh, m.agg);
	return &c->stat;
}
#define stp_stat_get(st) stp_stat_merge_key(&(st), STP_STAT_SHAPE(st), NULL)

/* An array of statistics: a per-CPU hash map of accumulators (translator/bpfprog/bpfmaps.c), its entry's
 * key built by NAME__key; x[k] <<< v adds into this CPU's (gm_NAME__slot), the rest merge the CPUs'. */
#define stp_pmap_cpu(m) 0
static __always_inline struct stp_stat_data *stp_pmap_merge(void *map, const struct stp_stat_shape *sh, const void *key)
{
	if (!key || !bpf_map_lookup_elem(map, key))
		return NULL;
	return stp_stat_merge_key(map, sh, key);
}
#define stp_pmap_get(m, k) stp_pmap_merge(&(m), STP_STAT_SHAPE(m), m##__key(k))
#define stp_pmap_get_iter(m, k) stp_pmap_get(m, k)
#define stp_pmap_exists(m, k)							\
	({ const void *k_ = m##__key(k); k_ && bpf_map_lookup_elem(&(m), k_) != NULL; })
#define stp_pmap_delete(m, k)							\
	do {									\
		const void *k_ = m##__key(k);					\
		if (k_) {							\
			bpf_map_delete_elem(&(m), k_);				\
			m##__forget(k_);					\
		}								\
	} while (0)
#define stp_pmap_clear(m) do { stp_map_clear(m); m##__forget_all(); } while (0)

static __always_inline void stp_stat_reset(void *map, const struct stp_stat_shape *sh)
{
	struct stp_stat_merge m = { .map = map, .sh = sh, .clear = 1 };

	bpf_loop(STP_BPF_MAX_CPUS, stp_stat_merge_cpu, &m, 0);
}
#define stp_stat_clear(st) stp_stat_reset(&(st), STP_STAT_SHAPE(st))

/* print(@hist_log(x)): the output so far, then the shape and the buckets as a record stapio draws */
static __always_inline void stp_hist_print(struct stp_out *o, const struct stp_stat_shape *sh,
					   const struct stp_stat_data *sd)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);

	if (!c)
		return;
	(void)o;                        /* c->out: into a string (sprint) is refused (translator/bpfprog) */
	stp_flush(&c->out);
	c->hist.head.type = STP_BPF_REC_HIST;
	c->hist.width = HIST_WIDTH;
	c->hist.elision = HIST_ELISION;
	c->hist.head.len = sizeof(c->hist) - sizeof(c->hist.head);
	c->hist.htype = sh->htype;
	c->hist.buckets = sh->buckets;
	c->hist.start = sh->start;
	c->hist.interval = sh->interval;
	__builtin_memcpy(c->hist.counts, sd->hist, sizeof(c->hist.counts));
	if (bpf_ringbuf_output(&stp_ring, &c->hist, sizeof(c->hist), 0))
		stp_lost(sizeof(c->hist));
}

#endif
