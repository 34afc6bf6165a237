/* tmpdir.c - the run's temporary directory: $TMPDIR checked by the trust walk when root, the directory
 * made 0700 through its parent's descriptor and removed through its own.  Used by main.c and remote.c. */
#include "driver/tmpdir.h"
#include "lib/trustwalk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

#define DEFAULT_TMP "/tmp"
#define MAX_DEPTH 64    /* kbuild's tree is a few levels deep; anything deeper is left */

/* The parent directory to work in, open: $TMPDIR, unless root and the walk refuses it. */
static int open_parent(Diag *d, const char **dir)
{
	const char *env = getenv("TMPDIR");
	char why[1024];
	int fd;

	*dir = env && *env ? env : DEFAULT_TMP;
	if (geteuid() != 0)
		return open(*dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = trustwalk_check(*dir, why, sizeof why);
	if (fd >= 0 || strcmp(*dir, DEFAULT_TMP) == 0)
		return fd;
	{
		char *msg = errno == EPERM && why[0] ?
			xasprintf("TMPDIR %s %s: root does not work there; using %s", *dir, why, DEFAULT_TMP) :
			xasprintf("TMPDIR %s cannot be used (%s); using %s", *dir, strerror(errno), DEFAULT_TMP);
		diag_warning_once(d, msg);
		free(msg);
	}
	*dir = DEFAULT_TMP;
	return trustwalk_check(*dir, why, sizeof why);
}

int tmpdir_make(Diag *d, const char *prefix, TmpDir *t)
{
	const char *dir;
	char *templ;
	int err;

	t->fd = -1;
	t->name = t->path = NULL;
	t->parent = open_parent(d, &dir);
	if (t->parent < 0) {
		diag_plain(d, "error", "cannot create a temporary directory in %s: %s", dir, strerror(errno));
		return -1;
	}
	/* mkdtemp's random name, made relative to the directory checked (not its path again) */
	templ = xasprintf("/proc/self/fd/%d/%sXXXXXX", t->parent, prefix);
	if (!mkdtemp(templ)) {
		err = errno;
		diag_plain(d, "error", "cannot create a temporary directory in %s: %s", dir, strerror(err));
		free(templ);
		close(t->parent);
		t->parent = -1;
		return -1;
	}
	t->name = xstrdup(strrchr(templ, '/') + 1);
	free(templ);
	t->fd = openat(t->parent, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->fd < 0) {
		err = errno;
		unlinkat(t->parent, t->name, AT_REMOVEDIR);
		diag_plain(d, "error", "cannot open the temporary directory %s/%s: %s", dir, t->name, strerror(err));
		return -1;
	}
	t->path = path_join(dir, t->name);
	return 0;
}

/* Removes the entries of the directory open as dir (the descriptor stays open); depth bounds it. */
static int remove_entries(int dir, int depth)
{
	DIR *d = fdopendir(dup(dir));
	struct dirent *e;
	int rc = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = -1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {   /* a symbolic link too: the link goes, never what it names */
			if (unlinkat(dir, e->d_name, 0) != 0)
				rc = -1;
			continue;
		}
		sub = depth < MAX_DEPTH ? openat(dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (sub < 0 || remove_entries(sub, depth + 1) != 0)
			rc = -1;
		if (sub >= 0)
			close(sub);
		if (unlinkat(dir, e->d_name, AT_REMOVEDIR) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int tmpdir_remove(TmpDir *t)
{
	struct stat ours, named;
	int rc = 0;

	if (t->fd >= 0) {
		rc = remove_entries(t->fd, 0);
		/* the name still ours (same directory) before it goes */
		if (t->parent >= 0 && fstat(t->fd, &ours) == 0 &&
		    fstatat(t->parent, t->name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
		    ours.st_dev == named.st_dev && ours.st_ino == named.st_ino) {
			if (unlinkat(t->parent, t->name, AT_REMOVEDIR) != 0)
				rc = -1;
		} else {
			rc = -1;
		}
		close(t->fd);
		t->fd = -1;
	}
	if (t->parent >= 0) {
		close(t->parent);
		t->parent = -1;
	}
	return rc;
}
