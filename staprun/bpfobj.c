/* bpfobj.c - staprun NAME.bo: a BPF object of stap --runtime=bpf, handed to stapio -B, which loads and runs it
 * with libbpf (staprun itself links no BPF loader).  Root only for now; called by main.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
	if (getuid() != 0) {
		err("cannot run %s: BPF objects are run for root only so far (stapusr and stapdev members:"
		    " use a module, stap without --runtime=bpf)", arg);
		return -1;
	}
	if (unsupported_option) {
		err("cannot run %s: -A, -d, -L, -F, -b, -r and module parameters are for modules only", arg);
		return -1;
	}
	return 0;
}

/* Runs the object: stapio -B with its resolved path and name (NAME.bo's NAME).  The exit status. */
int bpf_object_run(const char *arg, struct stapio_args *a, char *name, size_t name_size)
{
	char real[PATH_MAX];
	const char *base;
	struct stat st;
	size_t n;

	if (!realpath(arg, real) || stat(real, &st) < 0 || !S_ISREG(st.st_mode)) {
		err("cannot run %s: %s", arg, errno ? strerror(errno) : "not a regular file");
		return 1;
	}
	base = strrchr(real, '/') + 1;
	n = strlen(base) - 3;
	if (n == 0 || n >= name_size || n > MODULE_NAME_MAX || strspn(base, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
								       "0123456789_-") != n) {
		err("cannot run %s: a BPF object file is named NAME.bo, NAME being 1 to %d letters, digits, '_' or '-'",
		    arg, MODULE_NAME_MAX);
		return 1;
	}
	memcpy(name, base, n);
	name[n] = 0;
	a->name = name;
	a->bpf_object = real;
	return run_stapio(a);
}
