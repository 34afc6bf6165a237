/* cache.c - the pass-4 module cache: a SHA-256 key over everything a module depends on, lookup and
 * atomic store as CACHE/HH/KEY.ko (+ KEY.c), oldest-first cleanup to cache_mb_limit. Used by compile.c, main.c. */
#include "compile/cache.h"
#include "lib/filecache.h"
#include "compile/modhash.h"
#include "driver/markers.h"
#include "lib/sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEY_MAGIC "stap module cache 1"      /* change when what the key covers changes */
#define NAME_MAGIC "stap module name 1"
#define DEFAULT_LIMIT_MB 256.0               /* SystemTap's default for cache_mb_limit */
#define STALE_TMP_SECONDS 3600               /* a temp file this old is a crashed run's */
#define KEY_HEX (2 * SHA256_DIGEST_LEN)

typedef struct ModuleCache {
	char *dir;          /* the cache directory; NULL when there is none */
	char key[KEY_HEX + 1];
	char *stem;         /* DIR/HH/KEY: the entry is STEM.ko and STEM.c */
	char *ko_path;
	int hit;            /* the module came from the cache */
	int stored;         /* a miss, stored as ko_path */
	char *why_not;      /* a miss not stored: why */
	int removed;        /* entries the cleanup removed */
	double limit_mb;
} ModuleCache;

/* ---- the key ---- */

/* Every piece is framed (label, length, bytes) so two different sequences never hash alike. */
static void put_bytes(Sha256 *c, const char *label, const void *data, size_t len)
{
	uint64_t n = len;

	sha256_update(c, label, strlen(label) + 1);
	sha256_update(c, &n, sizeof n);
	sha256_update(c, data, len);
}

static void put_str(Sha256 *c, const char *label, const char *s)
{
	put_bytes(c, label, s ? s : "", s ? strlen(s) : 0);
}

/* A file's contents (not its name), or a marker when it cannot be read. */
static void put_file(Sha256 *c, const char *label, const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char buf[65536];
	uint64_t total = 0;
	size_t n;

	if (!f) {
		put_str(c, "absent", label);
		return;
	}
	put_str(c, "file", label);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		sha256_update(c, buf, n);
		total += n;
	}
	if (ferror(f))
		put_str(c, "read error", label);
	fclose(f);
	sha256_update(c, &total, sizeof total);
}

/* What stat says of a file too big to read every time (or a program): path, size, mtime. */
static void put_stat(Sha256 *c, const char *path)
{
	struct stat st;
	int64_t v[3] = { -1, 0, 0 };

	if (stat(path, &st) == 0) {
		v[0] = (int64_t)st.st_size;
		v[1] = (int64_t)st.st_mtim.tv_sec;
		v[2] = (int64_t)st.st_mtim.tv_nsec;
	}
	put_str(c, "stat", path);
	put_bytes(c, "size+mtime", v, sizeof v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Regular files under dir, as paths relative to it (prefix + name), depth-limited against loops. */
static void list_files(const char *dir, const char *prefix, PtrVec *out, int depth)
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char *path, *rel;
		int ok;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		path = path_join(dir, e->d_name);
		rel = xasprintf("%s%s", prefix, e->d_name);
		ok = stat(path, &st) == 0;
		if (ok && S_ISDIR(st.st_mode)) {
			char *sub = xasprintf("%s/", rel);
			list_files(path, sub, out, depth + 1);
			free(sub);
			free(rel);
		} else if (ok && S_ISREG(st.st_mode)) {
			vec_push(out, rel);
		} else {
			free(rel);
		}
		free(path);
	}
	closedir(d);
}

/* The runtime: the generated C #includes it, so every file counts, in a fixed order. */
static void put_runtime(Sha256 *c, const char *runtime_dir)
{
	PtrVec files = { 0 };

	list_files(runtime_dir, "", &files, 0);
	if (files.len)
		qsort(files.items, (size_t)files.len, sizeof *files.items, cmp_str);
	put_str(c, "runtime", runtime_dir);
	for (int i = 0; i < files.len; i++) {
		char *path = path_join(runtime_dir, files.items[i]);
		put_str(c, "runtime file", files.items[i]);
		put_file(c, "runtime data", path);
		free(path);
		free(files.items[i]);
	}
	free(files.items);
}

/* The first word of CONFIG_CC_VERSION_TEXT ("gcc-12" on Debian): the compiler kbuild runs. */
static char *config_compiler(const char *kbuild_dir)
{
	char *path = path_join(kbuild_dir, ".config");
	char *text = read_file(path, NULL), *p, *name = NULL;
	static const char tag[] = "\nCONFIG_CC_VERSION_TEXT=\"";

	free(path);
	if (text && (p = strstr(text, tag))) {
		p += sizeof tag - 1;
		name = xstrndup(p, strcspn(p, " \"\n"));
	}
	free(text);
	return name;
}

/* The program `name` resolves to on PATH (symlinks resolved), or NULL. */
static char *find_on_path(const char *name)
{
	const char *path = getenv("PATH");

	if (!name || !*name || strchr(name, '/') || !path)
		return NULL;
	while (*path) {
		size_t n = strcspn(path, ":");
		char *dir = n ? xstrndup(path, n) : xstrdup(".");
		char *cand = path_join(dir, name);
		free(dir);
		if (access(cand, X_OK) == 0 && file_exists(cand)) {
			char *real = realpath(cand, NULL);
			free(cand);
			return real;
		}
		free(cand);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

static void put_tool(Sha256 *c, const char *name)
{
	char *at = find_on_path(name);

	put_str(c, "tool", name);
	if (at)
		put_stat(c, at);
	free(at);
}

/* The target kernel: its release, configuration, version stamp, exported symbols, and the
 * compiler and linker kbuild will run.  Nothing about the running kernel: a module built
 * with -r KVER on one machine is a hit for stap on a KVER machine sharing the cache. */
void cache_hash_kernel(Sha256 *c, const Session *s)
{
	static const char *const read_whole[] = {
		".config", ".kernelvariables", "Makefile", "include/generated/autoconf.h",
		"include/generated/utsrelease.h", "include/generated/utsversion.h", "include/generated/compile.h",
	};
	static const char *const stat_only[] = {
		"Module.symvers", "vmlinux", "scripts/mod/modpost", "scripts/basic/fixdep",
	};
	static const char *const env[] = {
		"ARCH", "CROSS_COMPILE", "KCFLAGS", "KCPPFLAGS", "KAFLAGS", "LLVM", "KBUILD_EXTRA_SYMBOLS",
	};
	char *real = realpath(s->kbuild_dir, NULL), *cc;

	put_str(c, "kver", s->kver);
	put_str(c, "kbuild dir", real ? real : s->kbuild_dir);
	free(real);
	for (size_t i = 0; i < sizeof read_whole / sizeof *read_whole; i++) {
		char *path = path_join(s->kbuild_dir, read_whole[i]);
		put_file(c, read_whole[i], path);
		free(path);
	}
	for (size_t i = 0; i < sizeof stat_only / sizeof *stat_only; i++) {
		char *path = path_join(s->kbuild_dir, stat_only[i]);
		put_stat(c, path);
		free(path);
	}
	cc = config_compiler(s->kbuild_dir);
	put_tool(c, cc);
	free(cc);
	put_tool(c, "gcc");
	put_tool(c, "ld");
	for (size_t i = 0; i < sizeof env / sizeof *env; i++)
		put_str(c, env[i], getenv(env[i]));
}

char *cache_entry_path(const Session *s, Sha256 *c, const char *prefix, const char *suffix)
{
	unsigned char d[SHA256_DIGEST_LEN];
	char hex[KEY_HEX + 1], *name, *path;

	sha256_final(c, d);
	sha256_hex(d, hex);
	name = xasprintf("%s%s%s", prefix, hex, suffix);
	path = filecache_path(s, name);
	free(name);
	return path;
}

static void compute_key(const Session *s, const char *kbuild_text, char key[KEY_HEX + 1])
{
	Sha256 c;
	unsigned char d[SHA256_DIGEST_LEN];

	sha256_init(&c);
	put_str(&c, "magic", KEY_MAGIC);
	put_str(&c, "translator", s->version);
	put_file(&c, "generated C", s->c_file);
	put_str(&c, "Kbuild", kbuild_text);
	put_runtime(&c, s->runtime_dir);
	cache_hash_kernel(&c, s);
	if (s->bpf)   /* a BPF object: clang builds it, not kbuild (compile/bpfobj.c) */
		put_tool(&c, "clang");
	sha256_final(&c, d);
	sha256_hex(d, key);
}

char *cache_module_name(const Session *s, const char *script_text)
{
	Sha256 c;
	unsigned char d[SHA256_DIGEST_LEN];
	char hex[KEY_HEX + 1], flags[64];

	sha256_init(&c);
	put_str(&c, "magic", NAME_MAGIC);
	put_str(&c, "script", script_text);
	for (int i = 0; i < s->script_args.len; i++)
		put_str(&c, "arg", s->script_args.items[i]);
	for (int i = 0; i < s->defines.len; i++)
		put_str(&c, "-D", s->defines.items[i]);
	for (int i = 0; i < s->global_sets.len; i++)
		put_str(&c, "-G", s->global_sets.items[i]);
	for (int i = 0; i < s->include_dirs.len; i++)
		put_str(&c, "-I", s->include_dirs.items[i]);
	put_str(&c, "kver", s->kver);
	snprintf(flags, sizeof flags, "g%d u%d s%d", s->guru, s->unoptimized, s->suppress_handler_errors);
	put_str(&c, "flags", flags);
	sha256_final(&c, d);
	sha256_hex(d, hex);
	return xasprintf("stap_%.16s", hex);
}

/* ---- files ---- */

/* Copies the rest of in to out (into the hash too unless NULL); -1 with errno on failure. */
static int copy_fd(int in, int out, Sha256 *hash)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (hash)
			sha256_update(hash, buf, (size_t)n);
		for (ssize_t done = 0, w; done < n; done += w > 0 ? w : 0) {
			w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno != EINTR)
				return -1;
		}
	}
	return 0;
}

/* Copies the file open as in to a new file dst; -1 with errno on failure (dst then removed). */
static int copy_to(int in, const char *dst)
{
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), saved;

	if (out < 0)
		return -1;
	if (copy_fd(in, out, NULL) != 0 || close(out) != 0) {
		saved = errno;
		close(out);
		unlink(dst);
		errno = saved;
		return -1;
	}
	return 0;
}

/* Stores src as dst so that nobody ever sees a partial dst: a temp file made beside it with
 * O_EXCL|O_NOFOLLOW in the checked directory, then rename.  The module (s given): only when the
 * bytes copied are the ones modhash recorded, else -1 with errno EBADMSG. */
static int store_file(Diag *d, const char *src, const char *dst, const Session *s)
{
	const char *base;
	char tmp[PATH_MAX];
	int dir = filecache_open_dir(d, dst, 0, &base), in = -1, out = -1, rc = -1, saved;
	unsigned char digest[SHA256_DIGEST_LEN];
	Sha256 hash;

	if (dir < 0)
		return -1;
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in >= 0)
		out = filecache_create_tmp(dir, base, tmp, sizeof tmp);
	if (out >= 0) {
		sha256_init(&hash);
		rc = copy_fd(in, out, &hash);
		if (close(out) != 0)
			rc = -1;
		if (rc == 0 && s) {
			sha256_final(&hash, digest);
			if (!s->ko_sha256_set || memcmp(digest, s->ko_sha256, sizeof digest)) {
				errno = EBADMSG;
				rc = -1;
			}
		}
		if (rc == 0)
			rc = renameat(dir, tmp, dir, base);
		if (rc != 0) {
			saved = errno;
			unlinkat(dir, tmp, 0);
			errno = saved;
		}
	}
	saved = errno;
	if (in >= 0)
		close(in);
	close(dir);
	errno = saved;
	return rc;
}

/* A cached module worth using, open as fd: an ELF file of some size (a crash mid-copy can leave less). */
static int looks_like_module(int fd, const struct stat *st)
{
	unsigned char magic[4];

	return st->st_size >= 64 && pread(fd, magic, 4, 0) == 4 && !memcmp(magic, "\177ELF", 4);
}

/* ---- lookup and store ---- */

int cache_fetch(Session *s, const char *kbuild_text)
{
	ModuleCache *mc = xcalloc(1, sizeof *mc);
	struct stat st;
	char self[64];
	int fd;

	s->module_cache = mc;
	if (s->disable_cache)
		return 0;
	mc->dir = filecache_dir();
	if (!mc->dir) {
		mc->why_not = xstrdup("no cache directory (neither SYSTEMTAP_DIR nor HOME is set)");
		return 0;
	}
	compute_key(s, kbuild_text, mc->key);
	mc->stem = xasprintf("%s/%.2s/%s", mc->dir, mc->key, mc->key);
	mc->ko_path = xasprintf("%s.ko", mc->stem);
	if (s->verbose >= 2)
		fprintf(stderr, "Pass 4: module cache key %s\n", mc->key);
	/* only a regular file of ours, not a symlink, in directories of ours (else a warning) */
	fd = filecache_open_entry(&s->diag, mc->ko_path, &st);
	if (fd < 0)
		return 0;
	if (!looks_like_module(fd, &st)) {
		close(fd);
		return 0;
	}
	/* the file checked, not whatever the path names by now: a hard link through /proc costs
	 * nothing; another file system (or protected_hardlinks) needs a copy */
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	unlink(s->ko_file);
	if (linkat(AT_FDCWD, self, AT_FDCWD, s->ko_file, AT_SYMLINK_FOLLOW) != 0 && copy_to(fd, s->ko_file) != 0) {
		if (s->verbose)
			fprintf(stderr, "Pass 4: cannot use cached %s: %s\n", mc->ko_path, strerror(errno));
		close(fd);
		return 0;
	}
	futimens(fd, NULL);   /* recently used: cleaned up last */
	close(fd);
	mc->hit = 1;
	{
		char *c_path = xasprintf("%s.c", mc->stem);
		STAP_MARK_CACHE2(get, c_path, mc->ko_path);
		free(c_path);
	}
	return 1;
}

typedef struct Entry {
	char hh[3];              /* its directory in the cache, HH */
	char key[KEY_HEX + 1];
	long long size;          /* of KEY.ko and KEY.c */
	struct timespec used;    /* the .ko's mtime (the .c's when there is no .ko) */
	int has_ko;
} Entry;

static int cmp_age(const void *a, const void *b)
{
	const Entry *x = *(Entry *const *)a, *y = *(Entry *const *)b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* cache_mb_limit in the checked directory top (a regular file, not a symlink). */
static double read_limit(int top)
{
	int fd = openat(top, "cache_mb_limit", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char text[64], *end;
	double mb = DEFAULT_LIMIT_MB;
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return mb;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, text, sizeof text - 1) : -1;
	close(fd);
	if (n > 0) {
		double v;
		text[n] = 0;
		v = strtod(text, &end);
		while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
			end++;
		if (end != text && !*end && v >= 0)
			mb = v;
	}
	return mb;
}

/* The entries of HH, open as hh (KEY.ko and KEY.c files, by KEY), into entries; stale temp files
 * removed.  Returns the bytes they take. */
static long long scan_sub(int hh, const char *name, StrMap *by_key, PtrVec *entries, time_t now)
{
	DIR *d = fdopendir(dup(hh));
	long long total = 0;
	struct dirent *f;

	while (d && (f = readdir(d))) {
		size_t n = strlen(f->d_name);
		struct stat st;
		Entry *en;
		int ko;

		if (fstatat(hh, f->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n > 4 && !strcmp(f->d_name + n - 4, ".tmp")) {
			if (now - st.st_mtim.tv_sec > STALE_TMP_SECONDS)
				unlinkat(hh, f->d_name, 0);
			continue;
		}
		if (!((n == KEY_HEX + 3 && !strcmp(f->d_name + KEY_HEX, ".ko")) ||
		      (n == KEY_HEX + 2 && !strcmp(f->d_name + KEY_HEX, ".c"))) || !is_hex(f->d_name, KEY_HEX))
			continue;
		ko = f->d_name[KEY_HEX + 1] == 'k';
		f->d_name[KEY_HEX] = 0;
		en = strmap_get(by_key, f->d_name);
		if (!en) {
			en = xcalloc(1, sizeof *en);
			memcpy(en->hh, name, 2);
			memcpy(en->key, f->d_name, KEY_HEX);
			strmap_put(by_key, en->key, en);
			vec_push(entries, en);
		}
		en->size += (long long)st.st_size;
		total += (long long)st.st_size;
		if (ko || !en->has_ko)
			en->used = st.st_mtim;
		en->has_ko |= ko;
	}
	if (d)
		closedir(d);
	return total;
}

/* Removes en's files, from its HH directory opened again inside top (never a path). */
static void remove_entry(int top, const Entry *en)
{
	int hh = filecache_open_sub(top, en->hh);
	char name[KEY_HEX + 4];

	if (hh < 0)
		return;
	snprintf(name, sizeof name, "%s.ko", en->key);
	unlinkat(hh, name, 0);     /* the .ko first: an entry is usable only with it */
	snprintf(name, sizeof name, "%s.c", en->key);
	unlinkat(hh, name, 0);
	close(hh);
}

/* Scans DIR/HH/ (module entries only; the tapset index files in DIR are left alone) and removes
 * the least recently used entries until the total fits the limit. The entry just stored stays.
 * Temp files of crashed runs are removed once they are an hour old.  Everything is done relative
 * to the checked top directory's fd and its HH directories' (opened without following a link,
 * ours alone), so that a directory swapped for a symbolic link meanwhile is never followed. */
static void clean(Diag *diag, ModuleCache *mc)
{
	StrMap by_key = { 0 };
	PtrVec entries = { 0 };
	long long total = 0, limit;
	time_t now = time(NULL);
	int top = filecache_open_top(diag);
	DIR *d = top >= 0 ? fdopendir(dup(top)) : NULL;
	struct dirent *e;

	mc->limit_mb = top >= 0 ? read_limit(top) : DEFAULT_LIMIT_MB;
	limit = (long long)(mc->limit_mb * 1024 * 1024);
	while (d && (e = readdir(d))) {
		int hh;

		if (strlen(e->d_name) != 2 || !is_hex(e->d_name, 2))
			continue;
		hh = filecache_open_sub(top, e->d_name);
		if (hh < 0)
			continue;
		total += scan_sub(hh, e->d_name, &by_key, &entries, now);
		close(hh);
	}
	if (d)
		closedir(d);
	if (total > limit && entries.len) {
		qsort(entries.items, (size_t)entries.len, sizeof *entries.items, cmp_age);
		for (int i = 0; i < entries.len && total > limit; i++) {
			Entry *en = entries.items[i];
			if (!strcmp(en->key, mc->key))
				continue;
			remove_entry(top, en);
			{
				char *ko = xasprintf("%s/%s/%s.ko", mc->dir, en->hh, en->key);
				STAP_MARK_CACHE1(clean, ko);
				free(ko);
			}
			total -= en->size;
			mc->removed++;
		}
	}
	for (int i = 0; i < entries.len; i++)
		free(entries.items[i]);
	free(entries.items);
	free(by_key.keys);
	free(by_key.values);
	if (top >= 0)
		close(top);
}

int cache_store(Session *s)
{
	ModuleCache *mc = s->module_cache;
	char *sub, *c_path;
	const char *base;
	int dir, changed = 0;

	if (!mc || !mc->stem || mc->hit)
		return 0;
	sub = xstrndup(mc->stem, strlen(mc->stem) - KEY_HEX - 1);
	c_path = xasprintf("%s.c", mc->stem);
	/* DIR/HH made (mkdir -p) only below directories found trusted; the C first: the .ko, which
	 * makes the entry usable, comes last */
	dir = filecache_open_dir(&s->diag, mc->ko_path, 1, &base);
	if (dir < 0 && errno == EPERM)
		mc->why_not = xstrdup("the cache directory is not safe to use (see the warning)");
	else if (dir < 0)
		mc->why_not = xasprintf("cannot create %s: %s", sub, strerror(errno));
	else if (store_file(&s->diag, s->c_file, c_path, NULL) != 0 || store_file(&s->diag, s->ko_file, mc->ko_path, s) != 0) {
		changed = errno == EBADMSG;
		mc->why_not = xasprintf("cannot write in %s: %s", sub, strerror(errno));
		if (changed) {   /* no entry at all: not the C without its module either */
			char c_name[KEY_HEX + 3];
			snprintf(c_name, sizeof c_name, "%s.c", mc->key);
			unlinkat(dir, c_name, 0);
		}
	} else
		mc->stored = 1;
	if (mc->stored) {
		STAP_MARK_CACHE2(add__source, s->c_file, c_path);
		STAP_MARK_CACHE2(add__module, s->ko_file, mc->ko_path);
	}
	if (dir >= 0)
		close(dir);
	free(c_path);
	free(sub);
	if (mc->stored)
		clean(&s->diag, mc);
	if (changed) {
		modhash_refuse(s, "storing it in the cache");
		return -1;
	}
	return 0;
}

int cache_update_module(Session *s)
{
	ModuleCache *mc = s->module_cache;

	if (!mc || !(mc->hit || mc->stored) || store_file(&s->diag, s->ko_file, mc->ko_path, s) == 0)
		return 0;
	if (errno == EBADMSG) {
		modhash_refuse(s, "storing it in the cache");
		return -1;
	}
	if (s->verbose)
		fprintf(stderr, "Pass 4: cannot update cached %s: %s\n", mc->ko_path, strerror(errno));
	return 0;
}

const char *cache_hit_path(const Session *s)
{
	return s->module_cache && s->module_cache->hit ? s->module_cache->ko_path : NULL;
}

void cache_report(const Session *s)
{
	const ModuleCache *mc = s->module_cache;

	if (!s->verbose || !mc || mc->hit)
		return;
	if (s->disable_cache) {
		if (s->verbose >= 2)
			fprintf(stderr, "Pass 4: module cache disabled (--disable-cache)\n");
		return;
	}
	if (!mc->stored) {
		fprintf(stderr, "Pass 4: cache miss; not stored: %s\n", mc->why_not ? mc->why_not : "unknown error");
		return;
	}
	fprintf(stderr, "Pass 4: cache miss; stored the module as %s\n", mc->ko_path);
	if (mc->removed)
		fprintf(stderr, "Pass 4: cache over its %g MB limit (%s/cache_mb_limit): removed %d oldest entr%s\n",
			mc->limit_mb, mc->dir, mc->removed, mc->removed == 1 ? "y" : "ies");
}
