/* control.c - stapio's side of the control file /proc/systemtap/NAME/.cmd.
 * Used by stapio/main.c to send start/stop and to read the module's message lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stapio.h"

int control_open(struct control *c, const char *dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, STP_CTL_FILE);
	c->len = 0;
	c->eof = 0;
	c->nonblock = 0;
	c->fd = open(path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		err("cannot open %s: %s%s", path, strerror(errno),
		    errno == EBUSY ? " (another stapio is attached)" : "");
		return -1;
	}
	return 0;
}

/* Returns 0, or -1 with errno set (the caller explains the failure). */
int control_send_quiet(struct control *c, const char *cmd)
{
	ssize_t n;

	say("sending \"%s\"", cmd);
	do
		n = write(c->fd, cmd, strlen(cmd));
	while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : 0;
}

int control_send(struct control *c, const char *cmd)
{
	if (control_send_quiet(c, cmd) < 0) {
		err("control command \"%s\" failed: %s", cmd, strerror(errno));
		return -1;
	}
	return 0;
}

/* Sets or clears O_NONBLOCK on the control file when it has to change (c->nonblock says how it
 * is: every round asks, and the answer seldom changes). */
static int control_set_blocking(struct control *c, int block)
{
	int flags;

	if (c->nonblock == !block)
		return 0;
	flags = fcntl(c->fd, F_GETFL);
	if (flags < 0 || fcntl(c->fd, F_SETFL, block ? flags & ~O_NONBLOCK : flags | O_NONBLOCK) < 0)
		return -1;
	c->nonblock = !block;
	return 0;
}

/*
 * Reads what is queued.  With block, the first read sleeps in the module
 * until a line is queued, a trace file holds data, about 100 ms pass, or a
 * signal arrives (docs/transport.md, "Waiting").  Returns -1 on error, else 0
 * (c->eof set once the module is going away).
 */
int control_fill(struct control *c, int block)
{
	ssize_t n;

	if (control_set_blocking(c, block) < 0) {
		err("control file: %s", strerror(errno));
		return -1;
	}
	while (!c->eof && c->len < sizeof(c->buf)) {
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0) {
			err("reading the control file: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			c->eof = 1;
		c->len += (size_t)n;
		if (block && control_set_blocking(c, 0) < 0)
			return -1;
		block = 0;
	}
	return 0;
}

/* Pops the next complete line (without its newline) into line. */
int control_next_line(struct control *c, char *line, size_t size)
{
	char *nl = memchr(c->buf, '\n', c->len);
	size_t used, keep;

	if (!nl)
		return 0;
	used = (size_t)(nl - c->buf) + 1;
	keep = used - 1 < size - 1 ? used - 1 : size - 1;
	memcpy(line, c->buf, keep);
	line[keep] = '\0';
	memmove(c->buf, c->buf + used, c->len - used);
	c->len -= used;
	return 1;
}

void control_close(struct control *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
