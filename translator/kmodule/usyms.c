/* usyms.c - pass 3: the symbol and unwind tables of user-space modules (probed binaries, -d PATH,
 * --ldd libraries) embedded in the module for runtime/core/ustack.h; called by kmodule/skeleton.c. */
#include "kmodule/usyms.h"
#include "kmodule/ulines.h"
#include "lib/diag.h"
#include "image/elffile.h"
#include "providers/provider.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct USym {
	uint64_t addr, size;
	const char *name;
	int rank;                   /* lower wins among symbols at one address */
} USym;

typedef struct UMod {
	char *path;
	uint64_t seg[16][3];        /* PT_LOAD: offset, vaddr, filesz */
	int nseg;
	USym *syms;
	size_t nsyms, cap;
	StrBuf names;
	unsigned char *eh, *hdr;
	size_t eh_len, hdr_len;
	uint64_t eh_addr, hdr_addr;
	PtrVec needed;              /* char*: DT_NEEDED names */
	PtrVec runpath;             /* char*: DT_RUNPATH/DT_RPATH directories */
	char *interp;               /* PT_INTERP */
	ULines lines;               /* DWARF line table (with pragma:ulines) */
} UMod;

int usyms_needed(Session *s)
{
	for (int i = 0; i < s->prog.functions.len; i++) {
		Function *f = s->prog.functions.items[i];
		if (f->embedded && strstr(f->embedded, "pragma:usyms"))
			return 1;
	}
	return 0;
}

/* A -d argument naming a user-space ELF file (not a kernel module). */
int usyms_is_user_path(const char *arg)
{
	size_t n = strlen(arg);
	return strchr(arg, '/') && !(n > 3 && !strcmp(arg + n - 3, ".ko")) &&
	       !(n > 6 && !strcmp(arg + n - 6, ".ko.xz"));
}

static void add_sym(UMod *m, const GElf_Sym *sym, const char *name, int from_dynsym)
{
	int type = GELF_ST_TYPE(sym->st_info), bind = GELF_ST_BIND(sym->st_info);

	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym->st_shndx == SHN_UNDEF || !sym->st_value || !name ||
	    !*name)
		return;
	if (m->nsyms == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->syms = xrealloc(m->syms, m->cap * sizeof *m->syms);
	}
	/* a global name first, then fewer leading underscores, then the full symbol table's */
	int under = 0;
	while (name[under] == '_')
		under++;
	/* "__libc_start_main@@GLIBC_2.34": the name without its version */
	m->syms[m->nsyms++] = (USym){ sym->st_value, sym->st_size, xstrndup(name, strcspn(name, "@")),
				      (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 100 : 200) + under * 2 + from_dynsym };
}

/* Function symbols of elf's .symtab (or, with dyn, .dynsym); how many. */
static size_t read_syms(UMod *m, Elf *elf, int dyn)
{
	Elf_Scn *scn = NULL;
	size_t before = m->nsyms;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != (dyn ? SHT_DYNSYM : SHT_SYMTAB) ||
		    sh.sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			if (gelf_getsym(d, (int)i, &sym))
				add_sym(m, &sym, elf_strptr(elf, sh.sh_link, sym.st_name), dyn);
		}
	}
	return m->nsyms - before;
}

/* The separate debug file of elf's build id (/usr/lib/debug/.build-id/xx/yyyy.debug), for the
 * local functions a stripped library's .symtab lost. */
static void read_debug_syms(UMod *m, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2)
				continue;
			StrBuf p;
			const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
			sb_init(&p);
			sb_printf(&p, "/usr/lib/debug/.build-id/%02x/", id[0]);
			for (size_t k = 1; k < nh.n_descsz; k++)
				sb_printf(&p, "%02x", id[k]);
			sb_puts(&p, ".debug");
			Elf *de;
			int fd;
			if (elffile_open(p.data, 0, &fd, &de) == ELFFILE_OK) {
				read_syms(m, de, 0);
				elffile_close(de, fd);
			}
			sb_free(&p);
			return;
		}
	}
}

static int sym_cmp(const void *a, const void *b)
{
	const USym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank - y->rank;
}

/* Sorted by address, one symbol per address; names into the module's string table. */
static void finish_syms(UMod *m)
{
	size_t k = 0;

	if (m->nsyms)
		qsort(m->syms, m->nsyms, sizeof *m->syms, sym_cmp);
	sb_init(&m->names);
	for (size_t i = 0; i < m->nsyms; i++) {
		char *name = (char *)m->syms[i].name;
		if (k && m->syms[k - 1].addr == m->syms[i].addr) {
			if (!m->syms[k - 1].size)
				m->syms[k - 1].size = m->syms[i].size;
			free(name);
			continue;
		}
		m->syms[k] = m->syms[i];
		m->syms[k].name = NULL;
		m->syms[k].rank = (int)m->names.len;      /* now: the name's offset */
		if (k && !m->syms[k - 1].size && m->syms[k].addr - m->syms[k - 1].addr < 0x1000)
			m->syms[k - 1].size = m->syms[k].addr - m->syms[k - 1].addr;   /* assembler labels */
		sb_puts(&m->names, name);
		sb_putc(&m->names, 0);
		free(name);
		k++;
	}
	m->nsyms = k;
}

static unsigned char *section_copy(Elf *elf, const char *want, size_t *len, uint64_t *addr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, want) ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_size)
			continue;
		*len = d->d_size;
		*addr = sh.sh_addr;
		unsigned char *copy = xmalloc(d->d_size);
		memcpy(copy, d->d_buf, d->d_size);
		return copy;
	}
	return NULL;
}

static void read_dynamic(UMod *m, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)) ||
		    !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *v;
			if (!gelf_getdyn(d, (int)i, &dyn))
				continue;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			if (!(v = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
				continue;
			vec_push(dyn.d_tag == DT_NEEDED ? &m->needed : &m->runpath, xstrdup(v));
		}
	}
}

/* Reads the module at path (resolved); NULL with a warning when it is not a usable ELF file. */
static UMod *load_module(Session *s, const char *path, int want_lines)
{
	Elf *elf;
	int fd;
	GElf_Ehdr eh;
	size_t nph;
	UMod *m;

	if (elffile_open(path, 0, &fd, &elf) != ELFFILE_OK || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || elf_getphdrnum(elf, &nph)) {
		diag_plain(&s->diag, "warning", "cannot read %s as an ELF executable or shared library: no user symbols for it",
			   path);
		elffile_close(elf, fd);
		return NULL;
	}
	m = xcalloc(1, sizeof *m);
	m->path = xstrdup(path);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD && m->nseg < 16) {
			m->seg[m->nseg][0] = ph.p_offset;
			m->seg[m->nseg][1] = ph.p_vaddr;
			m->seg[m->nseg++][2] = ph.p_filesz;
		} else if (ph.p_type == PT_INTERP) {
			size_t n;
			char *raw = elf_rawfile(elf, &n);
			if (raw && ph.p_offset < n && ph.p_filesz <= n - ph.p_offset)
				m->interp = xstrndup(raw + ph.p_offset, ph.p_filesz);
		}
	}
	if (!read_syms(m, elf, 0))
		read_debug_syms(m, elf);
	read_syms(m, elf, 1);
	finish_syms(m);
	m->eh = section_copy(elf, ".eh_frame", &m->eh_len, &m->eh_addr);
	m->hdr = section_copy(elf, ".eh_frame_hdr", &m->hdr_len, &m->hdr_addr);
	read_dynamic(m, elf);
	if (want_lines)
		ulines_read(&m->lines, elf);
	elffile_close(elf, fd);
	return m;
}

/* The directories the dynamic linker searches by default, then /etc/ld.so.conf.d's. */
static void default_dirs(PtrVec *dirs)
{
	static const char *std[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
				     "/lib", "/usr/lib", "/usr/local/lib" };
	DIR *d = opendir("/etc/ld.so.conf.d");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".conf"))
			continue;
		char *p = path_join("/etc/ld.so.conf.d", e->d_name);
		char *text = read_file(p, NULL);
		for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n"))
			if (line[0] == '/')
				vec_push(dirs, xstrdup(line));
		free(text);
		free(p);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < sizeof std / sizeof *std; i++)
		vec_push(dirs, (void *)std[i]);
}

/* A DT_NEEDED name found as the dynamic linker would (runpath with $ORIGIN, default
 * directories); realpath'd, or NULL. */
static char *resolve_needed(const UMod *from, const char *name, PtrVec *dirs)
{
	if (strchr(name, '/'))
		return realpath(name, NULL);
	for (int pass = 0; pass < 2; pass++) {
		const PtrVec *v = pass ? dirs : &from->runpath;
		for (int i = 0; i < v->len; i++) {
			char *dir = xstrdup(v->items[i]), *origin;
			if ((origin = strstr(dir, "$ORIGIN"))) {
				char *base = xstrdup(from->path), *slash = strrchr(base, '/');
				if (slash)
					*slash = 0;
				*origin = 0;
				char *d2 = xasprintf("%s%s%s", dir, base, origin + 7);
				free(dir);
				free(base);
				dir = d2;
			}
			char *p = path_join(dir, name), *real = NULL;
			GElf_Ehdr eh;
			Elf *elf;
			int fd;
			if (elffile_open(p, ELFFILE_CLASS64, &fd, &elf) == ELFFILE_OK && gelf_getehdr(elf, &eh) &&
			    eh.e_machine == EM_X86_64)
				real = realpath(p, NULL);
			elffile_close(elf, fd);
			free(p);
			free(dir);
			if (real)
				return real;
		}
	}
	return NULL;
}

static void add_path(Session *s, PtrVec *mods, const char *path, int want_lines)
{
	char *real = realpath(path, NULL);

	if (!real) {
		diag_plain(&s->diag, "warning", "cannot find %s: no user symbols for it", path);
		return;
	}
	for (int i = 0; i < mods->len; i++)
		if (!strcmp(((UMod *)mods->items[i])->path, real)) {
			free(real);
			return;
		}
	UMod *m = load_module(s, real, want_lines);
	if (m)
		vec_push(mods, m);
	free(real);
}

/* Every module: probed files, -d paths, and with --ldd what they need, transitively. */
static void collect(Session *s, PtrVec *mods)
{
	int lines = ulines_needed(s);

	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		const char *q;
		if (strncmp(dp->name, "process(\"/", 10) || !(q = strstr(dp->name + 9, "\")")))
			continue;
		char *path = xstrndup(dp->name + 9, (size_t)(q - dp->name - 9));
		add_path(s, mods, path, lines);
		free(path);
	}
	for (int i = 0; i < s->debug_modules.len; i++)
		if (usyms_is_user_path(s->debug_modules.items[i]))
			add_path(s, mods, s->debug_modules.items[i], lines);
	if (!s->ldd)
		return;
	PtrVec dirs = { 0 };
	default_dirs(&dirs);
	for (int i = 0; i < mods->len; i++) {           /* grows as libraries are added */
		UMod *m = mods->items[i];
		if (m->interp)
			add_path(s, mods, m->interp, lines);
		for (int k = 0; k < m->needed.len; k++) {
			char *real = resolve_needed(m, m->needed.items[k], &dirs);
			if (real)
				add_path(s, mods, real, lines);
			else
				diag_plain(&s->diag, "warning", "--ldd: cannot find %s (needed by %s)", (char *)m->needed.items[k],
					   m->path);
			free(real);
		}
	}
}

static void emit_bytes(StrBuf *out, const char *name, const unsigned char *b, size_t n)
{
	sb_printf(out, "static const unsigned char %s[%zu] = {", name, n);
	for (size_t i = 0; i < n; i++)
		sb_printf(out, "%s%u", !i ? "\n" : i % 32 ? "," : ",\n", b[i]);
	sb_puts(out, "\n};\n");
}

static void emit_module(StrBuf *out, const UMod *m, int k)
{
	sb_printf(out, "static const struct stp_useg stp_umod%d_segs[] = {", k);
	for (int i = 0; i < m->nseg; i++)
		sb_printf(out, " { %#llxUL, %#llxUL, %#llxUL },", (unsigned long long)m->seg[i][0],
			  (unsigned long long)m->seg[i][1], (unsigned long long)m->seg[i][2]);
	sb_printf(out, " { 0, 0, 0 } };\nstatic const struct stp_usym stp_umod%d_syms[] = {\n", k);
	for (size_t i = 0; i < m->nsyms; i++)
		sb_printf(out, "{%#llxUL,%llu,%d},\n", (unsigned long long)m->syms[i].addr,
			  (unsigned long long)(m->syms[i].size > 0xffffffffu ? 0xffffffffu : m->syms[i].size),
			  m->syms[i].rank);
	sb_printf(out, "{0,0,0} };\nstatic const char stp_umod%d_names[%zu] = {", k, m->names.len + 1);
	for (size_t i = 0; i < m->names.len; i++)
		sb_printf(out, "%s%u", !i ? "\n" : i % 32 ? "," : ",\n", (unsigned char)m->names.data[i]);
	sb_puts(out, m->names.len ? ",0\n};\n" : "0 };\n");
	char *n = xasprintf("stp_umod%d_eh", k);
	if (m->eh)
		emit_bytes(out, n, m->eh, m->eh_len);
	free(n);
	n = xasprintf("stp_umod%d_hdr", k);
	if (m->hdr)
		emit_bytes(out, n, m->hdr, m->hdr_len);
	free(n);
	ulines_emit(out, &m->lines, k);
}

static void free_module(UMod *m)
{
	free(m->syms);
	sb_free(&m->names);
	free(m->eh);
	free(m->hdr);
	for (int i = 0; i < m->needed.len; i++)
		free(m->needed.items[i]);
	for (int i = 0; i < m->runpath.len; i++)
		free(m->runpath.items[i]);
	free(m->needed.items);
	free(m->runpath.items);
	free(m->interp);
	ulines_free(&m->lines);
	free(m->path);
	free(m);
}

void usyms_emit(Session *s, StrBuf *out)
{
	PtrVec mods = { 0 };

	collect(s, &mods);
	for (int k = 0; k < mods.len; k++)
		emit_module(out, mods.items[k], k);
	sb_printf(out, "#define STP_UMODS_N %dU\nstatic struct stp_umod stp_umods[%d] = {\n", mods.len, mods.len + 1);
	for (int k = 0; k < mods.len; k++) {
		UMod *m = mods.items[k];
		sb_puts(out, "\t{ .path = ");
		emit_c_string(out, m->path);
		sb_printf(out, ", .segs = stp_umod%d_segs, .nsegs = %d, .syms = stp_umod%d_syms, .nsyms = %zu, "
			  ".names = stp_umod%d_names", k, m->nseg, k, m->nsyms, k);
		if (m->eh)
			sb_printf(out, ", .eh = stp_umod%d_eh, .eh_len = %zu, .eh_addr = %#llxUL", k, m->eh_len,
				  (unsigned long long)m->eh_addr);
		if (m->hdr)
			sb_printf(out, ", .hdr = stp_umod%d_hdr, .hdr_len = %zu, .hdr_addr = %#llxUL", k, m->hdr_len,
				  (unsigned long long)m->hdr_addr);
		ulines_emit_fields(out, &m->lines, k);
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n");
	if (s->verbose)
		for (int k = 0; k < mods.len; k++) {
			UMod *m = mods.items[k];
			fprintf(stderr, "user symbols: %s: %zu functions, %zu bytes of .eh_frame", m->path, m->nsyms,
				m->eh_len);
			if (m->lines.n)
				fprintf(stderr, ", %zu line rows", m->lines.n);
			fputc('\n', stderr);
		}
	for (int k = 0; k < mods.len; k++)
		free_module(mods.items[k]);
	free(mods.items);
}
