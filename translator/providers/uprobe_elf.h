/* uprobe_elf.h - process probe points read from a binary's ELF tables alone: functions of the symbol
 * table (binaries without DWARF) and PLT entries.  Used by uprobe.c; defined in uprobe_elf.c. */
#ifndef STAP_UPROBE_ELF_H
#define STAP_UPROBE_ELF_H

#include <gelf.h>
#include <stdint.h>

#include "lib/util.h"

/* A named address of the binary (link-time virtual address). */
typedef struct UElfPoint {
	char *name;
	uint64_t addr;
} UElfPoint;

/* Pushes onto out (UElfPoint*, sorted by name then address) the defined functions of elf whose
 * name matches glob, from .symtab, else .dynsym (*table says which, NULL when neither); one per
 * address (the first name in order).  Returns how many. */
int uelf_functions(Elf *elf, const char *glob, PtrVec *out, const char **table);

/* Pushes onto out (UElfPoint*, in table order) the PLT stubs of elf whose symbol matches glob: the
 * .rela.plt jump slots paired with the entries of .plt.sec, else of .plt after its first.  Returns
 * how many; -1 when the binary has no PLT this reads (*why says why). */
int uelf_plt(Elf *elf, const char *glob, PtrVec *out, const char **why);

#endif
