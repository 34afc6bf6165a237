/* modc.c - kbuild's NAME.mod.c compiled without <linux/module.h>: modpost's text is kept, and only that
 * header (a third of a small module's compile time, for one struct and two macros) gives way to a prelude
 * declaring struct module as the loader reads it: its size, alignment and where name, init and exit lie,
 * learned once per kernel build tree from a .mod.o that kbuild compiled the usual way.  Used by
 * kbuild_steps.c around the step that runs scripts/Makefile.modfinal. */
#include "compile/modc.h"
#include "lib/filecache.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODC_MAGIC "stap mod.c layout 1"
#define MODC_PRELUDE "stap-modc.h"              /* in the temp dir, beside NAME.mod.c */
#define MODC_HEADER "#include <linux/module.h>\n"
#define MODC_NAME_LEN 56                        /* MODULE_NAME_LEN: 64 - sizeof(unsigned long) */

/* TMP/NAME.EXT, the build's file (ext: "mod.c", "mod.o") */
static char *modc_path(const Session *s, const char *ext)
{
	return xasprintf("%s/%s.%s", s->tmp_dir, s->module_name, ext);
}

/* ---- the layout, read from a .mod.o ---- */

/* Section named name in elf: its index and header, or 0. */
static size_t modc_section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) && strcmp(n, name) == 0)
			return elf_ndxscn(scn);
	}
	return 0;
}

/* The relocations of section idx against init_module and cleanup_module (addend 0, nothing else):
 * their offsets into l; 0, or -1. */
static int modc_relocs(Elf *elf, size_t idx, ModcLayout *l)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int n = 0;

	l->init = l->exit = -1;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d, *syms;
		GElf_Shdr symsh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != idx)
			continue;
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || !(d = elf_getdata(scn, NULL)) ||
		    !(syms = elf_getdata(symscn, NULL)) || sh.sh_entsize == 0)
			return -1;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++, n++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			if (!gelf_getrela(d, (int)i, &r) || !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || r.r_addend != 0)
				return -1;
			if (strcmp(name, "init_module") == 0 && l->init < 0)
				l->init = (long)r.r_offset;
			else if (strcmp(name, "cleanup_module") == 0 && l->exit < 0)
				l->exit = (long)r.r_offset;
			else
				return -1;
		}
	}
	return n == 2 && l->init >= 0 && l->exit >= 0 ? 0 : -1;
}

/* Does the section hold only modname at l->name, zeros elsewhere (the relocated words are zero too)? */
static int modc_only_name(const unsigned char *p, size_t size, const char *modname, ModcLayout *l)
{
	size_t len = strlen(modname);

	l->name = -1;
	for (size_t off = 0; off + len < size; off++)
		if (p[off] && memcmp(p + off, modname, len + 1) == 0) {
			l->name = (long)off;
			break;
		}
	if (l->name < 0 || len >= MODC_NAME_LEN)
		return -1;
	for (size_t off = 0; off < size; off++)
		if (p[off] && (off < (size_t)l->name || off >= (size_t)l->name + len))
			return -1;
	return 0;
}

int modc_built_layout(const Session *s, ModcLayout *l)
{
	char *mod_o = modc_path(s, "mod.o");
	int fd = open(mod_o, O_RDONLY | O_CLOEXEC), rc = -1;
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t shstrndx, idx;
	Elf_Data *d;

	free(mod_o);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && gelf_getehdr(elf, &eh) && eh.e_ident[EI_CLASS] == ELFCLASS64 && elf_getshdrstrndx(elf, &shstrndx) == 0 &&
	    (idx = modc_section(elf, shstrndx, ".gnu.linkonce.this_module", &sh)) && sh.sh_type == SHT_PROGBITS &&
	    (d = elf_getdata(elf_getscn(elf, idx), NULL)) && d->d_buf && d->d_size == sh.sh_size) {
		l->size = (long)sh.sh_size;
		l->align = (long)(sh.sh_addralign ? sh.sh_addralign : 1);
		if (modc_only_name(d->d_buf, d->d_size, s->module_name, l) == 0 && modc_relocs(elf, idx, l) == 0)
			rc = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

/* ---- the layout's cache entry: one line, or "none" (the prelude failed on this tree once) ---- */

int modc_load(Session *s, const char *entry, ModcLayout *l)
{
	char *text = filecache_read(&s->diag, entry, NULL);
	int rc = -1;

	if (text && sscanf(text, MODC_MAGIC " %ld %ld %ld %ld %ld", &l->size, &l->align, &l->name, &l->init,
			   &l->exit) == 5)
		rc = 0;
	else if (text && strcmp(text, MODC_MAGIC " none\n") == 0)
		rc = 1;
	free(text);
	return rc;
}

void modc_save(Session *s, const char *entry, const ModcLayout *l)
{
	char *text = l ? xasprintf(MODC_MAGIC " %ld %ld %ld %ld %ld\n", l->size, l->align, l->name, l->init, l->exit)
		       : xstrdup(MODC_MAGIC " none\n");

	filecache_write(&s->diag, entry, text, strlen(text));
	free(text);
}

/* ---- the prelude and the rewritten NAME.mod.c ---- */

typedef struct ModcField {
	long off, size;
	const char *decl;
} ModcField;

static int modc_cmp_field(const void *a, const void *b)
{
	const ModcField *x = a, *y = b;
	return (x->off > y->off) - (x->off < y->off);
}

/* struct module with name, init and exit where the layout has them, padding between; NULL when the
 * layout is not one a struct can have. */
static char *modc_prelude(const ModcLayout *l)
{
	ModcField f[] = {
		{ l->name, MODC_NAME_LEN, "char name[56]" },
		{ l->init, 8, "int (*init)(void)" },
		{ l->exit, 8, "void (*exit)(void)" },
	};
	StrBuf sb;
	long at = 0;

	if (l->align <= 0 || (l->align & (l->align - 1)) || l->size % l->align)
		return NULL;
	qsort(f, 3, sizeof *f, modc_cmp_field);
	sb_init(&sb);
	sb_puts(&sb, "/* stap-modc.h - written by stap (pass 4): what NAME.mod.c needs of <linux/module.h>; struct\n"
		     " * module's size, alignment and members as the .mod.o kbuild made for this kernel has them. */\n"
		     "#define MODULE_NAME_LEN 56\n"
		     "struct modversion_info {\n\tunsigned long crc;\n\tchar name[MODULE_NAME_LEN];\n};\n"
		     "#define STP_MODC_CAT2(a, b) a##b\n#define STP_MODC_CAT(a, b) STP_MODC_CAT2(a, b)\n"
		     "#define MODULE_INFO(tag, info) static const char STP_MODC_CAT(stp_modinfo_##tag##_, __COUNTER__)[] "
		     "__attribute__((__used__, __section__(\".modinfo\"), __aligned__(1))) = #tag \"=\" info\n"
		     "#define MODULE_ARCH_INIT {}\n"
		     "int init_module(void);\nvoid cleanup_module(void);\n"
		     "struct module {\n");
	for (int i = 0; i < 3; i++) {
		if (f[i].off < at || f[i].off % 8)
			goto bad;
		if (f[i].off > at)
			sb_printf(&sb, "\tchar stp_pad%d[%ld];\n", i, f[i].off - at);
		sb_printf(&sb, "\t%s;\n", f[i].decl);
		at = f[i].off + f[i].size;
	}
	if (at > l->size)
		goto bad;
	if (at < l->size)
		sb_printf(&sb, "\tchar stp_pad3[%ld];\n", l->size - at);
	sb_printf(&sb, "\tstruct {} arch;\n} __attribute__((__aligned__(%ld)));\n", l->align);
	return sb_steal(&sb);
bad:
	sb_free(&sb);
	return NULL;
}

char *modc_lighten(Session *s, const ModcLayout *l)
{
	char *modc = modc_path(s, "mod.c"), *prelude_path = NULL;
	char *text = read_file(modc, NULL), *prelude = modc_prelude(l), *at, *light = NULL;

	/* exactly one such line, at a line's start */
	if (!text || !prelude || !(at = strstr(text, MODC_HEADER)) || (at != text && at[-1] != '\n') ||
	    strstr(at + 1, MODC_HEADER))
		goto fail;
	light = xasprintf("%.*s#include \"" MODC_PRELUDE "\"\n%s", (int)(at - text), text, at + strlen(MODC_HEADER));
	prelude_path = path_join(s->tmp_dir, MODC_PRELUDE);
	if (write_file(prelude_path, prelude, strlen(prelude)) != 0 || write_file(modc, light, strlen(light)) != 0) {
		write_file(modc, text, strlen(text));
		goto fail;
	}
	free(prelude_path);
	free(prelude);
	free(light);
	free(modc);
	return text;
fail:
	free(prelude_path);
	free(prelude);
	free(light);
	free(text);
	free(modc);
	return NULL;
}

int modc_restore(Session *s, const char *text)
{
	char *modc = modc_path(s, "mod.c"), *mod_o = modc_path(s, "mod.o");
	int rc = write_file(modc, text, strlen(text));

	/* made again from it, whatever the times say */
	if (unlink(mod_o) != 0 && errno != ENOENT)
		rc = -1;
	unlink(s->ko_file);
	free(mod_o);
	free(modc);
	return rc;
}
