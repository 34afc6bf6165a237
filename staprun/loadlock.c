/* loadlock.c - one load at a time for each user: the buffer budget's check and the load it allows, under a lock.
 * Used by staprun/main.c around buffers_fit() and module_load(); the lock file is root's alone, LOAD_LOCK_FILE. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "staprun.h"

#define LOAD_LOCK_FILE "/run/staprun.lock"

/* The lock file: opened without following a symbolic link, created 0600, and used only when the
 * open file is a regular file of root's alone (owner root, mode 0600 or less, one link). */
static int lock_file_open(const char **why)
{
	struct stat st;
	int fd = open(LOAD_LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);

	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IRWXG | S_IRWXO)) || st.st_nlink != 1) {
		*why = "it is not a regular file of root's alone (owner root, mode 0600, one link)";
		close(fd);
		return -1;
	}
	return fd;
}

/* Takes the write lock of the byte at the caller's real uid: only the caller's own loads wait for
 * it, so a member who stops their staprun while it holds the lock stops no one else. */
static int lock_my_byte(int fd, const char **why)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1 };
	int rc;

	fl.l_start = (off_t)getuid();
	rc = fcntl(fd, F_SETLK, &fl);
	if (rc < 0 && (errno == EAGAIN || errno == EACCES)) {
		say("waiting for another load of yours to finish (%s)", LOAD_LOCK_FILE);
		while ((rc = fcntl(fd, F_SETLKW, &fl)) < 0 && errno == EINTR)
			;
	}
	if (rc < 0)
		*why = strerror(errno);
	return rc;
}

/*
 * The caller's load lock, held from the budget check until the module is loaded: loads started
 * at once by one user go one after the other, each counting the runs loaded before it.  A
 * staprun without root's rights needs none (it loads only with the caller's own).  Not had:
 * refused, but for root, whose budget protects nobody else.
 */
int load_lock(enum privilege p, int *fd)
{
	const char *why = NULL;

	*fd = -1;
	if (geteuid() != 0)
		return 0;
	*fd = lock_file_open(&why);
	if (*fd >= 0 && lock_my_byte(*fd, &why) == 0)
		return 0;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	if (p == PRIV_ROOT) {
		say("loading without the load lock %s: %s", LOAD_LOCK_FILE, why);
		return 0;
	}
	err("cannot take the load lock %s (one load at a time for each user, so that each counts the"
	    " buffers of the others): %s: not loading", LOAD_LOCK_FILE, why);
	return -1;
}

/* Lets the caller's next load check its budget (closing the file drops the lock). */
void load_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
