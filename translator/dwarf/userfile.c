/* userfile.c - a user binary or library found as the dynamic loader finds it (sonames, DT_NEEDED),
 * its DWARF (its own or separate debuginfo), symbol aliases, its DwarfModule opened once per run.
 * Used by providers/uprobe.c, providers/ulibs.c and dwarf/dwvars.c. */
#include "dwarf/userfile.h"
#include "dwarf/debuginfod.h"
#include "image/elffile.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- finding a library ------------------------------------------------------------------------- */

/* Where the x86-64 loader looks after the cache (its trusted directories, Debian's multiarch first). */
static const char *const userfile_std_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL,
};

/* Whether path is a regular 64-bit x86-64 ELF file (what a 64-bit process can map). */
static int userfile_is_elf64(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;
	struct stat st;

	if (fd < 0)
		return 0;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, h, sizeof h) == (ssize_t)sizeof h &&
	     !memcmp(h, ELFMAG, SELFMAG) && h[EI_CLASS] == ELFCLASS64 && h[18] == EM_X86_64 && h[19] == 0;
	close(fd);
	return ok;
}

/* The path /etc/ld.so.cache gives soname for 64-bit x86-64 code (its "glibc-ld.so.cache1.1" part:
 * a 48-byte header, then entries of flags, key, value, osversion, hwcap), or NULL. */
static char *userfile_cache_lookup(const char *soname)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	FILE *f = fopen("/etc/ld.so.cache", "rb");
	char *buf = NULL, *found = NULL;
	const char *hdr;
	size_t size = 0, cap = 0, got;
	uint32_t nlibs;

	if (!f)
		return NULL;
	do {
		if (size == cap)
			buf = xrealloc(buf, cap = cap ? 2 * cap : 65536);
		got = fread(buf + size, 1, cap - size, f);
		size += got;
	} while (got > 0 && size < (64u << 20));
	fclose(f);
	hdr = size > 48 ? memmem(buf, size, magic, sizeof magic - 1) : NULL;
	if (!hdr || (size_t)(hdr - buf) + 48 > size) {
		free(buf);
		return NULL;
	}
	memcpy(&nlibs, hdr + 20, 4);
	for (uint32_t i = 0; i < nlibs && !found; i++) {
		size_t at = (size_t)(hdr - buf) + 48 + (size_t)i * 24;
		int32_t flags;
		uint32_t key, value;
		if (at + 24 > size)
			break;
		memcpy(&flags, buf + at, 4);
		memcpy(&key, buf + at + 4, 4);
		memcpy(&value, buf + at + 8, 4);
		/* FLAG_ELF_LIBC6 with FLAG_X8664_LIB64; strings are offsets from the header, NUL-terminated */
		if ((flags & 0xff) != 3 || (flags & 0xff00) != 0x300 || (size_t)(hdr - buf) + key >= size ||
		    (size_t)(hdr - buf) + value >= size || !memchr(hdr + key, 0, size - (size_t)(hdr - buf) - key) ||
		    !memchr(hdr + value, 0, size - (size_t)(hdr - buf) - value))
			continue;
		if (!strcmp(hdr + key, soname) && userfile_is_elf64(hdr + value))
			found = realpath(hdr + value, NULL);
	}
	free(buf);
	return found;
}

/* name in one of the ':'-separated directories of list ("$ORIGIN" replaced by origin), or NULL. */
static char *userfile_in_dirs(const char *list, const char *name, const char *origin)
{
	char *copy, *save = NULL, *found = NULL;

	if (!list || !*list)
		return NULL;
	copy = xstrdup(list);
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *dir, *p;
		if ((p = strstr(d, "$ORIGIN")) || (p = strstr(d, "${ORIGIN}"))) {
			size_t skip = p[1] == '{' ? 9 : 7;
			dir = xasprintf("%.*s%s%s", (int)(p - d), d, origin ? origin : ".", p + skip);
		} else {
			dir = xstrdup(d);
		}
		char *cand = xasprintf("%s/%s", dir, name);
		if (userfile_is_elf64(cand))
			found = realpath(cand, NULL);
		free(cand);
		free(dir);
	}
	free(copy);
	return found;
}

char *userfile_find_soname(const char *name)
{
	char *found;

	if (strchr(name, '/'))
		return userfile_is_elf64(name) ? realpath(name, NULL) : NULL;
	if ((found = userfile_in_dirs(getenv("LD_LIBRARY_PATH"), name, NULL)) || (found = userfile_cache_lookup(name)))
		return found;
	for (int i = 0; userfile_std_dirs[i] && !found; i++)
		found = userfile_in_dirs(userfile_std_dirs[i], name, NULL);
	return found;
}

/* The dynamic section of the ELF file at path: DT_NEEDED names pushed on needed, its DT_RPATH and
 * DT_RUNPATH (malloc'd, NULL when absent). 0, or -1 when it is no ELF file. */
static int userfile_dynamic(const char *path, PtrVec *needed, char **rpath, char **runpath)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	int fd;

	*rpath = *runpath = NULL;
	if (elffile_open(path, 0, &fd, &elf) != ELFFILE_OK)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *str;
			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
				continue;
			if (!(str = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
				continue;
			if (dyn.d_tag == DT_NEEDED)
				vec_push(needed, xstrdup(str));
			else if (dyn.d_tag == DT_RPATH && !*rpath)
				*rpath = xstrdup(str);
			else if (dyn.d_tag == DT_RUNPATH && !*runpath)
				*runpath = xstrdup(str);
		}
		break;
	}
	elf_end(elf);
	close(fd);
	return 0;
}

void userfile_needed(const char *exe, PtrVec *sonames, PtrVec *paths)
{
	PtrVec objs = { 0 };
	char *exe_rpath = NULL;

	vec_push(&objs, xstrdup(exe));
	for (int o = 0; o < objs.len && o < 256; o++) {
		PtrVec needed = { 0 };
		char *rpath, *runpath, *origin = xstrdup(objs.items[o]), *slash;
		if (userfile_dynamic(objs.items[o], &needed, &rpath, &runpath) != 0) {
			free(origin);
			continue;
		}
		if ((slash = strrchr(origin, '/')))
			*slash = 0;
		if (o == 0)
			exe_rpath = runpath ? NULL : xstrdup(rpath ? rpath : "");
		for (int i = 0; i < needed.len; i++) {
			const char *n = needed.items[i];
			char *found = NULL;
			int k;
			for (k = 0; k < sonames->len && strcmp(sonames->items[k], n); k++)
				;
			if (k < sonames->len)
				continue;   /* loaded once, by its first finder */
			if (strchr(n, '/'))
				found = userfile_is_elf64(n) ? realpath(n, NULL) : NULL;
			if (!found && !runpath && !strchr(n, '/'))
				found = userfile_in_dirs(rpath, n, origin);
			if (!found && !runpath && !strchr(n, '/') && o > 0)
				found = userfile_in_dirs(exe_rpath, n, NULL);
			if (!found && !strchr(n, '/'))
				found = userfile_in_dirs(getenv("LD_LIBRARY_PATH"), n, NULL);
			if (!found && !strchr(n, '/'))
				found = userfile_in_dirs(runpath, n, origin);
			if (!found)
				found = userfile_find_soname(n);
			if (!found)
				continue;
			vec_push(sonames, xstrdup(n));
			vec_push(paths, found);
			vec_push(&objs, xstrdup(found));
		}
		for (int i = 0; i < needed.len; i++)
			free(needed.items[i]);
		free(needed.items);
		free(rpath);
		free(runpath);
		free(origin);
	}
	for (int o = 0; o < objs.len; o++)
		free(objs.items[o]);
	free(objs.items);
	free(exe_rpath);
}

char *userfile_path(const char *spec)
{
	if (strchr(spec, '/')) {
		/* an executable or a shared object (a kernel module is a relocatable object) */
		unsigned char h[18];
		int fd = open(spec, O_RDONLY | O_CLOEXEC), user;
		user = fd >= 0 && read(fd, h, sizeof h) == (ssize_t)sizeof h && !memcmp(h, ELFMAG, SELFMAG) &&
		       h[EI_DATA] == ELFDATA2LSB && (h[16] == ET_EXEC || h[16] == ET_DYN) && h[17] == 0;
		if (fd >= 0)
			close(fd);
		return user ? realpath(spec, NULL) : NULL;
	}
	return strstr(spec, ".so") ? userfile_find_soname(spec) : NULL;
}

/* ---- separate debuginfo -------------------------------------------------------------------------- */

static Elf_Scn *userfile_section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		if (gelf_getshdr(scn, sh) && sh->sh_type != SHT_NOBITS && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* The GNU build id of elf in hex (out: 129 bytes), "" when it has none. */
static void userfile_build_id(Elf *elf, char *out)
{
	Elf_Scn *scn = NULL;

	*out = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t at = 0, name_at, desc_at;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((at = gelf_getnote(d, at, &nh, &name_at, &desc_at)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 && nh.n_descsz <= 64 &&
			    !memcmp((const char *)d->d_buf + name_at, "GNU", 4)) {
				for (size_t i = 0; i < nh.n_descsz; i++)
					sprintf(out + 2 * i, "%02x", ((const unsigned char *)d->d_buf)[desc_at + i]);
				return;
			}
	}
}

/* The DWARF of the file at path when it has .debug_info and, if want_id is not "", that build id. */
static Dwarf *userfile_dwarf_of(const char *path, const char *want_id)
{
	Elf *elf;
	Dwarf *dw = NULL;
	GElf_Shdr sh;
	char id[129];
	int fd;

	if (elffile_open(path, 0, &fd, &elf) != ELFFILE_OK)
		return NULL;
	if (userfile_section(elf, ".debug_info", &sh)) {
		userfile_build_id(elf, id);
		if (!*want_id || !*id || !strcmp(id, want_id))
			dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	}
	if (!dw)
		elffile_close(elf, fd);
	return dw;     /* the ELF and its descriptor live as long as the run */
}

Dwarf *userfile_open_dwarf(Session *s, Elf *elf, const char *path, char **why)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	char id[129], *cand, *dir, *slash, *fetched = NULL, *fetch_error = NULL;
	Dwarf *dw = NULL;
	const char *link = NULL;
	/* tests hide the machine's debuginfo with an empty STAP_DEBUGINFO_PATH, as for the kernel's */
	const char *root = getenv("STAP_DEBUGINFO_PATH") ? getenv("STAP_DEBUGINFO_PATH") : "/usr/lib/debug";

	if (userfile_section(elf, ".debug_info", &sh))
		return dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	userfile_build_id(elf, id);
	if (*id) {
		cand = xasprintf("%s/.build-id/%.2s/%s.debug", root, id, id + 2);
		dw = userfile_dwarf_of(cand, id);
		free(cand);
		if (dw)
			return dw;
	}
	if ((scn = userfile_section(elf, ".gnu_debuglink", &sh))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d && d->d_size > 4 && memchr(d->d_buf, 0, d->d_size))
			link = d->d_buf;
	}
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')))
		*slash = 0;
	if (link && *link) {
		for (size_t i = 0; i < 3 && !dw; i++) {
			cand = i == 0 ? xasprintf("%s/%s", dir, link)
			     : i == 1 ? xasprintf("%s/.debug/%s", dir, link) : xasprintf("%s%s/%s", root, dir, link);
			if (strcmp(cand, path))
				dw = userfile_dwarf_of(cand, id);
			free(cand);
		}
	}
	if (!dw && *id && (fetched = debuginfod_fetch(s, id, path, &fetch_error))) {
		dw = userfile_dwarf_of(fetched, id);
		free(fetched);
	}
	if (!dw)
		*why = *id ? xasprintf("no DWARF debuginfo in %s (build it with -g), nor separate debuginfo at "
				       "%s/.build-id/%.2s/%s.debug%s%s (install its debug symbols%s)%s%s", path, root, id,
				       id + 2, link ? " or by its .gnu_debuglink " : "", link ? link : "",
				       debuginfod_configured() ? "" : ", or set DEBUGINFOD_URLS", fetch_error ? "; " : "",
				       fetch_error ? fetch_error : "")
			   : xasprintf("no DWARF debuginfo in %s (build it with -g), nor separate debuginfo (install its "
				       "debug symbols)", path);
	free(fetch_error);
	free(dir);
	return dw;
}

/* ---- symbol aliases ------------------------------------------------------------------------------ */

/* The subprogram DIE under die (depth-first) whose entry is addr. */
static int userfile_fn_at(Dwarf_Die *die, Dwarf_Addr addr, Dwarf_Die *out, int depth)
{
	Dwarf_Die child;

	if (depth > 4 || dwarf_child(die, &child) != 0)
		return -1;
	do {
		Dwarf_Addr lo;
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram && dwarf_entrypc(&child, &lo) == 0 && lo == addr && dwarf_diename(&child)) {
			*out = child;
			return 0;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type) &&
		    userfile_fn_at(&child, addr, out, depth + 1) == 0)
			return 0;
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* The value of the defined function symbol name in the symbol tables of elf; 0 when there is none. */
static Dwarf_Addr userfile_sym_value(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			if (gelf_getsym(d, (int)i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF &&
			    sym.st_value && (n = elf_strptr(elf, sh.sh_link, sym.st_name)) && !strcmp(n, name))
				return sym.st_value;
		}
	}
	return 0;
}

char *userfile_symbol_alias(DwarfModule *m, const char *name)
{
	Dwarf_Addr addr = userfile_sym_value(m->elf, name);
	Dwarf_Die cu, fn;

	if (!addr && m->dw && dwarf_getelf(m->dw) != m->elf)
		addr = userfile_sym_value(dwarf_getelf(m->dw), name);
	if (!addr || !m->dw || !dwarf_addrdie(m->dw, addr, &cu) || userfile_fn_at(&cu, addr, &fn, 0) != 0 ||
	    !strcmp(dwarf_diename(&fn), name))
		return NULL;
	return xstrdup(dwarf_diename(&fn));
}

/* ---- the module --------------------------------------------------------------------------------- */

DwarfModule *userfile_module(Session *s, const char *path, SrcLoc loc)
{
	DwarfModule *m;
	GElf_Ehdr eh;
	Elf *elf;
	Dwarf *dw;
	char *why = NULL;
	int fd, rc;
	PtrVec *opened = &dwarf_cache(s)->user_modules;

	for (int i = 0; i < opened->len; i++) {
		m = opened->items[i];
		if (!strcmp(m->path, path))
			return m;
	}
	rc = elffile_open(path, 0, &fd, &elf);
	if (rc == ELFFILE_NOFILE) {
		diag_at(&s->diag, loc, "semantic error", "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (rc != ELFFILE_OK || !gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		diag_at(&s->diag, loc, "semantic error", "%s is not an ELF executable or shared object", path);
		elffile_close(elf, fd);
		return NULL;
	}
	/* without DWARF of its own or separate (stripped, or built without -g): .function probes fall
	 * back to the symbol table, .plt and .absolute need none */
	dw = userfile_open_dwarf(s, elf, path, &why);
	free(why);
	m = dwarf_module_from_elf(path, path, fd, elf, dw);
	m->session = s;
	m->is_user = 1;
	vec_push(opened, m);
	return m;
}
