/* remote.c - stap --remote: ask each ssh target its kernel release, compile once per release
 * with this stap (-r KVER -p4), copy the module over, run staprun everywhere at once and merge
 * the output; used by main.c when --remote is given. The design is described in man/stap.1. */
#include "driver/remote.h"
#include "../common/outopen.h"
#include "core/limits.h"
#include "lib/diag.h"
#include "driver/spawn.h"
#include "driver/tmpdir.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct RemoteStream {
	int fd;                 /* -1 once at end of file */
	StrBuf partial;         /* the start of a line not yet complete (at most REMOTE_LINE_MAX bytes) */
	FILE *dest;
	int cut;                /* a line longer than REMOTE_LINE_MAX was cut (said once) */
} RemoteStream;

/* The longest line kept whole (as stapio reads a script's stdin: 64 KiB): a host that never sends a newline
 * cannot grow stap's memory. A longer line goes out in pieces, each ended by a newline where hosts share the
 * terminal (-o FILE's FILE.HOST gets it unchanged). */
#define REMOTE_LINE_MAX 65536

typedef struct RemoteHost {
	char *name;             /* as shown: [USER@]HOST[:PORT] */
	char *uri;              /* as given (remote_uri() on the host) */
	char *user, *host, *port;
	char *kver;             /* its `uname -r` */
	char *ko;               /* the local module built for kver */
	char *dir;              /* the private directory made on the host */
	int failed;             /* reported; takes no further part */
	int done;               /* -p1 .. -p3: its release's output printed */
	pid_t pid;              /* the ssh of the run */
	int in_fd;              /* its stdin: closing it ends the remote staprun */
	RemoteStream out, err;
	FILE *file;             /* -o FILE.HOST */
	int has_clock;          /* its clock's offset to ours was measured: */
	long long clock_offset_us, clock_err_us;   /* its clock minus ours, the error (staprun -O) */
} RemoteHost;

/* clock samples taken of each host; the one of the shortest round trip is kept (as NTP does) */
#define REMOTE_CLOCK_SAMPLES 8

static int remote_sig_pipe[2] = { -1, -1 };
static volatile sig_atomic_t remote_signalled;

/* ---- targets ---- */

static int remote_chars_ok(const char *s, size_t n, const char *extra)
{
	if (n == 0 || s[0] == '-' || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(extra, c)))
			return 0;
	}
	return 1;
}

/* ssh://[USER@]HOST[:PORT] or [USER@]HOST[:PORT]: USER and HOST of letters, digits and . _ -
 * (not first), HOST also [IPv6], PORT 1-65535. Nothing else reaches ssh or a shell. */
int remote_add(Session *s, const char *url)
{
	const char *p = url, *at, *colon, *host_end;
	RemoteHost *h = xcalloc(1, sizeof *h);

	if (!strncmp(p, "ssh://", 6))
		p += 6;
	else if (strstr(p, "://")) {
		diag_plain(&s->diag, "error", "--remote '%s': only ssh://[USER@]HOST[:PORT] targets are supported", url);
		return -1;
	}
	at = strchr(p, '@');
	if (at) {
		if (at - p > 32 || !remote_chars_ok(p, (size_t)(at - p), "._-"))
			goto bad;
		h->user = xstrndup(p, (size_t)(at - p));
		p = at + 1;
	}
	if (*p == '[') {
		host_end = strchr(p, ']');
		if (!host_end || !remote_chars_ok(p + 1, (size_t)(host_end - p - 1), ":.") ||
		    !strchr(p, ':'))
			goto bad;
		h->host = xstrndup(p + 1, (size_t)(host_end - p - 1));
		colon = host_end[1] == ':' ? host_end + 1 : NULL;
		if (!colon && host_end[1])
			goto bad;
	} else {
		colon = strchr(p, ':');
		host_end = colon ? colon : p + strlen(p);
		if (host_end - p > 253 || !remote_chars_ok(p, (size_t)(host_end - p), "._-"))
			goto bad;
		h->host = xstrndup(p, (size_t)(host_end - p));
	}
	if (colon) {
		char *end;
		long port = strtol(colon + 1, &end, 10);
		if (*end || end == colon + 1 || colon[1] == '+' || colon[1] == '-' || port < 1 || port > 65535)
			goto bad;
		h->port = xasprintf("%ld", port);
	}
	if (strlen(url) > STP_REMOTE_URI_MAX) {
		diag_plain(&s->diag, "error", "--remote '%.40s...': longer than %d characters", url, STP_REMOTE_URI_MAX);
		free(h->user);
		free(h->host);
		free(h->port);
		free(h);
		return -1;
	}
	h->name = xstrdup(!strncmp(url, "ssh://", 6) ? url + 6 : url);
	h->uri = xstrdup(url);
	h->in_fd = h->out.fd = h->err.fd = -1;
	vec_push(&s->remote_hosts, h);
	return 0;
bad:
	diag_plain(&s->diag, "error", "--remote '%s': expected ssh://[USER@]HOST[:PORT] (letters, digits, '.', '_', '-')",
		   url);
	free(h->user);
	free(h->host);
	free(h);
	return -1;
}

int remote_wanted(const Session *s)
{
	return s->remote_hosts.len > 0;
}

static void remote_fail(RemoteHost *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void remote_fail(RemoteHost *h, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "stap: host %s: ", h->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	h->failed = 1;
}

/* ---- processes ---- */

static void sb_quote(StrBuf *sb, const char *s)
{
	sb_putc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(sb, "'\\''");
		else
			sb_putc(sb, *s);
	}
	sb_putc(sb, '\'');
}

/* The argv of `ssh ... HOST sh -c SCRIPT`: BatchMode (no password prompts from several
 * sessions at once), timeouts, the user and port as options, "--" before the host. */
static char **remote_ssh_argv(const RemoteHost *h, const char *script)
{
	char **argv = xcalloc(24, sizeof *argv);
	StrBuf cmd;
	int n = 0;

	argv[n++] = "ssh";
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	argv[n++] = "-o";
	argv[n++] = "ConnectTimeout=30";
	argv[n++] = "-o";
	argv[n++] = "ServerAliveInterval=15";   /* a host gone silent is lost after a minute */
	argv[n++] = "-o";
	argv[n++] = "ServerAliveCountMax=4";
	if (h->port) {
		argv[n++] = "-p";
		argv[n++] = h->port;
	}
	if (h->user) {
		argv[n++] = "-l";
		argv[n++] = h->user;
	}
	argv[n++] = "--";
	argv[n++] = h->host;
	sb_init(&cmd);
	sb_puts(&cmd, "sh -c ");
	sb_quote(&cmd, script);
	argv[n++] = sb_steal(&cmd);
	argv[n] = NULL;
	return argv;
}

/* Starts argv in dir (NULL: ours) with the given stdin/stdout/stderr (-1: inherit); the child in
 * a new process group when own_group (the terminal's ^C is stap's to handle). */
static pid_t remote_spawn(char **argv, const char *dir, int in, int out, int err, int own_group)
{
	const int stdio[3] = { in, out, err };
	SpawnOpts o = { .cwd = dir, .stdio = stdio, .own_group = own_group };

	fflush(stdout);
	fflush(stderr);
	return spawn_start(argv, &o);
}

static void remote_chomp(StrBuf *sb)
{
	while (sb->len && (sb->data[sb->len - 1] == '\n' || sb->data[sb->len - 1] == '\r'))
		sb->data[--sb->len] = '\0';
}

/* ---- kernel releases and modules ---- */

static int remote_kver_ok(const char *k)
{
	return strlen(k) <= 64 && remote_chars_ok(k, strlen(k), "._-+~");
}

static void remote_query_kver(RemoteHost *h)
{
	char **argv = remote_ssh_argv(h, "uname -r");
	StrBuf out;
	int rc = spawn_capture(argv, NULL, -1, -1, &out);

	remote_chomp(&out);
	if (rc == 255 || rc < 0)
		remote_fail(h, "cannot reach it (ssh exited with status %d)", rc);
	else if (rc != 0)
		remote_fail(h, "'uname -r' failed there (status %d)", rc);
	else if (!remote_kver_ok(out.data))
		remote_fail(h, "unexpected kernel release '%.64s' from 'uname -r'", out.data);
	else
		h->kver = xstrdup(out.data);
	sb_free(&out);
	free(argv);
}

/* The kernel build tree for kver here: /lib/modules/KVER/build; when there is none, and only
 * then, $STAP_REMOTE_MODULES/KVER/build (a test hook: tests/unit/remote.t makes a second release's
 * tree there), which the child stap then gets as -r PATH (the release read from the tree). */
static char *remote_build_tree(const char *kver, int *hooked)
{
	const char *dir = getenv("STAP_REMOTE_MODULES");
	char *tree = xasprintf("/lib/modules/%s/build", kver), *mk = path_join(tree, "Makefile");

	*hooked = 0;
	if (!file_exists(mk) && dir && *dir) {
		free(tree);
		tree = xasprintf("%s/%s/build", dir, kver);
		*hooked = 1;
	}
	free(mk);
	return tree;
}

/* An absolute path for an argument the child stap reads from another directory. */
static char *remote_abs(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
		return xstrdup(path);
	return path_join(cwd, path);
}

/* The child's command line: this stap with the translation options of this run, stopping after
 * pass (4 for a run). */
static char **remote_compile_argv(Session *s, const char *self, const char *kver, const char *script, int pass)
{
	char **argv = xcalloc((size_t)(s->script_args.len + s->include_dirs.len * 2 + s->defines.len * 2 +
				       s->debug_modules.len * 2 + 32), sizeof *argv);
	char *tree;
	int n = 0, hooked;

	argv[n++] = (char *)self;
	argv[n++] = xasprintf("-p%d", pass);
	tree = remote_build_tree(kver, &hooked);
	argv[n++] = "-r";
	argv[n++] = hooked ? tree : (char *)kver;
	if (!hooked)
		free(tree);
	for (int i = 0; i < s->verbose; i++)
		argv[n++] = "-v";
	if (s->module_name) {
		argv[n++] = "-m";
		argv[n++] = s->module_name;
	}
	if (s->guru)
		argv[n++] = "-g";
	if (s->unoptimized)
		argv[n++] = "-u";
	if (s->suppress_warnings)
		argv[n++] = "-w";
	if (s->warnings_fatal)
		argv[n++] = "-W";
	if (s->suppress_handler_errors)
		argv[n++] = "--suppress-handler-errors";
	if (s->disable_cache)
		argv[n++] = "--disable-cache";
	if (s->ldd)
		argv[n++] = "--ldd";
	if (s->timeout_s) {
		argv[n++] = "-T";
		argv[n++] = xasprintf("%ld", s->timeout_s);
	}
	for (int i = 0; i < s->include_dirs.len; i++) {
		argv[n++] = "-I";
		argv[n++] = remote_abs(s->include_dirs.items[i]);
	}
	for (int i = 0; i < s->debug_modules.len; i++) {
		const char *m = s->debug_modules.items[i];
		argv[n++] = "-d";
		argv[n++] = strchr(m, '/') ? remote_abs(m) : (char *)m;
	}
	for (int i = 0; i < s->defines.len; i++) {
		argv[n++] = "-D";
		argv[n++] = s->defines.items[i];
	}
	if (s->script_text) {
		argv[n++] = "-e";
		argv[n++] = (char *)s->script_text;
	} else {
		argv[n++] = (char *)script;
	}
	argv[n++] = "--";       /* options are read after the script too: its arguments are not options */
	for (int i = 0; i < s->script_args.len; i++)
		argv[n++] = s->script_args.items[i];
	argv[n] = NULL;
	return argv;
}

/* Runs argv in dir with stdin from /dev/null and stdout and stderr as ours; its status. */
static int remote_passthrough(char **argv, const char *dir)
{
	int null_fd = open("/dev/null", O_RDONLY);
	pid_t pid = remote_spawn(argv, dir, null_fd, -1, -1, 0);

	if (null_fd >= 0)
		close(null_fd);
	return pid < 0 ? -1 : spawn_reap(pid);
}

/* Runs the child stap for kver in its own directory under tmp, to the run's last pass (4 when it
 * is 5). Passes 1-3 print their output on ours; after pass 4 *ko is the module's path. 0: done. */
static int remote_compile(Session *s, const char *tmp, const char *kver, const char *script, int nth, char **ko)
{
	char *dir = xasprintf("%s/k%d", tmp, nth);
	char *self = path_join(s->bin_dir, "stap");
	int pass = s->last_pass < 4 ? s->last_pass : 4;
	char **argv = remote_compile_argv(s, self, kver, script, pass);
	StrBuf out;
	int rc;

	*ko = NULL;
	if (mkdir(dir, 0700) != 0)
		return -1;
	if (pass < 4) {
		rc = remote_passthrough(argv, dir);
		free(argv);
		return rc == 0 ? 0 : -1;
	}
	rc = spawn_capture(argv, dir, -1, -1, &out);
	remote_chomp(&out);
	/* NAME.ko, NAME of letters, digits and '_' (it goes into the remote shell scripts) */
	if (rc == 0 && out.len > 3 && remote_chars_ok(out.data, out.len, "_.") &&
	    strchr(out.data, '.') == out.data + out.len - 3 && !strcmp(out.data + out.len - 3, ".ko")) {
		*ko = path_join(dir, out.data);
		if (!file_exists(*ko)) {
			free(*ko);
			*ko = NULL;
		}
	}
	sb_free(&out);
	free(argv);
	return *ko ? 0 : -1;
}

/* -p1 .. -p3 with hosts of several releases: before each release's output, a comment line
 * naming it and its hosts (index and name, as --remote-prefix numbers them). */
static void remote_release_header(const Session *s, const char *kver)
{
	int first = 1;

	fputs(s->last_pass == 3 ? "/* " : "# ", stdout);
	printf("kernel release %s:", kver);
	for (int i = 0; i < s->remote_hosts.len; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		if (!h->failed && !strcmp(h->kver, kver)) {
			printf("%s %d %s", first ? "" : ",", i, h->name);
			first = 0;
		}
	}
	fputs(s->last_pass == 3 ? " */\n" : "\n", stdout);
	fflush(stdout);
}

static int remote_release_count(Session *s)
{
	int n = 0;

	for (int i = 0; i < s->remote_hosts.len; i++) {
		RemoteHost *h = s->remote_hosts.items[i], *o = NULL;
		if (h->failed)
			continue;
		for (int j = 0; j < i && !o; j++) {
			o = s->remote_hosts.items[j];
			if (o->failed || strcmp(o->kver, h->kver))
				o = NULL;
		}
		n += !o;
	}
	return n;
}

/* Hosts whose release has no kernel build tree here are reported. */
static void remote_check_trees(Session *s)
{
	for (int i = 0; i < s->remote_hosts.len; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		int hooked;
		char *tree, *mk;

		if (h->failed)
			continue;
		tree = remote_build_tree(h->kver, &hooked);
		mk = path_join(tree, "Makefile");
		if (!file_exists(mk))
			remote_fail(h, "no kernel build tree for its release %s on this machine "
				    "(%s; install linux-headers-%s)", h->kver, tree, h->kver);
		free(mk);
		free(tree);
	}
}

/* One translation per distinct release, for the hosts of that release in command-line order;
 * hosts whose translation failed are reported. For a run (and -p4) each host gets its
 * release's module in ko; for -p1 .. -p3 done is set. */
static void remote_compile_all(Session *s, const char *tmp, const char *script)
{
	int nth = 0, headers;

	remote_check_trees(s);
	headers = s->last_pass < 4 && remote_release_count(s) > 1;
	for (int i = 0; i < s->remote_hosts.len && !remote_signalled; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		char *ko = NULL;
		int rc;

		if (h->failed || h->ko || h->done)
			continue;
		if (s->verbose)
			fprintf(stderr, "stap: remote: %s for kernel release %s\n",
				s->last_pass < 4 ? "translating" : "compiling", h->kver);
		if (headers)
			remote_release_header(s, h->kver);
		rc = remote_compile(s, tmp, h->kver, script, nth++, &ko);
		for (int j = i; j < s->remote_hosts.len; j++) {
			RemoteHost *o = s->remote_hosts.items[j];
			if (o->failed || o->ko || o->done || strcmp(o->kver, h->kver))
				continue;
			if (rc != 0)
				remote_fail(o, "translating or compiling the script for kernel %s failed", o->kver);
			else if (ko)
				o->ko = ko;
			else
				o->done = 1;
		}
	}
}

/* -p4: each release's module copied here as NAME.ko (as stap -p4 leaves it) and its path
 * printed, once per release; a second release's module of the same name (-m) is refused. */
static void remote_keep_modules(Session *s)
{
	for (int i = 0; i < s->remote_hosts.len; i++) {
		RemoteHost *h = s->remote_hosts.items[i], *same = NULL, *clash = NULL;
		const char *base;
		char *data, why[256];
		size_t len;

		if (h->failed || !h->ko)
			continue;
		base = strrchr(h->ko, '/') + 1;
		for (int j = 0; j < i; j++) {
			RemoteHost *o = s->remote_hosts.items[j];
			if (!o->failed && o->ko == h->ko)
				same = o;
			else if (!o->failed && o->ko && !strcmp(strrchr(o->ko, '/') + 1, base))
				clash = o;
		}
		if (same)
			continue;
		if (clash) {
			remote_fail(h, "its module for release %s would overwrite %s, written for release %s "
				    "(-m NAME with hosts of several releases)", h->kver, base, clash->kver);
			continue;
		}
		data = read_file(h->ko, &len);
		why[0] = 0;
		if (!data || output_file_write(base, data, len, why, sizeof(why)) != 0) {
			diag_plain(&s->diag, "error", "%s %s: %s", why[0] ? "not writing" : "cannot write", base,
				   why[0] ? why : strerror(errno));
			h->failed = 1;
		} else {
			printf("%s\n", base);
		}
		free(data);
	}
	fflush(stdout);
}

static int remote_dir_ok(const char *d)
{
	return d[0] == '/' && !strstr(d, "..") && strlen(d) < 1024 && remote_chars_ok(d + 1, strlen(d + 1), "/._-");
}

static const char *remote_module_base(const RemoteHost *h)
{
	const char *b = strrchr(h->ko, '/');
	return b ? b + 1 : h->ko;
}

/* Copies the module into a directory made by mktemp on the host (mode 0700). */
static void remote_upload(RemoteHost *h)
{
	StrBuf script, out;
	char **argv;
	int fd = open(h->ko, O_RDONLY), rc;

	if (fd < 0) {
		remote_fail(h, "cannot open %s: %s", h->ko, strerror(errno));
		return;
	}
	sb_init(&script);
	sb_printf(&script, "umask 077; d=$(mktemp -d \"${TMPDIR:-/tmp}/stapremote.XXXXXX\") || exit 1; "
		  "cat > \"$d\"/%s || { rm -rf \"$d\"; exit 1; }; echo \"$d\"", remote_module_base(h));
	argv = remote_ssh_argv(h, script.data);
	rc = spawn_capture(argv, NULL, fd, -1, &out);
	close(fd);
	remote_chomp(&out);
	if (rc == 255 || rc < 0)
		remote_fail(h, "connection lost while copying the module (ssh exited with status %d)", rc);
	else if (rc != 0 || !remote_dir_ok(out.data))
		remote_fail(h, "cannot copy the module there (status %d)", rc);
	else
		h->dir = xstrdup(out.data);
	sb_free(&out);
	sb_free(&script);
	free(argv);
}

/* ---- the run ---- */

static long long remote_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* One line from fd (at most size - 1 bytes, no newline) within 30 s; -1 on EOF or time out. */
static int remote_read_line(int fd, char *buf, size_t size)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t n = 0;
	ssize_t r;

	while (n + 1 < size) {
		if (poll(&pfd, 1, 30000) <= 0)
			return -1;
		r = read(fd, buf + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return 0;
		}
		n++;
	}
	return -1;
}

/* The host's clock minus ours, NTP-style over one ssh session: the host answers each line we send
 * with its clock (date +%s%6N); of REMOTE_CLOCK_SAMPLES exchanges the one of the shortest round
 * trip is kept, its offset taken at the middle of that trip and its error half the trip.  Not
 * measured (has_clock 0, staprun then writes "0 -1") when the host does not answer so. */
static void remote_measure_clock(RemoteHost *h)
{
	char **argv = remote_ssh_argv(h, "while read -r l; do date +%s%6N; done");
	int to[2], from[2], best = -1;
	long long t0, t1, there, rtt, best_rtt = 0, best_off = 0;
	char line[64], *end;
	pid_t pid;

	if (pipe(to) != 0) {
		free(argv);
		return;
	}
	if (pipe(from) != 0) {
		close(to[0]);
		close(to[1]);
		free(argv);
		return;
	}
	pid = remote_spawn(argv, NULL, to[0], from[1], -1, 1);
	close(to[0]);
	close(from[1]);
	for (int i = 0; pid > 0 && i < REMOTE_CLOCK_SAMPLES && !remote_signalled; i++) {
		t0 = remote_now_us();
		if (write(to[1], "\n", 1) != 1 || remote_read_line(from[0], line, sizeof line) < 0)
			break;
		t1 = remote_now_us();
		errno = 0;
		there = strtoll(line, &end, 10);
		if (errno || end == line || *end || there <= 0)
			break;
		rtt = t1 - t0;
		if (best < 0 || rtt < best_rtt) {
			best = i;
			best_rtt = rtt;
			best_off = there - (t0 + rtt / 2);
		}
	}
	close(to[1]);
	close(from[0]);
	if (pid > 0)
		spawn_reap(pid);
	free(argv);
	if (best < 0)
		return;
	h->has_clock = 1;
	h->clock_offset_us = best_off;
	h->clock_err_us = (best_rtt + 1) / 2;
}

/* The host side of the run: staprun in the background; a reader of ssh's stdin that sends it
 * SIGTERM (staprun relays it to stapio: the end probes run) when stap closes that stdin or the
 * connection drops, once staprun has started stapio; the directory removed at the end;
 * staprun's status as ssh's. */
static char *remote_run_script(Session *s, const RemoteHost *h, int index)
{
	const char *staprun = getenv("STAP_REMOTE_STAPRUN");   /* test hook: the remote command */
	StrBuf sb;

	sb_init(&sb);
	sb_puts(&sb, "d=");
	sb_quote(&sb, h->dir);
	sb_puts(&sb, "; trap 'rm -rf \"$d\"' EXIT; exec 3<&0 </dev/null; ");
	sb_quote(&sb, staprun && *staprun ? staprun : "staprun");
	if (s->verbose)
		sb_puts(&sb, " -v");
	/* remote_id() and remote_uri(): the URI holds only what remote_add let through */
	sb_printf(&sb, " -r %d:", index);
	sb_quote(&sb, h->uri);
	if (h->has_clock)
		sb_printf(&sb, " -O %lld,%lld", h->clock_offset_us, h->clock_err_us);
	if (s->command) {
		sb_puts(&sb, " -c ");
		sb_quote(&sb, s->command);
	}
	if (s->target_pid) {
		sb_puts(&sb, " -x ");
		sb_quote(&sb, s->target_pid);
	}
	sb_printf(&sb, " \"$d\"/%s", remote_module_base(h));
	for (int i = 0; i < s->global_sets.len; i++) {
		sb_putc(&sb, ' ');
		sb_quote(&sb, s->global_sets.items[i]);
	}
	/* staprun takes SIGTERM as "end the run" once it has started stapio (its child): until
	 * then the signal would kill it, perhaps with the module loaded, so the watcher waits
	 * for a child (where /proc can tell) */
	sb_puts(&sb, " & p=$!; { while read -r l; do :; done; c=/proc/$p/task/$p/children; "
		"while kill -0 $p && [ -e $c ] && [ -z \"$(cat $c)\" ]; do sleep 0.2; done; kill -TERM $p; } "
		"<&3 >/dev/null 2>&1 & w=$!; exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; exit $s");
	return sb_steal(&sb);
}

static void remote_on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	remote_signalled = 1;
	if (remote_sig_pipe[1] >= 0 && write(remote_sig_pipe[1], &c, 1) < 0) {
		/* the pipe is full: a stop is already pending */
	}
	errno = saved;
}

static void remote_emit(Session *s, RemoteHost *h, int index, RemoteStream *st, const char *line, size_t n)
{
	if (s->remote_prefix && st->dest != h->file)
		fprintf(st->dest, "%d: ", index);
	fwrite(line, 1, n, st->dest);
	fflush(st->dest);
}

/* The partial line grown to REMOTE_LINE_MAX goes out now: as it is into the host's own file, cut (a newline
 * after it, a warning the first time) where hosts share the output. */
static void remote_flush_long(Session *s, RemoteHost *h, int index, RemoteStream *st)
{
	if (st->dest != h->file) {
		sb_putc(&st->partial, '\n');
		if (!st->cut)
			fprintf(stderr, "stap: host %s: a line of its %s is longer than %d bytes: cut into lines of %d bytes\n",
				h->name, st == &h->out ? "output" : "error output", REMOTE_LINE_MAX, REMOTE_LINE_MAX);
		st->cut = 1;
	}
	remote_emit(s, h, index, st, st->partial.data, st->partial.len);
	st->partial.len = 0;
}

/* Reads what is there; whole lines go out at once so hosts' lines never mix. */
static void remote_drain(Session *s, RemoteHost *h, int index, RemoteStream *st)
{
	char buf[8192];
	ssize_t n = read(st->fd, buf, sizeof buf);
	size_t start = 0;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		if (st->partial.len && st->dest != h->file)
			sb_putc(&st->partial, '\n');   /* the next host's line starts on a line of its own */
		if (st->partial.len)
			remote_emit(s, h, index, st, st->partial.data, st->partial.len);
		sb_free(&st->partial);
		close(st->fd);
		st->fd = -1;
		return;
	}
	/* each step: up to a newline, or as much as the partial line has room for */
	while (start < (size_t)n) {
		size_t left = (size_t)n - start, room = REMOTE_LINE_MAX - st->partial.len;
		size_t look = left < room ? left : room;
		const char *nl = memchr(buf + start, '\n', look);
		size_t take = nl ? (size_t)(nl - (buf + start)) + 1 : look;

		if (nl && !st->partial.len) {
			remote_emit(s, h, index, st, buf + start, take);   /* a whole line in buf */
		} else {
			sb_putn(&st->partial, buf + start, take);
			if (nl) {
				remote_emit(s, h, index, st, st->partial.data, st->partial.len);
				st->partial.len = 0;
			} else if (st->partial.len == REMOTE_LINE_MAX) {
				remote_flush_long(s, h, index, st);
			}
		}
		start += take;
	}
}

static void remote_stop_all(Session *s)
{
	for (int i = 0; i < s->remote_hosts.len; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		if (h->in_fd >= 0) {
			close(h->in_fd);
			h->in_fd = -1;
		}
	}
}

static int remote_start(Session *s, RemoteHost *h, int index)
{
	int in[2], out[2], err[2];
	char *script = remote_run_script(s, h, index);
	char **argv = remote_ssh_argv(h, script);

	if (pipe(in) || pipe(out) || pipe(err)) {
		remote_fail(h, "cannot create pipes: %s", strerror(errno));
		return -1;
	}
	h->pid = remote_spawn(argv, NULL, in[0], out[1], err[1], 1);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	free(script);
	free(argv);
	fcntl(in[1], F_SETFD, FD_CLOEXEC);
	fcntl(out[0], F_SETFD, FD_CLOEXEC);
	fcntl(err[0], F_SETFD, FD_CLOEXEC);
	if (h->pid < 0) {
		close(in[1]);
		close(out[0]);
		close(err[0]);
		remote_fail(h, "cannot run ssh: %s", strerror(errno));
		return -1;
	}
	h->in_fd = in[1];
	h->out.fd = out[0];
	h->err.fd = err[0];
	sb_init(&h->out.partial);
	sb_init(&h->err.partial);
	h->out.dest = h->file ? h->file : stdout;
	h->err.dest = stderr;
	return 0;
}

/* A host's ssh ended: 255 is ssh's own failure (the others go on); anything else is the end
 * of its staprun, which ends every other host's run too (exit(), -c, -T, an error). */
static void remote_finished(Session *s, RemoteHost *h)
{
	int rc = spawn_reap(h->pid);

	h->pid = 0;
	if (h->in_fd >= 0) {
		close(h->in_fd);
		h->in_fd = -1;
	}
	if (rc == 255) {
		remote_fail(h, "connection lost during the run (ssh exited with status 255)");
		return;
	}
	if (rc != 0)
		remote_fail(h, "staprun exited with status %d", rc);
	remote_stop_all(s);
}

static void remote_loop(Session *s)
{
	struct pollfd *pfd = xcalloc((size_t)s->remote_hosts.len * 2 + 1, sizeof *pfd);
	int stops = 0;

	for (;;) {
		int n = 0, running = 0;

		pfd[n++] = (struct pollfd){ .fd = remote_sig_pipe[0], .events = POLLIN };
		for (int i = 0; i < s->remote_hosts.len; i++) {
			RemoteHost *h = s->remote_hosts.items[i];
			if (h->pid > 0 && h->out.fd < 0 && h->err.fd < 0)
				remote_finished(s, h);
			running += h->pid > 0;
			pfd[n++] = (struct pollfd){ .fd = h->pid > 0 ? h->out.fd : -1, .events = POLLIN };
			pfd[n++] = (struct pollfd){ .fd = h->pid > 0 ? h->err.fd : -1, .events = POLLIN };
		}
		if (!running)
			break;
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents) {
			char c[16];
			if (read(remote_sig_pipe[0], c, sizeof c) > 0 && stops++ == 0) {
				remote_stop_all(s);
			} else {
				for (int i = 0; i < s->remote_hosts.len; i++) {   /* a second ^C: end the ssh sessions */
					RemoteHost *h = s->remote_hosts.items[i];
					if (h->pid > 0)
						kill(h->pid, SIGTERM);
				}
			}
		}
		for (int i = 0; i < s->remote_hosts.len; i++) {
			RemoteHost *h = s->remote_hosts.items[i];
			if (pfd[1 + 2 * i].revents)
				remote_drain(s, h, i, &h->out);
			if (pfd[2 + 2 * i].revents)
				remote_drain(s, h, i, &h->err);
		}
	}
	free(pfd);
}

/* -o FILE: FILE.HOST per host (FILE.HOST.N for a host named again, N its index), opened as stapio opens -o FILE
 * (outopen.c): never through a symbolic link, an existing file emptied only when it is ours with one link. */
static int remote_open_files(Session *s)
{
	for (int i = 0; i < s->remote_hosts.len; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		int again = 0, fd;
		char *path, why[160];

		if (h->failed || !s->output_file)
			continue;
		for (int j = 0; j < i; j++)
			again |= !strcmp(((RemoteHost *)s->remote_hosts.items[j])->host, h->host);
		path = again ? xasprintf("%s.%s.%d", s->output_file, h->host, i) :
			       xasprintf("%s.%s", s->output_file, h->host);
		fd = output_file_open(path, why, sizeof why);
		h->file = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!h->file) {
			if (fd >= 0)
				close(fd);
			if (why[0])
				diag_plain(&s->diag, "error", "not writing %s: %s", path, why);
			else
				diag_plain(&s->diag, "error", "cannot open %s: %s", path, strerror(errno));
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

static const char *remote_refused(Session *s, const char *r_arg)
{
	if (r_arg)
		return "-r: each host's kernel release is asked over ssh";
	if (s->list_pattern || s->dump)
		return "-l, -L and --dump-*: they need no remote host";
	if (s->flight)
		return "-F";
	if (s->size_arg)
		return "-S";
	for (int i = 0; i < s->defines.len; i++)
		if (!strcmp(s->defines.items[i], "STP_BULKMODE=1"))
			return "-b";
	return NULL;
}

/* The script to hand the compiling stap: the file as an absolute path, stdin saved. */
static char *remote_script_path(Session *s, const char *tmp)
{
	char *path, *text;
	size_t len;

	if (s->script_text)
		return NULL;
	if (strcmp(s->script_file, "-"))
		return remote_abs(s->script_file);
	text = read_file("/dev/stdin", &len);
	path = path_join(tmp, "script.stp");
	if (!text || write_file(path, text, len) != 0) {
		diag_plain(&s->diag, "error", "cannot read the script from standard input");
		return NULL;
	}
	free(text);
	return path;
}

/* Hosts holding a copied module whose run never started (^C meanwhile, another error): their
 * directory is removed. */
static void remote_cleanup_unstarted(Session *s)
{
	for (int i = 0; i < s->remote_hosts.len; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		StrBuf script, out;
		char **argv;

		if (!h->dir || h->pid > 0)
			continue;
		sb_init(&script);
		sb_puts(&script, "rm -rf ");
		sb_quote(&script, h->dir);
		argv = remote_ssh_argv(h, script.data);
		spawn_capture(argv, NULL, -1, -1, &out);
		sb_free(&out);
		sb_free(&script);
		free(argv);
	}
}

/* The run's staging directory (tmpdir.c): the script, each kernel's child stap's directory. */
static TmpDir remote_tmp = { .parent = -1, .fd = -1 };

/* -p1 .. -p4: nothing is copied or run; -p4 leaves the modules here. */
static int remote_finish_passes(Session *s)
{
	int rc = remote_signalled;

	if (s->last_pass == 4 && !remote_signalled)
		remote_keep_modules(s);
	for (int i = 0; i < s->remote_hosts.len; i++)
		rc |= ((RemoteHost *)s->remote_hosts.items[i])->failed;
	tmpdir_remove(&remote_tmp);
	return rc ? 1 : 0;
}

int remote_run(Session *s, const char *r_arg)
{
	const char *refused = remote_refused(s, r_arg);
	struct sigaction sa = { .sa_handler = remote_on_signal }, ign = { .sa_handler = SIG_IGN };
	char *tmp, *script;
	int ok = 0, rc = 0;

	if (refused) {
		diag_plain(&s->diag, "error", "--remote cannot be combined with %s", refused);
		return 1;
	}
	if (tmpdir_make(&s->diag, "stapremote", &remote_tmp) != 0)
		return 1;
	tmp = remote_tmp.path;
	if (pipe(remote_sig_pipe) != 0) {
		diag_plain(&s->diag, "error", "cannot make a pipe: %s", strerror(errno));
		tmpdir_remove(&remote_tmp);
		return 1;
	}
	fcntl(remote_sig_pipe[0], F_SETFL, O_NONBLOCK);
	fcntl(remote_sig_pipe[1], F_SETFL, O_NONBLOCK);
	fcntl(remote_sig_pipe[0], F_SETFD, FD_CLOEXEC);
	fcntl(remote_sig_pipe[1], F_SETFD, FD_CLOEXEC);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &ign, NULL);
	script = remote_script_path(s, tmp);
	if (!s->script_text && !script) {
		tmpdir_remove(&remote_tmp);
		return 1;
	}
	for (int i = 0; i < s->remote_hosts.len && !remote_signalled; i++)
		remote_query_kver(s->remote_hosts.items[i]);
	if (!remote_signalled)
		remote_compile_all(s, tmp, script);
	if (s->last_pass < 5)
		return remote_finish_passes(s);
	for (int i = 0; i < s->remote_hosts.len && !remote_signalled; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		if (!h->failed)
			remote_upload(h);
		if (!h->failed && !remote_signalled)
			remote_measure_clock(h);
	}
	if (!remote_signalled && remote_open_files(s) != 0)
		rc = 1;
	for (int i = 0; i < s->remote_hosts.len && !remote_signalled && !rc; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		if (!h->failed && remote_start(s, h, i) == 0)
			ok++;
	}
	remote_cleanup_unstarted(s);
	if (ok && !remote_signalled) {
		remote_loop(s);
		remote_signalled = 0;   /* ^C during the run is its normal end */
	}
	for (int i = 0; i < s->remote_hosts.len; i++) {
		RemoteHost *h = s->remote_hosts.items[i];
		if (h->file)
			fclose(h->file);
		rc |= h->failed;
	}
	tmpdir_remove(&remote_tmp);
	return rc || !ok || remote_signalled ? 1 : 0;
}
