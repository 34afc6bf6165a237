/* module.c - loads a stap module with finit_module and removes it with delete_module.
 * Used by staprun/main.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "staprun.h"

#define REMOVE_TRIES    50      /* x 100 ms */

/* "/path/to/foo-bar.ko" -> "foo_bar" (kbuild spells module names with '_'). */
int module_name_from_path(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t len;
	char *p;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 3 && !strcmp(base + len - 3, ".ko"))
		len -= 3;
	if (len == 0 || len >= size || len >= 56)    /* MODULE_NAME_LEN is 56 */
		return -1;
	memcpy(name, base, len);
	name[len] = '\0';
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return 0;
}

/* "a=1" "b=x" -> "a=1 b=x" (the kernel's module parameter string). */
char *module_params_join(char **argv, int argc)
{
	size_t size = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		size += strlen(argv[i]) + 1;
	s = malloc(size);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static const char *load_hint(int e)
{
	switch (e) {
	case EEXIST: return " (a module of that name is already loaded)";
	case ENOEXEC:
	case EINVAL: return " (probably built for another kernel, or bad parameters: see dmesg)";
	case EPERM: return " (need root / CAP_SYS_MODULE, or module loading is disabled)";
	case EKEYREJECTED:
	case ENOKEY: return " (module signature rejected: secure boot or module.sig_enforce)";
	case ENOENT: return " (unknown symbol or missing dependency: see dmesg)";
	default: return "";
	}
}

int module_load(const char *path, const char *name, const char *params)
{
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err("cannot open module %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err("%s is not a regular file", path);
		close(fd);
		return -1;
	}
	say("loading %s as module %s, parameters \"%s\"", path, name, params);
	rc = (int)syscall(SYS_finit_module, fd, params, 0);
	if (rc < 0) {
		int e = errno;
		err("cannot load module %s (%s): %s%s", name, path, strerror(e), load_hint(e));
	}
	close(fd);
	return rc < 0 ? -1 : 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Retries briefly while the module is busy (stapio's files closing). */
int module_remove(const char *name)
{
	int tries;

	say("removing module %s", name);
	for (tries = 0; tries < REMOVE_TRIES; tries++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		if (errno == ENOENT) {
			say("module %s is gone already (rmmod ended the run)", name);
			return 0;
		}
		if (errno != EAGAIN && errno != EBUSY)
			break;
		sleep_ms(100);
	}
	err("cannot remove module %s: %s", name, strerror(errno));
	return -1;
}
