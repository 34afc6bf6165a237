/* filecache.c - files in the user's cache directory: names, atomic writes, read-only maps.
 * Used by cache.c, tapsets.c, dwarf/index.c and kernel.c (see filecache.h). */
#include "lib/filecache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/trustwalk.h"
#include "lib/diag.h"
#include "lib/util.h"

/* The home directory: $HOME, but root's from the password database (a root shell keeps a user's
 * HOME after sudo or su; root must not write in that user's home). */
const char *filecache_home_dir(void)
{
	struct passwd *pw;

	if (geteuid() != 0)
		return getenv("HOME");
	pw = getpwuid(0);
	return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

char *filecache_dir(void)
{
	const char *dir = getenv("SYSTEMTAP_DIR");
	const char *home = filecache_home_dir();

	if (dir && *dir)
		return path_join(dir, "cache");
	if (home && *home)
		return path_join(home, ".systemtap/cache");
	return NULL;
}

char *filecache_path(const Session *s, const char *name)
{
	char *dir, *path;

	if (s->disable_cache || !(dir = filecache_dir()))
		return NULL;
	path = path_join(dir, name);
	free(dir);
	return path;
}

unsigned long long filecache_hash(unsigned long long h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

unsigned long long filecache_hash_stat(unsigned long long h, const char *path)
{
	struct stat st;
	long long v[3] = { 0, 0, 0 };

	if (stat(path, &st) == 0) {
		v[0] = (long long)st.st_size;
		v[1] = (long long)st.st_mtim.tv_sec;
		v[2] = (long long)st.st_mtim.tv_nsec;
	}
	h = filecache_hash(h, path, strlen(path) + 1);
	return filecache_hash(h, v, sizeof v);
}

/* Each warning once per run (the Session's Diag keeps the set, under its lock: btf/source.c's
 * thread may warn, its cache write, beside the main thread). */
void filecache_warn(Diag *d, const char *fmt, ...)
{
	va_list ap;
	StrBuf sb;

	sb_init(&sb);
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	diag_warning_once(d, sb.data);
	sb_free(&sb);
}

/* Why st (of what) must not be used: not the effective user's, or writable by group or others;
 * NULL when it may be. */
static const char *distrust(const struct stat *st, char *why, size_t n)
{
	if (st->st_uid != geteuid())
		snprintf(why, n, "is owned by uid %u, not by uid %u", (unsigned)st->st_uid, (unsigned)geteuid());
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, n, "is writable by %s (mode %04o)",
			 (st->st_mode & S_IWGRP) && (st->st_mode & S_IWOTH) ? "group and others" :
			 st->st_mode & S_IWGRP ? "group" : "others", (unsigned)(st->st_mode & 07777));
	else
		return NULL;
	return why;
}

/* fd (a directory opened as path) when it may be trusted; else closes it, warns, -1. */
static int trusted_dir(Diag *d, int fd, const char *path)
{
	struct stat st;
	char why[96];

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (distrust(&st, why, sizeof why)) {
		filecache_warn(d, "cache directory %s %s: not using the cache", path, why);
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int filecache_open_dir(Diag *d, const char *path, int create, const char **base)
{
	char *top = filecache_dir(), *rest, *p;
	size_t n;
	int fd, err, mkerr;   /* mkerr: why a directory could not be made (EROFS...), reported over ENOENT */

	*base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!top)
		return -1;
	n = strlen(top);
	if (strncmp(path, top, n) || path[n] != '/') {
		free(top);
		errno = EINVAL;
		return -1;
	}
	/* the top walked from / (trustwalk.c: SYSTEMTAP_DIR or ~/.systemtap made only inside checked
	 * directories, symlinks only root's or ours: ~/.systemtap -> elsewhere); every directory below
	 * it is opened without following a symlink */
	fd = trusted_dir(d, trustwalk_open(d, top, create), top);
	rest = xstrdup(path + n + 1);
	for (p = rest; fd >= 0;) {
		char *slash = strchr(p, '/'), *shown;
		int sub;
		if (!slash)
			break;
		*slash = 0;
		mkerr = create && mkdirat(fd, p, 0755) != 0 && errno != EEXIST ? errno : 0;
		sub = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		err = sub < 0 && errno == ENOENT && mkerr ? mkerr : errno;
		close(fd);
		shown = xstrndup(path, (size_t)(p - rest) + n + 1 + strlen(p));
		fd = trusted_dir(d, sub, shown);
		free(shown);
		if (sub < 0)
			errno = err;
		p = slash + 1;
	}
	err = errno;
	free(rest);
	free(top);
	errno = err;
	return fd;
}

int filecache_open_top(Diag *d)
{
	char *top = filecache_dir();
	int fd;

	if (!top)
		return -1;
	fd = filecache_open_trusted(d, top, 0);
	free(top);
	return fd;
}

int filecache_open_trusted(Diag *d, const char *path, int create)
{
	return trusted_dir(d, trustwalk_open(d, path, create), path);
}

int filecache_open_sub(int top, const char *name)
{
	int fd = openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char why[96];

	if (fd >= 0 && (fstat(fd, &st) != 0 || distrust(&st, why, sizeof why))) {
		close(fd);
		return -1;
	}
	return fd;
}

int filecache_open_entry(Diag *d, const char *path, struct stat *st)
{
	const char *base;
	int dir = filecache_open_dir(d, path, 0, &base), fd;
	char why[96];

	if (dir < 0)
		return -1;
	fd = openat(dir, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		filecache_warn(d, "cache entry %s is a symbolic link: not used", path);
	close(dir);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -1;
	}
	if (distrust(st, why, sizeof why)) {
		filecache_warn(d, "cache entry %s %s: not used", path, why);
		close(fd);
		return -1;
	}
	return fd;
}

int filecache_create_tmp(int dir, const char *base, char *name, size_t size)
{
	/* BASE.PID.tmp first (stale ones of crashed runs are recognized by it), another name when that
	 * exists: O_EXCL and O_NOFOLLOW refuse whatever is there, a symlink above all */
	for (unsigned k = 0; k < 100; k++) {
		int fd;
		if (k == 0)
			snprintf(name, size, "%s.%d.tmp", base, (int)getpid());
		else
			snprintf(name, size, "%s.%d.%u%04x.tmp", base, (int)getpid(), k, (unsigned)(rand() & 0xffff));
		fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

int filecache_write(Diag *d, const char *path, const void *data, size_t size)
{
	const char *base, *bytes = data;
	int dir = filecache_open_dir(d, path, 1, &base), fd, ok = 1;
	char tmp[PATH_MAX];

	if (dir < 0)
		return -1;
	fd = filecache_create_tmp(dir, base, tmp, sizeof tmp);
	if (fd < 0) {
		close(dir);
		return -1;
	}
	for (size_t done = 0; ok && done < size;) {
		ssize_t w = write(fd, bytes + done, size - done);
		if (w < 0 && errno != EINTR)
			ok = 0;
		else if (w > 0)
			done += (size_t)w;
	}
	if (close(fd) != 0)
		ok = 0;
	if (!ok || renameat(dir, tmp, dir, base) != 0) {
		unlinkat(dir, tmp, 0);
		ok = 0;
	}
	close(dir);
	return ok ? 0 : -1;
}

const char *filecache_map(Diag *d, const char *path, size_t *size)
{
	struct stat st;
	int fd = filecache_open_entry(d, path, &st);
	void *map;

	if (fd < 0)
		return NULL;
	if (st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	*size = (size_t)st.st_size;
	return map;
}

char *filecache_read(Diag *d, const char *path, size_t *len)
{
	size_t size;
	const char *map = filecache_map(d, path, &size);
	char *text;

	if (!map)
		return NULL;
	text = xmalloc(size + 1);
	memcpy(text, map, size);
	text[size] = 0;
	filecache_unmap(map, size);
	if (len)
		*len = size;
	return text;
}

void filecache_unmap(const char *base, size_t size)
{
	munmap((void *)base, size);
}
