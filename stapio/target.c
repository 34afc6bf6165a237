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
#include <wordexp.h>

#include "stapio.h"

/* Whether WORD names what only a shell can run: a builtin that changes the shell itself
 * ("exec prog", "ulimit -c 0") or a reserved word. */
static int target_is_shell_word(const char *word)
{
	static const char *const shell_words[] = {
		"exec", "cd", ".", "source", "eval", "export", "set", "unset", "readonly", "ulimit",
		"umask", "trap", "command", "builtin", "alias", "shift", "wait", "time", "!",
		"if", "for", "while", "until", "case",
	};

	for (size_t i = 0; i < sizeof(shell_words) / sizeof(shell_words[0]); i++)
		if (!strcmp(word, shell_words[i]))
			return 1;
	return 0;
}

/*
 * Runs CMD in the (already unprivileged) child, as SystemTap does: a plain command line
 * ("./prog -a 'x y'") is split into words (quotes and $VARIABLES expanded, never a command
 * substitution) and executed directly, so target() is the program's own pid; a line using the
 * shell's syntax (; | & < > ( ) and the like) or starting with a shell builtin ("exec prog") is
 * given to /bin/sh -c, and target() is that shell (the program, after an exec).
 */
static void target_exec(const char *command)
{
	wordexp_t words;

	if (wordexp(command, &words, WRDE_NOCMD | WRDE_UNDEF) == 0) {
		if (words.we_wordc > 0 && !target_is_shell_word(words.we_wordv[0])) {
			execvp(words.we_wordv[0], words.we_wordv);
			fprintf(stderr, "stapio: cannot run %s: %s\n", words.we_wordv[0], strerror(errno));
			_exit(127);
		}
		wordfree(&words);
	}
	execl("/bin/sh", "sh", "-c", command, (char *)NULL);
	fprintf(stderr, "stapio: cannot run /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

/*
 * The child is forked before "start" so its pid can be sent as the target;
 * it waits for one byte on a pipe and then execs CMD (target_exec), with the
 * real uid and gid (stapio's own ids already; this makes sure).  If the run
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
		err("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		err("fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (t->pid == 0) {
		close(go[1]);
		if (child_prepare("-c") < 0 || read(go[0], &byte, 1) != 1)
			_exit(127);
		target_exec(command);
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
		err("cannot release the command: %s", strerror(errno));
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
