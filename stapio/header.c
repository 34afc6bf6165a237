/* header.c - the comment lines (or JSON object) that make an output file self-describing: a header (host, kernel, boot id, module, clocks, the script's own lines).
 * Used by stapio/main.c (header_text as outfile.c's header callback) when the module has a procfs("header") file; the trailer is outfile.c's. */
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

/* The script's header text into buf: the procfs("header") file's, read now, or when that read gives
 * nothing, the text it gave last (read at the start, then at each file).  stapio may write a file
 * well after its records were produced, when the run has stopped and the file refuses reads: the
 * file then gets the state nearest its records' time, never a header without the script's lines. */
static void script_header(struct header_info *hi, char *buf, size_t size)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/header", hi->dir);
	if ((hi->read_script ? hi->read_script(hi->read_ctx, buf, size) : read_header_file(path, buf, size)) > 0)
		snprintf(hi->script_text, sizeof(hi->script_text), "%s", buf);
	else
		snprintf(buf, size, "%s", hi->script_text);
}

/* Appends the script's header lines (text, its procfs("header") file's) to buf at *len, each as a
 * comment line. */
static void script_lines(char *text, char *buf, size_t size, size_t *len)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int w = snprintf(buf + *len, size - *len, "# %s\n", line[0] == '#' ? line + 1 + (line[1] == ' ') : line);
		if (w < 0 || (size_t)w >= size - *len)
			return;
		*len += (size_t)w;
	}
}

/* The members of the JSON object text holds ("{...}" with blanks around it): where they start,
 * their length in *n (0: none); NULL when text is not such an object. */
static const char *object_members(const char *text, size_t *n)
{
	const char *p = text + strspn(text, " \t\r\n"), *end = p + strlen(p);

	while (end > p && strchr(" \t\r\n", end[-1]))
		end--;
	if (end - p < 2 || *p != '{' || end[-1] != '}')
		return NULL;
	p++;
	end--;
	p += strspn(p, " \t\r\n");
	*n = (size_t)(end - p);
	return p;
}

/* A JSON string member ,"key":"value" at buf + *len. */
static void json_member(char *buf, size_t size, size_t *len, const char *key, const char *value)
{
	char q[1024];
	int w;

	json_quote(q, sizeof(q), value);
	w = snprintf(buf + *len, size - *len, ",\"%s\":%s", key, q);
	if (w > 0 && (size_t)w < size - *len)
		*len += (size_t)w;
}

/* The header as one JSON object: stapio's members, then the script's (members of its object). */
static size_t json_header(const struct header_info *hi, char *buf, size_t size, const char *path,
			  unsigned long gen, const struct utsname *u, const char *boot_id,
			  const char *clocksource, const char *members, size_t nmembers)
{
	size_t len;
	int w;

	w = snprintf(buf, size, "{\"type\":\"header\",\"stap_output_header\":1");
	if (w < 0 || (size_t)w >= size)
		return 0;
	len = (size_t)w;
	json_member(buf, size, &len, "host", u->nodename);
	json_member(buf, size, &len, "kernel", u->release);
	json_member(buf, size, &len, "boot_id", boot_id);
	json_member(buf, size, &len, "module", hi->module);
	json_member(buf, size, &len, "file", path);
	w = snprintf(buf + len, size - len,
		     ",\"number\":%lu,\"run_start_wall_us\":%llu,\"run_start_monotonic_ns\":%llu"
		     ",\"file_start_wall_us\":%llu,\"file_start_monotonic_ns\":%llu",
		     gen, hi->start_wall_ns / 1000, hi->start_mono_ns, clock_ns(CLOCK_REALTIME) / 1000,
		     clock_ns(CLOCK_MONOTONIC));
	if (w < 0 || (size_t)w >= size - len)
		return 0;
	len += (size_t)w;
	json_member(buf, size, &len, "clocksource", clocksource);
	if (hi->script)
		json_member(buf, size, &len, "script", hi->script);
	if (hi->script_sha256)
		json_member(buf, size, &len, "script_sha256", hi->script_sha256);
	w = snprintf(buf + len, size - len, ",\"clock_offset_us\":%lld,\"clock_offset_err_us\":%lld",
		     hi->clock_offset_us, hi->clock_offset_err_us);
	if (w < 0 || (size_t)w >= size - len)
		return 0;
	len += (size_t)w;
	w = snprintf(buf + len, size - len, "%s%.*s}\n", nmembers ? "," : "", (int)nmembers, members);
	if (w < 0 || (size_t)w >= size - len)
		return 0;	/* no header rather than a cut object */
	return len + (size_t)w;
}

size_t header_text(void *ctx, char *buf, size_t size, const char *path, unsigned long gen, int *json)
{
	struct header_info *hi = ctx;
	struct utsname u;
	char boot_id[64], clocksource[64], script[sizeof(hi->script_text)];
	const char *members;
	size_t len, nmembers = 0;
	int n;

	if (uname(&u) < 0)
		snprintf(u.nodename, sizeof(u.nodename), "unknown"), snprintf(u.release, sizeof(u.release), "unknown");
	first_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
	first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", clocksource,
		   sizeof(clocksource));
	script_header(hi, script, sizeof(script));
	members = object_members(script, &nmembers);
	*json = members != NULL;
	if (members)
		return json_header(hi, buf, size, path, gen, &u, boot_id, clocksource, members, nmembers);
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
	if (hi->script) {
		n = snprintf(buf + len, size - len, "# script: %s sha256: %s\n", hi->script,
			     hi->script_sha256 ? hi->script_sha256 : "unknown");
		if (n < 0 || (size_t)n >= size - len)
			return 0;
		len += (size_t)n;
	}
	n = snprintf(buf + len, size - len, "# clock_offset_us: %lld clock_offset_err_us: %lld\n",
		     hi->clock_offset_us, hi->clock_offset_err_us);
	if (n < 0 || (size_t)n >= size - len)
		return 0;
	len += (size_t)n;
	script_lines(script, buf, size, &len);
	return len;
}

void header_start(struct header_info *hi, const char *dir, const char *module)
{
	char text[sizeof(hi->script_text)];

	hi->dir = dir;
	hi->module = module;
	hi->start_wall_ns = clock_ns(CLOCK_REALTIME);
	hi->start_mono_ns = clock_ns(CLOCK_MONOTONIC);
	hi->script = hi->script_sha256 = NULL;
	hi->clock_offset_us = 0;
	hi->clock_offset_err_us = -1;
	hi->script_text[0] = '\0';
	script_header(hi, text, sizeof(text));   /* with hi->read_script, when the caller set it */
}
