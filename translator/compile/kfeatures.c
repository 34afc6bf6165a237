/* kfeatures.c - kernel feature tests for runtime/core/compat.h: tiny C files compiled with the target
 * tree's kbuild (all in one make -k -j), answers cached per build tree; used by compile.c (pass 4). */
#include "compile/kfeatures.h"
#include "compile/cache.h"
#include "lib/diag.h"
#include "lib/filecache.h"
#include "lib/sha256.h"
#include "driver/spawn.h"
#include "compile/kbuild_nm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KFEATURES_MAGIC "stap kernel features 1"   /* change with the tests' sources or their meaning */

/* One test: STP_HAVE_<name> is 1 when source compiles (warnings are errors) against the tree. */
typedef struct KFeature {
	const char *name;
	const char *source;
} KFeature;

/* Only differences between the supported kernels (Debian 6.1, 6.12, their -rt) that a distribution
 * may backport; the others are decided by version in compat.h. */
static const KFeature kfeatures[] = {
	{ "UPROBE_REGISTER_PTR",
	  "#include <linux/uprobes.h>\n"
	  "struct uprobe *stp_kf(struct inode *i, struct uprobe_consumer *uc);\n"
	  "struct uprobe *stp_kf(struct inode *i, struct uprobe_consumer *uc)\n"
	  "{\n\treturn uprobe_register(i, 0, 0, uc);\n}\n" },
};
#define KFEATURES_N (sizeof kfeatures / sizeof *kfeatures)

/* The cache entry's name: the tree's digest covers the tests' sources too. */
static char *kfeatures_cache_path(const Session *s)
{
	Sha256 c;

	sha256_init(&c);
	sha256_update(&c, KFEATURES_MAGIC, sizeof KFEATURES_MAGIC);
	for (size_t i = 0; i < KFEATURES_N; i++) {
		sha256_update(&c, kfeatures[i].name, strlen(kfeatures[i].name) + 1);
		sha256_update(&c, kfeatures[i].source, strlen(kfeatures[i].source) + 1);
	}
	cache_hash_kernel(&c, s);
	return cache_entry_path(s, &c, "kfeatures-", "");
}

/* Compiles every test in dir with one kbuild run; the -D flags of the answers, or NULL. */
static char *kfeatures_compile(Session *s, const char *dir)
{
	char *kbuild = path_join(dir, "Kbuild"), *objs = xstrdup(""), *flags = xstrdup("");
	char *mflag = xasprintf("M=%s", dir), *jflag, *log = path_join(dir, "build.log");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char **argv = xcalloc(KFEATURES_N + 9, sizeof *argv);
	int n = 0, rc = 0, first_obj;

	jflag = xasprintf("-j%ld", cpus < 1 ? 1 : cpus > (long)KFEATURES_N ? (long)KFEATURES_N : cpus);
	argv[n++] = "make";
	argv[n++] = "-k";
	argv[n++] = "-s";
	argv[n++] = jflag;
	argv[n++] = "-C";
	argv[n++] = s->kbuild_dir;
	argv[n++] = mflag;
	const char *nm = kbuild_nm_arg(s);
	if (nm)
		argv[n++] = (char *)nm;
	first_obj = n;
	for (size_t i = 0; i < KFEATURES_N && !rc; i++) {
		char *src = xasprintf("%s/kf_%s.c", dir, kfeatures[i].name);
		char *obj = xasprintf("%s kf_%s.o", objs, kfeatures[i].name);

		rc = write_file(src, kfeatures[i].source, strlen(kfeatures[i].source));
		free(src);
		free(objs);
		objs = obj;
		argv[n++] = xasprintf("kf_%s.o", kfeatures[i].name);
	}
	if (!rc) {
		char *text = xasprintf("obj-m :=%s\nccflags-y := -Werror\n", objs);
		rc = write_file(kbuild, text, strlen(text));
		free(text);
	}
	if (rc) {
		diag_plain(&s->diag, "error", "cannot write the kernel feature tests in %s: %s", dir, strerror(errno));
		free(flags);
		flags = NULL;
	} else {
		if (s->verbose >= 2)
			fprintf(stderr, "Running make -k -C %s %s (%zu kernel feature tests)\n", s->kbuild_dir, mflag,
				KFEATURES_N);
		SpawnOpts opts = { .log_path = log };

		spawn_wait(argv, &opts);   /* a failed test fails make: the object tells */
		for (size_t i = 0; i < KFEATURES_N; i++) {
			char *obj = xasprintf("%s/kf_%s.o", dir, kfeatures[i].name);
			char *more = xasprintf("%s%s-DSTP_HAVE_%s=%d", flags, *flags ? " " : "", kfeatures[i].name,
					       file_exists(obj));
			free(obj);
			free(flags);
			flags = more;
		}
	}
	for (int i = first_obj; i < n; i++)
		free(argv[i]);
	free(argv);
	free(kbuild);
	free(objs);
	free(mflag);
	free(jflag);
	free(log);
	return flags;
}

static long kfeatures_ms(const struct timespec *t0, const struct timespec *t1)
{
	return (long)((t1->tv_sec - t0->tv_sec) * 1000 + (t1->tv_nsec - t0->tv_nsec) / 1000000);
}

char *kfeatures_cflags(Session *s)
{
	char *cache = kfeatures_cache_path(s), *flags, *dir;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (cache && (flags = filecache_read(&s->diag, cache, NULL))) {
		flags[strcspn(flags, "\n")] = 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (s->verbose)
			fprintf(stderr, "Pass 4: kernel feature tests cached in %s (%ld ms): %s\n", cache,
				kfeatures_ms(&t0, &t1), flags);
		free(cache);
		return flags;
	}
	dir = path_join(s->tmp_dir, "kfeatures");
	if (mkdir(dir, 0755) != 0) {
		diag_plain(&s->diag, "error", "cannot create %s: %s", dir, strerror(errno));
		free(dir);
		free(cache);
		return NULL;
	}
	flags = kfeatures_compile(s, dir);
	if (flags && cache) {
		char *line = xasprintf("%s\n", flags);
		filecache_write(&s->diag, cache, line, strlen(line));   /* not stored: tested again next time */
		free(line);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (flags && s->verbose)
		fprintf(stderr, "Pass 4: kernel feature tests compiled in %ld ms: %s\n", kfeatures_ms(&t0, &t1), flags);
	free(dir);
	free(cache);
	return flags;
}
