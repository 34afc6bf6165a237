/* maps.h - what the BPF runtime's arrays share (the per-array gm_ functions are translator/bpfprog/bpfmaps.c's):
 * the keys as the bodies evaluate them, execname() as a key, the key scratch, a zero value, the overflow error. */
#ifndef STP_BPF_MAPS_H
#define STP_BPF_MAPS_H

/* A key as the bodies evaluate it (runtime/maps/map.c's struct stp_key). */
struct stp_key {
	int64_t n;
	const char *s;
};

/* An element's value, as gm_NAME__find returns it: the value itself (GM_NAME__VAL is 0). */
struct stp_map_entry {
	char data[8];
};

/* execname() as a key: its 16 bytes in w */
static __always_inline const char *stp_comm_key(u64 w[2])
{
	w[0] = w[1] = 0;
	bpf_get_current_comm(w, 16);
	return (const char *)w;
}

/* this CPU's scratch for an array's key (512 bytes: translator/bpfprog/bpfmaps.c keeps every key within);
 * a subprogram of its own, which keeps the many key builders' programs small */
static noinline void *stp_key_scratch(void)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);

	if (!c)
		return NULL;
	asm volatile("" : "+r"(c));   /* no offset from c before its test (the verifier refuses one) */
	return c->key;
}

/* a value of zeros (the largest an array holds: a string or an accumulator), never written */
static const char stp_zeros[MAXSTRINGLEN > sizeof(struct stp_stat_data) ? MAXSTRINGLEN : sizeof(struct stp_stat_data)];

static __always_inline const void *stp_zero_value(void)
{
	return stp_zeros;
}

/* delete a: every entry, from a callback of bpf_for_each_map_elem (a hash map allows it) */
static long stp_map_clear_one(void *map, const void *key, void *value, void *ctx)
{
	(void)value;
	(void)ctx;
	bpf_map_delete_elem(map, key);
	return 0;
}
#define stp_map_clear(m) bpf_for_each_map_elem(&(m), stp_map_clear_one, NULL, 0)

/* a slice a[k, *] (translator/bpfprog/bpfmaps.c's g_NAME__slice): whether an entry matches the fixed keys,
 * each deleted when del; the fixed keys are a key in this CPU's key scratch, which nothing else uses meanwhile */
struct stp_slice {
	const void *fixed;
	const bool *want;
	int found, del;
};

#define stp_map_slice(map, fixed_key, want_, del_, one)					\
	({										\
		struct stp_slice x_ = { .fixed = (fixed_key), .want = (want_), .del = (del_) };	\
		if (x_.fixed)								\
			bpf_for_each_map_elem((map), (one), &x_, 0);			\
		x_.found;								\
	})
#define stp_map_exists_slice(m, k, want) m##__slice((k), (want), 0)
#define stp_map_delete_slice(m, k, want) ((void)m##__slice((k), (want), 1))
#define stp_pmap_exists_slice(m, k, want) m##__slice((k), (want), 0)
#define stp_pmap_delete_slice(m, k, want) ((void)m##__slice((k), (want), 1))

/* A new entry of a wrapping array a% (translator/bpfprog/bpfmaps.c): zeros but its insertion's number, the value's
 * last word; when the map is full its oldest entry, the least number found by a scan of the map (its key copied into
 * c->wrap_key), gives way, as the module's oldest element does.  A scan per insertion into a full array: each costs
 * the array's size in callbacks. */
/* the least number so far in the context (c->wrap_least, wrap_found): a value on the stack that only a later
 * iteration changes would be taken for a constant by kernels before 6.7, which verify a callback once */
struct stp_wrap_scan {
	u64 key_size, seq_at;   /* a word each: constants the verifier follows into the callback */
	struct stp_context *c;
};

static long stp_wrap_oldest(void *map, const void *key, void *value, void *data)
{
	struct stp_wrap_scan *x = data;
	u64 seq = *(const u64 *)((const char *)value + (x->seq_at & (2 * MAXSTRINGLEN - 1) & ~7u));

	(void)map;
	if (!x->c->wrap_found || seq < x->c->wrap_least) {
		x->c->wrap_least = seq;
		x->c->wrap_found = 1;
		bpf_probe_read_kernel(x->c->wrap_key, x->key_size & (sizeof(x->c->wrap_key) - 1), key);
	}
	return 0;
}

static u64 stp_wrap_next_seq;

static __always_inline void stp_map_wrap_insert(struct stp_context *c, void *map, const void *key, u32 key_size,
						u32 value_size)
{
	struct stp_wrap_scan x = { .key_size = key_size, .seq_at = value_size - 8, .c = c };
	u32 at = value_size - 8 < MAXSTRINGLEN ? (value_size - 8) & ~7u : MAXSTRINGLEN;   /* the last word */

	__builtin_memset(c->wrap_value, 0, sizeof(c->wrap_value));
	*(u64 *)(c->wrap_value + at) = __sync_fetch_and_add(&stp_wrap_next_seq, 1);
	/* an int: kernels before 6.5 call the map's own update for the helper, which sets the low 32 bits */
	if ((int)bpf_map_update_elem(map, key, c->wrap_value, BPF_NOEXIST) != -E2BIG)
		return;
	c->wrap_found = 0;
	bpf_for_each_map_elem(map, stp_wrap_oldest, &x, 0);
	if (c->wrap_found)
		bpf_map_delete_elem(map, c->wrap_key);
	bpf_map_update_elem(map, key, c->wrap_value, BPF_NOEXIST);
}

/* A new entry of a wrapping array of statistics: zeros, its insertion's number in the array's order map (the per-CPU
 * map's values are each CPU's own); when full, the entry whose number is least gives way, in both maps (the scan's
 * callback stp_wrap_oldest's, the number at the order map's value's start) */
static __always_inline void stp_pmap_wrap_insert(struct stp_context *c, void *map, void *order, const void *key,
						 u32 key_size)
{
	struct stp_wrap_scan x = { .key_size = key_size, .c = c };
	u64 seq = __sync_fetch_and_add(&stp_wrap_next_seq, 1);

	if ((int)bpf_map_update_elem(map, key, stp_zero_value(), BPF_NOEXIST) == -E2BIG) {   /* an int (above) */
		c->wrap_found = 0;
		bpf_for_each_map_elem(order, stp_wrap_oldest, &x, 0);   /* the number is the value */
		if (c->wrap_found) {
			bpf_map_delete_elem(map, c->wrap_key);
			bpf_map_delete_elem(order, c->wrap_key);
		}
		bpf_map_update_elem(map, key, stp_zero_value(), BPF_NOEXIST);
	}
	bpf_map_update_elem(order, key, &seq, BPF_ANY);
}

static __always_inline void stp_error_near(struct stp_context *c, const char *msg, const char *where)
{
	if (!c->last_error) {
		c->last_error = msg;
		c->last_stmt = where;
	}
}

#endif
