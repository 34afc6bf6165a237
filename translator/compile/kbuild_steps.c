/* kbuild_steps.c - pass 4 without kbuild's slow top level every time: the sub-makes kbuild's top-level
 * Makefile runs for an external module (scripts/Makefile.build, .modpost, .modfinal) are recorded once
 * per kernel build tree and environment, with the variables the top level exported to them, and later
 * builds run them directly.  The top level spends about half of a small module's build probing the
 * compiler (cc-option, as-instr: some 30 gcc runs on 6.1) and recomputes the same flags every time.
 * Used by compile.c. */
#include "compile/kbuild_steps.h"
#include "compile/cache.h"
#include "compile/kbuild_nm.h"
#include "compile/modc.h"
#include "lib/filecache.h"
#include "lib/sha256.h"
#include "driver/spawn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define KB_MAGIC "stap kbuild steps 2"     /* change when the entry format or what it records changes */
#define KB_RECORDER ".kbuild-make"         /* in the temp dir: kbuild's $(MAKE) while recording */
#define KB_RECORD ".kbuild-steps"          /* in the temp dir: what the recorder wrote */
#define KB_TMP_MARK "@STAP_TMP_DIR@"       /* the temp dir's path, as stored in an entry */
#define KB_ENV_PREFIX "STAP_KBUILD_"       /* the recorder's own variables: never stored */

/* One recorded sub-make: where it ran, its arguments, and the environment it got as changes to
 * stap's own (variables set or changed by the top level, variables it removed). */
typedef struct KbStep {
	char *cwd;
	PtrVec args;     /* char *, after "make" */
	PtrVec sets;     /* char *, NAME=VALUE */
	PtrVec unsets;   /* char *, NAME */
} KbStep;

/* ---- which variables shape what the top level computes (the entry's key) ---- */

static int kb_name_is(const char *entry, const char *name)
{
	size_t n = strlen(name);
	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* Not TMPDIR: the top level computes nothing from it (its compiler probes write under the module's
 * directory), and the temp dir's path in a record is stored as KB_TMP_MARK. */
static int kb_env_shapes_kbuild(const char *entry)
{
	static const char *const names[] = {
		"PATH", "ARCH", "SRCARCH", "SUBARCH", "CROSS_COMPILE", "CC", "LD", "AR", "NM", "OBJCOPY",
		"OBJDUMP", "STRIP", "READELF", "HOSTCC", "HOSTCXX", "HOSTCFLAGS", "HOSTCXXFLAGS",
		"HOSTLDFLAGS", "HOSTLDLIBS", "KCFLAGS", "KCPPFLAGS", "KAFLAGS", "KRUSTFLAGS", "CFLAGS_MODULE",
		"AFLAGS_MODULE", "LDFLAGS_MODULE", "LLVM", "LLVM_IAS", "CHECK", "CHECKFLAGS", "V", "W", "C",
		"O", "SOURCE_DATE_EPOCH", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES", "MAKELEVEL",
		"SHELL", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "GCC_EXEC_PREFIX",
		"COMPILER_PATH", "CPATH", "C_INCLUDE_PATH", "LIBRARY_PATH", "DEPENDENCIES_OUTPUT",
		"SUNPRO_DEPENDENCIES", "PAHOLE", "RUSTC", "BINDGEN",
	};
	static const char *const prefixes[] = { "KBUILD_", "CONFIG_", "INSTALL_" };

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (kb_name_is(entry, names[i]))
			return 1;
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(entry, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

static int kb_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* CACHE/kbuild/KEY.steps, or NULL: no cache, STAP_KBUILD_STEPS=0, or a make jobserver in the
 * environment (its descriptors would not exist when the steps run again). */
static char *kb_entry_path(const Session *s)
{
	const char *off = getenv("STAP_KBUILD_STEPS"), *mf = getenv("MAKEFLAGS");
	PtrVec keyed = { 0 };
	Sha256 c;

	if ((off && strcmp(off, "0") == 0) || (mf && strstr(mf, "jobserver")))
		return NULL;
	for (char **e = environ; *e; e++)
		if (kb_env_shapes_kbuild(*e))
			vec_push(&keyed, *e);
	qsort(keyed.items, (size_t)keyed.len, sizeof *keyed.items, kb_cmp_str);
	sha256_init(&c);
	sha256_update(&c, KB_MAGIC, sizeof KB_MAGIC);
	cache_hash_kernel(&c, s);
	for (int i = 0; i < keyed.len; i++)
		sha256_update(&c, keyed.items[i], strlen(keyed.items[i]) + 1);
	free(keyed.items);
	return cache_entry_path(s, &c, "kbuild/", ".steps");
}

/* ---- the recorder ---- */

/* TMP/.kbuild-make: kbuild's top level runs its sub-makes through it (MAKE=...).  With
 * STAP_KBUILD_RECORD set, the outermost runs of scripts/Makefile.* append their directory,
 * arguments and environment (NUL-separated) to that file; otherwise it is plain make. */
static int kb_write_recorder(const Session *s)
{
	static const char text[] =
		"#!/bin/sh\n"
		"# Written by stap (pass 4): kbuild's top level runs its sub-makes through this file.\n"
		"if [ -n \"$STAP_KBUILD_RECORD\" ] && [ -z \"$STAP_KBUILD_INNER\" ]; then\n"
		"\tcase \"$*\" in\n"
		"\t*/scripts/Makefile.*)\n"
		"\t\tSTAP_KBUILD_INNER=1; export STAP_KBUILD_INNER\n"
		"\t\t{ printf 'STEP\\000d:%s\\000' \"$(pwd)\"; printf 'a:%s\\000' \"$@\";\n"
		"\t\t  env -0 | sed -z 's/^/e:/'; } >>\"$STAP_KBUILD_RECORD\" || exit 1;;\n"
		"\tesac\n"
		"fi\n"
		"exec make \"$@\"\n";
	char *path = path_join(s->tmp_dir, KB_RECORDER);
	int ok = write_file(path, text, sizeof text - 1) == 0 && chmod(path, 0700) == 0;

	free(path);
	return ok ? 0 : -1;
}

/* ---- entries: NUL-separated tokens, the magic first, then per step
 * "STEP", "d:DIR", "a:ARG"..., "e:NAME=VALUE"..., "u:NAME"... ---- */

static char *kb_subst(const char *s, const char *from, const char *to)
{
	StrBuf sb;
	size_t n = strlen(from);
	const char *p;

	sb_init(&sb);

	while ((p = strstr(s, from))) {
		sb_putn(&sb, s, (size_t)(p - s));
		sb_puts(&sb, to);
		s = p + n;
	}
	sb_puts(&sb, s);
	return sb_steal(&sb);
}

/* Splits data (size bytes, NUL-terminated tokens) into steps; 0, or -1 when malformed.  The
 * tokens point into data. */
static int kb_parse(char *data, size_t size, PtrVec *steps, int want_magic)
{
	KbStep *st = NULL;
	char *end = data + size;

	if (size == 0 || data[size - 1] != 0)
		return -1;
	if (want_magic) {
		if (strcmp(data, KB_MAGIC) != 0)
			return -1;
		data += sizeof KB_MAGIC;
	}
	for (char *t = data; t < end; t += strlen(t) + 1) {
		if (strcmp(t, "STEP") == 0) {
			st = xcalloc(1, sizeof *st);
			vec_push(steps, st);
		} else if (!st || t[0] == 0 || t[1] != ':') {
			return -1;
		} else if (t[0] == 'd') {
			st->cwd = t + 2;
		} else if (t[0] == 'a') {
			vec_push(&st->args, t + 2);
		} else if (t[0] == 'e' && strchr(t + 2, '=')) {
			vec_push(&st->sets, t + 2);
		} else if (t[0] == 'u') {
			vec_push(&st->unsets, t + 2);
		} else {
			return -1;
		}
	}
	for (int i = 0; i < steps->len; i++)
		if (!((KbStep *)steps->items[i])->cwd)
			return -1;
	return steps->len ? 0 : -1;
}

static void kb_free_steps(PtrVec *steps)
{
	for (int i = 0; i < steps->len; i++) {
		KbStep *st = steps->items[i];
		free(st->args.items);
		free(st->sets.items);
		free(st->unsets.items);
		free(st);
	}
	free(steps->items);
}

/* The value of NAME=... in env (a NULL-terminated array or a PtrVec's items), or NULL. */
static const char *kb_lookup(char *const *env, int n, const char *entry)
{
	size_t len = strcspn(entry, "=");

	for (int i = 0; n < 0 ? env[i] != NULL : i < n; i++)
		if (strncmp(env[i], entry, len) == 0 && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

static void kb_put_token(StrBuf *sb, char kind, const char *text, const char *tmp_dir)
{
	char *t = kb_subst(text, tmp_dir, KB_TMP_MARK);

	if (kind)
		sb_printf(sb, "%c:", kind);
	sb_puts(sb, t);
	sb_putn(sb, "", 1);
	free(t);
}

/* Does the step run kbuild's scripts/Makefile.build (the first step must)? */
static int kb_is_kbuild(const KbStep *st)
{
	for (int k = 0; k < st->args.len; k++)
		if (strstr(st->args.items[k], "/scripts/Makefile.build"))
			return 1;
	return 0;
}

/* The record of a successful kbuild, made relative to stap's environment and temp dir, stored as
 * entry.  Nothing is stored unless the steps look like kbuild's (the first runs Makefile.build). */
static void kb_save(Session *s, const char *entry, int verbose)
{
	char *rec_path = path_join(s->tmp_dir, KB_RECORD);
	size_t size = 0;
	char *data = read_file(rec_path, &size);
	PtrVec steps = { 0 };
	StrBuf sb;

	sb_init(&sb);
	free(rec_path);
	if (!data || kb_parse(data, size, &steps, 0) != 0 || !kb_is_kbuild(steps.items[0])) {
		if (verbose)
			fprintf(stderr, "Pass 4: kbuild's steps not recorded (an unexpected record)\n");
		goto out;
	}
	sb_putn(&sb, KB_MAGIC, sizeof KB_MAGIC);
	for (int i = 0; i < steps.len; i++) {
		KbStep *st = steps.items[i];
		sb_putn(&sb, "STEP", 5);
		kb_put_token(&sb, 'd', st->cwd, s->tmp_dir);
		for (int k = 0; k < st->args.len; k++)
			kb_put_token(&sb, 'a', st->args.items[k], s->tmp_dir);
		for (int k = 0; k < st->sets.len; k++) {
			const char *e = st->sets.items[k], *mine = kb_lookup(environ, -1, e);
			if (strncmp(e, KB_ENV_PREFIX, strlen(KB_ENV_PREFIX)) == 0)
				continue;
			if (!mine || strcmp(mine, strchr(e, '=') + 1) != 0)
				kb_put_token(&sb, 'e', e, s->tmp_dir);
		}
		for (char **e = environ; *e; e++) {
			if (!kb_lookup((char *const *)st->sets.items, st->sets.len, *e)) {
				char *name = xstrndup(*e, strcspn(*e, "="));
				kb_put_token(&sb, 'u', name, s->tmp_dir);
				free(name);
			}
		}
	}
	if (filecache_write(&s->diag, entry, sb.data, sb.len) == 0 && verbose)
		fprintf(stderr, "Pass 4: kbuild's steps recorded in %s\n", entry);
out:
	kb_free_steps(&steps);
	sb_free(&sb);
	free(data);
}

/* ---- running ---- */

/* stap's environment with a step's changes, the temp dir put back in. */
static char **kb_step_env(const KbStep *st, const char *tmp_dir)
{
	PtrVec env = { 0 };

	for (char **e = environ; *e; e++) {
		char *name = xstrndup(*e, strcspn(*e, "="));
		int dropped = strncmp(*e, KB_ENV_PREFIX, strlen(KB_ENV_PREFIX)) == 0 || kb_lookup((char *const *)st->sets.items, st->sets.len, *e) != NULL;
		for (int k = 0; !dropped && k < st->unsets.len; k++)
			dropped = strcmp(st->unsets.items[k], name) == 0;
		free(name);
		if (!dropped)
			vec_push(&env, xstrdup(*e));
	}
	for (int k = 0; k < st->sets.len; k++)
		vec_push(&env, kb_subst(st->sets.items[k], KB_TMP_MARK, tmp_dir));
	vec_push(&env, NULL);
	return (char **)env.items;
}

static void kb_free_strv(char **v)
{
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

/* Did the compiler find an error in the generated C (the script's embedded C, say)?  Then kbuild
 * in full would only say the same again. */
static int kb_error_in_module_c(const Session *s, const char *log)
{
	char *text = read_file(log, NULL), *at = xasprintf("%s/%s.c:", s->tmp_dir, s->module_name);
	int found = 0;

	for (char *line = text ? strtok(text, "\n") : NULL; line && !found; line = strtok(NULL, "\n"))
		found = strncmp(line, at, strlen(at)) == 0 && strstr(line, ": error: ");
	free(at);
	free(text);
	return found;
}

/* Does the step run kbuild's scripts/Makefile.modfinal (NAME.mod.c to NAME.mod.o, the .ko)? */
static int kb_is_modfinal(const KbStep *st)
{
	for (int k = 0; k < st->args.len; k++) {
		const char *a = st->args.items[k], *m = strstr(a, "scripts/Makefile.modfinal");
		if (m && m[strlen("scripts/Makefile.modfinal")] == 0)
			return 1;
	}
	return 0;
}

static int kb_run_step(Session *s, const KbStep *st, const char *log, int append)
{
	char **argv = xcalloc((size_t)st->args.len + 2, sizeof *argv), **envp = kb_step_env(st, s->tmp_dir);
	char *cwd = kb_subst(st->cwd, KB_TMP_MARK, s->tmp_dir);
	SpawnOpts o = { .envp = envp, .cwd = cwd, .log_path = log, .append = append };
	int rc;

	argv[0] = xstrdup("make");
	for (int k = 0; k < st->args.len; k++)
		argv[k + 1] = kb_subst(st->args.items[k], KB_TMP_MARK, s->tmp_dir);
	rc = spawn_wait(argv, &o);
	kb_free_strv(argv);
	kb_free_strv(envp);
	free(cwd);
	return rc;
}

/* The modfinal step with NAME.mod.c made light (modc.c) when the tree's layout is known (*have 0): the
 * .mod.o it makes must have that layout, else the step runs again on modpost's text, and the tree's
 * entry says "none" from then on (*have 1). */
static int kb_run_modfinal(Session *s, const KbStep *st, const char *log, const char *modc_entry, int *have,
			   const ModcLayout *l)
{
	char *orig = *have == 0 ? modc_lighten(s, l) : NULL;
	ModcLayout got;
	int rc = kb_run_step(s, st, log, 1);

	if (!orig)
		return rc;
	if (rc == 0 && modc_built_layout(s, &got) == 0 && !memcmp(&got, l, sizeof got)) {
		if (s->verbose >= 2)
			fprintf(stderr, "Pass 4: %s.mod.c compiled without <linux/module.h> (%s)\n", s->module_name, modc_entry);
	} else {
		if (s->verbose >= 2)
			fprintf(stderr, "Pass 4: %s.mod.c without <linux/module.h> failed: compiled as modpost wrote it\n",
				s->module_name);
		rc = modc_restore(s, orig) == 0 ? kb_run_step(s, st, log, 1) : -1;
		modc_save(s, modc_entry, NULL);
		*have = 1;
	}
	free(orig);
	return rc;
}

/* After a build that compiled NAME.mod.c as modpost wrote it: the tree's layout, for the next builds. */
static void kb_learn_modc(Session *s, const char *modc_entry)
{
	ModcLayout l;

	if (modc_built_layout(s, &l) == 0)
		modc_save(s, modc_entry, &l);
}

/* Runs the steps of entry: 0 when each succeeded and the module is there; KB_FAILED_IN_C when the
 * compiler found an error in the generated C; else -1 (the entry is no good: kbuild in full). */
#define KB_FAILED_IN_C (-2)
static int kb_replay(Session *s, const char *entry, const char *modc_entry, const char *log)
{
	size_t size = 0;
	char *data = filecache_read(&s->diag, entry, &size);
	PtrVec steps = { 0 };
	ModcLayout l;
	int rc = -1, have = modc_load(s, modc_entry, &l);

	if (!data)
		return -1;
	if (kb_parse(data, size, &steps, 1) != 0)
		goto out;
	for (int i = 0; i < steps.len; i++) {
		KbStep *st = steps.items[i];
		rc = kb_is_modfinal(st) ? kb_run_modfinal(s, st, log, modc_entry, &have, &l) : kb_run_step(s, st, log, i > 0);
		if (rc != 0) {
			rc = i == 0 && kb_error_in_module_c(s, log) ? KB_FAILED_IN_C : -1;
			goto out;
		}
	}
	rc = access(s->ko_file, F_OK) == 0 ? 0 : -1;
	if (rc == 0 && have < 0)
		kb_learn_modc(s, modc_entry);
out:
	kb_free_steps(&steps);
	free(data);
	return rc;
}

/* kbuild from its top level, recording its steps when record is set; make's exit status. */
static int kb_full(Session *s, int record, const char *log)
{
	char *mflag = xasprintf("M=%s", s->tmp_dir);
	char *makeflag = xasprintf("MAKE=%s/%s", s->tmp_dir, KB_RECORDER);
	const char *nm = kbuild_nm_arg(s);
	char *argv[] = { "make", "-s", "-C", s->kbuild_dir, mflag, makeflag, "modules", NULL, NULL };
	char *rec = xasprintf("STAP_KBUILD_RECORD=%s/%s", s->tmp_dir, KB_RECORD);
	PtrVec env = { 0 };
	SpawnOpts o = { .log_path = log };
	int rc;

	if (!record)
		argv[5] = "modules", argv[6] = NULL;
	/* the sub-makes get it (MAKEFLAGS, and the top level exports NM): the record has it */
	argv[record ? 7 : 6] = (char *)nm;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, KB_ENV_PREFIX, strlen(KB_ENV_PREFIX)) != 0)
			vec_push(&env, *e);
	vec_push(&env, rec);
	vec_push(&env, NULL);
	if (record)
		o.envp = (char *const *)env.items;
	if (s->verbose >= 2)
		fprintf(stderr, "Running make -C %s %s modules\n", s->kbuild_dir, mflag);
	rc = spawn_wait(argv, &o);
	free(env.items);
	free(rec);
	free(makeflag);
	free(mflag);
	return rc;
}

/* The entry of the tree's struct module layout (modc.c) beside its steps: KEY.modc */
static char *kb_modc_entry(const char *entry)
{
	size_t n = strlen(entry) - strlen(".steps");
	return xasprintf("%.*s.modc", (int)n, entry);
}

int kbuild_steps_build(Session *s, const char *log)
{
	char *entry = kb_entry_path(s), *modc_entry = entry ? kb_modc_entry(entry) : NULL;
	int record = entry && kb_write_recorder(s) == 0, rc;
	ModcLayout l;

	rc = record ? kb_replay(s, entry, modc_entry, log) : -1;
	if (rc == 0 || rc == KB_FAILED_IN_C) {
		if (s->verbose >= 2)
			fprintf(stderr, rc == 0 ? "Pass 4: ran kbuild's recorded steps (%s)\n" :
				"Pass 4: ran kbuild's recorded steps (%s): the compiler found errors in the module's C\n", entry);
		free(modc_entry);
		free(entry);
		return rc == 0 ? 0 : 1;
	}
	if (record && s->verbose >= 2 && access(entry, F_OK) == 0)
		fprintf(stderr, "Pass 4: kbuild's recorded steps failed: running kbuild in full\n");
	rc = kb_full(s, record, log);
	if (rc == 0 && record && access(s->ko_file, F_OK) == 0) {
		kb_save(s, entry, s->verbose >= 2);
		if (modc_load(s, modc_entry, &l) < 0)
			kb_learn_modc(s, modc_entry);
	}
	free(modc_entry);
	free(entry);
	return rc;
}
