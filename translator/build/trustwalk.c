/* trustwalk.c - opens a directory (the cache's top, the signing key's) by walking its path from /, each directory checked before the
 * next step: symbolic links followed only when root's or the user's, missing directories made only inside checked ones. Used by filecache.c, signkey.c. */
#include "build/trustwalk.h"
#include "build/filecache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

#define MAX_LINKS 40    /* as the kernel's path walk */

typedef struct Walk {
	const char *top;  /* the path asked for, for messages */
	int fd;           /* the directory reached so far, checked */
	StrBuf at;        /* its path, without symbolic links */
	char *rest;       /* what is left to walk, components separated by '/' */
	int links;        /* symbolic links followed */
	Diag *diag;       /* where a refusal is warned */
	const char *what; /* the top's name in a refusal ("cache directory") */
	const char *verdict; /* a refusal's end ("not using the cache") */
	const char *kind; /* a refusal's diag kind ("error"), or NULL: a warning once (filecache_warn) */
} Walk;

/* Says why the walk to w->top stops: "WHAT TOP <why>: VERDICT". */
__attribute__((format(printf, 2, 3)))
static void refuse(Walk *w, const char *fmt, ...)
{
	StrBuf why;
	va_list ap;

	sb_init(&why);
	va_start(ap, fmt);
	sb_vprintf(&why, fmt, ap);
	va_end(ap);
	if (w->kind)
		diag_plain(w->diag, w->kind, "%s %s %s: %s", w->what, w->top, why.data, w->verdict);
	else
		filecache_warn(w->diag, "%s %s %s: %s", w->what, w->top, why.data, w->verdict);
	sb_free(&why);
}

/* The directory open as fd (at w->at) may hold the way on: root's or the effective user's, and
 * not writable by group or others unless sticky (like /tmp, where others cannot move what is ours).
 * 0, or -1 after a warning. */
static int may_pass(Walk *w, int fd)
{
	struct stat st;
	const char *dir = w->at.len ? w->at.data : "/";

	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		refuse(w, "is inside %s, which cannot be checked", dir);
		errno = EPERM;
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		refuse(w, "is inside %s, which is owned by uid %u", dir, (unsigned)st.st_uid);
		errno = EPERM;
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		refuse(w, "is inside %s, which is writable by group or others (mode %04o)", dir,
		       (unsigned)(st.st_mode & 07777));
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* The next component at *cursor (cut out, NUL-terminated in place), or NULL at the end. */
static char *next_component(char **cursor)
{
	char *p = *cursor, *c;

	while (*p == '/')
		p++;
	if (!*p)
		return NULL;
	c = p;
	p += strcspn(p, "/");
	if (*p)
		*p++ = 0;
	*cursor = p;
	return c;
}

/* Whether anything but slashes is left at p. */
static int more_components(const char *p)
{
	return p[strspn(p, "/")] != 0;
}

/* Back to "/", checked (an absolute path, or an absolute link's target). */
static int restart_at_root(Walk *w)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (w->fd >= 0)
		close(w->fd);
	w->fd = fd;
	w->at.len = 0;
	if (w->at.data)
		w->at.data[0] = 0;
	if (fd < 0)
		return -1;
	return may_pass(w, fd);
}

/* The symbolic link name (in w->fd, st its lstat): followed when root's or the effective user's
 * (whoever else owns it could point it anywhere), its target put in front of what is left. */
static int follow(Walk *w, const char *name, const struct stat *st, char **cursor)
{
	char target[4096], *joined;
	ssize_t n;

	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		refuse(w, "is reached through the symbolic link %s/%s, which is owned by uid %u", w->at.len ? w->at.data : "",
		       name, (unsigned)st->st_uid);
		errno = EPERM;
		return -1;
	}
	if (++w->links > MAX_LINKS) {
		errno = ELOOP;
		return -1;
	}
	n = readlinkat(w->fd, name, target, sizeof target - 1);
	if (n <= 0)
		return -1;
	target[n] = 0;
	joined = xasprintf("%s/%s", target, *cursor);
	free(w->rest);
	w->rest = *cursor = joined;
	return target[0] == '/' ? restart_at_root(w) : 0;
}

/* One step into the directory name of w->fd (made 0755 first when missing and create); last: the
 * top itself, which the caller checks, else a directory the way goes on through. */
static int step(Walk *w, const char *name, int create, int last, char **cursor)
{
	struct stat st;
	int sub;

	if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT || !create)
			return -1;
		if (mkdirat(w->fd, name, 0755) != 0 && errno != EEXIST)
			return -1;
		if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			return -1;
	}
	if (S_ISLNK(st.st_mode))
		return follow(w, name, &st, cursor);
	sub = openat(w->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return -1;
	close(w->fd);
	w->fd = sub;
	if (!strcmp(name, "..")) {
		char *slash = strrchr(w->at.data, '/');
		if (slash) {
			*slash = 0;
			w->at.len = (size_t)(slash - w->at.data);
		}
	} else if (strcmp(name, ".")) {
		sb_printf(&w->at, "/%s", name);
	}
	return last ? 0 : may_pass(w, sub);
}

int trustwalk_open_as(Diag *d, const char *path, int create, const char *what, const char *verdict, const char *kind)
{
	Walk w = { .top = path, .fd = -1, .diag = d, .what = what, .verdict = verdict, .kind = kind };
	char cwd[4096], *cursor, *name;
	int rc, err;

	errno = 0;

	sb_init(&w.at);
	if (path[0] == '/')
		w.rest = xstrdup(path);
	else if (getcwd(cwd, sizeof cwd))
		w.rest = xasprintf("%s/%s", cwd, path);
	else
		return -1;
	cursor = w.rest;
	rc = restart_at_root(&w);
	while (rc == 0 && (name = next_component(&cursor)))
		rc = step(&w, name, create, !more_components(cursor), &cursor);
	err = errno;
	free(w.rest);
	sb_free(&w.at);
	if (rc != 0) {
		if (w.fd >= 0)
			close(w.fd);
		errno = err == 0 ? EPERM : err;
		return -1;
	}
	return w.fd;
}

int trustwalk_open(Diag *d, const char *path, int create)
{
	return trustwalk_open_as(d, path, create, "cache directory", "not using the cache", NULL);
}
