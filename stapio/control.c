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
	c->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		warnx_("cannot open %s: %s%s", path, strerror(errno),
		       errno == EBUSY ? " (another stapio is attached)" : "");
		return -1;
	}
	return 0;
}

int control_send(struct control *c, const char *cmd)
{
	ssize_t n;

	say("sending \"%s\"", cmd);
	do
		n = write(c->fd, cmd, strlen(cmd));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		warnx_("control command \"%s\" failed: %s", cmd, strerror(errno));
		return -1;
	}
	return 0;
}

/* Reads what is queued, without blocking.  Returns -1 on error, else 0
 * (c->eof set when the module is going away). */
int control_fill(struct control *c)
{
	ssize_t n;

	while (!c->eof && c->len < sizeof(c->buf)) {
		n = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			warnx_("reading the control file: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			c->eof = 1;
		c->len += (size_t)n;
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
