/* spawn.h - runs a program as a child and waits for it: optional environment, working directory,
 * log file or pipes.  Used by pass 4 (compile.c, kbuild_steps.c, kbuild_nm.c), pass 5 (compile.c: staprun) and
 * remote.c (ssh and the child staps, started without waiting). */
#ifndef STAP_SPAWN_H
#define STAP_SPAWN_H

#include <signal.h>
#include <sys/types.h>

#include "lib/util.h"

/* How a child runs: NULL fields mean "as stap" (its environment, its directory, its stdout and
 * stderr).  A log gets both stdout and stderr, truncated first unless append. */
typedef struct SpawnOpts {
	char *const *envp;
	const char *cwd;
	const char *log_path;
	int append;
	/* the child's stdin, stdout and stderr (-1: stap's); when given, the child gets no other
	 * descriptor of stap's, and SIGPIPE's default action */
	const int *stdio;
	int own_group;          /* a process group of its own: the terminal's ^C is stap's to handle */
} SpawnOpts;

/* Runs argv[0] (searched on the PATH of the environment it gets) and waits: its exit status,
 * 128 + the signal that killed it, or -1 when it could not be started. */
int spawn_wait(char *const argv[], const SpawnOpts *opts);

/* Starts argv as spawn_wait does, without waiting: its pid, or -1. */
pid_t spawn_start(char *const argv[], const SpawnOpts *opts);

/* Waits for a child of spawn_start: its status as spawn_wait returns it. */
int spawn_reap(pid_t pid);

/* Runs argv in cwd (NULL: stap's) with stdin from in_fd (-1: /dev/null) and stderr to err_fd (-1: stap's),
 * and waits: its status as spawn_wait returns it, out (initialised here) the first 64 KB of its stdout. */
int spawn_capture(char *const argv[], const char *cwd, int in_fd, int err_fd, StrBuf *out);

/* A signal handler passing the signal on to the child spawn_wait is waiting for (pass 5:
 * SIGTERM, SIGHUP, SIGUSR2 sent to stap reach staprun). */
void spawn_forward_signal(int sig);

/* The same for SIGINT (an SA_SIGINFO handler): passed on when sent to stap's pid (kill -INT),
 * not when the terminal sent it (si_code SI_KERNEL), which reached the child's group already. */
void spawn_forward_interrupt(int sig, siginfo_t *info, void *ctx);

#endif
