/* target.c - the -c CMD target process: started held back, released once the probes are armed.
 * Used by stapio/main.c (stap -c / staprun -c); its pid is what target() returns. */
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

/* A simple command: no list, pipeline, subshell, group or command substitution, and no
 * assignment before its name. The shell is told to exec it, so the command itself is the target
 * (target() is its pid, as SystemTap's -c gives: `pid() == target()` selects its calls). */
static int simple_command(const char *cmd)
{
	const char *p = cmd + strspn(cmd, " \t");
	size_t word = strcspn(p, " \t");

	if (!*p || strpbrk(cmd, ";&|\n(){}`!#"))
		return 0;
	return !memchr(p, '=', word) && strncmp(p, "exec ", 5);
}

/*
 * The child is forked before "start" so its pid can be sent as the target;
 * it waits for one byte on a pipe and then execs /bin/sh -c CMD (`exec CMD` for a simple
 * command, so the command keeps the pid), with the
 * real uid and gid (stapio may run with staprun's privileges).  If the run
 * cannot start, the pipe is closed without a byte and the child exits 127
 * without running anything.
 */
int target_spawn(struct target *t, const char *command)
{
	int go[2];
	char byte;

	memset(t, 0, sizeof(*t));
	t->go_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0) {
		warnx_("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		warnx_("fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (t->pid == 0) {
		sigset_t none;

		close(go[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGUSR2, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		if (setgid(getgid()) < 0 || setuid(getuid()) < 0) {
			fprintf(stderr, "stapio: cannot drop privileges for -c: %s\n", strerror(errno));
			_exit(127);
		}
		if (simple_command(command)) {
			size_t n = strlen(command) + sizeof("exec ");
			char *line = malloc(n);
			if (line) {
				snprintf(line, n, "exec %s", command);
				execl("/bin/sh", "sh", "-c", line, (char *)NULL);
			}
		}
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		fprintf(stderr, "stapio: cannot run /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	close(go[0]);
	t->go_fd = go[1];
	say("command \"%s\" is pid %ld, held until the probes are armed", command, (long)t->pid);
	return 0;
}

/* The probes are armed: let the command run. */
void target_release(struct target *t)
{
	char byte = 'g';

	if (t->go_fd < 0)
		return;
	if (write(t->go_fd, &byte, 1) != 1)
		warnx_("cannot release the command: %s", strerror(errno));
	close(t->go_fd);
	t->go_fd = -1;
}

/* Reaps the command if it has exited; returns 1 the first time it has. */
int target_exited(struct target *t)
{
	int status;
	pid_t pid;

	if (t->pid <= 0 || t->done)
		return 0;
	pid = waitpid(t->pid, &status, WNOHANG);
	if (pid != t->pid)
		return 0;
	t->done = 1;
	if (WIFEXITED(status))
		say("command exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		say("command killed by signal %d", WTERMSIG(status));
	return 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The run is over: a command that never started is dropped; one still
 * running gets SIGTERM, and SIGKILL if it is still there a second later. */
void target_finish(struct target *t)
{
	int i;

	if (t->go_fd >= 0) {
		close(t->go_fd);        /* never released: it exits 127 */
		t->go_fd = -1;
	}
	if (t->pid <= 0 || t->done || target_exited(t))
		return;
	say("the run is over; terminating command pid %ld", (long)t->pid);
	kill(t->pid, SIGTERM);
	for (i = 0; i < 100 && !target_exited(t); i++)
		sleep_ms(10);
	if (!t->done) {
		kill(t->pid, SIGKILL);
		while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR)
			;
		t->done = 1;
	}
}
