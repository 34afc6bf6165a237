/* bpfobj.c - staprun NAME.bo: a BPF object of stap --runtime=bpf, opened and checked as modules are (root and stapdev
 * any, stapusr those installed in the systemtap directory), handed to stapio -B, which loads and runs it with libbpf
 * (staprun itself links no BPF loader).  Called by main.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "staprun.h"

int bpf_object_path(const char *arg)
{
	size_t len = strlen(arg);

	return len > 3 && !strcmp(arg + len - 3, ".bo");
}

/* What a BPF run cannot do yet (each option is the module runtime's): 0, or -1 after a message. */
int bpf_object_allowed(const char *arg, int unsupported_option)
{
	if (unsupported_option) {
		err("cannot run %s: -A, -d, -L, -F and -b are for modules only", arg);
		return -1;
	}
	return 0;
}

/* Runs the object: stapio -B with the file opened here with the caller's rights and checked for p (module_open:
 * stapusr's must be installed), as /proc/self/fd/N, and its name (NAME.bo's NAME).  The exit status. */
int bpf_object_run(const char *arg, enum privilege p, struct stapio_args *a, char *name, size_t name_size)
{
	static char fdpath[64];
	const char *base;
	size_t n;
	int fd, status;

	base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	n = strlen(base) - 3;
	if (n == 0 || n >= name_size || n > MODULE_NAME_MAX || strspn(base, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
								       "0123456789_-") != n) {
		err("cannot run %s: a BPF object file is named NAME.bo, NAME being 1 to %d letters, digits, '_' or '-'",
		    arg, MODULE_NAME_MAX);
		return 1;
	}
	fd = module_open(arg, p, "BPF object");
	if (fd < 0)
		return 1;
	memcpy(name, base, n);
	name[n] = 0;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	a->name = name;
	a->bpf_object = fdpath;
	a->bpf_fd = fd;
	status = run_stapio(a);
	close(fd);
	return status;
}
