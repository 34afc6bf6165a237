/* setuid.c - what staprun does differently when an administrator installed it setuid root.
 * Used by staprun/main.c, permissions.c and child.c: standard fds, opening as the caller, stapio's environment. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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

/* stapio runs with staprun's privileges until it has opened the module's
 * files: when setuid, it and its directory must be root's alone. */
int stapio_trusted(const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (!running_setuid())
		return 1;
	if (!realpath(path, real) || stat(real, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	return stat(dirname(real), &st) == 0 && st.st_uid == 0 &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
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
