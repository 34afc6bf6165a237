/* header.c - the comment lines that make an output file self-describing: a header (host, kernel, boot id, module, clocks, the script's own lines) and a trailer (records, bytes, losses).
 * Used by stapio/main.c (header_text as outfile.c's header callback) when the module has a procfs("header") file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "stapio.h"

/* The first line of FILE (no newline) into buf; "unknown" when it cannot be read. */
static void first_line(const char *file, char *buf, size_t size)
{
	FILE *f = fopen(file, "re");

	if (!f || !fgets(buf, (int)size, f))
		snprintf(buf, size, "unknown");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static unsigned long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Whether the module asks for self-describing files: it has a procfs("header") file. */
int header_wanted(const char *dir)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/header", dir);
	return access(path, F_OK) == 0;
}

/* The header file's text into buf (NUL-terminated): its length, 0 or -1. A read probe skipped
 * under load (a global's lock held by the traced calls' probes) leaves it empty: tried again,
 * HEADER_TRIES times 1 ms apart at most. */
#define HEADER_TRIES 100
static ssize_t read_header_file(const char *path, char *buf, size_t size)
{
	static const struct timespec ms = { 0, 1000000 };
	ssize_t n = -1;
	int i, fd;

	for (i = 0; i < HEADER_TRIES && n <= 0; i++) {
		if (i)
			nanosleep(&ms, NULL);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		n = read(fd, buf, size - 1);
		close(fd);
		if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EBUSY)
			return -1;
	}
	if (n > 0)
		buf[n] = '\0';
	return n;
}

/* Appends the script's header lines (its procfs("header") file, read now) to buf at *len, each
 * as a comment line; nothing when the run is not running (the read fails). */
static void script_lines(const struct header_info *hi, char *buf, size_t size, size_t *len)
{
	char path[600], text[2048], *line, *save = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/header", hi->dir);
	n = read_header_file(path, text, sizeof(text));
	if (n <= 0)
		return;
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int w = snprintf(buf + *len, size - *len, "# %s\n", line[0] == '#' ? line + 1 + (line[1] == ' ') : line);
		if (w < 0 || (size_t)w >= size - *len)
			return;
		*len += (size_t)w;
	}
}

size_t header_text(void *ctx, char *buf, size_t size, const char *path, unsigned long gen)
{
	const struct header_info *hi = ctx;
	struct utsname u;
	char boot_id[64], clocksource[64];
	size_t len;
	int n;

	if (uname(&u) < 0)
		snprintf(u.nodename, sizeof(u.nodename), "unknown"), snprintf(u.release, sizeof(u.release), "unknown");
	first_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
	first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", clocksource,
		   sizeof(clocksource));
	n = snprintf(buf, size,
		     "# stap-output-header: 1\n"
		     "# host: %s\n# kernel: %s\n# boot_id: %s\n# module: %s\n"
		     "# file: %s number: %lu\n"
		     "# run_start: wall_us: %llu monotonic_ns: %llu\n"
		     "# file_start: wall_us: %llu monotonic_ns: %llu\n"
		     "# clocksource: %s\n",
		     u.nodename, u.release, boot_id, hi->module, path, gen,
		     hi->start_wall_ns / 1000, hi->start_mono_ns,
		     clock_ns(CLOCK_REALTIME) / 1000, clock_ns(CLOCK_MONOTONIC), clocksource);
	if (n < 0 || (size_t)n >= size)
		return 0;
	len = (size_t)n;
	script_lines(hi, buf, size, &len);
	return len;
}

void header_start(struct header_info *hi, const char *dir, const char *module)
{
	hi->dir = dir;
	hi->module = module;
	hi->start_wall_ns = clock_ns(CLOCK_REALTIME);
	hi->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
}
