/* module.c - module names, and loading (finit_module) and finding stap modules (removal.c removes them).
 * Used by staprun/main.c; which files and modules the caller may use is decided in permissions.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "staprun.h"

/* 1 to 55 letters, digits and '_' (MODULE_NAME_LEN is 56): never a '/' or
 * "..", so a name is safe in /proc and /sys paths. */
int module_name_valid(const char *name)
{
	size_t n = strlen(name), i;

	if (n == 0 || n > MODULE_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];
		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

/* "/path/to/foo-bar.ko" -> "foo_bar" (kbuild spells module names with '_');
 * -1 unless the file is named NAME.ko and that makes a valid name. */
int module_name_from_path(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t len;
	char *p;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len <= 3 || strcmp(base + len - 3, ".ko"))
		return -1;
	len -= 3;
	if (len == 0 || len >= size || len > MODULE_NAME_MAX)
		return -1;
	memcpy(name, base, len);
	name[len] = '\0';
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return module_name_valid(name) ? 0 : -1;
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

/* A loadable module of that name is in the kernel (any state). */
int module_loaded(const char *name)
{
	char *line = NULL, path[128];
	size_t cap = 0, n = strlen(name);
	FILE *f = fopen("/proc/modules", "re");
	int found = 0;

	if (!f) {
		snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
		return faccessat(AT_FDCWD, path, F_OK, AT_EACCESS) == 0;
	}
	/* whole lines: a long one's tail must not pass for a name */
	while (!found && getline(&line, &cap, f) > 0)
		found = !strncmp(line, name, n) && line[n] == ' ';
	free(line);
	fclose(f);
	return found;
}

enum { NAME_FREE, NAME_LOADED, NAME_BUILTIN };

/* Whether a module of that name could be loaded now. */
static int name_taken(const char *name)
{
	char path[128];

	if (module_loaded(name))
		return NAME_LOADED;
	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return faccessat(AT_FDCWD, path, F_OK, AT_EACCESS) == 0 ? NAME_BUILTIN : NAME_FREE;
}

static void say_taken(const char *name, int how)
{
	if (how == NAME_BUILTIN)
		err("cannot load module %s: a part of the kernel is called %s already:"
		    " rename the module (stap -m NAME)", name, name);
	else
		err("module %s is already loaded (a run of it is going on, or it was left behind:"
		    " staprun -A %s attaches, staprun -d %s removes it)", name, name, name);
}

static const char *load_hint(int e)
{
	switch (e) {
	case ENOEXEC:
	case EINVAL: return " (probably built for another kernel, or bad parameters: see dmesg)";
	case EPERM: return " (need root / CAP_SYS_MODULE, or module loading is disabled)";
	case EKEYREJECTED:
	case ENOKEY: return " (module signature rejected: secure boot or module.sig_enforce)";
	case ENOENT: return " (unknown symbol or missing dependency: see dmesg)";
	case ENOSYS: return " (this kernel or container does not let programs load modules)";
	default: return "";
	}
}

/* Loads the module from fd, which module_open() opened and module_verify()
 * checked: the kernel gets that very file. */
int module_load(int fd, const char *path, const char *name, const char *params)
{
	int taken = name_taken(name), rc;

	if (taken != NAME_FREE) {
		say_taken(name, taken);
		return -1;
	}
	if (secureboot_check_before_load(fd, path, name) != 0)
		return -1;
	say("loading %s as module %s, parameters \"%s\"", path, name, params);
	rc = (int)syscall(SYS_finit_module, fd, params, 0);
	if (rc < 0) {
		int e = errno;
		if (e == EEXIST)   /* loaded meanwhile */
			say_taken(name, name_taken(name) == NAME_BUILTIN ? NAME_BUILTIN : NAME_LOADED);
		else if (!secureboot_explain_load_error(fd, path, name, e))
			err("cannot load module %s (%s): %s%s", name, path, strerror(e), load_hint(e));
	}
	return rc < 0 ? -1 : 0;
}
