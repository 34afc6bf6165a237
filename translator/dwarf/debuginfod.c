/* debuginfod.c - asks the debuginfod servers of $DEBUGINFOD_URLS for missing debuginfo by build id (libdebuginfod,
 * opened on first use, with its cache and limits), draws the download's progress, checks the build id of what came.
 * Used by debuginfo.c, ulibs.c. */
#include "dwarf/debuginfod.h"
#include "lib/filecache.h"
#include "dwarf/dwarf.h"
#include "image/buildid.h"
#include "image/elffile.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest file downloaded unless $DEBUGINFOD_MAXSIZE says otherwise (a distribution kernel's vmlinux
 * debuginfo is several hundred MB): a server cannot fill the disk or take minutes on a file of no use. */
#define DBGD_DEFAULT_MAXSIZE (1LL << 30)

/* libdebuginfod, opened when the first download is asked for (as libdwfl opens it): most runs ask for none,
 * and linked in, it and what it needs (libcurl, GnuTLS, Kerberos, LDAP...: some 30 libraries) took each stap
 * run about 35 ms of loading and relocating. */
#define DBGD_SONAME "libdebuginfod.so.1"
static struct {
	void *handle;
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_get_url) *get_url;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_verbose_fd) *set_verbose_fd;
} lib;

/* Opens libdebuginfod and finds its functions: NULL, or why not (dlerror's words). */
static const char *lib_open(void)
{
	if (lib.handle)
		return NULL;
	lib.handle = dlopen(DBGD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib.handle)
		return dlerror();
#define DBGD_SYM(f) ((*(void **)&lib.f = dlsym(lib.handle, "debuginfod_" #f)) != NULL)
	if (!(DBGD_SYM(begin) && DBGD_SYM(find_debuginfo) && DBGD_SYM(get_url) && DBGD_SYM(get_user_data) &&
	      DBGD_SYM(set_user_data) && DBGD_SYM(set_progressfn) && DBGD_SYM(set_verbose_fd))) {
		dlclose(lib.handle);
		lib.handle = NULL;
		return DBGD_SONAME " lacks a function of the debuginfod client's interface";
	}
#undef DBGD_SYM
	return NULL;
}

/* This run's client and the build ids that failed (asked once per run). */
typedef struct DebuginfodState {
	debuginfod_client *client;
	char *no_client;         /* why there is no client (owned), or NULL */
	long long maxsize;       /* the largest download in bytes, 0: no limit */
	StrMap failed;           /* build id -> why (both owned) */
} DebuginfodState;

/* What one download has shown so far. */
typedef struct Progress {
	const char *what;
	double start_ms, shown_ms, first_byte_ms;   /* first_byte_ms: 0 until a server sends */
	long bytes, total;
	long long maxsize;       /* 0: no limit */
	int tty, drawn;
	int too_big;             /* the download passed maxsize and was stopped */
} Progress;

/* Set by SIGINT/SIGTERM during a download (a signal handler's only way out). */
static volatile sig_atomic_t cancel_signal;

static void on_cancel(int sig)
{
	cancel_signal = sig;
}

int debuginfod_configured(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

static const char *servers(void)
{
	return getenv("DEBUGINFOD_URLS");
}

static double mb(long bytes)
{
	return (double)bytes / 1e6;
}

static void draw(Progress *p, debuginfod_client *c, int last)
{
	double secs = (now_ms() - p->start_ms) / 1e3;
	double sending = p->first_byte_ms ? (now_ms() - p->first_byte_ms) / 1e3 : 0;
	double rate = sending > 0 ? mb(p->bytes) / sending : 0;
	const char *url = lib.get_url(c);
	char total[32] = "";

	if (!url && !last) {
		/* no server has begun to answer: a server extracting from a large archive takes a while */
		fprintf(stderr, "%sstap: debuginfod: asking %s for the debuginfo of %s: %.0f s%s", p->tty ? "\r" : "",
			servers(), p->what, secs, p->tty ? "\033[K" : "\n");
		fflush(stderr);
		p->drawn = 1;
		return;
	}
	if (p->total > 0)
		snprintf(total, sizeof total, " of %.1f MB", mb(p->total));
	fprintf(stderr, "%sstap: debuginfod: %s debuginfo for %s from %s: %.1f MB%s, %.1f MB/s%s", p->tty ? "\r" : "",
		last ? "downloaded" : "downloading", p->what, url ? url : servers(), mb(p->bytes), total, rate,
		p->tty && !last ? "\033[K" : "\n");
	fflush(stderr);
	p->drawn = 1;
}

/* libdebuginfod's progress callback: once a server answers (debuginfod_get_url), a = bytes so far and b = the
 * whole size (<= 0: not known yet); before, a counts its polls. Nonzero cancels. */
static int on_progress(debuginfod_client *c, long a, long b)
{
	Progress *p = lib.get_user_data(c);
	double t = now_ms();

	if (cancel_signal)
		return 1;
	if (lib.get_url(c)) {
		p->bytes = a > 0 ? a : p->bytes;
		p->total = b > 0 ? b : p->total;
		if (a > 0 && !p->first_byte_ms)
			p->first_byte_ms = t;
		/* libdebuginfod's own DEBUGINFOD_MAXSIZE check trusts the size the server announces: one that
		 * announces none (or less) is stopped here */
		if (p->maxsize > 0 && a > p->maxsize) {
			p->too_big = 1;
			return 1;
		}
	}
	/* after 1 s, a line on a terminal redrawn 4 times a second; to a file or pipe, one every 5 s */
	if (t - p->start_ms >= 1000 && (!p->drawn || t - p->shown_ms >= (p->tty ? 250 : 5000))) {
		p->shown_ms = t;
		draw(p, c, 0);
	}
	return 0;
}

/* What libdebuginfod's -errno answers mean here. */
static const char *answer_of(int err)
{
	switch (err) {
	case ENOENT:
		return "not found (no server has it: 404)";
	case ECONNREFUSED:
		return "no server answered (connection refused: is it running?)";
	case EHOSTUNREACH:
		return "no server reachable (host unknown or unreachable)";
	case ETIME:
	case ETIMEDOUT:
		return "timed out ($DEBUGINFOD_TIMEOUT, $DEBUGINFOD_MAXTIME)";
	default:
		return strerror(err);
	}
}

/* Where libdebuginfod would keep its cache, from the environment as it reads it: $DEBUGINFOD_CACHE_PATH, else
 * ~/.debuginfod_client_cache when it exists, else $XDG_CACHE_HOME/debuginfod_client or ~/.cache/debuginfod_client. */
static char *env_cache_dir(void)
{
	const char *dir = getenv("DEBUGINFOD_CACHE_PATH"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *legacy;
	struct stat sb;

	if (dir && *dir)
		return xstrdup(dir);
	if (!home)
		home = "/";
	legacy = path_join(home, ".debuginfod_client_cache");
	if (stat(legacy, &sb) == 0)
		return legacy;
	free(legacy);
	if (xdg && *xdg)
		return path_join(xdg, "debuginfod_client");
	return xasprintf("%s/.cache/debuginfod_client", home);
}

/* Whether root may use dir as its cache (made when missing): every directory from / to it root's, and writable by
 * root alone (a file planted in a user's directory would otherwise be taken for a build id's debuginfo: probes placed
 * by it, its DWARF index kept in root's cache). Says why not (filecache_warn) when not. */
static int root_may_use(Session *s, const char *dir)
{
	int fd = filecache_open_trusted(&s->diag, dir, 1);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* For root, libdebuginfod's cache is set ($DEBUGINFOD_CACHE_PATH) before its first use: the one the environment
 * names when root_may_use() it (a user's HOME, XDG_CACHE_HOME or DEBUGINFOD_CACHE_PATH survive sudo and su),
 * else ~/.cache/debuginfod_client in root's home from the password database. NULL, or why there is none. */
static char *set_root_cache(Session *s)
{
	char *asked = env_cache_dir(), *own = NULL, *why = NULL;
	const char *home = filecache_home_dir(), *dir = asked;

	if (!root_may_use(s, asked)) {
		own = home ? xasprintf("%s/.cache/debuginfod_client", home) : NULL;
		dir = own;
		if (!own || !root_may_use(s, own))
			why = xasprintf("debuginfod: no cache directory root alone may write: %s refused, %s", asked,
					own ? "and root's own too" : "and root has no home in the password database");
		else
			filecache_warn(&s->diag, "debuginfod: root's downloads are kept in %s, not in %s", own, asked);
	}
	if (!why && setenv("DEBUGINFOD_CACHE_PATH", dir, 1) != 0)
		why = xasprintf("debuginfod: cannot set DEBUGINFOD_CACHE_PATH: %s", strerror(errno));
	free(asked);
	free(own);
	return why;
}

/* The largest download: $DEBUGINFOD_MAXSIZE in bytes (0: no limit, as libdebuginfod takes it), else
 * DBGD_DEFAULT_MAXSIZE, set in the environment for libdebuginfod's own check of an announced size. NULL, or why the
 * variable cannot be used. */
static char *set_maxsize(long long *maxsize)
{
	const char *v = getenv("DEBUGINFOD_MAXSIZE");
	char *end, buf[32];

	if (!v) {
		*maxsize = DBGD_DEFAULT_MAXSIZE;
		snprintf(buf, sizeof buf, "%lld", *maxsize);
		if (setenv("DEBUGINFOD_MAXSIZE", buf, 1) != 0)
			return xasprintf("debuginfod: cannot set DEBUGINFOD_MAXSIZE: %s", strerror(errno));
		return NULL;
	}
	errno = 0;
	*maxsize = strtoll(v, &end, 10);
	if (errno || end == v || *end || *maxsize < 0 || *v == '-' || *v == '+')
		return xasprintf("debuginfod: DEBUGINFOD_MAXSIZE='%s' is not a size in bytes (0: no limit)", v);
	return NULL;
}

static DebuginfodState *state_of(Session *s, char **why)
{
	if (!s->debuginfod) {
		DebuginfodState *st = xcalloc(1, sizeof *st);
		const char *no_lib = lib_open();
		/* the limit and root's cache set in the environment before libdebuginfod's first look at it */
		if (!(st->no_client = set_maxsize(&st->maxsize)) && geteuid() == 0)
			st->no_client = set_root_cache(s);
		if (st->no_client) {
			/* why is set */
		} else if (no_lib) {
			st->no_client = xasprintf("debuginfod: cannot start the client: %s", no_lib);
		} else if (!(st->client = lib.begin())) {
			st->no_client = xasprintf("debuginfod: cannot start the client (libdebuginfod): %s", strerror(errno));
		} else if (s->verbose >= 3) {
			lib.set_verbose_fd(st->client, STDERR_FILENO);   /* each server asked and its answer */
		}
		if (st->no_client && !s->suppress_warnings)
			fprintf(stderr, "WARNING: %s\n", st->no_client);   /* once: the next asks get it in *why alone */
		s->debuginfod = st;
	}
	if (!s->debuginfod->client)
		*why = xstrdup(s->debuginfod->no_client);
	return s->debuginfod;
}

/* The build id of the file at path ("" when it has none or is no ELF file). */
static void file_build_id(const char *path, char *out, size_t size)
{
	Elf *elf;
	int fd;

	out[0] = 0;
	if (elffile_open(path, 0, &fd, &elf) == ELFFILE_OK)
		image_elf_build_id(elf, out, size);
	elffile_close(elf, fd);
}

/* After a cancel: libdebuginfod may have left an empty file in its cache (env_cache_dir(): root's set by now), which
 * it would take as "not found" for a while */
static void forget_cancelled(const char *build_id)
{
	char *dir = env_cache_dir(), *path = xasprintf("%s/%s/debuginfo", dir, build_id);
	struct stat sb;

	if (stat(path, &sb) == 0 && sb.st_size == 0)
		unlink(path);
	free(path);
	free(dir);
}

/* The download itself, ^C and kill turned into a cancel for its length (unless ignored). fd or -errno. */
static int download(debuginfod_client *c, const char *build_id, Progress *p, char **path)
{
	struct sigaction cancel = { .sa_handler = on_cancel }, old_int, old_term;
	int fd;

	sigemptyset(&cancel.sa_mask);
	cancel_signal = 0;
	sigaction(SIGINT, &cancel, &old_int);
	sigaction(SIGTERM, &cancel, &old_term);
	if (old_int.sa_handler == SIG_IGN)
		sigaction(SIGINT, &old_int, NULL);
	if (old_term.sa_handler == SIG_IGN)
		sigaction(SIGTERM, &old_term, NULL);
	lib.set_user_data(c, p);
	lib.set_progressfn(c, on_progress);
	fd = lib.find_debuginfo(c, (const unsigned char *)build_id, 0, path);
	lib.set_progressfn(c, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (cancel_signal) {
		/* libdebuginfod has removed its partial file; the signal now does what it would have done */
		if (p->drawn && p->tty)
			fputc('\n', stderr);
		fprintf(stderr, "stap: debuginfod: download of the debuginfo for %s (build id %s) cancelled\n", p->what,
			build_id);
		if (fd >= 0)
			close(fd);
		else
			forget_cancelled(build_id);
		raise(cancel_signal);
		exit(1);
	}
	return fd;
}

char *debuginfod_fetch(Session *s, const char *build_id, const char *what, char **why)
{
	DebuginfodState *st;
	Progress p = { .what = what };
	const char *url;
	char *path = NULL, got[129], *failed;   /* (build ids longer than SHA-1's too) */
	int fd;
	struct stat sb;

	*why = NULL;
	if (!debuginfod_configured() || !build_id || !*build_id)
		return NULL;
	st = state_of(s, why);
	if (!st->client)
		return NULL;
	if ((failed = strmap_get(&st->failed, build_id))) {
		*why = xstrdup(failed);
		return NULL;
	}
	p.maxsize = st->maxsize;
	p.start_ms = p.shown_ms = now_ms();
	p.tty = isatty(STDERR_FILENO);
	fd = download(st->client, build_id, &p, &path);
	if (fd >= 0 && fstat(fd, &sb) == 0)
		p.bytes = sb.st_size;
	url = lib.get_url(st->client);   /* NULL: found in the cache */
	if (fd >= 0 && url && p.maxsize > 0 && p.bytes > p.maxsize) {
		/* downloaded past the limit after libdebuginfod's last progress call */
		p.too_big = 1;
		close(fd);
		unlink(path);
		free(path);
		path = NULL;
		fd = -EFBIG;
	}
	if (fd < 0 && (p.too_big || fd == -EFBIG)) {
		if (p.drawn && p.tty)
			fputc('\n', stderr);
		forget_cancelled(build_id);
		*why = xasprintf("debuginfod: the debuginfo of build id %s (%s) from %s is larger than %lld bytes: refused "
				 "(set DEBUGINFOD_MAXSIZE to the bytes to allow, 0 for no limit)", build_id, what,
				 url ? url : servers(), p.maxsize);
	} else if (fd < 0) {
		if (p.drawn && p.tty)
			fputc('\n', stderr);
		*why = xasprintf("debuginfod: asked %s for the debuginfo of build id %s (%s): %s", servers(), build_id, what,
				 answer_of(-fd));
	} else {
		close(fd);
		if (p.drawn)
			draw(&p, st->client, 1);
		file_build_id(path, got, sizeof got);
		if (strcmp(got, build_id)) {
			*why = xasprintf("debuginfod: the file %s served for build id %s (%s) has %s%s: refused (removed from "
					 "the cache)", url ? url : path, build_id, what, got[0] ? "build id " : "no build id",
					 got);
			unlink(path);
			free(path);
			path = NULL;
		} else if (s->verbose >= 2) {
			fprintf(stderr, "debuginfod: debuginfo for %s (build id %s): %s\n", what, build_id, path);
		}
	}
	if (*why) {
		/* said once, here: a caller that falls back to BTF says nothing more */
		if (!s->suppress_warnings)
			fprintf(stderr, "WARNING: %s\n", *why);
		strmap_put(&st->failed, xstrdup(build_id), xstrdup(*why));
	}
	return path;
}
