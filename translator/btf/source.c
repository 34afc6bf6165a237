/* source.c - finds the target kernel's BTF (/sys/kernel/btf/vmlinux, a vmlinux's .BTF, the one inside the compressed
 * /boot/vmlinuz-KVER, cached) and its modules' (/sys/kernel/btf/NAME, a .ko's). Used by btfvars.c, providers/kernelfn.c. */
#include "btf/btf.h"
#include "kernel.h"
#include "image/buildid.h"
#include "image/elffile.h"
#include "image/modfile.h"
#include "image/unpack.h"
#include "lib/filecache.h"
#include "session.h"
#include "lib/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Names of the functions elf's symbol table defines more than once (a module's static functions of one name,
 * which kprobes' "MOD:NAME" cannot tell apart), xstrdup'd onto twice. */
static void functions_twice(Elf *elf, PtrVec *twice)
{
	Elf_Scn *scn = NULL;
	StrMap seen = { 0 };

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			void **slot;
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*name)
				continue;
			slot = strmap_slot(&seen, name, 1);
			if (*slot == (void *)1)
				vec_push(twice, xstrdup(name));
			*slot = (char *)*slot + 1;
		}
	}
	free(seen.keys);
	free(seen.values);
}

/* The .BTF section of an ELF file, copied; NULL when it has none. */
static void *btf_section(Elf *elf, size_t *size, char *build_id)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	void *copy = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;
			Elf_Data *data;
			if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".BTF"))
				continue;
			if ((data = elf_getdata(scn, NULL)) && data->d_size) {
				copy = xmalloc(data->d_size);
				memcpy(copy, data->d_buf, data->d_size);
				*size = data->d_size;
			}
			break;
		}
	}
	if (copy)
		image_elf_build_id(elf, build_id, 41);
	return copy;
}

/* twice: NULL, or for a module functions_twice's names */
static void *btf_from_elf(const char *path, size_t *size, char *build_id, PtrVec *twice)
{
	Elf *elf;
	int fd;
	void *copy;

	if (elffile_open(path, 0, &fd, &elf) != ELFFILE_OK)
		return NULL;
	if ((copy = btf_section(elf, size, build_id)) && twice)
		functions_twice(elf, twice);
	elffile_close(elf, fd);
	return copy;
}

/* ---- the BTF inside a compressed kernel image ---- */

/* Output of a decompressor, scanned for a BTF blob as it grows: .BTF is a third of the way into
 * vmlinux, so decompression stops there. */
typedef struct Scan {
	ImageStream st;          /* the decompressor's output (image/unpack.c) */
	size_t scanned;          /* no blob starts before this */
	size_t start, need;      /* a candidate: its offset and total size (need 0: none yet) */
	char build_id[41];       /* the last GNU build id note before the blob (.notes precedes .BTF) */
	void *blob;              /* the blob found (malloc'd) and its size */
	size_t *size;
} Scan;

/* The kernel's build id: the last NT_GNU_BUILD_ID note (namesz 4, descsz 20, "GNU") before the blob. */
static void scan_build_id(Scan *sc)
{
	static const char note[] = "\x04\0\0\0\x14\0\0\0\x03\0\0\0GNU";
	const uint8_t *p = sc->st.buf, *last = NULL;
	size_t n = sc->start;

	while ((p = memmem(p, n - (size_t)(p - sc->st.buf), note, sizeof note)) && (size_t)(p - sc->st.buf) + 36 <= n)
		last = p++;
	if (last)
		image_build_id_in_notes(last, 36, sc->build_id, sizeof sc->build_id);
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Looks for the next candidate header (magic, version 1, 24-byte header, strings right after the
 * types, as pahole writes it). */
static void scan_candidates(Scan *sc)
{
	while (!sc->need && sc->scanned + 24 <= sc->st.len) {
		const uint8_t *p = memmem(sc->st.buf + sc->scanned, sc->st.len - sc->scanned, "\x9f\xeb\x01\x00\x18\x00\x00\x00", 8);
		size_t at;
		if (!p) {
			sc->scanned = sc->st.len > 8 ? sc->st.len - 8 : 0;
			return;
		}
		at = (size_t)(p - sc->st.buf);
		if (at + 24 > sc->st.len) {
			sc->scanned = at;
			return;
		}
		if (le32(p + 8) == 0 && le32(p + 16) == le32(p + 12) && le32(p + 20) && le32(p + 12) < (256u << 20) &&
		    le32(p + 20) < (256u << 20)) {
			sc->start = at;
			sc->need = 24 + (size_t)le32(p + 12) + le32(p + 20);
		}
		sc->scanned = at + 1;
	}
}

/* A complete candidate that parses: moved into sc->blob. 1 done, 0 go on (the decompressor's ImageStop). */
static int scan_complete(ImageStream *st, void *arg)
{
	Scan *sc = arg;

	(void)st;            /* sc->st */
	for (;;) {
		scan_candidates(sc);
		if (!sc->need || sc->st.len < sc->start + sc->need)
			return 0;
		char *err = NULL;
		Btf *b = btf_parse(sc->st.buf + sc->start, sc->need, &err);
		if (b) {
			btf_free(b);
			sc->blob = xmalloc(sc->need);
			memcpy(sc->blob, sc->st.buf + sc->start, sc->need);
			*sc->size = sc->need;
			scan_build_id(sc);
			return 1;
		}
		free(err);
		sc->need = 0;   /* a false match: look further */
	}
}

/* The BTF of a bzImage: its payload found by the compressor's magic (as the kernel's
 * scripts/extract-vmlinux does), decompressed until the blob is whole. xz, gzip and zstd. */
static void *btf_from_image(const char *path, size_t *size, char *build_id)
{
	size_t n;
	uint8_t *img = (uint8_t *)read_file(path, &n);
	void *blob = NULL;

	if (!img)
		return NULL;
	for (size_t k = 0; k < image_ncodecs && !blob; k++) {
		const uint8_t *p = img;
		while (!blob && (p = memmem(p, n - (size_t)(p - img), image_codecs[k].magic, image_codecs[k].n))) {
			Scan sc = { .size = size };
			image_codecs[k].inflate(p, n - (size_t)(p - img), &sc.st, scan_complete, &sc);
			if ((blob = sc.blob))
				memcpy(build_id, sc.build_id, sizeof sc.build_id);
			free(sc.st.buf);
			p++;
		}
	}
	free(img);
	return blob;
}

/* The image's BTF through the cache: btf/HASH (of the image's path, size and mtime) holds the
 * blob, btf/HASH.id the build id. */
static void *btf_from_image_cached(Session *s, const char *path, size_t *size, char *build_id, int *from_cache)
{
	char name[64], *cache, *id_path = NULL, *id;
	size_t idlen;
	void *blob;

	snprintf(name, sizeof name, "btf/%016llx", filecache_hash_stat(FILECACHE_HASH_INIT, path));
	cache = filecache_path(s, name);
	if (cache)
		id_path = xasprintf("%s.id", cache);
	if (cache && (id = filecache_read(&s->diag, id_path, &idlen)) && (blob = filecache_read(&s->diag, cache, size))) {
		snprintf(build_id, 41, "%s", id);
		free(id);
		*from_cache = 1;
		free(cache);
		free(id_path);
		return blob;
	}
	blob = btf_from_image(path, size, build_id);
	if (blob && cache && filecache_write(&s->diag, cache, blob, *size) == 0)
		filecache_write(&s->diag, id_path, build_id, strlen(build_id));
	free(cache);
	free(id_path);
	return blob;
}

static int cmp_name(const void *a, const void *b);
static void kallsyms_twice(const char *path, const char *module, PtrVec *twice);

/* The running kernel's functions defined twice (static functions of one name, which kprobes' NAME
 * cannot tell apart), from /proc/kallsyms once per build id: cached as btf/BUILDID.twice, a name a line.
 * When not cached, the read (about 60 ms, most of it the kernel's) runs in a thread started with the
 * session (btf_kernel_twice_prefetch), beside pass 1 and the BTF's read and parse, and caches the list. */
typedef struct KernelTwice {
	pthread_t thread;
	int running;            /* thread started */
	PtrVec names;
	char *path;             /* its cache file (NULL: none, or read from it) */
	Diag *diag;             /* the session's, for the cache's warnings */
} KernelTwice;

/* The thread: the list read, then cached (filecache_write: atomic, no diagnostics) */
static void *kernel_twice_read(void *arg)
{
	KernelTwice *kt = arg;
	StrBuf sb;

	kallsyms_twice("/proc/kallsyms", NULL, &kt->names);
	if (kt->path) {
		sb_init(&sb);
		for (int i = 0; i < kt->names.len; i++)
			sb_printf(&sb, "%s\n", (char *)kt->names.items[i]);
		filecache_write(kt->diag, kt->path, sb.data, (size_t)sb.len);
		sb_free(&sb);
	}
	return NULL;
}

/* The running kernel's list (kt->names): from the cache, else read by a thread started here. */
static KernelTwice *kernel_twice_start(Session *s)
{
	char build_id[41] = "", *name, *text;
	KernelTwice *kt = xcalloc(1, sizeof *kt);
	size_t len;

	kt->diag = &s->diag;
	image_file_build_id("/sys/kernel/notes", build_id, sizeof build_id);
	name = xasprintf("btf/%s.twice", build_id);
	kt->path = build_id[0] ? filecache_path(s, name) : NULL;
	free(name);
	if ((text = kt->path ? filecache_read(&s->diag, kt->path, &len) : NULL)) {
		char *save = NULL;
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			vec_push(&kt->names, xstrdup(l));
		free(text);
		free(kt->path);
		kt->path = NULL;        /* cached: nothing to write back */
	} else if (pthread_create(&kt->thread, NULL, kernel_twice_read, kt) == 0)
		kt->running = 1;
	else
		kernel_twice_read(kt);
	return kt;       /* (a thread never joined is cut short at exit: its cache file is written whole or not) */
}

/* Waits for kt's thread and gives btf the list. */
static void kernel_twice_finish(Btf *btf, KernelTwice *kt)
{
	if (kt->running)
		pthread_join(kt->thread, NULL);
	btf->twice = (char **)kt->names.items;
	btf->ntwice = kt->names.len;
	free(kt->path);
	free(kt);
}

void btf_kernel_twice_prefetch(Session *s)
{
	if (s->target_is_running && !s->btf_twice_job)
		s->btf_twice_job = kernel_twice_start(s);
}

Btf *btf_kernel(Session *s, const char **err)
{
	char *paths[4], *origin = NULL;
	void *blob = NULL;
	size_t size = 0;
	int n, from_cache = 0;
	double t0 = now_ms();
	char *why = NULL, build_id[41] = "";

	if (s->btf || s->btf_error) {
		*err = s->btf_error;
		return s->btf;
	}
	if (s->target_is_running && access("/sys/kernel/btf/vmlinux", R_OK) == 0 &&
	    (blob = read_file("/sys/kernel/btf/vmlinux", &size))) {
		origin = xstrdup("/sys/kernel/btf/vmlinux");
		image_file_build_id("/sys/kernel/notes", build_id, sizeof build_id);
	}
	n = image_kernel_paths(s, paths);
	for (int i = 0; i < n; i++) {
		if (!blob && (blob = btf_from_elf(paths[i], &size, build_id, NULL)))
			origin = xstrdup(paths[i]);
		free(paths[i]);
	}
	if (!blob) {
		char *image = xasprintf("/boot/vmlinuz-%s", s->kver);
		if ((blob = btf_from_image_cached(s, image, &size, build_id, &from_cache)))
			origin = image;
		else
			free(image);
	}
	if (!blob) {
		s->btf_error = xasprintf("no BTF for kernel %s (looked in /sys/kernel/btf/vmlinux for the running "
					 "kernel, the vmlinux files, /boot/vmlinuz-%s)", s->kver, s->kver);
	} else if (!(s->btf = btf_parse(blob, size, &why))) {
		s->btf_error = xasprintf("the BTF of %s is unreadable: %s", origin, why);
		free(why);
		free(blob);
		free(origin);
	} else {
		s->btf->owned = blob;
		s->btf->origin = origin;
		memcpy(s->btf->build_id, build_id, sizeof build_id);
		if (s->verbose >= 2)
			fprintf(stderr, "Kernel BTF: %s%s (%u types, build id %s) read in %.1f ms\n", origin,
				from_cache ? " (cached)" : "", s->btf->ntypes, build_id[0] ? build_id : "unknown",
				now_ms() - t0);
	}
	*err = s->btf_error;
	return s->btf;
}

const char *btf_kernel_build_id(Session *s)
{
	return s->btf ? s->btf->build_id : "";
}

const char *btf_kernel_image_build_id(Session *s)
{
	const char *err;

	btf_kernel(s, &err);
	return btf_kernel_build_id(s);
}

/* ---- modules' BTF: split over the kernel's ---- */

typedef struct PackedBtf {
	size_t *size;
	char *build_id;
	PtrVec *twice;
	void *blob;
} PackedBtf;

static void packed_btf(Elf *elf, void *arg)
{
	PackedBtf *pb = arg;

	if ((pb->blob = btf_section(elf, pb->size, pb->build_id)))
		functions_twice(elf, pb->twice);
}

/* The .BTF of a compressed module. */
static void *btf_from_packed_module(const char *path, size_t *size, char *build_id, PtrVec *twice)
{
	PackedBtf pb = { size, build_id, twice, NULL };

	image_with_packed_module(path, packed_btf, &pb);
	return pb.blob;
}

typedef struct TwiceScan {
	const char *module;     /* whose lines (NULL: the kernel's) */
	StrMap seen;            /* name -> how many times (as a pointer-sized count) */
	PtrVec *twice;
} TwiceScan;

static void twice_line(void *arg, uint64_t addr, char type, const char *name, const char *module)
{
	TwiceScan *t = arg;

	(void)addr;
	if ((type != 't' && type != 'T') || (t->module ? !module || strcmp(module, t->module) : module != NULL))
		return;
	void **slot = strmap_slot(&t->seen, name, 1);
	if (*slot == (void *)1)
		vec_push(t->twice, xstrdup(name));
	*slot = (char *)*slot + 1;
}

/* functions_twice of a loaded module, or (module NULL) of the kernel, from /proc/kallsyms or a System.map
 * (PATH): the names seen twice, through a hash of them all (the kernel's 120,000 in a few ms, beside the
 * kernel's 40 to write them), sorted */
static void kallsyms_twice(const char *path, const char *module, PtrVec *twice)
{
	size_t len;
	char *text = read_file(path, &len);
	TwiceScan t = { .module = module, .twice = twice };
	int before = twice->len;

	if (text)
		kernel_symbols_each(text, len, twice_line, &t);
	if (twice->len > before)
		qsort(twice->items + before, (size_t)(twice->len - before), sizeof *twice->items, cmp_name);
	free(t.seen.keys);
	free(t.seen.values);
	free(text);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

Btf *btf_kernel_functions(Session *s, const char **err)
{
	KernelTwice *kt = NULL;
	Btf *b;

	if (s->target_is_running && !(s->btf && s->btf->twice_read)) {
		btf_kernel_twice_prefetch(s);       /* (started at the session's start: main.c) */
		kt = s->btf_twice_job;
		s->btf_twice_job = NULL;
	}
	b = btf_kernel(s, err);

	if (b && !s->target_is_running && !b->twice_read) {
		/* another release: from its System.map when it has a real one */
		char *map = kernel_system_map(s);
		PtrVec names = { 0 };
		if (map)
			kallsyms_twice(map, NULL, &names);
		b->twice = (char **)names.items;
		b->ntwice = names.len;
		b->twice_read = 1;
		free(map);
	}
	if (kt && b) {
		kernel_twice_finish(b, kt);
		b->twice_read = 1;
	} else if (kt) {
		Btf none = { 0 };
		kernel_twice_finish(&none, kt);
		for (int i = 0; i < none.ntwice; i++)
			free(none.twice[i]);
		free(none.twice);
	}
	return b;
}

int btf_function_twice(const Btf *b, const char *name)
{
	return b->ntwice && bsearch(&name, b->twice, (size_t)b->ntwice, sizeof *b->twice, cmp_name);
}

typedef struct ModuleBtf {
	char *key;              /* as written in module("...") */
	Btf *btf;
	char *error;
} ModuleBtf;

/* "nfs" or "/path/nfs.ko.xz" -> "nfs", as the kernel names it ('-' as '_') */
static char *module_name_of(const char *key)
{
	const char *base = strrchr(key, '/') ? strrchr(key, '/') + 1 : key;
	char *name = xstrndup(base, strcspn(base, "."));

	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

static char *read_module_btf(Session *s, ModuleBtf *mb)
{
	const char *why = NULL;
	Btf *kernel = btf_kernel(s, &why);
	char *name = module_name_of(mb->key), *origin = NULL, *file, *err = NULL, build_id[41] = "";
	void *blob = NULL;
	size_t size = 0;
	PtrVec twice = { 0 };

	if (!kernel) {
		free(name);
		return xstrdup(why);
	}
	if (s->target_is_running && !strchr(mb->key, '/')) {
		char *sys = xasprintf("/sys/kernel/btf/%s", name);
		if (access(sys, R_OK) == 0 && (blob = read_file(sys, &size))) {
			origin = sys;
			kallsyms_twice("/proc/kallsyms", name, &twice);
		} else
			free(sys);
	}
	if (!blob && (file = image_module_file(s, mb->key))) {
		size_t n = strlen(file);
		blob = n > 3 && !strcmp(file + n - 3, ".ko") ? btf_from_elf(file, &size, build_id, &twice) :
		       btf_from_packed_module(file, &size, build_id, &twice);
		if (blob)
			origin = file;
		else {
			err = xasprintf("module %s (%s) has no BTF", name, file);
			free(file);
		}
	} else if (!blob) {
		err = xasprintf("no module %s for kernel %s (looked for its BTF in /lib/modules/%s)", mb->key, s->kver,
				s->kver);
	}
	if (blob && !(mb->btf = btf_parse_split(blob, size, kernel, &err))) {
		char *e = xasprintf("the BTF of %s is unreadable: %s", origin, err);
		free(err);
		err = e;
	}
	if (mb->btf) {
		mb->btf->owned = blob;
		mb->btf->origin = origin;
		mb->btf->module = name;
		mb->btf->twice = (char **)twice.items;
		mb->btf->ntwice = twice.len;
		if (mb->btf->ntwice)
			qsort(mb->btf->twice, (size_t)mb->btf->ntwice, sizeof *mb->btf->twice, cmp_name);
		memcpy(mb->btf->build_id, build_id, sizeof build_id);
		if (s->verbose >= 2)
			fprintf(stderr, "Module BTF: %s for module %s (%u types)\n", origin, name,
				mb->btf->ntypes - mb->btf->first_own + 1);
		return NULL;
	}
	for (int i = 0; i < twice.len; i++)
		free(twice.items[i]);
	free(twice.items);
	free(blob);
	free(origin);
	free(name);
	return err;
}

Btf *btf_module(Session *s, const char *key, const char **err)
{
	ModuleBtf *mb = NULL;

	for (int i = 0; i < s->btf_modules.len && !mb; i++)
		if (!strcmp(((ModuleBtf *)s->btf_modules.items[i])->key, key))
			mb = s->btf_modules.items[i];
	if (!mb) {
		mb = xcalloc(1, sizeof *mb);
		mb->key = xstrdup(key);
		mb->error = read_module_btf(s, mb);
		vec_push(&s->btf_modules, mb);
	}
	*err = mb->error;
	return mb->btf;
}
