/* setuid.c - what staprun does differently when an administrator installed it setuid root.
 * Used by staprun/main.c, permissions.c, child.c: std fds, opening as the caller, stapio's file, ids, environment. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "staprun.h"

/* Run by someone else than the owner of its privileges (setuid or setgid). */
int running_setuid(void)
{
	return geteuid() != getuid() || getegid() != getgid();
}

/* A setuid program must not let a file it opens become stdin, stdout or
 * stderr because the caller closed them: they are reopened on /dev/null. */
void setuid_init(void)
{
	int fd;

	if (!running_setuid())
		return;
	for (fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDWR) != fd)
			_exit(1);
	}
}

/* Opens path with the caller's own access rights (the real uid and gid),
 * so that a setuid staprun never reads a file its caller could not read. */
int open_as_caller(const char *path, int flags)
{
	uid_t euid = geteuid();
	gid_t egid = getegid();
	int fd, e;

	if (!running_setuid())
		return open(path, flags);
	if (setegid(getgid()) < 0 || seteuid(getuid()) < 0) {
		err("cannot take the caller's identity: %s", strerror(errno));
		exit(1);
	}
	fd = open(path, flags);
	e = errno;
	if (seteuid(euid) < 0 || setegid(egid) < 0) {
		err("cannot get my privileges back: %s", strerror(errno));
		exit(1);
	}
	errno = e;
	return fd;
}

/* A directory a setuid staprun may trust: root's, not writable by group or others
 * (a sticky world-writable one such as /tmp is refused too). */
static const char *dir_untrusted(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return "cannot be examined";
	if (!S_ISDIR(st.st_mode))
		return "is not a directory";
	if (st.st_uid != 0)
		return "is not owned by root";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by group or others";
	return NULL;
}

/*
 * Opens the stapio at path, without following a symbolic link, as an
 * O_PATH fd that run_stapio() executes (execveat): the file checked is the
 * file run, whatever happens to the path meanwhile.  When staprun is setuid
 * the file must be a regular executable owned by root and not writable by
 * group or others, and so must every directory from it up to / be (its
 * real path, as /proc/self/fd says): a user who hard-links staprun into a
 * directory of theirs, next to a stapio of theirs, is refused here.
 * Returns the fd, or -1 with why set.
 */
int stapio_open(const char *path, char *why, size_t size)
{
	char real[PATH_MAX], link[64];
	const char *bad;
	struct stat st;
	ssize_t n;
	char *slash;
	int fd;

	fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "%s", errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		/* O_PATH|O_NOFOLLOW opens a symbolic link itself */
		snprintf(why, size, "%s", S_ISLNK(st.st_mode) ? "it is a symbolic link"
							  : "it is not a regular file");
		goto bad;
	}
	if (!(st.st_mode & S_IXUSR)) {
		snprintf(why, size, "it is not executable");
		goto bad;
	}
	if (!running_setuid())
		return fd;
	if (st.st_uid != 0) {
		snprintf(why, size, "it is not owned by root");
		goto bad;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, size, "it is writable by group or others");
		goto bad;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n <= 0 || real[0] != '/') {
		snprintf(why, size, "cannot tell where it is (is /proc mounted?)");
		goto bad;
	}
	real[n] = '\0';
	/* every directory from the file's own up to / */
	while ((slash = strrchr(real, '/')) != NULL) {
		if (slash == real)
			slash[1] = '\0';
		else
			*slash = '\0';
		if ((bad = dir_untrusted(real))) {
			snprintf(why, size, "directory %s %s", real, bad);
			goto bad;
		}
		if (!strcmp(real, "/"))
			break;
	}
	return fd;
bad:
	close(fd);
	return -1;
}

/*
 * In staprun's child, before stapio is executed: back to the caller's ids
 * for good, real, effective and saved (the filesystem ids follow), gid
 * first.  The supplementary groups are the caller's already (a setuid exec
 * keeps them).  stapio therefore never runs with root's ids: it opens the
 * module's files as their owner, the user who loaded the module (the
 * runtime makes them that user's, runtime/transport/procfs.c).
 * Returns -1 (after a message) if the ids could not all be restored.
 */
int become_caller(void)
{
	uid_t uid = getuid(), r, e, s;
	gid_t gid = getgid(), rg, eg, sg;

	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
		err("cannot take the caller's identity for stapio: %s", strerror(errno));
		return -1;
	}
	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0 || r != uid || e != uid ||
	    s != uid || rg != gid || eg != gid || sg != gid ||
	    (uid != 0 && setresuid((uid_t)-1, 0, (uid_t)-1) == 0)) {
		err("privileges still there after giving them up: not running stapio");
		return -1;
	}
	return 0;
}

/* stapio -B of a setuid staprun loads and attaches the BPF object itself (BPF needs root), so it starts with the
 * caller's real uid and gids and root's effective and saved uid, and opens its output, starts its -c command
 * and runs from the probes' arming on with the caller's ids alone (stapio/bpfrun.c). */
int become_caller_loading(void)
{
	uid_t uid = getuid(), r, e, s;
	gid_t gid = getgid(), rg, eg, sg;

	if (setresgid(gid, gid, gid) < 0 || setresuid(uid, 0, 0) < 0) {
		err("cannot take the caller's identity for stapio: %s", strerror(errno));
		return -1;
	}
	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0 || r != uid || e != 0 || s != 0 ||
	    rg != gid || eg != gid || sg != gid) {
		err("ids not as asked for stapio: not running it");
		return -1;
	}
	return 0;
}

/* Variables stapio and the -c command get from a setuid staprun's caller;
 * locale names must not be paths, and TZ must not climb out of the zone
 * directory.  Everything else (LD_*, GCONV_PATH, TMPDIR...) is dropped. */
static const char *const kept[] = {
	"PATH", "HOME", "USER", "LOGNAME", "TERM", "TZ", "LANG", "LANGUAGE",
	"LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LC_COLLATE",
};

static int value_safe(const char *name, const char *value)
{
	if (strlen(value) > 1024)
		return 0;
	if (!strcmp(name, "TZ"))
		return !strstr(value, "..");
	if (!strncmp(name, "LC_", 3) || !strncmp(name, "LANG", 4))
		return !strchr(value, '/');
	return 1;
}

/* NULL (inherit the environment) unless setuid; then a fresh one. */
char **stapio_environment(void)
{
	static char *env[sizeof(kept) / sizeof(kept[0]) + 2];
	size_t i, n = 0;
	int path = 0;

	if (!running_setuid())
		return NULL;
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		const char *v = getenv(kept[i]);

		if (!v || !value_safe(kept[i], v))
			continue;
		env[n] = malloc(strlen(kept[i]) + strlen(v) + 2);
		if (!env[n]) {
			err("out of memory");
			exit(1);
		}
		sprintf(env[n++], "%s=%s", kept[i], v);
		path |= !strcmp(kept[i], "PATH");
	}
	if (!path)
		env[n++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	env[n] = NULL;
	return env;
}
