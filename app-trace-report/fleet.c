/* fleet.c - app-trace-report's view of the directory app-trace.yml fetches into: which inventory host a file was fetched from (its directory's name), every host's files.
 * Used by app-trace-report (main.c); the layout is examples/app-trace/app-trace.yml's (FETCH_DIR/.app-trace-fleet, FETCH_DIR/HOST/FILE). */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int atr_is_fleet_dir(const char *dir)
{
	char mark[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(mark, sizeof(mark), "%s/%s", dir, ATR_FLEET_MARK) >= sizeof(mark))
		return 0;
	return lstat(mark, &st) == 0 && S_ISREG(st.st_mode);
}

int atr_inventory_host(const char *file, char *host, size_t size)
{
	char *real = realpath(file, NULL), *slash, *name;
	int found = 0;

	if (!real)
		return 0;
	/* real is /.../FETCH_DIR/HOST/FILE: cut FILE, then HOST */
	slash = strrchr(real, '/');
	if (slash && slash != real) {
		*slash = '\0';
		slash = strrchr(real, '/');
		name = slash + 1;
		if (*name && strlen(name) < size) {
			snprintf(host, size, "%s", name);
			*slash = '\0';
			found = atr_is_fleet_dir(slash == real ? "/" : real);
		}
	}
	free(real);
	return found;
}

static void atr_left_out(FILE *err, const char *path, const char *why)
{
	char e[ATR_ESC_PATH_SIZE];

	fprintf(err, "app-trace-report: notice: %s left out: %s\n", atr_esc(e, sizeof(e), path, ATR_ESC_NAME), why);
}

static int atr_no_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

/* The entries of dir but . and .., sorted by cmp (scandir); -1 after saying why. */
static int atr_scan(const char *dir, struct dirent ***list, int (*cmp)(const struct dirent **, const struct dirent **),
		    FILE *err)
{
	char e[ATR_ESC_PATH_SIZE];
	int n = scandir(dir, list, atr_no_dots, cmp);

	if (n < 0)
		fprintf(err, "app-trace-report: %s: %s\n", atr_esc(e, sizeof(e), dir, ATR_ESC_NAME), strerror(errno));
	return n;
}

/* host_files: fn for each regular file of the host directory path (named host). */
static int atr_host_files(const char *path, const char *host, FILE *err,
			  int (*fn)(const char *path, const char *host, void *arg), void *arg)
{
	struct dirent **files;
	char file[PATH_MAX];
	struct stat st;
	int n, i, rc = 0;

	n = atr_scan(path, &files, versionsort, err);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (rc == 0) {
			if ((size_t)snprintf(file, sizeof(file), "%s/%s", path, files[i]->d_name) >= sizeof(file))
				atr_left_out(err, path, "a name too long in it");
			else if (lstat(file, &st) != 0 || !S_ISREG(st.st_mode))
				atr_left_out(err, file, "not a regular file");
			else
				rc = fn(file, host, arg);
		}
		free(files[i]);
	}
	free(files);
	return rc;
}

int atr_fleet_each(const char *dir, FILE *err, int (*fn)(const char *path, const char *host, void *arg), void *arg)
{
	struct dirent **hosts;
	char path[PATH_MAX];
	struct stat st;
	int n, i, rc = 0;

	n = atr_scan(dir, &hosts, alphasort, err);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const char *name = hosts[i]->d_name;

		if (rc == 0 && strcmp(name, ATR_FLEET_MARK) != 0) {
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path) ||
			    strlen(name) >= ATR_NAME_MAX)
				atr_left_out(err, dir, "a name too long in it");
			else if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
				atr_left_out(err, path, "not in a host's directory");
			else
				rc = atr_host_files(path, name, err, fn, arg);
		}
		free(hosts[i]);
	}
	free(hosts);
	return rc;
}
