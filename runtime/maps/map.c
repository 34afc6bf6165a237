/* map.c - script associative arrays: up to STP_MAP_MAX_KEYS long/string keys, long, string
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
	unsigned int key_off[STP_MAP_MAX_KEYS], val_off, val_size, entry_size;
	unsigned int hash_shift;        /* the bucket: a hash's top bits */
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
	nbuckets = roundup_pow_of_two(max(m->max_entries, 2U));
	m->hash_shift = 64 - ilog2(nbuckets);
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

/* ---- hashing and comparing keys ----
 * A key's hash is a function of its value alone, whatever computes it: the generic code below
 * (stp_map_hash, reading the array's key types) or the code the translator generates per array
 * with its key layout fixed (stp_map_find_NAME and stp_map_slot_NAME, emitted by
 * translator/kmodule/mapfuncs.c out of the inline helpers here).  A long is mixed in as one word; a
 * string as its bytes up to the NUL in 8-byte little-endian words, the last one zero-padded and
 * left out when the string ends on a word boundary.  The bucket is the hash's top bits. */
#define STP_MAP_SEED 0x2545f4914f6cdd1dULL

static __always_inline u64 stp_hash_mix(u64 h, u64 w)
{
	return (h ^ w) * 0x9e3779b97f4a7c15ULL;
}

static __always_inline u64 stp_hash_long(u64 h, int64_t n)
{
	return stp_hash_mix(h, (u64)n);
}

/* Any string (at most MAXSTRINGLEN - 1 bytes) from byte i on (a multiple of 8), one byte at a
 * time: no read past its NUL. */
static noinline u64 stp_hash_str_bytes(u64 h, const char *s, unsigned int i)
{
	u64 w = 0;

	for (; i < MAXSTRINGLEN - 1 && s[i]; i++) {
		w |= (u64)(u8)s[i] << (8 * (i & 7));
		if ((i & 7) == 7) {
			h = stp_hash_mix(h, w);
			w = 0;
		}
	}
	return w ? stp_hash_mix(h, w) : h;
}

/* The 8 bytes of s at i as a little-endian word, those from MAXSTRINGLEN - 1 on cleared (a string
 * ends there at the latest).  Only for a word within one page: a string's bytes before its NUL
 * are readable, so the page holding them is, and the bytes after the NUL in it are never used. */
static __always_inline u64 stp_str_word(const char *s, unsigned int i)
{
	u64 w = get_unaligned_le64(s + i);

	if (i + 8 > MAXSTRINGLEN - 1)
		w &= (1ULL << (8 * (MAXSTRINGLEN - 1 - i))) - 1;
	return w;
}

/* Any string, a word at a time: the same hash as stp_hash_str_bytes (the bytes before the NUL,
 * in 8-byte words, the last one zero-padded and left out when empty).  A word that would cross
 * into the next page goes on byte by byte. */
static __always_inline u64 stp_hash_str(u64 h, const char *s)
{
	unsigned int i;
	u64 w, z;

	for (i = 0; i < MAXSTRINGLEN - 1; i += 8) {
		if (unlikely(!stp_str_word_ok(s, i)))
			return stp_hash_str_bytes(h, s, i);
		w = stp_str_word(s, i);
		z = stp_word_zero_bytes(w);
		if (z) {
			w = stp_word_before_zero(w, z);
			return w ? stp_hash_mix(h, w) : h;
		}
		h = stp_hash_mix(h, w);
	}
	return h;
}

/* A string of at most 15 bytes held as two NUL-padded words (stp_comm_key): the same hash as
 * stp_hash_str's in two steps. */
static __always_inline u64 stp_hash_comm(u64 h, const char *s)
{
	const u64 *w = (const u64 *)s;

	if (w[0])
		h = stp_hash_mix(h, le64_to_cpu(w[0]));
	if (w[1])
		h = stp_hash_mix(h, le64_to_cpu(w[1]));
	return h;
}

/* execname() as a map key: the 16 bytes of current->comm read as two words, cut at the first NUL
 * (byte 15 is always one, as stp_execname() makes it) and zero-padded.  w is then the string
 * itself, and what a key slot holds after stp_map_set_key_str: compared as two words.  A rename
 * racing with the read gives the old name, the new one or a mix, always terminated. */
static __always_inline const char *stp_comm_key(u64 w[2])
{
	const char *comm = current->comm;
	u64 w0 = le64_to_cpu(get_unaligned((const __le64 *)comm));
	u64 w1 = le64_to_cpu(get_unaligned((const __le64 *)(comm + 8))) & 0x00ffffffffffffffULL;
	u64 z0 = stp_word_zero_bytes(w0);

	BUILD_BUG_ON(TASK_COMM_LEN != 16);
	if (z0) {
		w[0] = cpu_to_le64(stp_word_before_zero(w0, z0));
		w[1] = 0;
	} else {
		w[0] = cpu_to_le64(w0);
		w[1] = cpu_to_le64(stp_word_before_zero(w1, stp_word_zero_bytes(w1)));
	}
	return (const char *)w;
}

/* strncmp(a, b, MAXSTRINGLEN - 1) == 0 from byte i on, one byte at a time. */
static noinline bool stp_key_str_equal_bytes(const char *a, const char *b, unsigned int i)
{
	for (; i < MAXSTRINGLEN - 1; i++) {
		if (a[i] != b[i])
			return false;
		if (!a[i])
			return true;
	}
	return true;
}

/* A key slot (written by stp_map_set_key_str: zero-padded to the end of the word holding its NUL)
 * against string s: strncmp(slot, s, MAXSTRINGLEN - 1) == 0, a word at a time.  The slot's word at
 * i is read only when its words before i held no NUL (they equalled s's, which hold none), so it
 * is within the slot's string or its padding; s's words as stp_hash_str reads them. */
static __always_inline bool stp_key_str_equal(const char *slot, const char *s)
{
	unsigned int i;
	u64 w, z;

	for (i = 0; i + 8 <= MAXSTRINGLEN; i += 8) {
		if (unlikely(!stp_str_word_ok(s, i)))
			return stp_key_str_equal_bytes(slot, s, i);
		w = stp_str_word(s, i);
		z = stp_word_zero_bytes(w);
		if (z)
			return stp_str_word(slot, i) == stp_word_before_zero(w, z);
		if (stp_str_word(slot, i) != w)
			return false;
	}
	return i >= MAXSTRINGLEN - 1 || stp_key_str_equal_bytes(slot, s, i);
}

/* A key slot (zero-padded to 16 bytes at least by stp_map_set_key_str) against a stp_comm_key. */
static __always_inline bool stp_key_comm_equal(const char *slot, const char *s)
{
	const u64 *w = (const u64 *)s;

	return get_unaligned((const u64 *)slot) == w[0] && get_unaligned((const u64 *)(slot + 8)) == w[1];
}

static __always_inline bool stp_key_long_equal(const char *slot, int64_t n)
{
	return get_unaligned((const int64_t *)slot) == n;
}

/* Writes string s into a key slot, zero-padded to the end of the word holding its NUL and to 16
 * bytes at least (what stp_key_comm_equal compares). */
static void stp_map_set_key_str(char *slot, const char *s)
{
	size_t n = strnlen(s, MAXSTRINGLEN - 1);
	size_t end = min_t(size_t, MAXSTRINGLEN, max_t(size_t, 16, ALIGN(n + 1, 8)));

	memcpy(slot, s, n);
	memset(slot + n, 0, end - n);
}

static __always_inline struct hlist_head *stp_map_bucket(const struct stp_map *m, u64 h)
{
	return &m->buckets[h >> m->hash_shift];
}

static u64 stp_map_hash(const struct stp_map *m, const struct stp_key *k)
{
	u64 h = STP_MAP_SEED;
	unsigned int i;

	for (i = 0; i < m->nkeys; i++) {
		if (m->keytypes[i] == STP_STRING)
			h = stp_hash_str(h, k[i].s);
		else
			h = stp_hash_long(h, k[i].n);
	}
	return h;
}

static bool stp_map_key_equal(const struct stp_map *m, const struct stp_map_entry *e, const struct stp_key *k)
{
	unsigned int i;

	for (i = 0; i < m->nkeys; i++) {
		const char *slot = e->data + m->key_off[i];

		if (m->keytypes[i] == STP_STRING) {
			if (!stp_key_str_equal(slot, k[i].s))
				return false;
		} else if (!stp_key_long_equal(slot, k[i].n)) {
			return false;
		}
	}
	return true;
}

static struct stp_map_entry *stp_map_find(const struct stp_map *m, const struct stp_key *k, u64 h)
{
	struct stp_map_entry *e;

	hlist_for_each_entry(e, stp_map_bucket(m, h), hash) {
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

/* Adds k, known absent, with hash h (value zeroed); NULL when the array is full and does not
 * wrap.  Out of line: the generated per-array code calls it only for a new key. */
static noinline struct stp_map_entry *stp_map_add(struct stp_map *m, const struct stp_key *k, u64 h)
{
	struct stp_map_entry *e;
	unsigned int i;

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
			stp_map_set_key_str(slot, k[i].s);
		else
			*(int64_t *)slot = k[i].n;
	}
	memset(stp_map_value(m, e), 0, m->val_size);
	hlist_add_head(&e->hash, stp_map_bucket(m, h));
	m->count++;
	return e;
}

/* stp_map_add with the script error near where (a location literal) when the array is full; c
 * NULL on the light hit path, which reports it at once (stp_error_near). */
static noinline __maybe_unused struct stp_map_entry *stp_map_add_or_error(struct stp_context *c, struct stp_map *m,
									  const struct stp_key *k, u64 h,
									  const char *where)
{
	struct stp_map_entry *e = stp_map_add(m, k, h);

	if (!e)
		stp_error_near(c, "Array overflow, check MAXMAPENTRIES", where);
	return e;
}

/* Inserts k (value zeroed) when absent; NULL when the array is full and
 * does not wrap.  *inserted tells whether the entry is new. */
static struct stp_map_entry *stp_map_insert(struct stp_map *m, const struct stp_key *k, bool *inserted)
{
	u64 h = stp_map_hash(m, k);
	struct stp_map_entry *e = stp_map_find(m, k, h);

	*inserted = false;
	if (e)
		return e;
	e = stp_map_add(m, k, h);
	*inserted = e != NULL;
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

/* Does entry e of map m match the keys of a slice (want[i] false: any)? */
static __maybe_unused bool stp_map_entry_matches(struct stp_map *m, struct stp_map_entry *e, const struct stp_key *k,
						 const bool *want)
{
	unsigned int i;

	for (i = 0; i < m->nkeys; i++) {
		if (!want[i])
			continue;
		if (m->keytypes[i] == STP_STRING ? strcmp(stp_map_key_str(m, e, i), k[i].s) != 0
						 : stp_map_key_long(m, e, i) != k[i].n)
			return false;
	}
	return true;
}

/* [k, *] in a */
static __maybe_unused bool stp_map_exists_slice(struct stp_map *m, const struct stp_key *k, const bool *want)
{
	struct stp_map_entry *e;

	list_for_each_entry(e, &m->used, list)
		if (stp_map_entry_matches(m, e, k, want))
			return true;
	return false;
}

/* delete a[k, *] */
static __maybe_unused void stp_map_delete_slice(struct stp_map *m, const struct stp_key *k, const bool *want)
{
	struct stp_map_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &m->used, list)
		if (stp_map_entry_matches(m, e, k, want))
			stp_map_unlink(m, e);
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
