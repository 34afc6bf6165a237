/* elffile.h - opening an ELF file for reading with libelf, and closing it again.  Used by the DWARF
 * and symbol readers (debuginfo.c, kernel.c, usyms.c, userfile.c) and the user-space providers (uprobe, sdt, ulibs). */
#ifndef STAP_ELFFILE_H
#define STAP_ELFFILE_H

#include <gelf.h>

enum {
	ELFFILE_OK = 0,
	ELFFILE_NOFILE = -1,   /* the file cannot be opened: errno says why */
	ELFFILE_NOTELF = -2,   /* it opened, but is no ELF file (of the class asked for) */
};

#define ELFFILE_CLASS64 1u  /* flag: only a 64-bit ELF file will do */

/* Opens path read-only and begins libelf on it (mmapped).  ELFFILE_OK with *fd and *elf set, the
 * caller ends them with elffile_close; else nothing is left open, *fd is -1 and *elf NULL. */
int elffile_open(const char *path, unsigned flags, int *fd, Elf **elf);

/* Ends elf and closes fd; either may be absent (NULL, -1). errno is left as it was. */
void elffile_close(Elf *elf, int fd);

#endif
