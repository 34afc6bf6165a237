/* relay.c - reads the per-CPU trace files and emits their records in global seq order.
 * Used by stapio/main.c (one round per poll wakeup, and the final drain). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stapio.h"

#define HDR sizeof(struct stp_record_header)
#define READ_CHUNK (256 * 1024)   /* bytes offered per read(): always fits a record */
#define GAP_WAIT_MS 100           /* longest wait for a missing seq before emitting past it */
#define PENDING_CAP (64UL << 20)  /* held bytes beyond which gaps are not waited for */

_Static_assert(READ_CHUNK >= HDR + STP_REC_MAX_LEN, "trace read chunk too small");

/*
 * Ordering.  Every record carries a global seq (1, 2, ...); the module takes
 * it only for records it stores, just before publishing them, so a hole in
 * the sequence is a record still being written on another CPU, never a lost
 * one.  Within one trace file seq increases, so each stream's pending queue
 * is sorted and the lowest pending seq is at the front of one of them.  A
 * record is emitted when its seq is r->last + 1.  When the lowest pending seq
 * is higher (a hole), everything is held back until the hole fills, for at
 * most GAP_WAIT_MS (a writer stalled mid-record, e.g. a preempted vCPU), or
 * until PENDING_CAP bytes are held, or at the final drain; then records are
 * emitted past the hole in seq order anyway, and a record of the hole that
 * shows up afterwards is emitted at once ("late").  No record is dropped or
 * emitted twice: each is emitted when it leaves its stream's queue.
 */

/* "traceN" -> N; -1 for other names. */
static long trace_cpu(const char *name)
{
	size_t plen = strlen(STP_TRACE_PREFIX);
	char *end;
	long cpu;

	if (strncmp(name, STP_TRACE_PREFIX, plen) || !name[plen])
		return -1;
	cpu = strtol(name + plen, &end, 10);
	return *end || cpu < 0 || cpu > 65535 ? -1 : cpu;
}

static int stream_open(struct stream *s, const char *dir, unsigned cpu)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s%u", dir, STP_TRACE_PREFIX, cpu);
	s->cpu = cpu;
	s->len = s->pos = 0;
	s->cap = READ_CHUNK;
	s->buf = malloc(s->cap);
	s->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0)
		err("cannot open %s: %s", path, strerror(errno));
	else if (!s->buf)
		err("out of memory");
	return s->buf && s->fd >= 0 ? 0 : -1;
}

static int by_cpu(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Appends and opens the stream of one trace file. */
static int relay_add(struct relay *r, size_t *cap, const char *dir, unsigned cpu)
{
	struct stream *s;

	if (r->n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		s = realloc(r->s, *cap * sizeof(*s));
		if (!s) {
			err("out of memory");
			return -1;
		}
		r->s = s;
	}
	return stream_open(&r->s[r->n++], dir, cpu);
}

/* Opens every traceN of dir (one per possible CPU), sorted by CPU. */
int relay_open(struct relay *r, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	long cpu;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (!d) {
		err("cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if ((cpu = trace_cpu(e->d_name)) >= 0)
			rc = relay_add(r, &cap, dir, (unsigned)cpu);
	}
	closedir(d);
	if (rc == 0 && r->n == 0) {
		err("no trace files in %s", dir);
		rc = -1;
	}
	if (rc < 0)
		return -1;
	qsort(r->s, r->n, sizeof(*r->s), by_cpu);
	say("%zu trace files in %s", r->n, dir);
	return 0;
}

/* Makes room for one READ_CHUNK read after the pending records of s.  The
 * consumed front is reclaimed once it is at least as large as what is still
 * pending (amortized), and a buffer grown during a hold shrinks back once empty. */
static int stream_reserve(struct stream *s)
{
	size_t live, cap;
	char *p;

	if (s->pos == s->len) {
		s->pos = s->len = 0;
		if (s->cap > READ_CHUNK && (p = realloc(s->buf, READ_CHUNK)) != NULL) {
			s->buf = p;
			s->cap = READ_CHUNK;
		}
	}
	if (s->cap - s->len >= READ_CHUNK)
		return 0;
	live = s->len - s->pos;
	if (s->pos >= live) {
		memmove(s->buf, s->buf + s->pos, live);
		s->pos = 0;
		s->len = live;
		if (s->cap - s->len >= READ_CHUNK)
			return 0;
	}
	cap = 2 * s->cap > s->len + READ_CHUNK ? 2 * s->cap : s->len + READ_CHUNK;
	p = realloc(s->buf, cap);
	if (!p) {
		err("out of memory");
		return -1;
	}
	s->buf = p;
	s->cap = cap;
	return 0;
}

/* One non-blocking read of at most READ_CHUNK bytes appended to s's queue;
 * returns bytes or -1. */
static ssize_t stream_read(struct stream *s)
{
	ssize_t n;

	if (stream_reserve(s) < 0)
		return -1;
	do
		n = read(s->fd, s->buf + s->len, READ_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n < 0) {
		err("reading %s%u: %s", STP_TRACE_PREFIX, s->cpu, strerror(errno));
		return -1;
	}
	s->len += (size_t)n;
	return n;
}

/* Header of the next whole record in s, or 0 if none; -1 if malformed. */
static int stream_peek(struct stream *s, struct stp_record_header *h)
{
	if (s->len - s->pos < HDR)
		return s->len == s->pos ? 0 : -1;
	memcpy(h, s->buf + s->pos, HDR);
	if (h->len > STP_REC_MAX_LEN || h->len > s->len - s->pos - HDR)
		return -1;
	return 1;
}

/* Reads once from every trace file.  Returns the bytes read, or -1;
 * *backlog is set when a file filled the chunk (more is probably waiting). */
static ssize_t relay_read(struct relay *r, int *backlog)
{
	ssize_t total = 0, n;
	size_t i;

	for (i = 0; i < r->n; i++) {
		n = stream_read(&r->s[i]);
		if (n < 0)
			return -1;
		total += n;
		r->pending += (size_t)n;
		if ((size_t)n > r->most)
			r->most = (size_t)n;
		if ((size_t)n + HDR + STP_REC_MAX_LEN > READ_CHUNK)
			*backlog = 1;
	}
	return total;
}

/* May the record with seq (the lowest pending) be emitted now?  Starts or
 * checks the wait for the hole before it. */
static int relay_may_emit(struct relay *r, uint64_t seq, int force, long now)
{
	const char *why;

	if (seq <= r->last + 1)
		return 1;               /* next in order, or late (after a passed hole) */
	if (r->last + 1 <= r->floor)
		return 1;               /* the flight recorder discarded the missing ones */
	if (!force && r->pending <= PENDING_CAP) {
		if (!r->holding || r->gap_seq != r->last + 1) {
			r->holding = 1;         /* a new hole: start waiting */
			r->gap_seq = r->last + 1;
			r->gap_since = now;
			r->gaps_held++;
			return 0;
		}
		if (now - r->gap_since < GAP_WAIT_MS)
			return 0;
	}
	why = force ? "final drain" : r->pending > PENDING_CAP ? "memory cap" : "timeout";
	r->gaps_passed++;
	say("seq %llu..%llu missing (%s); emitting past them",
	    (unsigned long long)(r->last + 1), (unsigned long long)(seq - 1), why);
	return 1;
}

/* Bulk mode (r->unordered): emits every buffered record file by file, each
 * file's records in their order; no merge, no waiting for holes. */
static int relay_emit_unordered(struct relay *r, const struct relay_emit *e)
{
	struct stp_record_header h;
	struct stream *s;
	size_t i;
	int rc;

	for (i = 0; i < r->n; i++) {
		s = &r->s[i];
		while ((rc = stream_peek(s, &h)) > 0) {
			e->one(e->ctx, &h, s->buf + s->pos + HDR);
			s->pos += HDR + h.len;
			r->pending -= HDR + h.len;
		}
		if (rc < 0) {
			err("malformed record in %s%u", STP_TRACE_PREFIX, s->cpu);
			return -1;
		}
	}
	return 0;
}

/* The bytes from s's position of its records each the next seq after last and plain output (flags
 * 0), whole and well formed; *last becomes the seq of the last of them. */
static size_t stream_plain_run(const struct stream *s, uint64_t *last)
{
	struct stp_record_header h;
	size_t pos = s->pos;

	while (s->len - pos >= HDR) {
		memcpy(&h, s->buf + pos, HDR);
		if (h.len > STP_REC_MAX_LEN || h.len > s->len - pos - HDR || h.seq != *last + 1 || h.flags)
			break;
		*last = h.seq;
		pos += HDR + h.len;
	}
	return pos - s->pos;
}

/* After a record of s: s's next records while each is the next seq (a burst from one CPU, the
 * common case), with no look at the other files: a seq is taken once, so no other file can hold
 * it.  Plain output records go to e->run together, the others one by one.  Returns -1 on a
 * malformed record. */
static int relay_emit_run(struct relay *r, struct stream *s, const struct relay_emit *e)
{
	struct stp_record_header h;
	size_t n;
	int rc;

	for (;;) {
		if ((n = stream_plain_run(s, &r->last)) != 0) {
			e->run(e->ctx, s->buf + s->pos, n);
			s->pos += n;
			r->pending -= n;
		}
		if ((rc = stream_peek(s, &h)) <= 0 || h.seq != r->last + 1)
			break;
		r->last = h.seq;
		e->one(e->ctx, &h, s->buf + s->pos + HDR);
		s->pos += HDR + h.len;
		r->pending -= HDR + h.len;
	}
	if (rc < 0)
		err("malformed record in %s%u", STP_TRACE_PREFIX, s->cpu);
	return rc < 0 ? -1 : 0;
}

/* Emits the buffered records in seq order, up to a hole that must still be
 * waited for (all of them when force is set). */
static int relay_merge(struct relay *r, int force, const struct relay_emit *e)
{
	struct stp_record_header h, best;
	struct stream *pick;
	long now = now_ms();
	size_t i;
	int rc;

	if (r->unordered)
		return relay_emit_unordered(r, e);
	for (;;) {
		pick = NULL;
		for (i = 0; i < r->n; i++) {
			rc = stream_peek(&r->s[i], &h);
			if (rc < 0) {
				err("malformed record in %s%u", STP_TRACE_PREFIX, r->s[i].cpu);
				return -1;
			}
			if (rc > 0 && (!pick || h.seq < best.seq)) {
				pick = &r->s[i];
				best = h;
			}
		}
		if (!pick) {
			r->holding = 0;
			return 0;
		}
		if (!relay_may_emit(r, best.seq, force, now))
			return 0;
		if (best.seq <= r->last) {
			r->late++;
			say("seq %llu emitted late (after seq %llu)",
			    (unsigned long long)best.seq, (unsigned long long)r->last);
		} else {
			if (r->holding && best.seq == r->gap_seq &&
			    now - r->gap_since > r->gap_max_ms)
				r->gap_max_ms = now - r->gap_since;   /* the hole filled */
			r->last = best.seq;
			r->holding = 0;
		}
		if (best.flags)
			e->one(e->ctx, &best, pick->buf + pick->pos + HDR);
		else
			e->run(e->ctx, pick->buf + pick->pos, HDR + best.len);
		pick->pos += HDR + best.len;
		r->pending -= HDR + best.len;
		if (relay_emit_run(r, pick, e) < 0)
			return -1;
	}
}

/* Reads once from every trace file and emits what can be, in seq order.  If
 * that stops at a hole, reads once more at once: usually the missing record
 * was published while the other files were being read.  r->most: the largest of its reads. */
ssize_t relay_round(struct relay *r, int *backlog, const struct relay_emit *e)
{
	ssize_t total, n;

	*backlog = 0;
	r->most = 0;
	total = relay_read(r, backlog);
	if (total < 0 || relay_merge(r, 0, e) < 0)
		return -1;
	if (r->holding) {
		n = relay_read(r, backlog);
		if (n < 0 || relay_merge(r, 0, e) < 0)
			return -1;
		total += n;
	}
	return total;
}

int relay_holding(const struct relay *r)
{
	return r->holding;
}

long relay_deadline(const struct relay *r)
{
	return r->holding ? r->gap_since + GAP_WAIT_MS : -1;
}

/* After "stopped" every record is in the trace files: reads them until
 * empty, then emits everything still held, in seq order. */
int relay_drain(struct relay *r, const struct relay_emit *e)
{
	int backlog;
	ssize_t n;

	do
		n = relay_round(r, &backlog, e);
	while (n > 0);
	if (n < 0 || relay_merge(r, 1, e) < 0)
		return -1;
	say("order: %lu seq holes waited for (longest filled after %ld ms), "
	    "%lu emitted past, %lu records emitted late",
	    r->gaps_held, r->gap_max_ms, r->gaps_passed, r->late);
	return 0;
}

void relay_close(struct relay *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->s[i].fd >= 0)
			close(r->s[i].fd);
		free(r->s[i].buf);
	}
	free(r->s);
	r->s = NULL;
	r->n = 0;
}
