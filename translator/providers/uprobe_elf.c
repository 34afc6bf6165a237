/* uprobe_elf.c - process probe points read from a binary's ELF tables alone: functions of .symtab or
 * .dynsym (process("PATH").function on a binary without DWARF) and PLT stubs (.plt("NAME")).  Used by uprobe.c. */
#include "providers/uprobe_elf.h"

#include <elf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* The first section of type type, NULL when none. */
static Elf_Scn *section_of_type(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

/* The section named name, NULL when none. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;
		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int cmp_point(const void *a, const void *b)
{
	const UElfPoint *x = *(UElfPoint *const *)a, *y = *(UElfPoint *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int uelf_functions(Elf *elf, const char *glob, PtrVec *out, const char **table)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_of_type(elf, SHT_SYMTAB, &sh);
	Elf_Data *data;
	PtrVec found = { 0 };
	size_t n;
	int count = 0;

	*table = ".symtab";
	if (!scn) {
		scn = section_of_type(elf, SHT_DYNSYM, &sh);
		*table = ".dynsym";
	}
	if (!scn || !sh.sh_entsize || !(data = elf_getdata(scn, NULL))) {
		*table = NULL;
		return 0;
	}
	n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		UElfPoint *pt;
		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name || fnmatch(glob, name, 0) != 0)
			continue;
		pt = xcalloc(1, sizeof *pt);
		pt->name = xstrdup(name);
		pt->addr = sym.st_value;
		vec_push(&found, pt);
	}
	if (found.len)
		qsort(found.items, (size_t)found.len, sizeof found.items[0], cmp_point);
	/* one probe per address: aliases (a symbol and its versioned or weak twin) name one function */
	for (int i = 0; i < found.len; i++) {
		UElfPoint *pt = found.items[i];
		int dup = 0;
		for (int k = 0; k < out->len && !dup; k++)
			dup = ((UElfPoint *)out->items[k])->addr == pt->addr;
		if (dup) {
			free(pt->name);
			free(pt);
			continue;
		}
		vec_push(out, pt);
		count++;
	}
	free(found.items);
	return count;
}

int uelf_plt(Elf *elf, const char *glob, PtrVec *out, const char **why)
{
	GElf_Shdr rsh, plt, dsh;
	Elf_Scn *rela = section_named(elf, ".rela.plt", &rsh), *stubs = section_named(elf, ".plt.sec", &plt);
	Elf_Scn *dynsym;
	Elf_Data *rdata, *ddata;
	uint64_t first, size;
	size_t n;
	int count = 0;

	if (!rela || rsh.sh_type != SHT_RELA || !rsh.sh_entsize) {
		*why = "it has no .rela.plt (no calls through a PLT)";
		return -1;
	}
	if (stubs) {
		/* with IBT: .plt holds the lazy-binding part, .plt.sec one stub per slot */
		first = plt.sh_addr;
		size = plt.sh_entsize ? plt.sh_entsize : 16;
	} else if ((stubs = section_named(elf, ".plt", &plt)) != NULL) {
		size = plt.sh_entsize ? plt.sh_entsize : 16;
		first = plt.sh_addr + size;    /* entry 0 is the resolver's */
	} else {
		*why = "it has no .plt section";
		return -1;
	}
	dynsym = elf_getscn(elf, rsh.sh_link);
	if (!dynsym || !gelf_getshdr(dynsym, &dsh) || !(rdata = elf_getdata(rela, NULL)) ||
	    !(ddata = elf_getdata(dynsym, NULL))) {
		*why = "its .rela.plt names no symbol table";
		return -1;
	}
	n = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		UElfPoint *pt;
		uint64_t addr = first + i * size;
		if (!gelf_getrela(rdata, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    !gelf_getsym(ddata, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		name = elf_strptr(elf, dsh.sh_link, sym.st_name);
		if (!name || !*name || addr + size > plt.sh_addr + plt.sh_size || fnmatch(glob, name, 0) != 0)
			continue;
		pt = xcalloc(1, sizeof *pt);
		pt->name = xstrdup(name);
		pt->addr = addr;
		vec_push(out, pt);
		count++;
	}
	return count;
}
