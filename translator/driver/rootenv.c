/* rootenv.c - refuses, as root, the environment variables that would make root read or run what
 * another user controls (the tapsets, the runtime, debuginfo, test hooks).  Used by main.c. */
#include "driver/rootenv.h"
#include "lib/trustwalk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

#define MAX_DEPTH 32

typedef struct Var {
	const char *name;
	int program;      /* names a program to run, not a directory */
} Var;

static const Var checked_vars[] = {
	{ "SYSTEMTAP_TAPSET", 0 },      /* the tapset library: script code */
	{ "SYSTEMTAP_RUNTIME", 0 },     /* C compiled into the module */
	{ "STAP_DEBUGINFO_PATH", 0 },   /* DWARF the probes' addresses come from */
	{ "STAP_REMOTE_MODULES", 0 },   /* test hook: another release's kernel build tree */
	{ "STAP_REMOTE_STAPRUN", 1 },   /* test hook: the program run in place of staprun */
};
/* DEBUGINFOD_CACHE_PATH (and HOME, XDG_CACHE_HOME, where libdebuginfod's cache defaults to) is not refused:
 * dwarf/debuginfod.c keeps root's downloads in root's own cache instead, with a warning. */

/* st (of path) is root's and writable by nobody else; else the reason in why. */
static int owned_by_root(const struct stat *st, const char *path, char *why, size_t n)
{
	if (st->st_uid != geteuid()) {
		snprintf(why, n, "holds %s, which is owned by uid %u", path, (unsigned)st->st_uid);
		return 0;
	}
	if (!S_ISLNK(st->st_mode) && (st->st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, n, "holds %s, which is writable by group or others (mode %04o)", path,
			 (unsigned)(st->st_mode & 07777));
		return 0;
	}
	return 1;
}

/* A file (not a directory) at path: its directory passes the walk and it is root's. */
static int file_trusted(const char *path, char *why, size_t n)
{
	char *copy = xstrdup(path), *slash = strrchr(copy, '/');
	const char *base = slash ? slash + 1 : copy;
	struct stat st;
	int dir, ok = 0;

	if (slash)
		*slash = 0;
	dir = trustwalk_check(slash ? (*copy ? copy : "/") : ".", why, n);
	if (dir >= 0) {
		if (fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
			snprintf(why, n, "cannot be checked: %s", strerror(errno));
		else if (S_ISLNK(st.st_mode))
			snprintf(why, n, "is a symbolic link");
		else if (st.st_uid != geteuid())
			snprintf(why, n, "is owned by uid %u", (unsigned)st.st_uid);
		else if (st.st_mode & (S_IWGRP | S_IWOTH))
			snprintf(why, n, "is writable by group or others (mode %04o)", (unsigned)(st.st_mode & 07777));
		else
			ok = 1;
		close(dir);
	} else if (!why[0]) {
		snprintf(why, n, "cannot be checked: %s", strerror(errno));
	} else if (strncmp(why, "is inside ", 10) && strncmp(why, "is reached ", 11)) {
		char *said = xstrdup(why);   /* about its directory itself: say which */
		snprintf(why, n, "is inside %s, which %s", slash ? (*copy ? copy : "/") : ".", said);
		free(said);
	}
	free(copy);
	return ok;
}

/* A symbolic link at path (root's): what it names passes the walk. */
static int link_target_trusted(const char *path, char *why, size_t n)
{
	char *real = realpath(path, NULL);
	struct stat st;
	int ok = 0, fd;

	if (!real)   /* dangling: names nothing to read */
		return 1;
	if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
		fd = trustwalk_check(real, why, n);
		ok = fd >= 0;
		if (fd >= 0)
			close(fd);
	} else {
		ok = file_trusted(real, why, n);
	}
	if (!ok && why[0]) {
		char *inner = xstrdup(why);
		snprintf(why, n, "holds the symbolic link %s to %s, which %s", path, real, inner);
		free(inner);
	} else if (!ok) {
		snprintf(why, n, "holds the symbolic link %s to %s, which cannot be checked", path, real);
	}
	free(real);
	return ok;
}

/* Every entry under the directory open as dir (at path): root's, writable by nobody else, links' targets checked. */
static int tree_trusted(int dir, const char *path, int depth, char *why, size_t n)
{
	DIR *d = fdopendir(dup(dir));
	struct dirent *e;
	int ok = 1;

	if (!d) {
		snprintf(why, n, "cannot be read: %s", strerror(errno));
		return 0;
	}
	while (ok && (e = readdir(d))) {
		struct stat st;
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = path_join(path, e->d_name);
		if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			snprintf(why, n, "holds %s, which cannot be checked: %s", sub, strerror(errno));
			ok = 0;
		} else if (!owned_by_root(&st, sub, why, n)) {
			ok = 0;
		} else if (S_ISLNK(st.st_mode)) {
			ok = link_target_trusted(sub, why, n);
		} else if (S_ISDIR(st.st_mode)) {
			int fd = depth < MAX_DEPTH ? openat(dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
			if (fd < 0) {
				snprintf(why, n, "holds %s, which cannot be checked (too deep, or %s)", sub, strerror(errno));
				ok = 0;
			} else {
				ok = tree_trusted(fd, sub, depth + 1, why, n);
				close(fd);
			}
		}
		free(sub);
	}
	closedir(d);
	return ok;
}

/* The directory path and everything in it; a missing one (inside checked directories) is fine. */
static int dir_trusted(const char *path, char *why, size_t n)
{
	int fd = trustwalk_check(path, why, n), ok;

	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		if (!why[0])
			snprintf(why, n, "cannot be checked: %s", strerror(errno));
		return 0;
	}
	ok = tree_trusted(fd, path, 0, why, n);
	close(fd);
	return ok;
}

int rootenv_check(Diag *d)
{
	char why[2048];

	if (geteuid() != 0)
		return 0;
	for (size_t i = 0; i < sizeof checked_vars / sizeof *checked_vars; i++) {
		const Var *v = &checked_vars[i];
		const char *value = getenv(v->name);
		int ok;

		if (!value || !*value)
			continue;
		why[0] = 0;
		if (v->program && value[0] != '/') {
			snprintf(why, sizeof why, "is not an absolute path");
			ok = 0;
		} else {
			ok = v->program ? file_trusted(value, why, sizeof why) : dir_trusted(value, why, sizeof why);
		}
		if (!ok) {
			diag_plain(d, "error", "as root, %s=%s is refused: it %s; unset it, or point it at a copy only root can change",
				   v->name, value, why);
			return -1;
		}
	}
	return 0;
}
