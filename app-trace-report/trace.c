/* trace.c - app-trace-report's aggregation: trace files split into lines, each call added to its host's per-program totals, files, descriptors and time bins.
 * Used by app-trace-report (main.c) and tests/fuzz/apptrace_fuzz.c. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define ATR_MAX_BINS (1u << 20)	/* time bins per host (40 MB); later lines are left out of --plot */

static uint64_t atr_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* slot: where key is, or the empty slot it would go to (cap is a power of two, never full). */
static size_t atr_slot(const AtrMap *m, const char *key)
{
	size_t i = (size_t)atr_hash(key) & (m->cap - 1);

	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

int64_t *atr_map_get(AtrMap *m, const char *key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	i = atr_slot(m, key);
	return m->keys[i] ? m->vals[i] : NULL;
}

static int atr_map_grow(AtrMap *m)
{
	AtrMap n = { NULL, NULL, m->cap ? m->cap * 2 : 16, m->n };
	size_t i, j;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			j = atr_slot(&n, m->keys[i]);
			n.keys[j] = m->keys[i];
			memcpy(n.vals[j], m->vals[i], sizeof(n.vals[j]));
		}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int64_t *atr_map_put(AtrMap *m, const char *key, int64_t v0, int64_t v1)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && atr_map_grow(m) < 0)
		return NULL;
	i = atr_slot(m, key);
	if (!m->keys[i]) {
		m->keys[i] = strdup(key);
		if (!m->keys[i])
			return NULL;
		m->n++;
	}
	m->vals[i][0] = v0;
	m->vals[i][1] = v1;
	return m->vals[i];
}

/* del: removes key, moving later entries of its probe run back (no tombstones). */
void atr_map_del(AtrMap *m, const char *key)
{
	size_t i, j, k;

	if (m->cap == 0 || !m->keys[i = atr_slot(m, key)])
		return;
	free(m->keys[i]);
	m->keys[i] = NULL;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		k = (size_t)atr_hash(m->keys[j]) & (m->cap - 1);
		/* entry j may move to i when its home k is not in (i, j] cyclically */
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			m->keys[i] = m->keys[j];
			memcpy(m->vals[i], m->vals[j], sizeof(m->vals[i]));
			m->keys[j] = NULL;
			i = j;
		}
	}
}

void atr_map_free(AtrMap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* grow: room for one more element in *arr (n used, elements of size sz). */
static int atr_grow(void **arr, size_t n, size_t sz)
{
	void *p;

	/* capacity: 8, then doubled each time n reaches it */
	if (n != 0 && (n < 8 || (n & (n - 1)) != 0))
		return 0;
	p = realloc(*arr, (n ? n * 2 : 8) * sz);
	if (!p)
		return -1;
	*arr = p;
	return 0;
}

void atr_host_of(const char *file, char *host, size_t len)
{
	const char *base = strrchr(file, '/'), *end;

	base = base ? base + 1 : file;
	end = strstr(base, "-app-trace");
	if (!end || end == base)
		end = base + strlen(base);
	snprintf(host, len, "%.*s", (int)(end - base), base);
}

AtrHost *atr_host(AtrReport *r, const char *name)
{
	AtrHost *h;
	size_t i;

	for (i = 0; i < r->nhosts; i++)
		if (strcmp(r->hosts[i].name, name) == 0)
			return &r->hosts[i];
	if (atr_grow((void **)&r->hosts, r->nhosts, sizeof(*r->hosts)) < 0)
		return NULL;
	h = &r->hosts[r->nhosts++];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	return h;
}

/* find: the index of key in map, adding a zeroed element of arr (named key at name_off) when absent. */
static int64_t atr_find(AtrMap *map, void **arr, size_t *n, size_t sz, const char *key, size_t name_off)
{
	int64_t *v = atr_map_get(map, key);
	char *e;

	if (v)
		return v[0];
	if (atr_grow(arr, *n, sz) < 0 || !atr_map_put(map, key, (int64_t)*n, 0))
		return -1;
	e = (char *)*arr + *n * sz;
	memset(e, 0, sz);
	snprintf(e + name_off, ATR_NAME_MAX, "%s", key);
	return (int64_t)(*n)++;
}

static unsigned atr_bucket(int64_t size)
{
	unsigned k = 0;

	if (size <= 0)
		return 0;
	while (k < 63 && ((uint64_t)size >> (k + 1)) != 0)
		k++;
	return k + 1;
}

/* bin: the time bin of a line (NULL: out of the plotted range or out of memory). */
static AtrBin *atr_bin(AtrHost *h, uint64_t ts, double width)
{
	double t = ts > h->first_us ? (double)(ts - h->first_us) / 1e6 : 0;
	size_t i, j;
	AtrBin *b;

	if (t / width >= ATR_MAX_BINS) {
		h->unplotted++;
		return NULL;
	}
	i = (size_t)(t / width);
	if (i >= h->nbins) {
		b = realloc(h->bins, (i + 1) * sizeof(*b));
		if (!b)
			return NULL;
		for (j = h->nbins; j <= i; j++) {
			memset(&b[j], 0, sizeof(b[j]));
			b[j].t = (double)j * width;
		}
		h->bins = b;
		h->nbins = i + 1;
	}
	return &h->bins[i];
}

/* transfer: a read or write's bytes, size histogram, sequential share, file and time bin; fd: the
 * descriptor's state (file index, end of its last access). */
static void atr_transfer(AtrHost *h, AtrProg *p, int64_t *fd, const AtrLine *l, double width)
{
	int w = l->op == ATR_WRITE;
	int64_t size = l->has_count ? l->count : l->ret;
	uint64_t n = l->has_ret && l->ret > 0 ? (uint64_t)l->ret : 0;
	AtrBin *b;

	if (size >= 0)
		p->hist[w][atr_bucket(size)]++;
	if (w)
		p->bytes_written += n;
	else
		p->bytes_read += n;
	if (l->has_offset) {
		if (fd[1] < 0 ? l->offset == 0 : l->offset == fd[1])
			p->seq++;
		else
			p->rnd++;
		fd[1] = l->offset <= INT64_MAX - (int64_t)n ? l->offset + (int64_t)n : -1;
	}
	if (fd[0] >= 0) {
		if (w)
			h->files[fd[0]].bytes_written += n;
		else
			h->files[fd[0]].bytes_read += n;
	}
	b = atr_bin(h, l->ts_us, width);
	if (b) {
		*(w ? &b->wr : &b->rd) += n;
		if (size >= 0) {
			b->reqs++;
			b->req_bytes += (uint64_t)size;
		}
	}
}

/* --timeline: the call kept for the merged timeline. */
static int atr_keep_event(AtrReport *r, const AtrHost *h, uint32_t prog, const AtrLine *l)
{
	AtrEvent *e;

	if (r->nevents == r->events_cap) {
		size_t cap = r->events_cap ? 2 * r->events_cap : 1024;
		e = realloc(r->events, cap * sizeof(*e));
		if (!e)
			return -1;
		r->events = e;
		r->events_cap = cap;
	}
	e = &r->events[r->nevents];
	e->seq = r->nevents++;
	e->ts_us = l->ts_us;
	e->host = (uint32_t)(h - r->hosts);
	e->prog = prog;
	e->op = l->op;
	e->pid = l->pid;
	e->fd = l->fd;
	e->has_ret = l->has_ret;
	e->ret = l->ret;
	return 0;
}

int atr_add_line(AtrReport *r, AtrHost *h, const AtrLine *l)
{
	char key[64];
	int64_t pi, fi = -1, *fd;
	int opens = l->op == ATR_OPEN || l->op == ATR_SOCKET || l->op == ATR_ACCEPT;

	pi = atr_find(&h->prog_map, (void **)&h->progs, &h->nprogs, sizeof(AtrProg), l->exe,
		      offsetof(AtrProg, name));
	if (pi < 0)
		return -1;
	h->progs[pi].calls[l->op]++;
	if (!h->have_first) {
		h->have_first = 1;
		h->first_us = l->ts_us;
	}
	if (l->ts_us > h->last_us)
		h->last_us = l->ts_us;
	if (l->has_ret && l->ret < 0)
		h->errors++;
	h->lines++;
	if (r->keep_events && atr_keep_event(r, h, (uint32_t)pi, l) < 0)
		return -1;
	if (l->fd < 0)
		return 0;
	snprintf(key, sizeof(key), "%ld/%ld", l->pid, l->fd);
	if (l->op == ATR_OPEN && l->path[0]) {
		fi = atr_find(&h->file_map, (void **)&h->files, &h->nfiles, sizeof(AtrFile), l->path,
			      offsetof(AtrFile, path));
		if (fi < 0)
			return -1;
	}
	fd = opens ? NULL : atr_map_get(&h->fd_map, key);
	/* a new descriptor, or one opened before the trace began (its file unknown) */
	if (!fd && !(fd = atr_map_put(&h->fd_map, key, fi, -1)))
		return -1;
	if (fd[0] >= 0)
		h->files[fd[0]].calls++;
	if (l->op == ATR_READ || l->op == ATR_WRITE)
		atr_transfer(h, &h->progs[pi], fd, l, r->bin_s);
	else if (l->op == ATR_SEEK && l->has_offset)
		fd[1] = l->offset;
	else if (l->op == ATR_CLOSE)
		atr_map_del(&h->fd_map, key);
	return 0;
}

long atr_read_buffer(AtrReport *r, AtrHost *h, const char *file, const char *buf, size_t len, FILE *err,
		     unsigned max_msgs)
{
	const char *p = buf, *end = buf + len, *nl;
	unsigned long lineno = 0;
	long bad = 0;
	char why[128], ef[ATR_ESC_PATH_SIZE], ew[4 * sizeof(why)];
	uint64_t lost;
	AtrLine l;
	char *from;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		lineno++;
		switch (atr_parse_line(p, (size_t)(nl - p), &l, &lost, why, sizeof(why))) {
		case ATR_LINE_CALL:
			if (atr_add_line(r, h, &l) < 0)
				return -1;
			break;
		case ATR_LINE_LOST:
			h->lost += lost;
			break;
		case ATR_LINE_BAD:
			/* why may quote the line's bytes */
			if ((unsigned long)bad < max_msgs && err)
				fprintf(err, "%s:%lu: %s\n", atr_esc(ef, sizeof(ef), file, ATR_ESC_NAME), lineno,
					atr_esc(ew, sizeof(ew), why, ATR_ESC_QUOTED));
			bad++;
			break;
		case ATR_LINE_HEADER:
			if (l.has_clock) {
				/* whose header said it, for the report to tell */
				if (!h->offset_file || strcmp(h->offset_file, file) != 0) {
					if (!(from = strdup(file)))
						return -1;
					free(h->offset_file);
					h->offset_file = from;
				}
				h->offset_us = l.offset_us;
				h->offset_err_us = l.offset_err_us;
				h->has_offset = 1;
			}
			break;
		case ATR_LINE_SKIP:
			break;
		}
		p = nl + 1;
	}
	if ((unsigned long)bad > max_msgs && err)
		fprintf(err, "%s: %ld more malformed lines\n", atr_esc(ef, sizeof(ef), file, ATR_ESC_NAME),
			bad - (long)max_msgs);
	r->bad_lines += (unsigned long)bad;
	return bad;
}

void atr_report_free(AtrReport *r)
{
	size_t i;

	for (i = 0; i < r->nhosts; i++) {
		AtrHost *h = &r->hosts[i];
		free(h->progs);
		free(h->files);
		free(h->bins);
		free(h->offset_file);
		atr_map_free(&h->prog_map);
		atr_map_free(&h->file_map);
		atr_map_free(&h->fd_map);
	}
	free(r->hosts);
	free(r->events);
	memset(r, 0, sizeof(*r));
}
