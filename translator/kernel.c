/* kernel.c - finds the target kernel's build tree and, when it can, its
 * symbols (/proc/kallsyms of the running kernel, or a vmlinux with symbols). */
#include "kernel.h"
#include "lib/filecache.h"
#include "image/elffile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static char *read_first_line(const char *path)
{
	char *text = read_file(path, NULL);
	if (!text)
		return NULL;
	text[strcspn(text, "\n")] = 0;
	return text;
}

/* A configured tree's release as its modules' vermagic gives it: UTS_RELEASE of include/generated/utsrelease.h
 * (Debian's headers write the upstream version, 6.1.192, in include/config/kernel.release and the package's,
 * 6.1.0-56-amd64, there), else include/config/kernel.release; NULL when neither is there. */
static char *tree_release(const char *dir)
{
	char *path = path_join(dir, "include/generated/utsrelease.h"), *text = read_file(path, NULL), *rel = NULL;
	const char *q = text ? strstr(text, "UTS_RELEASE \"") : NULL;

	free(path);
	if (q) {
		q += strlen("UTS_RELEASE \"");
		size_t n = strcspn(q, "\"\n");
		if (q[n] == '"' && n)
			rel = xasprintf("%.*s", (int)n, q);
	}
	free(text);
	if (!rel) {
		path = path_join(dir, "include/config/kernel.release");
		rel = read_first_line(path);
		free(path);
	}
	return rel;
}

int kernel_setup(Session *s, const char *r_arg, int need_tree)
{
	struct utsname u;

	uname(&u);
	if (r_arg && strchr(r_arg, '/')) {
		s->kbuild_dir = xstrdup(r_arg);
		s->kver = tree_release(r_arg);
		if (!s->kver) {
			if (!need_tree)
				s->kver = xstrdup(u.release);
			else {
				diag_plain(&s->diag, "error", "kernel build tree '%s' not found or not configured "
					   "(no include/config/kernel.release)", r_arg);
				return -1;
			}
		}
	} else {
		s->kver = xstrdup(r_arg ? r_arg : u.release);
		s->kbuild_dir = xasprintf("/lib/modules/%s/build", s->kver);
	}
	s->target_is_running = strcmp(s->kver, u.release) == 0;
	if (need_tree) {
		char *mk = path_join(s->kbuild_dir, "Makefile");
		int ok = file_exists(mk);
		free(mk);
		if (!ok) {
			diag_plain(&s->diag, "error", "kernel build tree for %s not found at %s (install linux-headers-%s)",
				   s->kver, s->kbuild_dir, s->kver);
			return -1;
		}
	}
	return 0;
}

/* What kernel.c reads of the target kernel once per session (Session.kinfo): its configuration and the sorted
 * names of its function symbols. */
typedef struct KernelInfo {
	char *config_text;          /* "CONFIG_X=y\n..." */
	char config_value[256];     /* kernel_config_value's answer */
	const uint32_t *sym_off;    /* sym_str + sym_off[i]: the i-th name, sorted */
	const char *sym_str;
	size_t nsymbols;
	int symbols_state;          /* 0 not loaded, 1 loaded, -1 unavailable */
	StrBuf sym_build;           /* names while loading: NUL-separated */
	PtrVec sym_build_off;       /* their offsets (as pointers-sized ints) */
	struct Kallsym *by_name;    /* the running kernel's text symbols with their addresses, by name */
	struct Kallsym *by_addr;    /* ... and by address (aliases next to each other) */
	size_t nkallsyms;
	char *kallsyms_text;        /* /proc/kallsyms, the names NUL-terminated in place */
	int kallsyms_state;         /* 0 not read, 1 read, -1 no addresses (not the running kernel, or hidden) */
} KernelInfo;

typedef struct Kallsym {
	uint64_t addr;
	const char *name;
} Kallsym;

static KernelInfo *kinfo(Session *s)
{
	if (!s->kinfo)
		s->kinfo = xcalloc(1, sizeof *s->kinfo);
	return s->kinfo;
}

/* ---- kernel configuration, loaded once ---- */

const char *kernel_config_value(void *session, const char *name)
{
	Session *s = session;
	KernelInfo *k = kinfo(s);
	char *value = k->config_value;
	size_t n = strlen(name);
	char *config_text = k->config_text;

	if (!config_text) {
		char *path = path_join(s->kbuild_dir, "include/config/auto.conf");
		config_text = read_file(path, NULL);
		free(path);
		if (!config_text) {
			path = path_join(s->kbuild_dir, ".config");
			config_text = read_file(path, NULL);
			free(path);
		}
		if (!config_text)
			config_text = xstrdup("");
		k->config_text = config_text;
	}
	for (const char *line = config_text; *line; ) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len > n && !strncmp(line, name, n) && line[n] == '=') {
			const char *v = line + n + 1;
			size_t vlen = len - n - 1;
			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
				v++;
				vlen -= 2;
			}
			snprintf(value, sizeof k->config_value, "%.*s", (int)vlen, v);
			return value;
		}
		line += len + (eol != NULL);
	}
	return NULL;
}

/* ---- symbol table, loaded once ----
 *
 * The names are kept sorted for bsearch: strs[off[i]] is the i-th name.  A vmlinux's
 * function symbols (100k+ names in a 600 MB file: 15-20 ms to read) are also saved in the
 * cache directory as "symbols/<hash of the file's path, size and mtime>":
 *   "STAPSYM1", u32 count, u32 strings_len, u32 off[count], strings (NUL-terminated)
 * which later runs map and search in place. */

#define SYM_MAGIC "STAPSYM1"

typedef struct {
	char magic[8];
	uint32_t count;
	uint32_t strings_len;
} SymHeader;

static void add_symbol(KernelInfo *k, const char *name, size_t len)
{
	if (!k->sym_build.data)
		sb_init(&k->sym_build);
	vec_push(&k->sym_build_off, (void *)(uintptr_t)k->sym_build.len);
	sb_putn(&k->sym_build, name, len);
	sb_putc(&k->sym_build, 0);
}

/* qsort_r's order of two offsets into names (the NUL-separated names being built) */
static int cmp_off(const void *a, const void *b, void *names)
{
	uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;

	return strcmp((const char *)names + x, (const char *)names + y);
}

/* Sorts what add_symbol collected, drops duplicates and makes it the table; also returns it
 * serialized (header, offsets, strings) in *blob for the cache. */
static void finish_symbols(KernelInfo *k, char **blob, size_t *blob_size)
{
	size_t n = 0, head;
	SymHeader h;
	uint32_t *off;
	char *out;

	StrBuf *names = &k->sym_build;
	PtrVec *offs = &k->sym_build_off;

	qsort_r(offs->items, (size_t)offs->len, sizeof(void *), cmp_off, names->data);
	for (int i = 0; i < offs->len; i++)
		if (!n || cmp_off(&offs->items[i], &offs->items[n - 1], names->data))
			offs->items[n++] = offs->items[i];
	head = sizeof h + n * sizeof(uint32_t);
	out = xmalloc(head + names->len);
	memcpy(h.magic, SYM_MAGIC, sizeof h.magic);
	h.count = (uint32_t)n;
	h.strings_len = (uint32_t)names->len;
	memcpy(out, &h, sizeof h);
	off = (uint32_t *)(out + sizeof h);
	for (size_t i = 0; i < n; i++)
		off[i] = (uint32_t)(uintptr_t)offs->items[i];
	memcpy(out + head, names->data, names->len);
	sb_free(names);
	free(offs->items);
	memset(offs, 0, sizeof *offs);
	k->sym_off = off;
	k->sym_str = out + head;
	k->nsymbols = n;
	*blob = out;
	*blob_size = head + h.strings_len;
}

/* A saved table: used in place when its header, offsets and strings hold together. */
static int map_symbols(Session *s, KernelInfo *k, const char *path)
{
	size_t size;
	const char *map = filecache_map(&s->diag, path, &size);
	SymHeader h;
	const uint32_t *off;

	if (!map)
		return -1;
	if (size < sizeof h)
		goto bad;
	memcpy(&h, map, sizeof h);
	if (memcmp(h.magic, SYM_MAGIC, sizeof h.magic) || !h.count || !h.strings_len ||
	    size != sizeof h + (size_t)h.count * sizeof(uint32_t) + h.strings_len ||
	    map[size - 1] != 0)
		goto bad;
	off = (const uint32_t *)(map + sizeof h);
	for (uint32_t i = 0; i < h.count; i++)
		if (off[i] >= h.strings_len)
			goto bad;
	k->sym_off = off;
	k->sym_str = (const char *)(off + h.count);
	k->nsymbols = h.count;
	return 0;
bad:
	filecache_unmap(map, size);
	return -1;
}

void kernel_symbols_each(char *text, size_t len, KernelSymbolFn fn, void *arg)
{
	for (char *p = text, *end = text + len; p < end;) {
		char *eol = memchr(p, '\n', (size_t)(end - p)), *type, *name, *stop, *module = NULL;
		if (!eol)
			eol = end;
		type = memchr(p, ' ', (size_t)(eol - p));
		if (type && type + 3 < eol && type[2] == ' ') {
			name = type + 3;
			for (stop = name; stop < eol && *stop != '\t' && *stop != ' '; stop++)
				;
			if (stop + 3 < eol && stop[0] == '\t' && stop[1] == '[' && eol[-1] == ']') {
				module = stop + 2;
				eol[-1] = 0;
			}
			if (stop == eol || module) {
				*stop = 0;   /* (at the end: read_file's NUL) */
				fn(arg, strtoull(p, NULL, 16), type[1], name, module);
			}
		}
		p = eol + 1;
	}
}

static void add_kallsym_name(void *k, uint64_t addr, char type, const char *name, const char *module)
{
	(void)addr;
	if (!module && strchr("tTwW", type))
		add_symbol(k, name, strlen(name));
}

/* /proc/kallsyms of the running kernel: the text symbols of vmlinux are kept. */
static int load_kallsyms(KernelInfo *k)
{
	size_t len;
	char *text = read_file("/proc/kallsyms", &len);

	if (!text)
		return -1;
	kernel_symbols_each(text, len, add_kallsym_name, k);
	free(text);
	return k->sym_build_off.len ? 0 : -1;
}

static int load_elf_symbols(KernelInfo *k, const char *path)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	int fd;

	if (elffile_open(path, 0, &fd, &elf) != ELFFILE_OK)
		return -1;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && *name)
				add_symbol(k, name, strlen(name));
		}
	}
	elffile_close(elf, fd);
	return k->sym_build_off.len ? 0 : -1;
}

/* A vmlinux's table: from the cache, else read and saved there. */
static int load_elf_symbols_cached(Session *s, const char *path)
{
	KernelInfo *k = kinfo(s);
	char name[64], *cache, *blob;
	const char *how = "read", *where = "";
	double t0 = now_ms();
	size_t size;
	int rc = 0;

	snprintf(name, sizeof name, "symbols/%016llx", filecache_hash_stat(FILECACHE_HASH_INIT, path));
	cache = filecache_path(s, name);
	if (cache && map_symbols(s, k, cache) == 0) {
		how = "from the cache ";
		where = cache;
	} else if ((rc = load_elf_symbols(k, path)) == 0) {
		finish_symbols(k, &blob, &size);
		if (cache && filecache_write(&s->diag, cache, blob, size) == 0) {
			how = "read and saved to ";
			where = cache;
		}
	}
	if (rc == 0 && s->verbose >= 2)
		fprintf(stderr, "Kernel symbols: %zu functions of %s, %s%s (%.0f ms)\n", k->nsymbols, path, how, where,
			now_ms() - t0);
	free(cache);
	return rc;
}

static void load_symbols(Session *s)
{
	const char *candidates[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/boot/vmlinux-%s",
	};
	KernelInfo *k = kinfo(s);
	char *blob;
	size_t size;

	k->symbols_state = -1;
	char *in_tree = path_join(s->kbuild_dir, "vmlinux");

	if (s->target_is_running && load_kallsyms(k) == 0) {
		finish_symbols(k, &blob, &size);
		k->symbols_state = 1;
	} else if (file_exists(in_tree) && load_elf_symbols_cached(s, in_tree) == 0) {
		k->symbols_state = 1;
	} else {
		for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
			char *path = xasprintf(candidates[i], s->kver);
			int rc = file_exists(path) ? load_elf_symbols_cached(s, path) : -1;
			free(path);
			if (rc == 0) {
				k->symbols_state = 1;
				break;
			}
		}
	}
	free(in_tree);
}

int kernel_symbol_known(Session *s, const char *name)
{
	KernelInfo *k = kinfo(s);
	size_t lo = 0, hi;

	if (!k->symbols_state)
		load_symbols(s);
	if (k->symbols_state < 0)
		return -1;
	for (hi = k->nsymbols; lo < hi;) {   /* the sorted names: a binary search */
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, k->sym_str + k->sym_off[mid]);
		if (!c)
			return 1;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/* ---- the kernel's function addresses (/proc/kallsyms, or System.map), read once when asked ---- */

static int cmp_kallsym_name(const void *a, const void *b)
{
	return strcmp(((const Kallsym *)a)->name, ((const Kallsym *)b)->name);
}

static int cmp_kallsym_addr(const void *a, const void *b)
{
	const Kallsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr ? 1 : strcmp(x->name, y->name);
}

char *kernel_system_map(Session *s)
{
	char *paths[] = { path_join(s->kbuild_dir, "System.map"), xasprintf("/boot/System.map-%s", s->kver) };
	char *found = NULL;

	for (int i = 0; i < 2; i++) {
		char head[4096];
		FILE *f = found ? NULL : fopen(paths[i], "r");
		size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
		if (f)
			fclose(f);
		head[n] = 0;
		/* Debian's is one line saying the real one is in the -dbg package */
		if (n && (strstr(head, " T ") || strstr(head, " t ")))
			found = xstrdup(paths[i]);
		free(paths[i]);
	}
	return found;
}

typedef struct KallsymsBuild {
	Kallsym *v;
	size_t n, cap;
	int nonzero;
} KallsymsBuild;

static void add_kallsym(void *arg, uint64_t addr, char type, const char *name, const char *module)
{
	KallsymsBuild *b = arg;

	if (module || !strchr("tTwW", type))
		return;
	if (b->n == b->cap)
		b->v = xrealloc(b->v, (b->cap = b->cap ? 2 * b->cap : 65536) * sizeof *b->v);
	b->v[b->n].addr = addr;
	b->v[b->n++].name = name;
	b->nonzero |= addr != 0;
}

/* vmlinux's text symbols (types t T w W, no [module]) with their addresses: the running kernel's from
 * /proc/kallsyms, another release's from its System.map (link-time); none when every address reads 0
 * (kptr_restrict: a caller without CAP_SYSLOG). */
static void load_kallsyms_addresses(Session *s, KernelInfo *k)
{
	size_t len;
	char *map = s->target_is_running ? NULL : kernel_system_map(s), *text;
	KallsymsBuild b = { 0 };

	k->kallsyms_state = -1;
	text = s->target_is_running ? read_file("/proc/kallsyms", &len) : map ? read_file(map, &len) : NULL;
	free(map);
	if (!text)
		return;
	kernel_symbols_each(text, len, add_kallsym, &b);
	if (!b.nonzero) {
		free(b.v);
		free(text);
		return;
	}
	k->by_name = b.v;
	k->by_addr = xmalloc(b.n * sizeof *b.v);
	memcpy(k->by_addr, b.v, b.n * sizeof *b.v);
	qsort(k->by_name, b.n, sizeof *b.v, cmp_kallsym_name);
	qsort(k->by_addr, b.n, sizeof *b.v, cmp_kallsym_addr);
	k->nkallsyms = b.n;
	k->kallsyms_text = text;
	k->kallsyms_state = 1;
}

int kernel_symbol_address(Session *s, const char *name, uint64_t *addr)
{
	KernelInfo *k = kinfo(s);
	Kallsym key = { 0, name }, *hit;

	if (!k->kallsyms_state)
		load_kallsyms_addresses(s, k);
	if (k->kallsyms_state < 0)
		return -1;
	hit = bsearch(&key, k->by_name, k->nkallsyms, sizeof key, cmp_kallsym_name);
	if (!hit)
		return 0;
	/* a name kallsyms lists twice (static functions of one name) has no one address */
	if ((hit > k->by_name && !strcmp(hit[-1].name, name)) ||
	    (hit + 1 < k->by_name + k->nkallsyms && !strcmp(hit[1].name, name)))
		return 0;
	*addr = hit->addr;
	return 1;
}

char *kernel_symbols_at(Session *s, uint64_t addr)
{
	KernelInfo *k = kinfo(s);
	StrBuf names;
	size_t lo = 0, hi = k->nkallsyms;

	sb_init(&names);
	while (lo < hi) {   /* the first entry at addr */
		size_t mid = lo + (hi - lo) / 2;
		if (k->by_addr[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < k->nkallsyms && k->by_addr[lo].addr == addr; lo++)
		sb_printf(&names, "%s%s", names.len ? " " : "", k->by_addr[lo].name);
	return names.data ? names.data : xstrdup("");
}
