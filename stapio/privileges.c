/* privileges.c - stapio refuses to run with privileges its caller does not have (setuid, setgid), but root's
 * for loading a BPF object for a setuid staprun.
 * Used by stapio/main.c first thing: staprun restores the caller's ids before it executes stapio. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "stapio.h"

/* A setuid staprun gives stapio the caller's real, effective and saved ids
 * (staprun/setuid.c, become_caller) before executing it; the module's files
 * are its loader's (runtime/transport/procfs.c).  So stapio never needs more
 * than its real ids, and refuses to start with anything else: a stapio run
 * some other way with root's effective or saved ids would open output files
 * and start -c commands with them. */
int check_privileges(int bpf_loading)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0) {
		err("cannot read my ids: %s", strerror(errno));
		return -1;
	}
	/* stapio -B of a setuid staprun (staprun/setuid.c's become_caller_loading): root's effective and saved uid,
	 * which bpfrun.c gives up for the output and the -c command, and for good once the probes are armed */
	if (bpf_loading && r != 0 && e == 0 && s == 0 && eg == rg && sg == rg)
		return 0;
	if (e != r || s != r || eg != rg || sg != rg) {
		err("refusing to run with ids other than the caller's (uid %ld/%ld/%ld,"
		    " gid %ld/%ld/%ld): staprun starts stapio with the caller's ids",
		    (long)r, (long)e, (long)s, (long)rg, (long)eg, (long)sg);
		return -1;
	}
	return 0;
}
