/* output.c - buffered sink with full-write loops: one per output file or stdout.
 * Used by stapio/outfile.c (record payloads and bulk records) and stapio/main.c (stderr records). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stapio.h"

int write_full(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The buffer is allocated by the first sink_put(): in bulk mode only the
 * files of CPUs that produce output cost memory. */
void sink_init(struct sink *s, int fd, size_t cap)
{
	s->fd = fd;
	s->buf = NULL;
	s->len = 0;
	s->cap = cap;
	s->failed = 0;
}

int sink_flush(struct sink *s)
{
	if (s->len > 0 && !s->failed && write_full(s->fd, s->buf, s->len) < 0)
		s->failed = errno ? errno : EIO;
	s->len = 0;
	return s->failed ? -1 : 0;
}

void sink_put(struct sink *s, const void *data, size_t len)
{
	if (s->failed)
		return;
	if (len > s->cap - s->len)
		sink_flush(s);
	if (len > s->cap) {
		if (!s->failed && write_full(s->fd, data, len) < 0)
			s->failed = errno ? errno : EIO;
		return;
	}
	if (!s->buf && !(s->buf = malloc(s->cap))) {
		s->failed = ENOMEM;
		return;
	}
	memcpy(s->buf + s->len, data, len);
	s->len += len;
}

void sink_free(struct sink *s)
{
	free(s->buf);
	s->buf = NULL;
	s->len = 0;
}
