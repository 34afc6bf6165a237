/* child.c - the state a process stapio forks starts in: default signal dispositions, no signal
 * blocked, and the calling user's real uid and gid. Used by target.c (-c CMD) and system.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stapio.h"

/* In a freshly forked child: the signals stapio handles back to their defaults, none blocked,
 * then the real ids set again as effective and saved ones (check_privileges: stapio has no others, but while a
 * stapio -B loads for a setuid staprun). On failure
 * says so, naming WHAT the child was for, and returns -1: the child must exit. */
int child_prepare(const char *what)
{
	static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR2, SIGPIPE, SIGCHLD };
	sigset_t none;

	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		signal(handled[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* all three ids: a stapio -B that loads for a setuid staprun has root's saved uid (bpfrun.c) */
	if (setresgid(getgid(), getgid(), getgid()) < 0 || setresuid(getuid(), getuid(), getuid()) < 0) {
		fprintf(stderr, "stapio: cannot drop privileges for %s: %s\n", what, strerror(errno));
		return -1;
	}
	return 0;
}
