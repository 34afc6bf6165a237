/* bpfobj.c - pass 4 of --runtime=bpf: the generated C into NAME.bo with clang -target bpf (no kbuild, no
 * kernel headers: CO-RE relocates the kernel's fields at load), cached as modules are; called by the driver as
 * compile.c is. */
#include "compile/cache.h"
#include "compile/compile.h"
#include "compile/modhash.h"
#include "driver/spawn.h"
#include "lib/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The compiler's complaints: a translator bug, or a runtime/bpf/ this clang cannot build. */
static void show_log(const char *path, int all)
{
	char *log = read_file(path, NULL);
	int shown = 0;

	for (char *line = log ? strtok(log, "\n") : NULL; line && (all || shown < 20); line = strtok(NULL, "\n")) {
		fprintf(stderr, "%s\n", line);
		shown++;
	}
	free(log);
}

int compile_bpf(Session *s)
{
	char *log = path_join(s->tmp_dir, "build.log");
	char *inc = xasprintf("-I%s", s->runtime_dir);
	char *argv[] = { "clang", "-O2", "-g", "-target", "bpf", "-D__TARGET_ARCH_x86", "-std=gnu11", "-Wall", "-Werror=implicit-function-declaration",
			 "-Wno-unused-label", "-Wno-unused-function", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
			 "-Wno-int-conversion",   /* the tapsets' snprintf passes %s's pointers as bpf_snprintf's u64 words */
			 inc, "-I/usr/include/x86_64-linux-gnu", "-c", s->c_file, "-o", NULL, NULL };
	SpawnOpts opts = { .log_path = log };
	StrBuf cmd;
	int rc;

	s->ko_file = xasprintf("%s/%s.bo", s->tmp_dir, s->module_name);
	argv[sizeof(argv) / sizeof(argv[0]) - 2] = s->ko_file;   /* -o's */
	/* the cache's key: the command but its paths, beside the C, the runtime and clang itself (cache.c) */
	sb_init(&cmd);
	for (int i = 0; argv[i]; i++)
		sb_printf(&cmd, "%s ", argv[i] == inc || argv[i] == s->c_file || argv[i] == s->ko_file ? "*" : argv[i]);
	rc = cache_fetch(s, cmd.data);
	sb_free(&cmd);
	if (rc) {   /* a hit: no clang at all */
		free(log);
		free(inc);
		return modhash_take(s);
	}
	rc = spawn_wait(argv, &opts);
	if (rc != 0 || !file_exists(s->ko_file)) {
		show_log(log, s->verbose >= 2);
		diag_plain(&s->diag, "error", "pass 4: compilation of the BPF object failed (clang %s %d); "
			   "the build log is %s/build.log with -k", rc < 0 ? "could not start:" : "exited with", rc,
			   s->tmp_dir);
		free(log);
		free(inc);
		return -1;
	}
	free(log);
	free(inc);
	if (modhash_take(s) != 0)   /* only the object clang made is kept, cached or run */
		return -1;
	return cache_store(s);
}
