/* debuginfo.c - finds and opens the kernel's and modules' debuginfo (libdw; libdwfl for .ko files),
 * checks build ids, and answers symbol questions for probe sites.  Used by providers/kernelfn.c, dwvars.c. */
#include "dwarf/dwarf.h"
#include "dwarf/debuginfod.h"
#include "image/buildid.h"
#include "image/elffile.h"
#include "image/modfile.h"

#include <dirent.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- opening ------------------------------------------------------------------------------------- */

static int has_debug_info(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return 1;
	}
	return 0;
}

/* 1 = an ELF file with DWARF, 0 = an ELF file without, -1 = not there / not ELF. */
static int probe_file(const char *path)
{
	Elf *elf;
	int fd, ok;

	if (elffile_open(path, 0, &fd, &elf) != ELFFILE_OK)
		return -1;
	ok = has_debug_info(elf);
	elffile_close(elf, fd);
	return ok;
}

DwarfModule *dwarf_module_from_elf(const char *name, const char *path, int fd, Elf *elf, Dwarf *dw)
{
	DwarfModule *m = xcalloc(1, sizeof *m);

	m->name = xstrdup(name);
	m->path = xstrdup(path);
	m->fd = fd;
	m->elf = elf;
	m->dw = dw;
	m->cfi = dwarf_getcfi(dw);             /* .debug_frame */
	if (!m->cfi)
		m->cfi = dwarf_getcfi_elf(elf);    /* .eh_frame, what user binaries usually have */
	image_elf_build_id(elf, m->build_id, sizeof m->build_id);
	return m;
}

static DwarfModule *open_vmlinux(const char *path, char **why)
{
	DwarfModule *m;
	Elf *elf;
	Dwarf *dw = NULL;
	int fd, rc = elffile_open(path, 0, &fd, &elf);

	if (rc == ELFFILE_NOFILE) {
		*why = xasprintf("cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (rc == ELFFILE_OK)
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw) {
		/* (what libdw says of a file that is no ELF file) */
		*why = xasprintf("cannot read the DWARF of %s: %s", path,
				 rc == ELFFILE_OK ? dwarf_errmsg(-1) : "no ELF file");
		elffile_close(elf, fd);
		return NULL;
	}
	m = dwarf_module_from_elf("kernel", path, fd, elf, dw);
	m->is_kernel = 1;
	return m;
}

static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
				 const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
				 char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = no_separate_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* A .ko (ET_REL): libdwfl lays its sections out and relocates the DWARF and the symbol table alike. */
static DwarfModule *open_ko(const char *path, const char *name, char **why)
{
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	DwarfModule *m;
	Dwarf *dw;

	if (!dwfl) {
		*why = xasprintf("libdwfl: %s", dwfl_errmsg(-1));
		return NULL;
	}
	dwfl_report_begin(dwfl);
	mod = dwfl_report_offline(dwfl, name, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!dw) {
		*why = xasprintf("cannot read the DWARF of %s: %s", path, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return NULL;
	}
	m = xcalloc(1, sizeof *m);
	m->name = xstrdup(name);
	m->path = xstrdup(path);
	m->fd = -1;
	m->dw = dw;
	m->elf = dwarf_getelf(dw);
	m->dwfl = dwfl;
	m->dwfl_mod = mod;
	m->cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (!m->cfi)
		m->cfi = dwfl_module_eh_cfi(mod, &bias);
	image_elf_build_id(m->elf, m->build_id, sizeof m->build_id);
	return m;
}

/* ---- the kernel ---------------------------------------------------------------------------------- */

DwarfCache *dwarf_cache(Session *s)
{
	if (!s->dwarf)
		s->dwarf = xcalloc(1, sizeof *s->dwarf);
	return s->dwarf;
}


/* The kernel's debuginfo from the debuginfod servers, by the build id of the running kernel or of
 * /boot/vmlinuz-KVER (the Session's kernel_image_build_id: btf/source.c reads it there); NULL with
 * *why NULL when none is configured. */
static char *fetch_kernel(Session *s, char **why)
{
	char running[41] = "", *what, *path;
	const char *id = running;

	*why = NULL;
	if (!debuginfod_configured())
		return NULL;
	if (!s->target_is_running || image_file_build_id("/sys/kernel/notes", running, sizeof running) != 0) {
		id = s->kernel_image_build_id ? s->kernel_image_build_id(s) : "";
	}
	if (!*id) {
		*why = xasprintf("debuginfod: nothing asked: the build id of kernel %s is unknown (no /boot/vmlinuz-%s)",
				 s->kver, s->kver);
		return NULL;
	}
	what = xasprintf("kernel %s", s->kver);
	path = debuginfod_fetch(s, id, what, why);
	free(what);
	return path;
}

DwarfModule *dwarf_kernel_quiet(Session *s)
{
	DwarfCache *c = dwarf_cache(s);

	if (!c->kernel && !c->kernel_error) {
		SrcLoc none = { 0 };
		diag_mute(&s->diag, 1);
		dwarf_kernel(s, none);
		diag_mute(&s->diag, -1);
	}
	return c->kernel;
}

DwarfModule *dwarf_kernel(Session *s, SrcLoc loc)
{
	StrBuf looked, notes;
	const char *found = NULL;
	char *paths[4], *fetched = NULL, *fetch_error = NULL;
	int npaths;
	DwarfCache *c = dwarf_cache(s);

	if (c->kernel || c->kernel_error) {
		if (!c->kernel)
			diag_at(&s->diag, loc, "semantic error", "%s", c->kernel_error);
		return c->kernel;
	}
	npaths = image_kernel_paths(s, paths);
	sb_init(&looked);
	sb_init(&notes);
	for (int i = 0; i < npaths && !found; i++) {
		int r = probe_file(paths[i]);
		if (r == 1)
			found = paths[i];
		else if (r == 0)
			sb_printf(&notes, "; %s has no DWARF", paths[i]);
		sb_printf(&looked, "%s%s", i ? ", " : "", paths[i]);
	}
	if (!found && (fetched = fetch_kernel(s, &fetch_error)))
		found = fetched;
	if (!found) {
		c->kernel_error = xasprintf("no kernel debuginfo for %s: install linux-image-%s-dbg (looked in %s%s)%s%s",
					 s->kver, s->kver, looked.data, notes.data ? notes.data : "",
					 fetch_error ? "; " : debuginfod_configured() ? "" : ", or set DEBUGINFOD_URLS",
					 fetch_error ? fetch_error : "");
	} else {
		double t0 = now_ms();
		char *why = NULL;
		c->kernel = open_vmlinux(found, &why);
		if (!c->kernel)
			c->kernel_error = why;
		else if (s->verbose >= 2)
			fprintf(stderr, "Kernel debuginfo: %s (build id %s) opened in %.1f ms\n", found,
				c->kernel->build_id[0] ? c->kernel->build_id : "none", now_ms() - t0);
	}
	if (c->kernel && s->target_is_running && c->kernel->build_id[0]) {
		char running[41];
		if (image_file_build_id("/sys/kernel/notes", running, sizeof running) == 0 &&
		    strcmp(running, c->kernel->build_id)) {
			c->kernel_error = xasprintf("kernel debuginfo %s does not match the running kernel %s: its build id is "
						 "%s, the kernel's is %s (install the matching linux-image-%s-dbg)",
						 found, s->kver, c->kernel->build_id, running, s->kver);
			c->kernel = NULL;   /* left open: exits soon */
		}
	}
	/* its index is built or loaded on first use (tracepoints need none) */
	if (c->kernel) {
		c->kernel->session = s;
		snprintf(c->kernel_build_id, sizeof c->kernel_build_id, "%s", c->kernel->build_id);
	}
	for (int i = 0; i < npaths; i++)
		free(paths[i]);
	free(fetched);
	free(fetch_error);
	sb_free(&looked);
	sb_free(&notes);
	if (!c->kernel)
		diag_at(&s->diag, loc, "semantic error", "%s", c->kernel_error);
	return c->kernel;
}

const char *dwarf_kernel_build_id(Session *s)
{
	return dwarf_cache(s)->kernel_build_id;
}

/* ---- modules ------------------------------------------------------------------------------------- */

/* The name the kernel gives a .ko: its .modinfo name=, else the file name with '-' as '_'. */
static char *module_name_of(const char *path)
{
	Elf *elf;
	int fd;
	char *name = NULL;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elffile_open(path, 0, &fd, &elf) == ELFFILE_OK && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while (!name && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *sname;
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) || !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    strcmp(sname, ".modinfo") || !(d = elf_rawdata(scn, NULL)) || !d->d_buf)
				continue;
			for (size_t off = 0; off < d->d_size;) {
				const char *str = (const char *)d->d_buf + off;
				size_t len = strnlen(str, d->d_size - off);
				if (len > 5 && !strncmp(str, "name=", 5) && off + len < d->d_size)
					name = xstrndup(str + 5, len - 5);
				off += len + 1;
			}
		}
	}
	elffile_close(elf, fd);
	if (!name) {
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t n = strlen(base);
		if (n > 3 && !strcmp(base + n - 3, ".ko"))
			n -= 3;
		name = xstrndup(base, n);
	}
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/* The debuginfo of module name, whose stripped file (without DWARF; or compressed) is at path, from the
 * debuginfod servers by that file's build id; NULL with *why NULL when none is configured. */
static char *fetch_module(Session *s, const char *name, const char *path, char **why)
{
	char id[41] = "", *what, *fetched;
	Elf *elf;
	int fd;

	*why = NULL;
	if (!debuginfod_configured())
		return NULL;
	if (elffile_open(path, 0, &fd, &elf) == ELFFILE_OK)
		image_elf_build_id(elf, id, sizeof id);
	else
		image_packed_module_build_id(path, id);   /* .ko.xz, .ko.zst, .ko.gz */
	elffile_close(elf, fd);
	if (!*id) {
		*why = xasprintf("debuginfod: nothing asked: %s has no build id", path);
		return NULL;
	}
	what = xasprintf("module %s", name);
	fetched = debuginfod_fetch(s, id, what, why);
	free(what);
	return fetched;
}

typedef struct OpenedModule {
	char *key;              /* as written in module("...") */
	DwarfModule *mod;
	char *error;
} OpenedModule;

static char *open_module(Session *s, const char *arg, DwarfModule **out)
{
	char *path = NULL, *name = NULL, *why = NULL;

	*out = NULL;
	if (strchr(arg, '/')) {
		int r = probe_file(arg);
		if (r < 0)
			return xasprintf("module file %s: %s", arg, access(arg, R_OK) ? strerror(errno) : "not an ELF file");
		if (r == 0)
			return xasprintf("module file %s has no DWARF debuginfo (build it with debug information, "
					 "CONFIG_DEBUG_INFO)", arg);
		path = xstrdup(arg);
		name = module_name_of(arg);
	} else {
		const char *dir = getenv("STAP_DEBUGINFO_PATH");   /* as image_kernel_paths */
		char *dbg = xasprintf("%s/lib/modules/%s", dir ? dir : "/usr/lib/debug", s->kver);
		char *lib = xasprintf("/lib/modules/%s", s->kver);
		const char *found = NULL;
		char *fetched = NULL;
		ImageModuleSearch search = { 0 };

		image_find_module(&search, dbg, arg);
		if (search.plain && probe_file(search.plain) == 1)
			found = search.plain;
		if (!found) {
			char *nodwarf = search.plain, *fetch_error = NULL;
			search.plain = NULL;
			image_find_module(&search, lib, arg);
			if (search.plain && probe_file(search.plain) == 1) {
				found = search.plain;
			} else if ((search.plain || search.compressed) &&
				   (fetched = fetch_module(s, arg, search.plain ? search.plain : search.compressed,
							   &fetch_error))) {
				found = fetched;
			} else if (search.plain || nodwarf) {
				why = xasprintf("no debuginfo for module %s: %s has no DWARF; install linux-image-%s-dbg "
						"(looked in %s and %s)%s%s", arg, search.plain ? search.plain : nodwarf,
						s->kver, dbg, lib, fetch_error ? "; " : "", fetch_error ? fetch_error : "");
			} else if (search.compressed) {
				why = xasprintf("module %s is compressed (%s), which is not supported: install "
						"linux-image-%s-dbg for its debuginfo (looked in %s)%s%s", arg, search.compressed,
						s->kver, dbg, fetch_error ? "; " : "", fetch_error ? fetch_error : "");
			} else {
				why = xasprintf("no module %s for kernel %s (looked for %s.ko in %s and %s; a module file "
						"can be named by its path: module(\"/path/%s.ko\"))", arg, s->kver, arg, dbg, lib,
						arg);
			}
			free(fetch_error);
		}
		if (found && fetched && !search.plain) {
			/* fetched for a compressed module: its debug file's .modinfo has no contents */
			path = xstrdup(found);
			name = xstrdup(arg);
			for (char *p = name; *p; p++)
				if (*p == '-')
					*p = '_';
		} else if (found) {
			path = xstrdup(found);
			name = module_name_of(search.plain ? search.plain : found);
		}
		free(fetched);
		free(search.plain);
		free(search.compressed);
		memset(&search, 0, sizeof search);
		free(dbg);
		free(lib);
		if (!found)
			return why;
	}
	{
		double t0 = now_ms();
		DwarfModule *m = open_ko(path, name, &why);
		if (!m) {
			free(path);
			free(name);
			return why;
		}
		if (s->verbose >= 2)
			fprintf(stderr, "Module debuginfo: %s for module %s (build id %s) opened in %.1f ms\n", path, name,
				m->build_id[0] ? m->build_id : "none", now_ms() - t0);
		if (s->target_is_running && m->build_id[0]) {
			char *notes = xasprintf("/sys/module/%s/notes/.note.gnu.build-id", name);
			char running[41];
			if (image_file_build_id(notes, running, sizeof running) == 0 && strcmp(running, m->build_id))
				why = xasprintf("module %s debuginfo %s does not match the loaded module: its build id is %s, "
						"the loaded module's is %s", name, path, m->build_id, running);
			free(notes);
			if (why)
				return why;
		}
		if (dwarf_index_open(s, m) != 0)
			return xasprintf("cannot index the debuginfo of module %s (%s)", name, path);
		*out = m;
	}
	free(path);
	free(name);
	return NULL;
}

static OpenedModule *opened_module(Session *s, const char *name)
{
	PtrVec *opened = &dwarf_cache(s)->modules;
	OpenedModule *om;

	for (int i = 0; i < opened->len; i++) {
		om = opened->items[i];
		if (!strcmp(om->key, name))
			return om;
	}
	om = xcalloc(1, sizeof *om);
	om->key = xstrdup(name);
	om->error = open_module(s, name, &om->mod);
	vec_push(opened, om);
	return om;
}

DwarfModule *dwarf_module_quiet(Session *s, const char *name)
{
	return opened_module(s, name)->mod;
}

DwarfModule *dwarf_module(Session *s, const char *name, SrcLoc loc)
{
	OpenedModule *om = opened_module(s, name);

	if (!om->mod)
		diag_at(&s->diag, loc, "semantic error", "%s", om->error);
	return om->mod;
}

/* ---- symbols ------------------------------------------------------------------------------------- */

typedef struct Sym {
	const char *name;
	Dwarf_Addr addr;
	uint64_t size;
	int shndx;
	int type;               /* STT_FUNC, STT_NOTYPE, STT_OBJECT */
	int bind;               /* STB_GLOBAL, STB_LOCAL, STB_WEAK */
} Sym;

typedef struct Range {
	Dwarf_Addr lo, hi;
	const char *why;
} Range;

struct DwarfSymtab {
	Sym *syms;              /* sorted by address */
	size_t n;
	StrMap count;           /* name -> its only Sym, or the table itself for several (name_lookup) */
	int name_queries;       /* name_lookup calls so far (the first ones scan the table instead) */
	Range *refused;         /* kernel: ranges kprobes refuse */
	size_t nrefused;
	int anchor_shndx;       /* kernel: _stext's section */
	Dwarf_Addr stext;
};

static int cmp_sym(const void *a, const void *b)
{
	const Sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->type != y->type)
		return x->type == STT_FUNC ? -1 : y->type == STT_FUNC ? 1 : 0;
	return strcmp(x->name, y->name);
}

static void add_sym(struct DwarfSymtab *t, size_t *cap, const char *name, Dwarf_Addr addr, uint64_t size, int shndx,
		    int type, int bind)
{
	if (!name || !*name || shndx == SHN_UNDEF || shndx == SHN_ABS ||
	    (type != STT_FUNC && type != STT_NOTYPE && type != STT_OBJECT))
		return;
	if (t->n == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		t->syms = xrealloc(t->syms, *cap * sizeof *t->syms);
	}
	t->syms[t->n++] = (Sym){ name, addr, size, shndx, type, bind };
}

/* Symbol containing addr (largest start <= addr with addr < start+size), FUNC preferred. */
static const Sym *sym_containing(const struct DwarfSymtab *t, Dwarf_Addr addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {             /* first symbol with start > addr */
		size_t mid = (lo + hi) / 2;
		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const Sym *s = &t->syms[i];
		if (s->type == STT_FUNC && addr < s->addr + (s->size ? s->size : 1))
			return s;
		if (lo - i > 64)
			break;
	}
	return NULL;
}

static Dwarf_Addr sym_value(const struct DwarfSymtab *t, const char *name, int *found)
{
	*found = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!strcmp(t->syms[i].name, name)) {
			*found = 1;
			return t->syms[i].addr;
		}
	}
	return 0;
}

static void add_refused(struct DwarfSymtab *t, Dwarf_Addr lo, Dwarf_Addr hi, const char *why)
{
	if (hi <= lo)
		return;
	t->refused = xrealloc(t->refused, (t->nrefused + 1) * sizeof *t->refused);
	t->refused[t->nrefused++] = (Range){ lo, hi, why };
}

static void add_refused_between(struct DwarfSymtab *t, const char *start, const char *end, const char *why)
{
	int f1, f2;
	Dwarf_Addr lo = sym_value(t, start, &f1), hi = sym_value(t, end, &f2);
	if (f1 && f2)
		add_refused(t, lo, hi, why);
}

/* The kernel's NOKPROBE_SYMBOL list: addresses between __start/__stop_kprobe_blacklist (in .init.data);
 * kprobes refuses the whole function around each. */
static void load_kprobe_blacklist(DwarfModule *m, struct DwarfSymtab *t)
{
	int f1, f2;
	Dwarf_Addr lo = sym_value(t, "__start_kprobe_blacklist", &f1), hi = sym_value(t, "__stop_kprobe_blacklist", &f2);
	Elf_Scn *scn = NULL;

	if (!f1 || !f2 || hi <= lo)
		return;
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || lo < sh.sh_addr || hi > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < hi - sh.sh_addr)
			return;
		for (Dwarf_Addr a = lo; a + 8 <= hi; a += 8) {
			uint64_t v;
			const Sym *s;
			memcpy(&v, (const char *)d->d_buf + (a - sh.sh_addr), 8);
			s = sym_containing(t, v);
			add_refused(t, s ? s->addr : v, s ? s->addr + (s->size ? s->size : 1) : v + 1,
				    "blacklisted for kprobes (NOKPROBE_SYMBOL)");
		}
		return;
	}
}

void dwarf_elf_symbols(DwarfModule *m, void (*fn)(const char *name, const GElf_Sym *sym, void *arg), void *arg)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			if (gelf_getsym(d, (int)i, &sym))
				fn(elf_strptr(m->elf, sh.sh_link, sym.st_name), &sym, arg);
		}
		return;
	}
}

typedef struct SymtabFill {
	struct DwarfSymtab *t;
	size_t cap;
} SymtabFill;

static void symtab_add_elf(const char *name, const GElf_Sym *sym, void *arg)
{
	SymtabFill *f = arg;
	add_sym(f->t, &f->cap, name, sym->st_value, sym->st_size, sym->st_shndx, GELF_ST_TYPE(sym->st_info),
		GELF_ST_BIND(sym->st_info));
}

/* Sorts t->syms as cmp_sym does: a stable radix sort of (address, position) pairs, 8 bits a pass,
 * the passes whose byte is the same for every symbol skipped, then the symbols moved once and the
 * few runs at one address sorted by cmp_sym. A fifth of qsort's instructions on the kernel's
 * 130,000 symbols, which every run with a DWARF probe reads. */
typedef struct SymKey {
	uint64_t addr;
	size_t pos;
} SymKey;

static void symtab_sort(struct DwarfSymtab *t)
{
	size_t n = t->n;
	SymKey *keys = xmalloc(2 * n * sizeof *keys), *src = keys, *dst = keys + n;
	Sym *sorted;

	for (size_t i = 0; i < n; i++)
		keys[i] = (SymKey){ t->syms[i].addr, i };
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[((src[i].addr >> shift) & 0xff) + 1]++;
		if (count[((src[0].addr >> shift) & 0xff) + 1] == n)
			continue;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].addr >> shift) & 0xff]++] = src[i];
		SymKey *swap = src;
		src = dst;
		dst = swap;
	}
	sorted = xmalloc(n * sizeof *sorted);
	for (size_t i = 0; i < n; i++)
		sorted[i] = t->syms[src[i].pos];
	free(keys);
	free(t->syms);
	t->syms = sorted;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && t->syms[j].addr == t->syms[i].addr; j++)
			;
		if (j - i > 1)
			qsort(t->syms + i, j - i, sizeof *t->syms, cmp_sym);
	}
}

/* Room for n symbols, so that the table does not grow while it is read. */
static void symtab_reserve(struct DwarfSymtab *t, size_t *cap, size_t n)
{
	t->syms = xmalloc((n ? n : 1) * sizeof *t->syms);
	*cap = n ? n : 1;
}

/* How many entries m's own ELF symbol table has (0 when none). */
static size_t elf_symbol_count(DwarfModule *m)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
	}
	return 0;
}

static struct DwarfSymtab *symtab(DwarfModule *m)
{
	struct DwarfSymtab *t;
	size_t cap = 0;

	if (m->syms)
		return m->syms;
	t = m->syms = xcalloc(1, sizeof *t);
	if (m->dwfl) {
		Dwfl_Module *mod = m->dwfl_mod;
		int n = mod ? dwfl_module_getsymtab(mod) : -1;
		for (int i = 1; i < n; i++) {
			GElf_Sym sym;
			GElf_Addr addr;
			GElf_Word shndx;
			Elf *elf;
			Dwarf_Addr bias;
			const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
			if (name)
				add_sym(t, &cap, name, addr, sym.st_size, (int)shndx, GELF_ST_TYPE(sym.st_info),
					GELF_ST_BIND(sym.st_info));
		}
	} else {
		SymtabFill fill = { t, 0 };
		symtab_reserve(t, &fill.cap, elf_symbol_count(m));
		dwarf_elf_symbols(m, symtab_add_elf, &fill);
	}
	if (t->n)
		symtab_sort(t);
	if (m->is_kernel) {
		int found;
		t->stext = sym_value(t, "_stext", &found);
		t->anchor_shndx = -1;
		for (size_t i = 0; found && i < t->n; i++) {
			if (!strcmp(t->syms[i].name, "_stext")) {
				t->anchor_shndx = t->syms[i].shndx;
				break;
			}
		}
		add_refused_between(t, "__noinstr_text_start", "__noinstr_text_end", "in .noinstr.text (noinstr code)");
		add_refused_between(t, "__entry_text_start", "__entry_text_end", "in .entry.text (entry code)");
		add_refused_between(t, "__kprobes_text_start", "__kprobes_text_end", "in .kprobes.text (__kprobes code)");
		load_kprobe_blacklist(m, t);
	}
	return t;
}

void dwarf_symtab_load(DwarfModule *m)
{
	symtab(m);
}

/* The section holding pc: its index in *shndx and its name. */
static const char *section_of(DwarfModule *m, Dwarf_Addr pc, int *shndx)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*shndx = -1;
	if (m->dwfl) {
		Dwarf_Addr rel = pc, bias;
		Elf *elf = dwfl_module_getelf(m->dwfl_mod, &bias);
		scn = dwfl_module_address_section(m->dwfl_mod, &rel, &bias);
		if (!scn || !elf || elf_getshdrstrndx(elf, &shstrndx) != 0 || !gelf_getshdr(scn, &sh))
			return NULL;
		*shndx = (int)elf_ndxscn(scn);
		return elf_strptr(elf, shstrndx, sh.sh_name);
	}
	if (elf_getshdrstrndx(m->elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || pc < sh.sh_addr || pc >= sh.sh_addr + sh.sh_size)
			continue;
		*shndx = (int)elf_ndxscn(scn);
		return elf_strptr(m->elf, shstrndx, sh.sh_name);
	}
	return NULL;
}

const char *dwarf_section_name(DwarfModule *m, Dwarf_Addr pc)
{
	int shndx;
	return section_of(m, pc, &shndx);
}

/* How many symbols are named name: 0, 1 (in *only, when only is not NULL) or 2 for more. A run with
 * one probe point asks a few times: those scan the table (a millisecond each for the kernel's
 * 130,000 symbols); more build the name map once (value: the only symbol, or t itself for more). */
enum { NAME_SCANS = 8 };
static int name_lookup(struct DwarfSymtab *t, const char *name, const Sym **only)
{
	const Sym *first = NULL;
	int n = 0;

	if (t->name_queries < NAME_SCANS) {
		t->name_queries++;
		for (size_t i = 0; i < t->n && n < 2; i++) {
			if (t->syms[i].name[0] == name[0] && !strcmp(t->syms[i].name, name)) {
				first = first ? first : &t->syms[i];
				n++;
			}
		}
	} else {
		void *v;
		if (t->name_queries == NAME_SCANS) {
			int slots = 64;
			t->name_queries++;
			while ((size_t)slots < 2 * t->n + 2 && slots < (1 << 29))
				slots *= 2;
			t->count.cap = slots;
			t->count.keys = xcalloc((size_t)slots, sizeof *t->count.keys);
			t->count.values = xcalloc((size_t)slots, sizeof *t->count.values);
			for (size_t i = 0; i < t->n; i++) {
				void **slot = strmap_slot(&t->count, t->syms[i].name, 1);
				*slot = *slot ? (void *)t : (void *)&t->syms[i];
			}
		}
		v = strmap_get(&t->count, name);
		n = !v ? 0 : v == (void *)t ? 2 : 1;
		first = n == 1 ? v : NULL;
	}
	if (only)
		*only = first;
	return n;
}

static int name_count(struct DwarfSymtab *t, const char *name)
{
	return name_lookup(t, name, NULL);
}

char *dwarf_anchor(DwarfModule *m, Dwarf_Addr pc, uint64_t *offset)
{
	struct DwarfSymtab *t = symtab(m);
	size_t lo = 0, hi = t->n;
	int shndx;

	section_of(m, pc, &shndx);
	while (lo < hi) {             /* first symbol past pc */
		size_t mid = (lo + hi) / 2;
		if (t->syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a function symbol of its own at pc, or (modules) the nearest one below in the same section:
	 * kprobes moves symbol+offset to the symbol containing it anyway */
	for (size_t i = lo, walked = 0; i-- > 0 && walked < 256; walked++) {
		const Sym *s = &t->syms[i];
		if (s->type != STT_FUNC || s->shndx != shndx || name_count(t, s->name) != 1)
			continue;
		if (m->is_kernel && s->addr + (s->size ? s->size : 1) <= pc)
			break;           /* the kernel: only the containing function, else _stext */
		*offset = pc - s->addr;
		return m->is_kernel ? xstrdup(s->name) : xasprintf("%s:%s", m->name, s->name);
	}
	if (m->is_kernel && t->stext && pc >= t->stext && shndx == t->anchor_shndx) {
		*offset = pc - t->stext;
		return xstrdup("_stext");
	}
	return NULL;
}

const char *dwarf_unprobeable(DwarfModule *m, Dwarf_Addr pc)
{
	struct DwarfSymtab *t = symtab(m);
	int shndx;
	const char *sec = section_of(m, pc, &shndx);

	if (!pc)
		return "it has no address";
	if (!sec)
		return "its address is in no section";
	if (!strcmp(sec, ".init.text") || !strncmp(sec, ".init.text.", 11))
		return m->is_kernel ? "in __init code (.init.text), freed after boot"
				    : "in __init code (.init.text), freed once the module is loaded";
	if (!strcmp(sec, ".exit.text") && m->is_kernel)
		return "in __exit code (.exit.text), not in the running kernel";
	if (!strcmp(sec, ".noinstr.text"))
		return "in .noinstr.text (noinstr code)";
	if (!strcmp(sec, ".entry.text"))
		return "in .entry.text (entry code)";
	if (!strcmp(sec, ".kprobes.text"))
		return "in .kprobes.text (__kprobes code)";
	if (m->is_kernel && strcmp(sec, ".text"))
		return "not in the kernel's .text";
	for (size_t i = 0; i < t->nrefused; i++) {
		if (pc >= t->refused[i].lo && pc < t->refused[i].hi)
			return t->refused[i].why;
	}
	if (!sym_containing(t, pc))
		return "no function symbol covers its address";
	return NULL;
}

int dwarf_symbol_named(DwarfModule *m, const char *name, Dwarf_Addr *addr, int *type, int *bind)
{
	const Sym *only;
	int n = name_lookup(symtab(m), name, &only);

	if (n == 1) {
		*addr = only->addr;
		*type = only->type;
		*bind = only->bind;
	}
	return n;
}

char *dwarf_functions_at(DwarfModule *m, Dwarf_Addr pc)
{
	const struct DwarfSymtab *t = symtab(m);
	size_t lo = 0, hi = t->n;
	StrBuf names;

	while (lo < hi) {             /* first symbol with start >= pc */
		size_t mid = (lo + hi) / 2;
		if (t->syms[mid].addr < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	sb_init(&names);
	for (size_t i = lo; i < t->n && t->syms[i].addr == pc; i++)
		if (t->syms[i].type == STT_FUNC)
			sb_printf(&names, "%s%s", names.len ? " " : "", t->syms[i].name);
	return names.data ? names.data : xstrdup("");
}

int dwarf_exported(DwarfModule *m, const char *name)
{
	struct DwarfSymtab *t = symtab(m);
	char *key = xasprintf("__ksymtab_%s", name);
	int n = name_count(t, key);
	free(key);
	return n > 0;
}
