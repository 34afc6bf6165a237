/* spawn.c - runs a program as a child and waits for it, with an optional environment, working
 * directory, log file or pipes.  Used by pass 4 (compile.c, kbuild_steps.c, kbuild_nm.c), pass 5 (compile.c)
 * and remote.c. */
#include "driver/spawn.h"
#include "driver/markers.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* the child being waited for: the one place a signal handler must find it */
static volatile pid_t spawn_child;

void spawn_forward_signal(int sig)
{
	if (spawn_child > 0)
		kill(spawn_child, sig);
}

void spawn_forward_interrupt(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	if (!info || info->si_code != SI_KERNEL)
		spawn_forward_signal(sig);
}

/* In the child: stdin, stdout and stderr as given, only those (the pipes' other ends closed). */
static void spawn_stdio(const int stdio[3])
{
	for (int fd = 0; fd < 3; fd++)
		if (stdio[fd] >= 0 && dup2(stdio[fd], fd) < 0)
			_exit(127);
	for (int fd = 3; fd < 256; fd++)
		close(fd);
	signal(SIGPIPE, SIG_DFL);
}

/* In the child: default signals, its group, its descriptors, the log, the directory, then exec;
 * never returns. */
static void spawn_exec(char *const argv[], const SpawnOpts *o)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR2 };

	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		signal(sigs[i], SIG_DFL);
	if (o && o->own_group)
		setpgid(0, 0);
	if (o && o->stdio)
		spawn_stdio(o->stdio);
	if (o && o->log_path) {
		int fd = open(o->log_path, O_WRONLY | O_CREAT | O_CLOEXEC | (o->append ? O_APPEND : O_TRUNC), 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
	}
	if (o && o->cwd && chdir(o->cwd) != 0) {
		fprintf(stderr, "stap: cannot enter %s: %s\n", o->cwd, strerror(errno));
		_exit(127);
	}
	if (o && o->envp)
		environ = (char **)o->envp;   /* execvp searches the PATH of the environment it passes on */
	execvp(argv[0], argv);
	fprintf(stderr, "stap: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The command line argv as one string, for the stap.system marker: malloc'd */
static char *spawn_command_text(char *const argv[])
{
	StrBuf sb;

	sb_init(&sb);
	for (int i = 0; argv[i]; i++)
		sb_printf(&sb, "%s%s", i ? " " : "", argv[i]);
	return sb_steal(&sb);
}

int spawn_reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* spawn_reap, the child reachable by the forwarding signal handlers meanwhile */
static int spawn_status(pid_t pid)
{
	int rc;

	spawn_child = pid;
	rc = spawn_reap(pid);
	spawn_child = 0;
	return rc;
}

pid_t spawn_start(char *const argv[], const SpawnOpts *opts)
{
	pid_t pid = fork();

	if (pid == 0)
		spawn_exec(argv, opts);
	return pid;
}

int spawn_capture(char *const argv[], const char *cwd, int in_fd, int err_fd, StrBuf *out)
{
	int p[2], null_fd = -1;
	char buf[4096];
	ssize_t n;
	pid_t pid;

	sb_init(out);
	if (pipe(p) != 0)
		return -1;
	if (in_fd < 0)
		in_fd = null_fd = open("/dev/null", O_RDONLY);
	const int stdio[3] = { in_fd, p[1], err_fd };
	SpawnOpts o = { .cwd = cwd, .stdio = stdio };
	fflush(stdout);
	fflush(stderr);
	pid = spawn_start(argv, &o);
	close(p[1]);
	if (null_fd >= 0)
		close(null_fd);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	while ((n = read(p[0], buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (out->len < 65536)
			sb_putn(out, buf, (size_t)n);
	}
	close(p[0]);
	return spawn_reap(pid);
}

int spawn_wait(char *const argv[], const SpawnOpts *opts)
{
	char *cmd = spawn_command_text(argv);
	pid_t pid;
	int rc;

	STAP_MARK_SYSTEM_START(cmd);
	pid = spawn_start(argv, opts);
	STAP_MARK_SYSTEM_SPAWN(pid < 0 ? -1 : 0, pid);
	rc = pid < 0 ? -1 : spawn_status(pid);
	STAP_MARK_SYSTEM_COMPLETE(rc);
	free(cmd);
	return rc;
}
