/* map.c - script associative arrays: up to 9 long/string keys, long, string
 * or statistics values, all entries preallocated at load (no allocation in
 * probes); wrapping arrays (global a%) and in-place sorting for foreach. */

#include <linux/list_sort.h>

/* STP_STAT: a value slot of a size given at creation (runtime/stats/). */
enum { STP_LONG = 1, STP_STRING = 2, STP_STAT = 3 };

struct stp_key {
	int64_t n;
	const char *s;
};

struct stp_map_entry {
	struct hlist_node hash;
	struct list_head list;          /* on used (insertion order, or as last sorted) or free */
	struct list_head age;           /* on by_age, oldest first, while used */
	char data[];                    /* key slots, then the value */
};

struct stp_map {
	const char *name;
	unsigned int max_entries, count, nkeys;
	const u8 *keytypes;
	u8 valtype;
	bool wrap;                      /* full: recycle the oldest entry */
	unsigned int key_off[9], val_off, val_size, entry_size;
	unsigned int hash_mask;
	struct hlist_head *buckets;
	struct list_head used, free;
	struct list_head by_age;        /* used entries in insertion order: what a% recycles */
	char *pool;
};

static unsigned int stp_slot_size(u8 type)
{
	return type == STP_STRING ? MAXSTRINGLEN : sizeof(int64_t);
}

/* val_size: bytes of an STP_STAT value (8-aligned), ignored for the others. */
static struct stp_map *__stp_map_new(const char *name, long max_entries, unsigned int nkeys, const u8 *keytypes,
				     u8 valtype, unsigned int val_size, bool wrap)
{
	struct stp_map *m = kzalloc(sizeof(*m), GFP_KERNEL);
	unsigned int i, off = 0, nbuckets;

	if (!m)
		return NULL;
	m->name = name;
	m->max_entries = max_entries > 0 ? max_entries : MAXMAPENTRIES;
	m->nkeys = nkeys;
	m->keytypes = keytypes;
	m->valtype = valtype;
	m->wrap = wrap;
	for (i = 0; i < nkeys; i++) {
		m->key_off[i] = off;
		off += stp_slot_size(keytypes[i]);
	}
	off = ALIGN(off, 8);
	m->val_off = off;
	m->val_size = valtype == STP_STAT ? ALIGN(val_size, 8) : stp_slot_size(valtype);
	off += m->val_size;
	m->entry_size = ALIGN(sizeof(struct stp_map_entry) + off, 8);
	nbuckets = roundup_pow_of_two(m->max_entries);
	m->hash_mask = nbuckets - 1;
	m->buckets = vzalloc(nbuckets * sizeof(*m->buckets));
	m->pool = vzalloc((size_t)m->entry_size * m->max_entries);
	if (!m->buckets || !m->pool) {
		vfree(m->buckets);
		vfree(m->pool);
		kfree(m);
		return NULL;
	}
	INIT_LIST_HEAD(&m->used);
	INIT_LIST_HEAD(&m->free);
	INIT_LIST_HEAD(&m->by_age);
	for (i = 0; i < m->max_entries; i++) {
		struct stp_map_entry *e = (void *)(m->pool + (size_t)i * m->entry_size);

		list_add_tail(&e->list, &m->free);
	}
	return m;
}

/* An array of long or string values; wrap: when full, inserting recycles
 * the oldest entry instead of failing (SystemTap's global a%). */
static __maybe_unused struct stp_map *stp_map_new(const char *name, long max_entries, unsigned int nkeys,
						  const u8 *keytypes, u8 valtype, int wrap)
{
	return __stp_map_new(name, max_entries, nkeys, keytypes, valtype, 0, wrap);
}

static __maybe_unused void stp_map_free(struct stp_map *m)
{
	if (!m)
		return;
	vfree(m->buckets);
	vfree(m->pool);
	kfree(m);
}

/* One pass over a string key (FNV-1a, at most MAXSTRINGLEN - 1 bytes): no
 * separate strnlen, which the kernel's fortified string functions make an
 * out-of-line call per key. */
static __always_inline u32 stp_hash_str(const char *s, u32 h)
{
	const char *end = s + MAXSTRINGLEN - 1;

	for (; s < end && *s; s++)
		h = (h ^ (u8)*s) * 0x01000193;
	return h;
}

static u32 stp_map_hash(const struct stp_map *m, const struct stp_key *k)
{
	u32 h = 0x811c9dc5;
	unsigned int i;

	for (i = 0; i < m->nkeys; i++) {
		if (m->keytypes[i] == STP_STRING)
			h = stp_hash_str(k[i].s, h);
		else
			h = jhash_2words((u32)k[i].n, (u32)((u64)k[i].n >> 32), h);
	}
	return h ^ (h >> 15);   /* the bucket index uses the low bits */
}

/* strncmp(a, b, MAXSTRINGLEN - 1) == 0, inline. */
static __always_inline bool stp_key_str_equal(const char *a, const char *b)
{
	const char *end = a + MAXSTRINGLEN - 1;

	for (; a < end; a++, b++) {
		if (*a != *b)
			return false;
		if (!*a)
			return true;
	}
	return true;
}

static bool stp_map_key_equal(const struct stp_map *m, const struct stp_map_entry *e, const struct stp_key *k)
{
	unsigned int i;

	for (i = 0; i < m->nkeys; i++) {
		const char *slot = e->data + m->key_off[i];

		if (m->keytypes[i] == STP_STRING) {
			if (!stp_key_str_equal(slot, k[i].s))
				return false;
		} else if (*(const int64_t *)slot != k[i].n) {
			return false;
		}
	}
	return true;
}

static struct stp_map_entry *stp_map_find(const struct stp_map *m, const struct stp_key *k, u32 h)
{
	struct stp_map_entry *e;

	hlist_for_each_entry(e, &m->buckets[h & m->hash_mask], hash) {
		if (stp_map_key_equal(m, e, k))
			return e;
	}
	return NULL;
}

static __maybe_unused void *stp_map_value(const struct stp_map *m, struct stp_map_entry *e)
{
	return e->data + m->val_off;
}

static void stp_map_unlink(struct stp_map *m, struct stp_map_entry *e)
{
	hlist_del(&e->hash);
	list_del(&e->age);
	list_move(&e->list, &m->free);
	m->count--;
}

/* Inserts k (value zeroed) when absent; NULL when the array is full and
 * does not wrap.  *inserted tells whether the entry is new. */
static struct stp_map_entry *stp_map_insert(struct stp_map *m, const struct stp_key *k, bool *inserted)
{
	u32 h = stp_map_hash(m, k);
	struct stp_map_entry *e = stp_map_find(m, k, h);
	unsigned int i;

	*inserted = false;
	if (e)
		return e;
	if (list_empty(&m->free)) {
		if (!m->wrap || list_empty(&m->used))
			return NULL;
		/* sorting reorders the used list, never by_age: its head is the oldest */
		stp_map_unlink(m, list_first_entry(&m->by_age, struct stp_map_entry, age));
	}
	e = list_first_entry(&m->free, struct stp_map_entry, list);
	list_move_tail(&e->list, &m->used);
	list_add_tail(&e->age, &m->by_age);
	for (i = 0; i < m->nkeys; i++) {
		char *slot = e->data + m->key_off[i];

		if (m->keytypes[i] == STP_STRING)
			stp_strlcpy(slot, k[i].s, MAXSTRINGLEN);
		else
			*(int64_t *)slot = k[i].n;
	}
	memset(stp_map_value(m, e), 0, m->val_size);
	hlist_add_head(&e->hash, &m->buckets[h & m->hash_mask]);
	m->count++;
	*inserted = true;
	return e;
}

/* The value slot for k, inserted (zeroed) when absent; NULL with a script
 * error when the array is full. */
static __maybe_unused void *stp_map_slot(struct stp_context *c, struct stp_map *m, const struct stp_key *k)
{
	bool inserted;
	struct stp_map_entry *e = stp_map_insert(m, k, &inserted);

	if (!e) {
		stp_error(c, "Array overflow, check MAXMAPENTRIES");
		return NULL;
	}
	return stp_map_value(m, e);
}

static __maybe_unused int64_t *stp_map_slot_long(struct stp_context *c, struct stp_map *m, const struct stp_key *k)
{
	return stp_map_slot(c, m, k);
}

static __maybe_unused char *stp_map_slot_str(struct stp_context *c, struct stp_map *m, const struct stp_key *k)
{
	return stp_map_slot(c, m, k);
}

static __maybe_unused int64_t stp_map_get_long(struct stp_map *m, const struct stp_key *k)
{
	struct stp_map_entry *e = stp_map_find(m, k, stp_map_hash(m, k));

	return e ? *(int64_t *)stp_map_value(m, e) : 0;
}

static __maybe_unused const char *stp_map_get_str(struct stp_map *m, const struct stp_key *k)
{
	struct stp_map_entry *e = stp_map_find(m, k, stp_map_hash(m, k));

	return e ? (const char *)stp_map_value(m, e) : "";
}

static __maybe_unused bool stp_map_exists(struct stp_map *m, const struct stp_key *k)
{
	return stp_map_find(m, k, stp_map_hash(m, k)) != NULL;
}

static __maybe_unused void stp_map_delete(struct stp_map *m, const struct stp_key *k)
{
	struct stp_map_entry *e = stp_map_find(m, k, stp_map_hash(m, k));

	if (e)
		stp_map_unlink(m, e);
}

static __maybe_unused void stp_map_clear(struct stp_map *m)
{
	struct stp_map_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &m->used, list) {
		hlist_del(&e->hash);
		list_move(&e->list, &m->free);
	}
	INIT_LIST_HEAD(&m->by_age);
	m->count = 0;
}

static __maybe_unused struct stp_map_entry *stp_map_first(struct stp_map *m)
{
	return list_first_entry_or_null(&m->used, struct stp_map_entry, list);
}

static __maybe_unused struct stp_map_entry *stp_map_next(struct stp_map *m, struct stp_map_entry *e)
{
	return list_is_last(&e->list, &m->used) ? NULL : list_next_entry(e, list);
}

static __maybe_unused int64_t stp_map_key_long(struct stp_map *m, struct stp_map_entry *e, int i)
{
	return *(int64_t *)(e->data + m->key_off[i]);
}

static __maybe_unused const char *stp_map_key_str(struct stp_map *m, struct stp_map_entry *e, int i)
{
	return e->data + m->key_off[i];
}

/* ---- sorting (foreach with + or -) ---- */

/* Compares two entries; arg is what to compare them on (a key index ...). */
typedef int (*stp_map_cmp_t)(const struct stp_map *m, struct stp_map_entry *a, struct stp_map_entry *b, int arg);

struct stp_map_sort_ctx {
	const struct stp_map *m;
	stp_map_cmp_t cmp;
	int arg, dir;
};

static int stp_map_cmp_slot(const struct stp_map *m, struct stp_map_entry *a, struct stp_map_entry *b, int arg);

static int stp_map_sort_cmp(void *priv, const struct list_head *la, const struct list_head *lb)
{
	const struct stp_map_sort_ctx *s = priv;
	struct stp_map_entry *a = list_entry(la, struct stp_map_entry, list);
	struct stp_map_entry *b = list_entry(lb, struct stp_map_entry, list);
	int r = s->dir * s->cmp(s->m, a, b, s->arg);
	unsigned int i;

	/* ties: by the keys in order, ascending, so the order never depends on
	 * insertion order or on an earlier sort */
	for (i = 0; !r && i < s->m->nkeys; i++)
		r = stp_map_cmp_slot(s->m, a, b, i);
	return r;
}

static int stp_cmp_long(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* arg: a key index, or -1 for the (long or string) value. */
static int stp_map_cmp_slot(const struct stp_map *m, struct stp_map_entry *a, struct stp_map_entry *b, int arg)
{
	unsigned int off = arg < 0 ? m->val_off : m->key_off[arg];
	u8 type = arg < 0 ? m->valtype : m->keytypes[arg];

	if (type == STP_STRING)
		return strncmp(a->data + off, b->data + off, MAXSTRINGLEN);
	return stp_cmp_long(*(int64_t *)(a->data + off), *(int64_t *)(b->data + off));
}

/* Reorders the used list in place by cmp, ascending (dir +1) or descending
 * (dir -1), ties by the keys ascending.  No allocation. */
static __maybe_unused void stp_map_sort_by(struct stp_map *m, stp_map_cmp_t cmp, int arg, int dir)
{
	struct stp_map_sort_ctx s = { m, cmp, arg, dir < 0 ? -1 : 1 };

	list_sort(&s, &m->used, stp_map_sort_cmp);
}

/* key: -1 the value, 0..nkeys-1 that key; strings by strcmp, longs by value. */
static __maybe_unused void stp_map_sort(struct stp_map *m, int key, int dir)
{
	if (key >= (int)m->nkeys || (key < 0 && m->valtype == STP_STAT))
		return;
	stp_map_sort_by(m, stp_map_cmp_slot, key, dir);
}
