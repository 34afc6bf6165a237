/* filecache.c - files in the user's cache directory: names, atomic writes, read-only maps.
 * Used by cache.c, tapsets.c, dwarf/index.c and kernel.c (see filecache.h). */
#include "filecache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

char *filecache_dir(void)
{
	const char *dir = getenv("SYSTEMTAP_DIR");
	const char *home = getenv("HOME");

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

void filecache_make_parents(const char *path)
{
	char *p = xstrdup(path);

	for (char *slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(p, 0755);
		*slash = '/';
	}
	free(p);
}

int filecache_write(const char *path, const void *data, size_t size)
{
	char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
	const char *bytes = data;
	int fd, ok = 1;

	filecache_make_parents(path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(tmp);
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
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		ok = 0;
	}
	free(tmp);
	return ok ? 0 : -1;
}

const char *filecache_map(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	*size = (size_t)st.st_size;
	return map;
}

void filecache_unmap(const char *base, size_t size)
{
	munmap((void *)base, size);
}
