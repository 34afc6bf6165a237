/* relay.c - reads the per-CPU trace files and merges their records by seq.
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
#define STREAM_BUF (256 * 1024)   /* >= HDR + STP_REC_MAX_LEN: a read always fits a record */

_Static_assert(STREAM_BUF >= HDR + STP_REC_MAX_LEN, "trace read buffer too small");

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
	s->buf = malloc(STREAM_BUF);
	s->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0)
		warnx_("cannot open %s: %s", path, strerror(errno));
	else if (!s->buf)
		warnx_("out of memory");
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
			warnx_("out of memory");
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

	r->s = NULL;
	r->n = 0;
	if (!d) {
		warnx_("cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if ((cpu = trace_cpu(e->d_name)) >= 0)
			rc = relay_add(r, &cap, dir, (unsigned)cpu);
	}
	closedir(d);
	if (rc == 0 && r->n == 0) {
		warnx_("no trace files in %s", dir);
		rc = -1;
	}
	if (rc < 0)
		return -1;
	qsort(r->s, r->n, sizeof(*r->s), by_cpu);
	say("%zu trace files in %s", r->n, dir);
	return 0;
}

/* One non-blocking read from s into its free space; returns bytes or -1. */
static ssize_t stream_read(struct stream *s)
{
	ssize_t n;

	if (s->pos == s->len)
		s->pos = s->len = 0;
	do
		n = read(s->fd, s->buf + s->len, STREAM_BUF - s->len);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n < 0) {
		warnx_("reading %s%u: %s", STP_TRACE_PREFIX, s->cpu, strerror(errno));
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

/* Emits every buffered record, lowest seq first across all streams. */
static int relay_merge(struct relay *r, emit_fn emit, void *ctx)
{
	struct stp_record_header h, best;
	struct stream *pick;
	size_t i;
	int rc;

	for (;;) {
		pick = NULL;
		for (i = 0; i < r->n; i++) {
			rc = stream_peek(&r->s[i], &h);
			if (rc < 0) {
				warnx_("malformed record in %s%u", STP_TRACE_PREFIX, r->s[i].cpu);
				return -1;
			}
			if (rc > 0 && (!pick || h.seq < best.seq)) {
				pick = &r->s[i];
				best = h;
			}
		}
		if (!pick)
			return 0;
		emit(ctx, &best, pick->buf + pick->pos + HDR);
		pick->pos += HDR + best.len;
	}
}

/* Reads once from every trace file and emits what came in, in seq order.
 * *backlog is set when a file filled the buffer (more is probably waiting). */
ssize_t relay_round(struct relay *r, int *backlog, emit_fn emit, void *ctx)
{
	ssize_t total = 0, n;
	size_t i;

	*backlog = 0;
	for (i = 0; i < r->n; i++) {
		n = stream_read(&r->s[i]);
		if (n < 0)
			return -1;
		total += n;
		if ((size_t)n + HDR + STP_REC_MAX_LEN > STREAM_BUF)
			*backlog = 1;
	}
	if (relay_merge(r, emit, ctx) < 0)
		return -1;
	return total;
}

/* Rounds until every trace file is empty. */
int relay_drain(struct relay *r, emit_fn emit, void *ctx)
{
	int backlog;
	ssize_t n;

	do
		n = relay_round(r, &backlog, emit, ctx);
	while (n > 0);
	return n < 0 ? -1 : 0;
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
