/* child.c - finds and runs stapio, relaying SIGINT/SIGTERM/SIGHUP/SIGUSR2 to it while staprun waits.
 * Used by staprun/main.c after the module is loaded. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "staprun.h"

static volatile pid_t child_pid;

/* signals_hold(): the signals that end a run, blocked from before the module is loaded until
 * stapio runs (a staprun killed in between would leave the module loaded without its reader);
 * held_mask: the mask before, which stapio gets back. */
static sigset_t held_mask;
static int held;

void signals_hold(void)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGQUIT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &held_mask);
	held = 1;
}

/*
 * stapio next to staprun (build tree), else ../libexec/systemtap/stapio
 * (installed), found from /proc/self/exe (never the environment) and opened
 * there as an O_PATH fd, checked (setuid.c, stapio_open) and later executed
 * through that fd: the path is never looked up again.  The first candidate
 * that exists is the one used: a refused one is an error, not skipped.
 */
int find_stapio(char *path, size_t size)
{
	static const char *const rel[] = { "stapio", "../libexec/systemtap/stapio" };
	char self[PATH_MAX], why[PATH_MAX + 64];
	struct stat st;
	ssize_t n;
	char *slash;
	size_t i;
	int fd;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		err("cannot find my own executable: %s", strerror(errno));
		return -1;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		if ((size_t)snprintf(path, size, "%s/%s", self, rel[i]) >= size ||
		    fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		fd = stapio_open(path, why, sizeof(why));
		if (fd < 0) {
			if (running_setuid())
				err("refusing to run %s for a setuid staprun: %s (stapio must be root's"
				    " alone, in directories root's alone up to /)", path, why);
			else
				err("cannot run %s: %s", path, why);
		}
		return fd;
	}
	err("cannot find stapio in %s or %s/../libexec/systemtap", self, self);
	return -1;
}

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* SIGINT: the terminal's ^C (si_code SI_KERNEL) reached stapio too, being in our process group;
 * one sent to staprun's pid alone (kill -INT PID, SI_USER/SI_QUEUE) is passed on, so it is
 * delivered to stapio exactly once either way. */
static void forward_interrupt(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	if (info && info->si_code == SI_KERNEL)
		return;
	forward_signal(sig);
}

struct saved_signals {
	struct sigaction intr, quit, term, hup, usr2;
	sigset_t mask;
};

/* SIGTERM/SIGHUP (end the run) and SIGUSR2 (next output file) sent to staprun are passed on,
 * SIGINT too unless the terminal sent it (forward_interrupt); the terminal's SIGQUIT reaches
 * stapio itself. They stay blocked until the child's pid is known. A handler, not SIG_IGN,
 * also takes SIGINT back from a background job of a non-interactive shell, where it starts ignored. */
static void signals_for_waiting(struct saved_signals *old)
{
	struct sigaction ign, fwd, intr;
	sigset_t block;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	fwd = ign;
	fwd.sa_handler = forward_signal;
	intr = ign;
	intr.sa_sigaction = forward_interrupt;
	intr.sa_flags = SA_SIGINFO;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, &old->mask);
	if (held) {
		old->mask = held_mask;
		held = 0;
	}
	sigaction(SIGINT, &intr, &old->intr);
	sigaction(SIGQUIT, &ign, &old->quit);
	sigaction(SIGTERM, &fwd, &old->term);
	sigaction(SIGHUP, &fwd, &old->hup);
	sigaction(SIGUSR2, &fwd, &old->usr2);
}

static void signals_restore(const struct saved_signals *old)
{
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGQUIT, &old->quit, NULL);
	sigaction(SIGTERM, &old->term, NULL);
	sigaction(SIGHUP, &old->hup, NULL);
	sigaction(SIGUSR2, &old->usr2, NULL);
	sigprocmask(SIG_SETMASK, &old->mask, NULL);
}

static void exec_stapio(const char *path, const struct stapio_args *a,
			const struct saved_signals *old)
{
	const char **argv = calloc(32 + 2 * (size_t)a->nglobals, sizeof(*argv));
	char **env;
	int n = 0;

	if (!argv)
		_exit(127);

	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	sigprocmask(SIG_SETMASK, &old->mask, NULL);
	argv[n++] = path;
	argv[n++] = "-N";
	argv[n++] = a->name;
	if (a->outfile) {
		argv[n++] = "-o";
		argv[n++] = a->outfile;
	}
	if (a->size_arg) {
		argv[n++] = "-S";
		argv[n++] = a->size_arg;
	}
	if (a->command) {
		argv[n++] = "-c";
		argv[n++] = a->command;
	}
	if (a->target_pid) {
		argv[n++] = "-x";
		argv[n++] = a->target_pid;
	}
	if (a->attach)
		argv[n++] = "-A";
	if (a->detach)
		argv[n++] = "-L";
	if (a->flight)
		argv[n++] = "-F";
	for (int i = 0; i < a->verbose && i < 3; i++)
		argv[n++] = "-v";
	if (a->script) {
		argv[n++] = "-s";
		argv[n++] = a->script;
	}
	if (a->script_sha256) {
		argv[n++] = "-H";
		argv[n++] = a->script_sha256;
	}
	if (a->clock_offset) {
		argv[n++] = "-C";
		argv[n++] = a->clock_offset;
	}
	if (a->bpf_object) {
		argv[n++] = "-B";
		argv[n++] = a->bpf_object;
	}
	if (a->bpf_object && a->remote) {
		argv[n++] = "-r";
		argv[n++] = a->remote;
	}
	for (int i = 0; a->bpf_object && i < a->nglobals; i++) {
		argv[n++] = "-G";
		argv[n++] = a->globals[i];
	}
	argv[n] = NULL;
	env = stapio_environment();
	/* a BPF object: stapio loads it from the file staprun opened and checked, as root until it is armed */
	if (a->bpf_object && fcntl(a->bpf_fd, F_SETFD, 0) < 0)
		_exit(127);
	if ((a->bpf_object && running_setuid() ? become_caller_loading() : become_caller()) < 0)
		_exit(127);
	/* the file find_stapio() opened and checked, not the path */
	syscall(SYS_execveat, a->fd, "", (char *const *)argv, env ? env : environ, AT_EMPTY_PATH);
	fprintf(stderr, "staprun: cannot run %s: %s\n", path, strerror(errno));
	_exit(127);
}

static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err("waiting for stapio: %s", strerror(errno));
			return STAPIO_LOST;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		err("stapio killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return 1;
}

/* A ^C or kill -INT/-QUIT held since the load was sent before stapio existed: taken from the
 * pending set here (once, whoever sent it), it ends the run as a SIGTERM to stapio. */
static int take_held_interrupts(void)
{
	static const struct timespec now = { 0, 0 };
	sigset_t interrupts;
	int taken = 0;

	sigemptyset(&interrupts);
	sigaddset(&interrupts, SIGINT);
	sigaddset(&interrupts, SIGQUIT);
	while (sigtimedwait(&interrupts, NULL, &now) > 0)
		taken = 1;
	return taken;
}

/* stapio's exit status, 128+sig if killed, STAPIO_LOST if it cannot be had */
int run_stapio(const struct stapio_args *a)
{
	struct saved_signals old;
	const char *path = a->path;
	pid_t pid;
	int status, interrupted;

	say("running %s -N %s", path, a->name);
	fflush(NULL);
	interrupted = held && take_held_interrupts();
	signals_for_waiting(&old);
	pid = fork();
	if (pid < 0) {
		err("fork: %s", strerror(errno));
		signals_restore(&old);
		return 1;
	}
	if (pid == 0)
		exec_stapio(path, a, &old);
	child_pid = pid;
	if (interrupted)
		kill(pid, SIGTERM);
	sigprocmask(SIG_SETMASK, &old.mask, NULL);   /* deliver pending TERM/HUP now */
	status = wait_child(pid);
	child_pid = 0;
	signals_restore(&old);
	return status;
}
