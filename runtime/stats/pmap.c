/* pmap.c - statistics arrays (a[k1, k2] <<< v): one map per CPU, merged on
 * read into an aggregate map (SystemTap's pmap).  Used by generated code. */

struct stp_pmap {
	const char *name;
	struct stp_stat_shape shape;
	struct stp_map **maps;          /* per possible CPU, indexed by CPU number */
	struct stp_map *agg;            /* every key of every CPU, merged: foreach */
	struct stp_stat_data *one;      /* one key merged: @count(a[k]) ... */
	struct stp_stat_data *iter;     /* one key merged: foreach (b in @hist_log(a[k])) */
	char overflow_msg[96];
};

static __maybe_unused void stp_pmap_free(struct stp_pmap *pm)
{
	int cpu;

	if (!pm)
		return;
	if (pm->maps) {
		for_each_possible_cpu(cpu)
			stp_map_free(pm->maps[cpu]);
		kfree(pm->maps);
	}
	stp_map_free(pm->agg);
	kfree(pm->one);
	kfree(pm->iter);
	kfree(pm);
}

static __maybe_unused struct stp_pmap *stp_pmap_new(const char *name, long max_entries, unsigned int nkeys,
						    const u8 *keytypes, int wrap, int htype, int64_t start,
						    int64_t stop, int64_t interval, int shift, int variance)
{
	struct stp_pmap *pm = kzalloc(sizeof(*pm), GFP_KERNEL);
	int cpu;

	if (!pm)
		return NULL;
	pm->name = name;
	snprintf(pm->overflow_msg, sizeof(pm->overflow_msg), "aggregation overflow in %s", name);
	if (stp_stat_shape_init(&pm->shape, htype, start, stop, interval, shift, variance))
		goto fail;
	pm->maps = kcalloc(nr_cpu_ids, sizeof(*pm->maps), GFP_KERNEL);
	/* a wrapping array (global a%) wraps when merged too: the keys of all CPUs never overflow it */
	pm->agg = __stp_map_new(name, max_entries, nkeys, keytypes, STP_STAT, pm->shape.data_size, wrap);
	pm->one = kzalloc(pm->shape.data_size, GFP_KERNEL);
	pm->iter = kzalloc(pm->shape.data_size, GFP_KERNEL);
	if (!pm->maps || !pm->agg || !pm->one || !pm->iter)
		goto fail;
	for_each_possible_cpu(cpu) {
		pm->maps[cpu] = __stp_map_new(name, max_entries, nkeys, keytypes, STP_STAT, pm->shape.data_size,
					      wrap);
		if (!pm->maps[cpu])
			goto fail;
	}
	return pm;
fail:
	stp_pmap_free(pm);
	return NULL;
}

/* This CPU's map of pm, where a[k] <<< v adds (preemption disabled, read lock held): the
 * generated code finds the slot with the array's own gm_NAME__slot (translator/kmodule/mapfuncs.c). */
static __always_inline __maybe_unused struct stp_map *stp_pmap_cpu(struct stp_pmap *pm)
{
	return pm->maps[smp_processor_id()];
}

/* Adds one CPU's accumulator of a key into its merge dst (pairwise). */
static void stp_pmap_merge_one(struct stp_pmap *pm, struct stp_stat_data *dst, const struct stp_stat_data *sd,
			       bool first)
{
	if (first)
		memcpy(dst, sd, pm->shape.data_size);
	else
		stp_stat_merge_pair(&pm->shape, dst, sd);
}

/* Merges key k of every CPU into dst; NULL when no CPU has it. */
static struct stp_stat_data *stp_pmap_merge_key(struct stp_pmap *pm, const struct stp_key *k,
						struct stp_stat_data *dst)
{
	bool found = false;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stp_map *m = pm->maps[cpu];
		struct stp_map_entry *e = stp_map_find(m, k, stp_map_hash(m, k));

		if (e) {
			stp_pmap_merge_one(pm, dst, stp_map_value(m, e), !found);
			found = true;
		}
	}
	return found ? dst : NULL;
}

/* @count(a[k]) ...: key k merged (write lock held); NULL when absent. */
static __maybe_unused struct stp_stat_data *stp_pmap_get(struct stp_pmap *pm, const struct stp_key *k)
{
	return stp_pmap_merge_key(pm, k, pm->one);
}

/* The same into the buffer of a foreach over the key's histogram buckets. */
static __maybe_unused struct stp_stat_data *stp_pmap_get_iter(struct stp_pmap *pm, const struct stp_key *k)
{
	return stp_pmap_merge_key(pm, k, pm->iter);
}

/* The CPU's keys as struct stp_key, for lookups elsewhere. */
static void stp_pmap_entry_keys(struct stp_map *m, struct stp_map_entry *e, struct stp_key *k)
{
	unsigned int i;

	for (i = 0; i < m->nkeys; i++) {
		if (m->keytypes[i] == STP_STRING)
			k[i].s = stp_map_key_str(m, e, i);
		else
			k[i].n = stp_map_key_long(m, e, i);
	}
}

/* foreach: every key of every CPU merged into pm->agg (write lock held), in
 * order of first appearance, CPU by CPU.  False with a script error when
 * the keys of all CPUs together do not fit in one array. */
static __maybe_unused bool stp_pmap_aggregate(struct stp_context *c, struct stp_pmap *pm)
{
	struct stp_map_entry *e, *a;
	struct stp_key k[STP_MAP_MAX_KEYS];
	bool inserted;
	int cpu;

	stp_map_clear(pm->agg);
	for_each_possible_cpu(cpu) {
		struct stp_map *m = pm->maps[cpu];

		list_for_each_entry(e, &m->used, list) {
			stp_pmap_entry_keys(m, e, k);
			a = stp_map_insert(pm->agg, k, &inserted);
			if (!a) {
				stp_map_clear(pm->agg);
				stp_error(c, pm->overflow_msg);
				return false;
			}
			stp_pmap_merge_one(pm, stp_map_value(pm->agg, a), stp_map_value(m, e), inserted);
		}
	}
	return true;
}

/* The merged accumulator of an entry of pm->agg. */
static __maybe_unused struct stp_stat_data *stp_pmap_agg_value(struct stp_pmap *pm, struct stp_map_entry *e)
{
	return stp_map_value(pm->agg, e);
}

/* foreach (k in a @sum-) ...: pm->agg sorted by an operator of its values. */
enum { STP_SORT_COUNT, STP_SORT_SUM, STP_SORT_MIN, STP_SORT_MAX, STP_SORT_AVG };

static int stp_pmap_cmp_stat(const struct stp_map *m, struct stp_map_entry *a, struct stp_map_entry *b, int by)
{
	const struct stp_stat_data *x = stp_map_value(m, a), *y = stp_map_value(m, b);

	switch (by) {
	case STP_SORT_SUM:
		return stp_cmp_long(x->sum, y->sum);
	case STP_SORT_MIN:
		return stp_cmp_long(x->min, y->min);
	case STP_SORT_MAX:
		return stp_cmp_long(x->max, y->max);
	case STP_SORT_AVG:
		return stp_cmp_long(stp_stat_avg(x), stp_stat_avg(y));
	default:
		return stp_cmp_long(x->count, y->count);
	}
}

/* key >= 0: sort pm->agg by that key; key < 0: by the operator 'by'. */
static __maybe_unused void stp_pmap_sort(struct stp_pmap *pm, int key, int by, int dir)
{
	if (key >= 0)
		stp_map_sort(pm->agg, key, dir);
	else
		stp_map_sort_by(pm->agg, stp_pmap_cmp_stat, by, dir);
}

/* [k] in a: some CPU has k. */
static __maybe_unused bool stp_pmap_exists(struct stp_pmap *pm, const struct stp_key *k)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (stp_map_exists(pm->maps[cpu], k))
			return true;
	return false;
}

/* delete a[k] */
static __maybe_unused void stp_pmap_delete(struct stp_pmap *pm, const struct stp_key *k)
{
	int cpu;

	for_each_possible_cpu(cpu)
		stp_map_delete(pm->maps[cpu], k);
	stp_map_delete(pm->agg, k);
}

/* delete a */
static __maybe_unused void stp_pmap_clear(struct stp_pmap *pm)
{
	int cpu;

	for_each_possible_cpu(cpu)
		stp_map_clear(pm->maps[cpu]);
	stp_map_clear(pm->agg);
}

/* [k, *] in a */
static __maybe_unused bool stp_pmap_exists_slice(struct stp_pmap *pm, const struct stp_key *k, const bool *want)
{
	struct stp_map_entry *e;
	int cpu;

	for_each_possible_cpu(cpu) {
		list_for_each_entry(e, &pm->maps[cpu]->used, list)
			if (stp_map_entry_matches(pm->maps[cpu], e, k, want))
				return true;
	}
	return false;
}

/* delete a[k, *] */
static __maybe_unused void stp_pmap_delete_slice(struct stp_pmap *pm, const struct stp_key *k, const bool *want)
{
	struct stp_map_entry *e, *tmp;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stp_map *m = pm->maps[cpu];

		list_for_each_entry_safe(e, tmp, &m->used, list)
			if (stp_map_entry_matches(m, e, k, want))
				stp_map_unlink(m, e);
	}
	stp_map_clear(pm->agg);
}
