/* outopen.c - opens one output file for writing: never through a symbolic link, truncating only the caller's own files.
 * Used by stapio/outfile.c for -o FILE, FILE.N and the per-CPU files (and by tests/unit/outfile.t's driver), and by
 * the translator's driver: stap --remote -o FILE's FILE.HOST, the module -p4 keeps (main.c, remote.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outopen.h"

#define OPEN_TRIES 8    /* the file removed between the two opens: tried again */

/* The directory path is in may be written by everyone, sticky (/tmp): others' files live there. */
static int in_shared_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return stat(dir, &st) == 0 && (st.st_mode & S_ISVTX) && (st.st_mode & S_IWOTH);
}

/* An existing file, open as fd, that may be emptied: a regular file of the caller's with no other
 * name (a hard link would empty someone else's file too).  Other kinds (/dev/null, a FIFO) are
 * written as they are.  NULL, or why not. */
static const char *not_truncatable(int fd, char *why, size_t size)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		snprintf(why, size, "cannot examine it: %s", strerror(errno));
		return why;
	}
	if (!S_ISREG(st.st_mode))
		return NULL;
	if (st.st_uid != geteuid())
		snprintf(why, size, "it exists and belongs to uid %u: not emptying another user's file",
			 (unsigned)st.st_uid);
	else if (st.st_nlink != 1)
		snprintf(why, size, "it exists with %lu hard links: not emptying a file that has other"
			 " names", (unsigned long)st.st_nlink);
	else
		return NULL;
	return why;
}

/*
 * A new file is created with O_EXCL (which never follows a symbolic link).  One that exists is
 * refused in a sticky directory everyone may write to (like /tmp, where a name chosen in advance
 * could be anybody's), and elsewhere opened with O_NOFOLLOW and emptied only when it is the
 * caller's own regular file with one link.  Returns the fd, or -1 with errno and, when the file
 * is refused rather than not openable, why set (else why is "").
 */
int output_file_open(const char *path, char *why, size_t size)
{
	int tries, fd;

	why[0] = '\0';
	for (tries = 0; tries < OPEN_TRIES; tries++) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		if (in_shared_dir(path)) {
			snprintf(why, size, "it exists, in a directory everybody may write to (sticky):"
				 " only new files are written there");
			errno = EEXIST;
			return -1;
		}
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0 && errno == ELOOP)
			snprintf(why, size, "it is a symbolic link");
		if (fd < 0)
			return -1;
		if (not_truncatable(fd, why, size)) {
			close(fd);
			errno = EPERM;
			return -1;
		}
		if (ftruncate(fd, 0) < 0 && errno != EINVAL) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		return fd;
	}
	errno = EEXIST;
	return -1;
}

int output_file_write(const char *path, const void *data, size_t len, char *why, size_t size)
{
	int fd = output_file_open(path, why, size), err;
	const char *p = data;

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			close(fd);
			errno = err;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd);
}
