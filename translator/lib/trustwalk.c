/* trustwalk.c - opens a directory by walking its path from /, each directory checked before the next step: symbolic links
 * followed only when root's or the user's, missing directories made only inside checked ones. Used by filecache.c (the
 * cache's top directory), signkey.c (the signing key's) and, through trustwalk_check, by the driver for what root takes
 * from the environment. */
#include "lib/trustwalk.h"
#include "lib/filecache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
	char why[1024];   /* why the walk stopped: "is inside DIR, which ..." */
	int at_last;      /* checking the last directory itself (trustwalk_check) */
} Walk;

/* The directory open as fd (at w->at) may hold the way on: root's or the effective user's, and
 * not writable by group or others unless sticky (like /tmp, where others cannot move what is ours).
 * 0, or -1 with the reason in w->why. */
static int may_pass(Walk *w, int fd)
{
	struct stat st;
	const char *dir = w->at.len ? w->at.data : "/";

	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(w->why, sizeof w->why, "%s%s%scannot be checked", w->at_last ? "" : "is inside ", w->at_last ? "" : dir,
			 w->at_last ? "" : ", which ");
		errno = EPERM;
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(w->why, sizeof w->why, "%s%s%sis owned by uid %u", w->at_last ? "" : "is inside ", w->at_last ? "" : dir,
			 w->at_last ? "" : ", which ", (unsigned)st.st_uid);
		errno = EPERM;
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		snprintf(w->why, sizeof w->why, "%s%s%sis writable by group or others (mode %04o)", w->at_last ? "" : "is inside ",
			 w->at_last ? "" : dir, w->at_last ? "" : ", which ", (unsigned)(st.st_mode & 07777));
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
		snprintf(w->why, sizeof w->why, "is reached through the symbolic link %s/%s, which is owned by uid %u",
			 w->at.len ? w->at.data : "", name, (unsigned)st->st_uid);
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
 * top itself, checked only when check_last, else a directory the way goes on through. */
static int step(Walk *w, const char *name, int create, int last, int check_last, char **cursor)
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
	if (last && !check_last)
		return 0;
	w->at_last = last;
	return may_pass(w, sub);
}

/* The walk of path (see trustwalk.h); why: the reason when refused. */
static int walk(const char *path, int create, int check_last, char *why, size_t why_size)
{
	Walk w = { .top = path, .fd = -1 };
	char cwd[4096], *cursor, *name;
	int rc, err;

	errno = 0;
	if (why_size)
		why[0] = 0;
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
		rc = step(&w, name, create, !more_components(cursor), check_last, &cursor);
	err = errno;
	free(w.rest);
	sb_free(&w.at);
	if (rc != 0) {
		if (w.fd >= 0)
			close(w.fd);
		if (w.why[0] && why_size)
			snprintf(why, why_size, "%s", w.why);
		errno = w.why[0] ? EPERM : err == 0 ? EPERM : err;
		return -1;
	}
	return w.fd;
}

int trustwalk_open_as(Diag *d, const char *path, int create, const char *what, const char *verdict, const char *kind)
{
	char why[1024];
	int fd = walk(path, create, 0, why, sizeof why), err = errno;

	if (fd < 0 && err == EPERM && why[0]) {
		if (kind)
			diag_plain(d, kind, "%s %s %s: %s", what, path, why, verdict);
		else
			filecache_warn(d, "%s %s %s: %s", what, path, why, verdict);
	}
	errno = err;
	return fd;
}

int trustwalk_open(Diag *d, const char *path, int create)
{
	return trustwalk_open_as(d, path, create, "cache directory", "not using the cache", NULL);
}

int trustwalk_check(const char *path, char *why, size_t why_size)
{
	return walk(path, 0, 1, why, why_size);
}
