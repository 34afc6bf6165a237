/* outfile.c - where stapio writes the records: stdout, -o FILE (strftime names, -S rotation,
 * switches on request), or one file per CPU in bulk mode.  Used by stapio/main.c and tests/unit/outfile.t. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/outopen.h"
#include "stapio.h"

#define HDR sizeof(struct stp_record_header)
_Static_assert(offsetof(struct stp_record_header, len) == 0 && sizeof(((struct stp_record_header *)0)->len) == 4,
	       "outfile_append_run reads a record's length as the header's first 4 bytes");
#define OUT_BUF (64 * 1024)       /* buffer of each output file (allocated on first use) */
#define MB (1024ULL * 1024ULL)
#define MAX_KEEP 1000000UL        /* -S SIZE_MB,N: largest N */

/*
 * Naming.  The -o argument is a strftime(3) pattern, expanded with the local
 * time whenever a file is opened (a switch after midnight gets the new date).
 * In bulk mode "_cpuN" follows the expansion (no -o: "stpd_cpuN" in the
 * current directory).  With -S every file carries its number: NAME.0, NAME.1,
 * ...; without -S the first file is plain NAME and only a switch (SIGUSR2,
 * switch_file()) starts numbering: NAME.1, NAME.2, ...  In bulk mode each
 * CPU's file rotates on its own (its own size, its own numbers); a requested
 * switch moves every CPU's file on.
 *
 * Rotation.  Before a record that would make a non-empty file exceed SIZE_MB,
 * the file is closed and the next one opened, so a record is never split
 * across files.  With N, opening file k removes file k-N (by the name it was
 * opened with), so at most N files of each stream remain.
 *
 * A full file system (ENOSPC, EDQUOT) does not end the run: records are written whole or not at
 * all (a write cut short is truncated back to the last whole record), the ones that did not fit
 * are counted and dropped until space returns, and with -S ...,N the oldest kept file is removed
 * first to make room.  stderr says when records start to be dropped and how many were; a merged
 * (text) file gets the line "# lost: N records (B bytes) not written: REASON" (a file whose header
 * was JSON: {"type":"lost",...}) where writing resumed; at the end stderr has the run's total.
 *
 * Bulk files hold each record as the trace file gave it (header, then
 * payload), which stap-merge needs to restore the order; merged output is the
 * payloads only.  Every file of every (possible) CPU is created when the run
 * starts, so a CPU that produced nothing leaves an empty file rather than a
 * stale one from an earlier run.
 */

/* Records the first failure (the message gets ": strerror(err)" unless err
 * is negative); later output is discarded. */
static void fail(struct outfile *o, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->failed)
		return;
	o->failed = err < 0 ? -err : err ? err : EIO;
	va_start(ap, fmt);
	n = vsnprintf(o->error, sizeof(o->error), fmt, ap);
	va_end(ap);
	if (err >= 0 && n >= 0 && (size_t)n < sizeof(o->error))
		snprintf(o->error + n, sizeof(o->error) - (size_t)n, ": %s", strerror(o->failed));
}

int outfile_parse_size(const char *arg, unsigned long long *limit, unsigned long *keep)
{
	unsigned long long mb;
	unsigned long n = 0;
	char *end;

	errno = 0;
	mb = strtoull(arg, &end, 10);
	if (errno || end == arg || *arg == '-' || *arg == '+' || mb < 1 || mb > ULLONG_MAX / MB ||
	    (*end && *end != ',')) {
		err("-S %s: SIZE_MB must be a whole number of megabytes, at least 1", arg);
		return -1;
	}
	if (*end == ',') {
		const char *p = end + 1;
		errno = 0;
		n = strtoul(p, &end, 10);
		if (errno || end == p || *p == '-' || *p == '+' || *end || n < 1 || n > MAX_KEEP) {
			err("-S %s: N (files to keep) must be a whole number from 1 to %lu", arg, MAX_KEEP);
			return -1;
		}
	}
	*limit = mb * MB;
	*keep = n;
	return 0;
}

/* The path of s's file number gen, into buf; -1 (failure recorded) if the
 * pattern expands to nothing or too long a name. */
static int stream_path(struct outfile *o, const struct outstream *s, char *buf, size_t size)
{
	char base[PATH_MAX];
	struct tm tm;
	time_t now;
	size_t n;
	int len;

	if (o->pattern) {
		now = time(NULL);
		if (!localtime_r(&now, &tm)) {
			fail(o, errno, "-o %s: cannot get the local time", o->pattern);
			return -1;
		}
		n = strftime(base, sizeof(base), o->pattern, &tm);
		if (n == 0) {
			fail(o, -EINVAL, "-o %s: the pattern expands to an empty or too long file name",
			     o->pattern);
			return -1;
		}
	} else {
		snprintf(base, sizeof(base), "stpd");   /* bulk mode without -o */
	}
	if (s->cpu >= 0)
		len = o->numbered || s->gen > 0
			? snprintf(buf, size, "%s_cpu%d.%lu", base, s->cpu, s->gen)
			: snprintf(buf, size, "%s_cpu%d", base, s->cpu);
	else
		len = o->numbered || s->gen > 0 ? snprintf(buf, size, "%s.%lu", base, s->gen)
						: snprintf(buf, size, "%s", base);
	if (len < 0 || (size_t)len >= size) {
		fail(o, -ENAMETOOLONG, "-o %s: the file name is too long", o->pattern ? o->pattern : base);
		return -1;
	}
	return 0;
}

/* -S ...,N: remembers path as the newest file of s and removes the one that
 * falls out of the newest N. */
static void stream_keep(struct outfile *o, struct outstream *s, const char *path)
{
	char **old;
	size_t cap;

	if (!o->keep)
		return;
	if (s->nkept == o->keep) {
		if (unlink(s->kept[0]) < 0 && errno != ENOENT)
			err("cannot remove %s: %s", s->kept[0], strerror(errno));
		else
			say("removed %s (-S keeps %lu files)", s->kept[0], o->keep);
		free(s->kept[0]);
		memmove(s->kept, s->kept + 1, (s->nkept - 1) * sizeof(*s->kept));
		s->nkept--;
	}
	if (s->nkept == s->kept_cap) {
		cap = s->kept_cap ? 2 * s->kept_cap : 4;
		if (cap > o->keep)
			cap = o->keep;
		old = realloc(s->kept, cap * sizeof(*old));
		if (!old) {
			fail(o, ENOMEM, "remembering output file names");
			return;
		}
		s->kept = old;
		s->kept_cap = cap;
	}
	if (!(s->kept[s->nkept] = strdup(path))) {
		fail(o, ENOMEM, "remembering output file names");
		return;
	}
	s->nkept++;
}

/* Opens s's file number s->gen (empty: new, or truncated when outopen.c allows). */
static int stream_open(struct outfile *o, struct outstream *s)
{
	char path[PATH_MAX], why[128];
	int fd;

	if (stream_path(o, s, path, sizeof(path)) < 0)
		return -1;
	fd = output_file_open(path, why, sizeof(why));
	if (fd < 0) {
		if (why[0])
			fail(o, -EPERM, "not writing %s: %s", path, why);
		else
			fail(o, errno, "cannot open %s", path);
		return -1;
	}
	if (!(s->path = strdup(path))) {
		close(fd);
		fail(o, ENOMEM, "opening %s", path);
		return -1;
	}
	sink_init(&s->sink, fd, OUT_BUF);
	s->size = s->disk = 0;
	s->nends = 0;
	s->need_header = o->header && !o->bulk;
	s->file_records = s->file_dropped = 0;
	say("writing %s", path);
	stream_keep(o, s, path);
	return o->failed ? -1 : 0;
}

static int space_error(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

/* -S ...,N on a full disk: removes the oldest file kept before s's current one; 0 if none. */
static int stream_free_oldest(struct outstream *s)
{
	if (s->nkept < 2)
		return 0;
	if (unlink(s->kept[0]) < 0 && errno != ENOENT) {
		err("cannot remove %s to make room: %s", s->kept[0], strerror(errno));
		return 0;
	}
	err("the file system is full: removed %s, the oldest file kept", s->kept[0]);
	free(s->kept[0]);
	memmove(s->kept, s->kept + 1, (s->nkept - 1) * sizeof(*s->kept));
	s->nkept--;
	return 1;
}

/* Writes len bytes of data; the bytes written before a failure, errno kept. */
static size_t write_some(int fd, const char *data, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

static void count_unwritten(struct outfile *o, struct outstream *s, size_t records, size_t bytes)
{
	s->unwritten += records;
	s->unwritten_bytes += bytes;
	s->file_dropped += records;
	o->unwritten += records;
	o->unwritten_bytes += bytes;
}

/*
 * Writes the records data holds (nends of them, record k ending at ends[k]) at the end of s's
 * file, each whole or not at all: a write the full file system cut short is truncated back to
 * the last whole record, the oldest kept file removed and the rest tried again (-S ...,N), else
 * the rest are counted as not written. 0: all written; 1: some dropped (counted); -1: failed.
 */
static int stream_commit(struct outfile *o, struct outstream *s, const char *data,
			 const uint32_t *ends, size_t nends)
{
	unsigned long long disk0 = s->disk;
	size_t base = 0, done, k = 0;
	int werr;

	while (k < nends) {
		done = base + write_some(s->sink.fd, data + base, ends[nends - 1] - base);
		werr = errno ? errno : EIO;
		while (k < nends && ends[k] <= done)
			k++;
		base = k ? ends[k - 1] : 0;
		s->disk = disk0 + base;
		if (k == nends)
			break;
		if (!space_error(werr)) {
			fail(o, werr, "writing %s", s->path);
			return -1;
		}
		/* not a regular file (/dev/full): nothing to cut back, the write's error stands */
		if (ftruncate(s->sink.fd, (off_t)s->disk) < 0 ||
		    lseek(s->sink.fd, (off_t)s->disk, SEEK_SET) < 0) {
			fail(o, werr, "writing %s", s->path);
			return -1;
		}
		if (stream_free_oldest(s))
			continue;
		if (!o->full)
			err("WARNING: writing %s: %s: records are dropped, and counted, until there"
			    " is space again", s->path, strerror(werr));
		o->full = werr;
		count_unwritten(o, s, nends - k, ends[nends - 1] - base);
		return 1;
	}
	return 0;
}

/* stapio's own line(s) of text, not the script's records: when the full disk drops them, they are
 * not counted. What stream_commit returns. */
static int stream_put_comment(struct outfile *o, struct outstream *s, const char *text, uint32_t len)
{
	int rc = stream_commit(o, s, text, &len, 1);

	if (rc == 1) {
		s->unwritten--;
		s->unwritten_bytes -= len;
		s->file_dropped--;
		o->unwritten--;
		o->unwritten_bytes -= len;
	}
	return rc;
}

#define TRAILER_FMT "# end: file: %s records: %llu bytes: %llu not_written: %llu\n"
#define TRAILER_JSON "{\"type\":\"end\",\"file\":%s,\"records\":%llu,\"bytes\":%llu,\"not_written\":%llu}\n"

/* -S with self-describing files: the room a file keeps for its trailer.  Before the header says which
 * form the file has, the most either form can take (the path quoted for JSON: 6 bytes a byte at most);
 * after, measured once with its own path and numbers of 20 digits (stream_write_header). */
static unsigned long long trailer_worst(const struct outstream *s)
{
	return sizeof(TRAILER_JSON) + 6 * strlen(s->path) + 3 * 20;
}

static unsigned long long trailer_measure(const struct outstream *s)
{
	char path[6 * PATH_MAX + 3];
	int n;

	if (s->json) {
		json_quote(path, sizeof(path), s->path);
		n = snprintf(NULL, 0, TRAILER_JSON, path, ULLONG_MAX, ULLONG_MAX, ULLONG_MAX);
	} else {
		n = snprintf(NULL, 0, TRAILER_FMT, s->path, ULLONG_MAX, ULLONG_MAX, ULLONG_MAX);
	}
	return n > 0 ? (unsigned long long)n : trailer_worst(s);
}

static unsigned long long trailer_room(const struct outfile *o, const struct outstream *s)
{
	if (!o->header || o->bulk || !s->path)
		return 0;
	return s->need_header ? trailer_worst(s) : s->trailer;
}

/* Self-describing files: the header, before the file's first record. */
static void stream_write_header(struct outfile *o, struct outstream *s)
{
	char text[4096];
	size_t n;

	s->need_header = 0;
	s->json = 0;
	n = o->header(o->header_ctx, text, sizeof(text), s->path, s->gen, &s->json);
	if (n)
		stream_put_comment(o, s, text, (uint32_t)n);
	s->size = s->disk;
	s->trailer = s->path ? trailer_measure(s) : 0;
}

/* Self-describing files: the trailer, the file's totals, once what it buffered is written. */
static void stream_write_trailer(struct outfile *o, struct outstream *s)
{
	char text[6 * PATH_MAX + 160], path[6 * PATH_MAX + 3];
	unsigned long long records = s->file_records - s->file_dropped;
	int n;

	if (!o->header || o->bulk || !s->path || o->failed)
		return;
	if (s->need_header)
		stream_write_header(o, s);
	if (s->json) {
		json_quote(path, sizeof(path), s->path);
		n = snprintf(text, sizeof(text), TRAILER_JSON, path, records, s->disk, s->file_dropped);
	} else {
		n = snprintf(text, sizeof(text), TRAILER_FMT, s->path, records, s->disk, s->file_dropped);
	}
	if (n > 0 && (size_t)n < sizeof(text))
		stream_put_comment(o, s, text, (uint32_t)n);
}

/*
 * Writes data (records ending at ends[0..nends)) to s's file; while the disk is full they are
 * counted, not written.  When space returns after records were dropped, a merged file first gets
 * the line saying how many, and stderr says it; if none of the records fits after the line after
 * all, the line is cut back and waits for the next ones.
 */
static int stream_put_records(struct outfile *o, struct outstream *s, const char *data,
			      const uint32_t *ends, size_t nends)
{
	unsigned long long pending = s->unwritten, pending_bytes = s->unwritten_bytes;
	unsigned long long disk0 = s->disk;
	char line[160];
	uint32_t end = 0;
	int rc = 0;

	if (pending && !o->bulk) {
		const char *why = strerror(o->full ? o->full : ENOSPC);
		end = (uint32_t)(s->json
			? snprintf(line, sizeof(line), "{\"type\":\"lost\",\"records\":%llu,\"bytes\":%llu,"
				   "\"not_written\":\"%s\"}\n", pending, pending_bytes, why)
			: snprintf(line, sizeof(line), "# lost: %llu records (%llu bytes) not written: %s\n",
				   pending, pending_bytes, why));
		rc = stream_put_comment(o, s, line, end);
	}
	if (rc == 0) {
		s->unwritten = s->unwritten_bytes = 0;
		rc = stream_commit(o, s, data, ends, nends);
		if (pending && rc >= 0 && s->disk == disk0 + end) {
			if (end && (ftruncate(s->sink.fd, (off_t)disk0) < 0 ||
				    lseek(s->sink.fd, (off_t)disk0, SEEK_SET) < 0))
				fail(o, errno, "cutting %s back to its last whole record", s->path);
			s->disk = disk0;
			s->unwritten += pending;
			s->unwritten_bytes += pending_bytes;
		} else if (pending && rc >= 0) {
			err("writing %s again: %llu records (%llu bytes) were not written", s->path,
			    pending, pending_bytes);
			if (!s->unwritten)
				o->full = 0;
		}
	} else if (rc > 0) {
		count_unwritten(o, s, nends, ends[nends - 1]);
	}
	s->size = s->disk;
	return rc < 0 ? -1 : 0;
}

/* Writes out what s buffered; a failure is recorded with s's file name. */
static int stream_flush(struct outfile *o, struct outstream *s)
{
	int rc;

	if (!s->path) {
		if (sink_flush(&s->sink) < 0) {
			fail(o, s->sink.failed, "writing standard output");
			return -1;
		}
		return 0;
	}
	if (!s->sink.len)
		return 0;
	rc = stream_put_records(o, s, s->sink.buf, s->ends, s->nends);
	s->sink.len = 0;
	s->nends = 0;
	return rc;
}

/* Remembers that a record of s's buffer ends at its current length. */
static int stream_mark_record(struct outfile *o, struct outstream *s)
{
	uint32_t *ends;
	size_t cap;

	if (!s->path)
		return 0;
	if (s->nends == s->ends_cap) {
		cap = s->ends_cap ? 2 * s->ends_cap : 256;
		if (!(ends = realloc(s->ends, cap * sizeof(*ends)))) {
			fail(o, ENOMEM, "writing %s", s->path);
			return -1;
		}
		s->ends = ends;
		s->ends_cap = cap;
	}
	s->ends[s->nends++] = (uint32_t)s->sink.len;
	return 0;
}

/* A record larger than the buffer, written on its own (the buffer written first). */
static void stream_write_large(struct outfile *o, struct outstream *s,
			       const struct stp_record_header *h, const char *payload)
{
	char *whole = NULL;
	const char *data = payload;
	uint32_t n = h->len;

	if (stream_flush(o, s) < 0)
		return;
	if (o->bulk) {
		if (!(whole = malloc(HDR + h->len))) {
			fail(o, ENOMEM, "writing %s", s->path ? s->path : "standard output");
			return;
		}
		memcpy(whole, h, HDR);
		memcpy(whole + HDR, payload, h->len);
		data = whole;
		n += HDR;
	}
	if (!s->path) {
		if (write_full(s->sink.fd, data, n) < 0)
			fail(o, errno ? errno : EIO, "writing standard output");
		s->size += n;
	} else {
		stream_put_records(o, s, data, &n, 1);
	}
	free(whole);
}

/* Closes s's file and opens the next one. */
static int stream_switch(struct outfile *o, struct outstream *s)
{
	int rc = stream_flush(o, s);

	if (rc == 0)
		stream_write_trailer(o, s);
	rc = o->failed ? -1 : rc;
	if (close(s->sink.fd) < 0 && errno != EINTR && rc == 0) {
		fail(o, errno, "closing %s", s->path);
		rc = -1;
	}
	sink_free(&s->sink);
	s->sink.fd = -1;
	free(s->path);
	s->path = NULL;
	if (rc < 0)
		return -1;
	s->gen++;
	return stream_open(o, s);
}

/* Appends the stream of CPU cpu (-1: the merged stream) and opens its first file. */
static struct outstream *stream_add(struct outfile *o, int cpu)
{
	struct outstream *s;

	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 8;
		s = realloc(o->s, cap * sizeof(*s));
		if (!s) {
			fail(o, ENOMEM, "adding an output file");
			return NULL;
		}
		o->s = s;
		o->cap = cap;
	}
	s = &o->s[o->n++];
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->sink.fd = -1;
	if (cpu < 0 && !o->pattern) {
		sink_init(&s->sink, STDOUT_FILENO, OUT_BUF);
		return s;
	}
	return stream_open(o, s) < 0 ? NULL : s;
}

int outfile_open(struct outfile *o, const char *pattern, const char *size_arg, int bulk,
		 const unsigned *cpus, size_t ncpus)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->pattern = pattern;
	o->bulk = bulk;
	if (size_arg) {
		if (!pattern) {
			err("-S needs -o FILE (the files are FILE.0, FILE.1, ...)");
			return -1;
		}
		if (outfile_parse_size(size_arg, &o->limit, &o->keep) < 0)
			return -1;
		o->numbered = 1;
	}
	if (bulk)
		say("bulk mode: one file per CPU, %s_cpuN", pattern ? pattern : "stpd");
	for (i = 0; i < ncpus && !o->failed; i++)
		stream_add(o, (int)cpus[i]);
	if (!bulk)
		stream_add(o, -1);
	if (o->failed) {
		err("%s", o->error);
		outfile_close(o);
		return -1;
	}
	return 0;
}

/* The stream a record goes to; in bulk mode a CPU without a file yet gets one. */
static struct outstream *stream_for(struct outfile *o, unsigned cpu)
{
	size_t i;

	if (!o->bulk)
		return &o->s[0];
	if (o->last < o->n && o->s[o->last].cpu == (int)cpu)
		return &o->s[o->last];
	for (i = 0; i < o->n; i++) {
		if (o->s[i].cpu == (int)cpu) {
			o->last = i;
			return &o->s[i];
		}
	}
	o->last = o->n;
	return stream_add(o, (int)cpu);
}

/* A requested switch: every file moves on to its next one. */
static void switch_all(struct outfile *o)
{
	size_t i;

	o->switch_req = 0;
	for (i = 0; i < o->n && !o->failed; i++) {
		if (o->s[i].path)
			stream_switch(o, &o->s[i]);
	}
}

/* The common case: merged output (one stream) with no -S limit, no switch asked for, its header
 * written: records go straight into its buffer (outfile_append_run) while they fit. */
static int outfile_fast(const struct outfile *o)
{
	const struct outstream *s = &o->s[0];

	return o->n && !o->bulk && !o->failed && !o->switch_req && !o->limit && !s->need_header &&
	       s->sink.buf && !s->sink.failed;
}

/* Any record (the general path). */
static __attribute__((noinline)) void outfile_write_any(struct outfile *o, const struct stp_record_header *h,
							  const char *payload)
{
	struct outstream *s;
	size_t n = o->bulk ? HDR + h->len : h->len;

	if (o->failed)
		return;
	if (o->switch_req)
		switch_all(o);
	s = o->failed ? NULL : stream_for(o, h->cpu);
	if (!s)
		return;
	if (o->limit && s->size > 0 && s->size + n + trailer_room(o, s) > o->limit &&
	    stream_switch(o, s) < 0)
		return;
	/* the buffer is written at record boundaries only: a full disk's cut never tears a record */
	if (n > s->sink.cap - s->sink.len && stream_flush(o, s) < 0)
		return;
	if (s->need_header)
		stream_write_header(o, s);
	s->file_records++;
	if (n > s->sink.cap) {
		stream_write_large(o, s, h, payload);
		return;
	}
	if (o->bulk)
		sink_put(&s->sink, h, HDR);
	sink_put(&s->sink, payload, h->len);
	s->size += n;
	if (stream_mark_record(o, s) < 0)
		return;
	if (s->sink.failed)
		fail(o, s->sink.failed, "writing %s", s->path ? s->path : "standard output");
}

/* A record on its own (bulk mode's, one apart from a run): the general path. */
void outfile_write(struct outfile *o, const struct stp_record_header *h, const char *payload)
{
	outfile_write_any(o, h, payload);
}

/* The common case's records of a run (whole, as relay.c checked them) appended while they fit,
 * as the general path would append them with fewer tests, with the stream's state in locals (and
 * its list of record ends): the bytes of run taken. */
static size_t outfile_append_run(struct outfile *o, const char *run, size_t bytes)
{
	struct outstream *s = &o->s[0];
	struct sink *k = &s->sink;
	char *buf = k->buf;
	size_t len = k->len, cap = k->cap, taken = 0, nends = s->nends;
	size_t ends_cap = s->path ? s->ends_cap : (size_t)-1;
	uint32_t *ends = s->path ? s->ends : NULL, n;
	unsigned long long records = 0;

	while (bytes - taken >= HDR) {
		memcpy(&n, run + taken, sizeof n);      /* the header's len */
		if (n > cap - len || nends == ends_cap)
			break;
		memcpy(buf + len, run + taken + HDR, n);
		len += n;
		if (ends)
			ends[nends++] = (uint32_t)len;
		taken += HDR + n;
		records++;
	}
	s->size += len - k->len;
	s->file_records += records;
	s->nends = nends;
	k->len = len;
	return taken;
}

/* A run of records: the common case's straight into the buffer, the others (a record that does
 * not fit, or with a switch, a limit, a header due) by the general path one by one. */
void outfile_write_run(struct outfile *o, const char *run, size_t bytes)
{
	struct stp_record_header h;
	size_t n;

	while (bytes >= HDR) {
		if (outfile_fast(o) && (n = outfile_append_run(o, run, bytes)) != 0) {
			run += n;
			bytes -= n;
			continue;
		}
		memcpy(&h, run, HDR);
		outfile_write_any(o, &h, run + HDR);
		run += HDR + h.len;
		bytes -= HDR + h.len;
	}
}

void outfile_set_header(struct outfile *o, size_t (*fn)(void *, char *, size_t, const char *,
							 unsigned long, int *), void *ctx)
{
	size_t i;

	o->header = fn;
	o->header_ctx = ctx;
	for (i = 0; i < o->n; i++)
		o->s[i].need_header = fn && !o->bulk && o->s[i].path && !o->s[i].disk &&
				      !o->s[i].sink.len;
}

void outfile_request_switch(struct outfile *o)
{
	if (o->n == 0 || (!o->bulk && !o->pattern)) {
		say("output goes to standard output: no file to switch");
		return;
	}
	say("switching to the next output file");
	o->switch_req = 1;
}

int outfile_flush(struct outfile *o)
{
	size_t i;

	if (o->switch_req && !o->failed)
		switch_all(o);
	for (i = 0; i < o->n && !o->failed; i++)
		stream_flush(o, &o->s[i]);
	return o->failed ? -1 : 0;
}

int outfile_failed(const struct outfile *o)
{
	return o->failed;
}

const char *outfile_error(const struct outfile *o)
{
	return o->failed ? o->error : "";
}

int outfile_close(struct outfile *o)
{
	int rc = outfile_flush(o);
	size_t i, k;

	for (i = 0; i < o->n && rc == 0; i++)
		stream_write_trailer(o, &o->s[i]);
	rc = o->failed ? -1 : rc;
	if (o->unwritten)
		err("WARNING: %llu records (%llu bytes) not written: the file system was full",
		    o->unwritten, o->unwritten_bytes);
	for (i = 0; i < o->n; i++) {
		struct outstream *s = &o->s[i];
		if (s->path && s->sink.fd >= 0 && close(s->sink.fd) < 0 && errno != EINTR && rc == 0) {
			fail(o, errno, "closing %s", s->path);
			rc = -1;
		}
		sink_free(&s->sink);
		free(s->path);
		for (k = 0; k < s->nkept; k++)
			free(s->kept[k]);
		free(s->kept);
		free(s->ends);
	}
	free(o->s);
	o->s = NULL;
	o->n = o->cap = 0;
	return rc;
}
