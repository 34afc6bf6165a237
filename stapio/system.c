/* system.c - the script's system(CMD) calls: each STP_REC_SYSTEM record's command run with
 * /bin/sh -c as the invoking user, in the background.  Used by stapio/main.c (emit, exit). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stapio.h"

/* Reaps the commands that have exited (never the -c command: only our own pids). */
static void system_reap(struct system_cmds *sc, int block_oldest)
{
	int i = 0;

	while (i < sc->n) {
		pid_t r = waitpid(sc->running[i], NULL, block_oldest && i == 0 ? 0 : WNOHANG);
		if (r == sc->running[i] || (r < 0 && errno == ECHILD)) {
			memmove(&sc->running[i], &sc->running[i + 1], (sc->n - i - 1) * sizeof(sc->running[0]));
			sc->n--;
			block_oldest = 0;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		i++;
	}
}

/*
 * Runs the len bytes at cmd (not terminated) as "/bin/sh -c CMD".  The child takes the real
 * uid and gid (stapio never has more: staprun gives it the caller's ids; this makes sure),
 * default signal handling, and /dev/null as its standard input; its output shares stapio's
 * standard output and error (stapio flushes its own output first).
 */
void system_run(struct system_cmds *sc, const char *cmd, size_t len)
{
	char *copy;
	pid_t pid;

	if (!len)
		return;
	copy = strndup(cmd, len);
	if (!copy || memchr(cmd, 0, len)) {
		err("system(): bad command record");
		free(copy);
		return;
	}
	system_reap(sc, sc->n == SYSTEM_MAX);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err("system(): fork: %s", strerror(errno));
		free(copy);
		return;
	}
	if (pid == 0) {
		int fd;

		if (child_prepare("system()") < 0)
			_exit(127);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0 && fd != STDIN_FILENO) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		execl("/bin/sh", "sh", "-c", copy, (char *)NULL);
		fprintf(stderr, "stapio: system(): cannot run /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	say("system(): \"%s\" is pid %ld", copy, (long)pid);
	free(copy);
	sc->running[sc->n++] = pid;
}

/* Reaps commands that have exited (on SIGCHLD). */
void system_poll(struct system_cmds *sc)
{
	system_reap(sc, 0);
}

/* The end of the run: waits at most 10 s for the commands still running, then leaves them. */
void system_finish(struct system_cmds *sc)
{
	struct timespec ts = { 0, 10 * 1000000L };
	int i;

	for (i = 0; i < 1000 && sc->n; i++) {
		system_reap(sc, 0);
		if (sc->n)
			nanosleep(&ts, NULL);
	}
	if (sc->n)
		say("system(): %d command(s) still running at exit", sc->n);
}
