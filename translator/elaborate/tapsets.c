/* tapsets.c - the tapset library: search path, an index of what each file
 * defines (cached on disk), and loading only the files a script needs. */
#include "elaborate/tapsets.h"
#include "elaborate/builtins.h"
#include "lib/filecache.h"
#include "parse/parse.h"
#include "elaborate/pointmatch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INDEX_MAGIC "stap-tapset-index 3"

typedef struct TapsetLibrary TapsetLibrary;

typedef struct TapsetFile {
	char *path;
	struct stat st;
	PtrVec aliases;          /* char*: alias names (point paths) */
	PtrVec functions;        /* char*: non-private functions as "NAME/ARITY" (overloads by arity) */
	PtrVec globals;          /* char*: non-private global names */
	Program *parsed;         /* parsed while indexing, not yet in the program */
	int loaded;
} TapsetFile;

typedef struct AliasEntry {
	CompText *comps;
	int n;
	TapsetFile *file;
} AliasEntry;

struct TapsetLibrary {
	PtrVec files;            /* TapsetFile*, in search order */
	PtrVec macro_files;      /* char*: .stpm paths */
	PtrVec alias_list;       /* AliasEntry* */
	StrMap functions;        /* "NAME/ARITY" -> TapsetFile* */
	StrMap function_names;   /* NAME -> TapsetFile*: some file defines the name */
	StrMap globals;          /* name -> TapsetFile* */
	/* scan positions in the program: items before them were already scanned */
	int probes_scanned, functions_scanned;
	int loaded;
	int parsed;              /* files parsed in this run (index or load) */
};

/* ---- finding the files ---- */

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists dir's regular files ending in ext, sorted. */
static PtrVec list_files(const char *dir, const char *ext)
{
	PtrVec names = { 0 };
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t el = strlen(ext);

	if (!d)
		return names;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n > el && !strcmp(e->d_name + n - el, ext) && e->d_name[0] != '.')
			vec_push(&names, xstrdup(e->d_name));
	}
	closedir(d);
	if (names.len)
		qsort(names.items, (size_t)names.len, sizeof(char *), compare_strings);
	return names;
}

/* The directories of one library root, most specific first: kernel version
 * (6.1.0-26-amd64, 6.1.0, 6.1, 6), then architecture, then the root itself,
 * each under linux/ (the kernel runtime) before the generic one. */
static PtrVec root_dirs(Session *s, const char *root)
{
	PtrVec dirs = { 0 };
	const char *bases[] = { "linux", "" };
	char *versions[4];
	int nv = 0;

	versions[nv++] = xstrdup(s->kver);
	{
		char *v = xstrndup(s->kver, strcspn(s->kver, "-"));
		while (*v) {
			versions[nv++] = v;
			char *dot = strrchr(v, '.');
			if (!dot || nv == 4)
				break;
			v = xstrndup(v, (size_t)(dot - v));
		}
	}
	for (size_t b = 0; b < 2; b++) {
		char *base = bases[b][0] ? path_join(root, bases[b]) : xstrdup(root);
		for (int i = 0; i < nv; i++)
			vec_push(&dirs, path_join(base, versions[i]));
		vec_push(&dirs, path_join(base, "x86_64"));
		vec_push(&dirs, base);
	}
	return dirs;
}

static void add_root(Session *s, TapsetLibrary *lib, const char *root)
{
	PtrVec dirs = root_dirs(s, root);
	StrMap seen = { 0 };   /* basename -> taken by a more specific directory */

	for (int i = 0; i < dirs.len; i++) {
		PtrVec names = list_files(dirs.items[i], ".stp");
		for (int j = 0; j < names.len; j++) {
			TapsetFile *f;
			if (strmap_get(&seen, names.items[j]))
				continue;
			strmap_put(&seen, names.items[j], (void *)1);
			f = xcalloc(1, sizeof *f);
			f->path = path_join(dirs.items[i], names.items[j]);
			if (stat(f->path, &f->st) != 0) {
				free(f);
				continue;
			}
			vec_push(&lib->files, f);
		}
		PtrVec macros = list_files(dirs.items[i], ".stpm");
		for (int j = 0; j < macros.len; j++)
			vec_push(&lib->macro_files, path_join(dirs.items[i], macros.items[j]));
	}
	free(seen.keys);
	free(seen.values);
}

/* ---- the index and its cache ---- */

static SourceFile *read_source(Session *s, const char *path)
{
	size_t len;
	char *text = read_file(path, &len);
	SourceFile *f;

	if (!text) {
		diag_plain(&s->diag, "error", "cannot read tapset '%s': %s", path, strerror(errno));
		return NULL;
	}
	f = source_new(path, text, len);
	f->is_tapset = 1;
	return f;
}

/* The index key of a function: its name and its number of parameters. */
static char *function_key(const char *name, int arity)
{
	return xasprintf("%s/%d", name, arity);
}

static void record_definitions(TapsetFile *f, Program *p)
{
	for (int i = 0; i < p->probes.len; i++) {
		Probe *pr = p->probes.items[i];
		for (int j = 0; pr->alias != ALIAS_NONE && j < pr->alias_names.len; j++)
			vec_push(&f->aliases, point_path(pr->alias_names.items[j]));
	}
	for (int i = 0; i < p->functions.len; i++) {
		Function *fn = p->functions.items[i];
		if (!fn->is_private)
			vec_push(&f->functions, function_key(fn->name, fn->params.len));
	}
	for (int i = 0; i < p->globals.len; i++) {
		Symbol *g = p->globals.items[i];
		if (!g->is_private)
			vec_push(&f->globals, g->name);
	}
}

static int index_file(Session *s, TapsetLibrary *lib, TapsetFile *f)
{
	SourceFile *src = read_source(s, f->path);
	int errors;

	if (!src)
		return 1;
	f->parsed = xcalloc(1, sizeof *f->parsed);
	lib->parsed++;
	errors = parse_source(s->parse, src, f->parsed);
	if (errors) {
		diag_plain(&s->diag, "error", "tapset '%s' has %d error%s", f->path, errors, errors == 1 ? "" : "s");
		return errors;
	}
	record_definitions(f, f->parsed);
	return 0;
}

/* The cache file for this library state: every file's path, size and mtime,
 * the kernel and the modes %( conditions can test are in its name. */
static char *cache_path(Session *s, TapsetLibrary *lib)
{
	unsigned long long h = FILECACHE_HASH_INIT;
	char name[64];

	h = filecache_hash(h, INDEX_MAGIC, sizeof INDEX_MAGIC);
	h = filecache_hash(h, s->kver, strlen(s->kver) + 1);
	h = filecache_hash(h, &s->guru, sizeof s->guru);
	for (int i = 0; i < lib->files.len; i++)
		h = filecache_hash_stat(h, ((TapsetFile *)lib->files.items[i])->path);
	for (int i = 0; i < lib->macro_files.len; i++)
		h = filecache_hash_stat(h, lib->macro_files.items[i]);
	snprintf(name, sizeof name, "tapset-index-%016llx", h);
	return filecache_path(s, name);
}

static int read_cache(Session *s, TapsetLibrary *lib, const char *path)
{
	size_t len;
	char *text = path ? filecache_read(&s->diag, path, &len) : NULL;
	TapsetFile *cur = NULL;
	char *line, *next;
	int fi = 0;

	if (!text || strncmp(text, INDEX_MAGIC "\n", sizeof INDEX_MAGIC))
		return 0;
	for (line = text + sizeof INDEX_MAGIC; *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			return 0;
		*next++ = 0;
		if (line[0] == 'F' && line[1] == ' ') {
			if (fi >= lib->files.len)
				return 0;
			cur = lib->files.items[fi++];
			if (strcmp(cur->path, line + 2))
				return 0;
		} else if (cur && line[1] == ' ' && (line[0] == 'a' || line[0] == 'f' || line[0] == 'g')) {
			PtrVec *v = line[0] == 'a' ? &cur->aliases : line[0] == 'f' ? &cur->functions : &cur->globals;
			vec_push(v, line + 2);
		} else {
			return 0;
		}
	}
	return fi == lib->files.len;
}

static void write_cache(Session *s, TapsetLibrary *lib, const char *path)
{
	StrBuf sb;

	if (!path)
		return;
	sb_init(&sb);
	sb_printf(&sb, "%s\n", INDEX_MAGIC);
	for (int i = 0; i < lib->files.len; i++) {
		TapsetFile *tf = lib->files.items[i];
		sb_printf(&sb, "F %s\n", tf->path);
		for (int j = 0; j < tf->aliases.len; j++)
			sb_printf(&sb, "a %s\n", (char *)tf->aliases.items[j]);
		for (int j = 0; j < tf->functions.len; j++)
			sb_printf(&sb, "f %s\n", (char *)tf->functions.items[j]);
		for (int j = 0; j < tf->globals.len; j++)
			sb_printf(&sb, "g %s\n", (char *)tf->globals.items[j]);
	}
	filecache_write(&s->diag, path, sb.data, sb.len);
	sb_free(&sb);
}

static void build_lookup(TapsetLibrary *lib)
{
	for (int i = 0; i < lib->files.len; i++) {
		TapsetFile *f = lib->files.items[i];
		for (int j = 0; j < f->aliases.len; j++) {
			AliasEntry *a = xcalloc(1, sizeof *a);
			a->n = comps_of_text(f->aliases.items[j], &a->comps);
			a->file = f;
			vec_push(&lib->alias_list, a);
		}
		for (int j = 0; j < f->functions.len; j++) {
			char *key = f->functions.items[j];
			char *name = xstrndup(key, strcspn(key, "/"));
			if (!strmap_get(&lib->functions, key))
				strmap_put(&lib->functions, key, f);
			if (!strmap_get(&lib->function_names, name))
				strmap_put(&lib->function_names, name, f);
		}
		for (int j = 0; j < f->globals.len; j++)
			if (!strmap_get(&lib->globals, f->globals.items[j]))
				strmap_put(&lib->globals, f->globals.items[j], f);
	}
}

int tapsets_init(Session *s)
{
	TapsetLibrary *lib = xcalloc(1, sizeof *lib);
	int errors = 0;
	char *cache;

	s->library = lib;
	add_root(s, lib, s->tapset_dir);
	for (int i = 0; i < s->include_dirs.len; i++) {
		if (!dir_exists(s->include_dirs.items[i]))
			diag_plain(&s->diag, "warning", "tapset directory '%s' does not exist", (char *)s->include_dirs.items[i]);
		add_root(s, lib, s->include_dirs.items[i]);
	}
	for (int i = 0; i < lib->macro_files.len; i++) {
		size_t len;
		char *path = lib->macro_files.items[i];
		char *text = read_file(path, &len);
		if (!text) {
			diag_plain(&s->diag, "error", "cannot read macro library '%s': %s", path, strerror(errno));
			errors++;
			continue;
		}
		SourceFile *src = source_new(path, text, len);
		src->is_tapset = 1;
		errors += parse_macro_library(s->parse, src);
	}
	if (errors)
		return errors;
	cache = cache_path(s, lib);
	if (!read_cache(s, lib, cache)) {
		for (int i = 0; i < lib->files.len; i++) {
			TapsetFile *f = lib->files.items[i];
			f->aliases.len = f->functions.len = f->globals.len = 0;
			errors += index_file(s, lib, f);
		}
		if (!errors)
			write_cache(s, lib, cache);
		if (s->verbose >= 2)
			fprintf(stderr, "Tapset index: built from %d files%s\n", lib->files.len,
				cache ? "" : " (no cache directory)");
	} else if (s->verbose >= 2) {
		fprintf(stderr, "Tapset index: cache hit for %d files (%s)\n", lib->files.len, cache);
	}
	build_lookup(lib);
	return errors;
}

/* ---- loading on demand ---- */

static int load_file(Session *s, TapsetFile *f)
{
	Program *prog = &s->prog;
	Program *p;
	int errors = 0;

	if (f->loaded)
		return 0;
	f->loaded = 1;
	s->library->loaded++;
	if (s->verbose >= 2)
		fprintf(stderr, "Tapset: loading %s\n", f->path);
	p = f->parsed;
	if (!p) {
		SourceFile *src = read_source(s, f->path);
		if (!src)
			return 1;
		p = xcalloc(1, sizeof *p);
		s->library->parsed++;
		errors = parse_source(s->parse, src, p);
		if (errors) {
			diag_plain(&s->diag, "error", "tapset '%s' has %d error%s", f->path, errors, errors == 1 ? "" : "s");
			return errors;
		}
	}
	for (int i = 0; i < p->probes.len; i++)
		vec_push(&prog->probes, p->probes.items[i]);
	for (int i = 0; i < p->functions.len; i++)
		vec_push(&prog->functions, p->functions.items[i]);
	for (int i = 0; i < p->globals.len; i++)
		vec_push(&prog->globals, p->globals.items[i]);
	for (int i = 0; i < p->embedded.len; i++)
		vec_push(&prog->embedded, p->embedded.items[i]);
	for (int i = 0; i < p->files.len; i++)
		vec_push(&prog->files, p->files.items[i]);
	f->parsed = NULL;
	return 0;
}

typedef struct Needs {
	Session *s;
	TapsetLibrary *lib;
	StrMap defined_functions, declared_globals;
	PtrVec files;            /* TapsetFile* to load */
} Needs;

static void need_file(Needs *n, TapsetFile *f)
{
	if (f && !f->loaded)
		first_visit(&n->files, f);
}

static void need_point(Needs *n, const ProbePoint *pp)
{
	PtrVec alts = point_alternatives(pp);
	for (int i = 0; i < alts.len; i++) {
		CompText *pat;
		int np = comps_of_point(alts.items[i], &pat);
		for (int j = 0; j < n->lib->alias_list.len; j++) {
			AliasEntry *a = n->lib->alias_list.items[j];
			if (comps_match_prefix(pat, np, a->comps, a->n) >= 0)
				need_file(n, a->file);
		}
	}
}

/* Every file defining a function of that name, whatever its arity. */
static void need_every_definition(Needs *n, const char *name)
{
	size_t len = strlen(name);

	for (int i = 0; i < n->lib->files.len; i++) {
		TapsetFile *f = n->lib->files.items[i];
		for (int j = 0; j < f->functions.len; j++) {
			const char *key = f->functions.items[j];
			if (!strncmp(key, name, len) && key[len] == '/')
				need_file(n, f);
		}
	}
}

/* A call of name with nargs arguments: the file defining that overload, unless the program
 * defines it; with no definition of that arity anywhere, a file defining the name (for the
 * error naming the arities there are). */
static void need_function(Needs *n, const char *name, int nargs)
{
	char *key = function_key(name, nargs);

	if (!strmap_get(&n->defined_functions, key)) {
		TapsetFile *f = strmap_get(&n->lib->functions, key);
		if (f)
			need_file(n, f);
		else if (!strmap_get(&n->defined_functions, name) && strmap_get(&n->lib->function_names, name))
			need_every_definition(n, name);
	}
	free(key);
}

static int need_in_expr(Expr *e, void *ctx)
{
	Needs *n = ctx;

	if (e->kind == EX_CALL && e->str && !builtin_find(e->str))
		need_function(n, e->str, e->args.len);
	if ((e->kind == EX_IDENT || e->kind == EX_INDEX) && !strmap_get(&n->declared_globals, e->str))
		need_file(n, strmap_get(&n->lib->globals, e->str));
	return 0;
}

static void index_program(Needs *n, Program *prog)
{
	for (int i = 0; i < prog->functions.len; i++) {
		Function *f = prog->functions.items[i];
		if (!f->is_private) {
			strmap_put(&n->defined_functions, f->name, f);
			strmap_put(&n->defined_functions, function_key(f->name, f->params.len), f);
		}
	}
	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		strmap_put(&n->declared_globals, g->name, g);
	}
}

int tapsets_load_needed(Session *s)
{
	TapsetLibrary *lib = s->library;
	Program *prog = &s->prog;
	int errors = 0;

	for (;;) {
		Needs n = { .s = s, .lib = lib };
		AstVisitor v = { NULL, need_in_expr, &n };

		index_program(&n, prog);
		for (; lib->probes_scanned < prog->probes.len; lib->probes_scanned++) {
			Probe *p = prog->probes.items[lib->probes_scanned];
			for (int j = 0; j < p->points.len; j++) {
				ProbePoint *pp = p->points.items[j];
				need_point(&n, pp);
				ast_walk_expr(pp->cond, &v);
			}
			ast_walk_stmt(p->body, &v);
		}
		for (; lib->functions_scanned < prog->functions.len; lib->functions_scanned++)
			ast_walk_stmt(((Function *)prog->functions.items[lib->functions_scanned])->body, &v);
		if (!n.files.len)
			break;
		for (int i = 0; i < n.files.len; i++)
			errors += load_file(s, n.files.items[i]);
		if (errors)
			break;
	}
	return errors;
}

int tapsets_load_all(Session *s)
{
	int errors = 0;
	for (int i = 0; i < s->library->files.len; i++)
		errors += load_file(s, s->library->files.items[i]);
	return errors ? errors : tapsets_load_needed(s);
}

PtrVec tapsets_alias_names(Session *s)
{
	PtrVec names = { 0 };
	StrMap seen = { 0 };

	for (int i = 0; i < s->library->files.len; i++) {
		TapsetFile *f = s->library->files.items[i];
		for (int j = 0; j < f->aliases.len; j++) {
			if (!strmap_get(&seen, f->aliases.items[j])) {
				strmap_put(&seen, f->aliases.items[j], (void *)1);
				vec_push(&names, f->aliases.items[j]);
			}
		}
	}
	if (names.len)
		qsort(names.items, (size_t)names.len, sizeof(char *), compare_strings);
	return names;
}

int tapsets_loaded_count(Session *s)
{
	return s->library ? s->library->loaded : 0;
}

int tapsets_parsed_count(Session *s)
{
	return s->library ? s->library->parsed : 0;
}
