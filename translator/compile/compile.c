/* compile.c - pass 4 runs kbuild on the generated C in the temp directory;
 * pass 5 runs staprun on the result.  Used by the driver (main.c). */
#include "compile/compile.h"
#include "compile/cache.h"
#include "lib/diag.h"
#include "compile/kbuild_steps.h"
#include "compile/kfeatures.h"
#include "compile/modhash.h"
#include "driver/spawn.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Shows the compiler's complaints, which mean a translator bug or a kernel
 * the runtime does not support yet. */
static void show_build_log(const char *log_path, int verbose)
{
	char *log = read_file(log_path, NULL);
	int shown = 0;

	if (!log)
		return;
	for (char *line = strtok(log, "\n"); line && shown < 20; line = strtok(NULL, "\n")) {
		if (verbose || strstr(line, "error") || strstr(line, "Error")) {
			fprintf(stderr, "%s\n", line);
			shown++;
		}
	}
	free(log);
}

int compile_module(Session *s)
{
	char *kbuild = path_join(s->tmp_dir, "Kbuild");
	char *log = path_join(s->tmp_dir, "build.log");
	char *features = kfeatures_cflags(s), *kbuild_text;
	int rc;

	if (!features)
		return -1;
	/* -g0 after the kernel's -g (CONFIG_DEBUG_INFO): nothing reads the module's own DWARF, and
	 * writing it took a third of the compiler's time and most of the .ko's size */
	kbuild_text = xasprintf("obj-m := %s.o\nccflags-y := -I%s -Wno-declaration-after-statement -g0 %s\n",
				s->module_name, s->runtime_dir, features);
	free(features);
	if (write_file(kbuild, kbuild_text, strlen(kbuild_text)) != 0) {
		diag_plain(&s->diag, "error", "cannot write %s: %s", kbuild, strerror(errno));
		return -1;
	}
	s->ko_file = xasprintf("%s/%s.ko", s->tmp_dir, s->module_name);
	if (cache_fetch(s, kbuild_text))   /* a hit: no kbuild at all */
		return modhash_take(s);
	rc = kbuild_steps_build(s, log);
	if (rc != 0 || !file_exists(s->ko_file)) {
		show_build_log(log, s->verbose >= 2);
		diag_plain(&s->diag, "error", "pass 4: compilation of the module failed (make exited with %d); "
			   "the build log is %s/build.log with -k", rc, s->tmp_dir);
		return -1;
	}
	/* the object kbuild made, as it is now: only it is signed, cached, kept or run */
	if (modhash_take(s) != 0)
		return -1;
	return cache_store(s);
}

static char *find_staprun(Session *s)
{
	char *p = path_join(s->bin_dir, "staprun");
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return xstrdup("staprun");
}

int run_module(Session *s)
{
	char *staprun = find_staprun(s);
	char **argv = xcalloc((size_t)s->global_sets.len + 16, sizeof *argv);
	int n = 0, rc;
	struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = spawn_forward_signal };
	struct sigaction intr = { .sa_sigaction = spawn_forward_interrupt, .sa_flags = SA_SIGINFO };
	struct sigaction old_int, old_quit, old_term, old_hup, old_usr2;

	argv[n++] = staprun;
	if (s->verbose)
		argv[n++] = "-v";
	if (s->output_file) {
		argv[n++] = "-o";
		argv[n++] = (char *)s->output_file;
	}
	if (s->size_arg) {
		argv[n++] = "-S";
		argv[n++] = (char *)s->size_arg;
	}
	if (s->command) {
		argv[n++] = "-c";
		argv[n++] = (char *)s->command;
	}
	if (s->target_pid) {
		argv[n++] = "-x";
		argv[n++] = (char *)s->target_pid;
	}
	if (s->flight)
		argv[n++] = "-F";
	argv[n++] = s->ko_file;
	for (int i = 0; i < s->global_sets.len; i++)
		argv[n++] = s->global_sets.items[i];
	argv[n] = NULL;
	if (modhash_check(s, "loading it") != 0) {
		free(staprun);
		free(argv);
		return 1;
	}
	/* the terminal's ^C reaches staprun/stapio too and ends the run; kill -INT of stap is passed on */
	sigaction(SIGINT, &intr, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);
	sigaction(SIGUSR2, &fwd, &old_usr2);
	rc = spawn_wait(argv, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGUSR2, &old_usr2, NULL);
	if (rc < 0)
		diag_plain(&s->diag, "error", "cannot run %s", staprun);
	free(staprun);
	free(argv);
	return rc < 0 ? 1 : rc;
}
