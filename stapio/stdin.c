/* stdin.c - stapio's standard input to the script's input.char/input.line probes (tapset/input.stp):
 * a thread writes each byte read from stdin to the module's __stdin procfs file (one write, one
 * input.char hit, per byte) and each line, newline included, to its __stdin_line file, until EOF
 * or the files refuse. Used by main.c. */
#include "stapio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

/* The terminal's settings before stdin_forward() made it deliver each key at once (one per
 * stapio, restored at exit). */
static struct termios stdin_saved_tty;
static int stdin_tty_changed;

static void stdin_restore_tty(void)
{
	if (stdin_tty_changed)
		tcsetattr(STDIN_FILENO, TCSANOW, &stdin_saved_tty);
}

/* a terminal in non-canonical mode: each character as typed, not each line (as SystemTap) */
static void stdin_raw_tty(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &stdin_saved_tty) != 0)
		return;
	t = stdin_saved_tty;
	t.c_lflag &= ~(tcflag_t)ICANON;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0) {
		stdin_tty_changed = 1;
		atexit(stdin_restore_tty);
	}
}

/* The module's input files (-1: the script does not read that kind) and the line being read. */
struct stdin_files {
	int chars, lines;
	char line[65536];   /* a longer line goes in pieces */
	size_t len;
};

/* One write of data to fd, in pieces when the file takes fewer bytes (its probe's strings are
 * MAXSTRINGLEN long); -1 when the file refuses (the run is over) */
static int stdin_put(int fd, const char *data, size_t len)
{
	while (len) {
		size_t n = len;
		ssize_t rc;

		while ((rc = write(fd, data, n)) < 0 && (errno == EINTR || (errno == EFBIG && n > 1)))
			if (errno == EFBIG)
				n /= 2;
		if (rc <= 0) {
			say("stdin: the module refused input: %s", rc < 0 ? strerror(errno) : "short write");
			return -1;
		}
		data += rc;
		len -= (size_t)rc;
	}
	return 0;
}

/* Byte c to the files: itself to __stdin, and to __stdin_line once its line is whole */
static int stdin_byte(struct stdin_files *f, char c)
{
	size_t len;

	if (f->chars >= 0 && stdin_put(f->chars, &c, 1) < 0)
		return -1;
	if (f->lines < 0)
		return 0;
	f->line[f->len++] = c;
	if (c != '\n' && f->len < sizeof(f->line))
		return 0;
	len = f->len;
	f->len = 0;
	return stdin_put(f->lines, f->line, len);
}

static void *stdin_pump(void *arg)
{
	struct stdin_files *f = arg;
	char buf[256];
	ssize_t n;
	int ok = 1;

	while (ok && (n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (ssize_t i = 0; ok && i < n; i++)
			ok = stdin_byte(f, buf[i]) == 0;
	}
	if (ok && f->lines >= 0 && f->len)
		stdin_put(f->lines, f->line, f->len);   /* a last line without a newline */
	say("stdin: end of input");
	if (f->chars >= 0)
		close(f->chars);
	if (f->lines >= 0)
		close(f->lines);
	free(f);
	return NULL;
}

static int stdin_open(const char *dir, const char *file)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return open(path, O_WRONLY | O_CLOEXEC);
}

int stdin_forward(const char *dir)
{
	struct stdin_files *f = calloc(1, sizeof(*f));
	pthread_t t;

	if (!f)
		return -1;
	f->chars = stdin_open(dir, "__stdin");
	f->lines = stdin_open(dir, "__stdin_line");
	if (f->chars < 0 && f->lines < 0) {
		free(f);
		return 0;   /* the script reads no input */
	}
	/* named now: once started, the thread may reach EOF and free f before this thread goes on */
	const char *chars = f->chars >= 0 ? "__stdin " : "", *lines = f->lines >= 0 ? "__stdin_line" : "";

	stdin_raw_tty();
	if (pthread_create(&t, NULL, stdin_pump, f) != 0) {
		err("cannot start reading standard input for input.char/input.line");
		if (f->chars >= 0)
			close(f->chars);
		if (f->lines >= 0)
			close(f->lines);
		free(f);
		return -1;
	}
	pthread_detach(t);
	say("stdin: forwarded to %s (%s%s)", dir, chars, lines);
	return 1;
}
