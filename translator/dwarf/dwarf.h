/* dwarf.h - the kernel-debuginfo side of the translator: debuginfo files, the function and type
 * index, probe sites (providers/dwarf.c) and target variables bound to them (targets.c, pass 2). */
#ifndef STAP_DWARF_H
#define STAP_DWARF_H

#include "../session.h"

#include <elfutils/libdw.h>
#include <stdint.h>

/* One debuginfo file open for the run: the kernel ("kernel") or one module. Owned by debuginfo.c;
 * opened on first use, kept until exit. */
typedef struct DwarfModule {
	char *name;                 /* "kernel" or the module name as the kernel knows it ("ext4") */
	char *path;                 /* the file read: vmlinux-KVER or MODULE.ko (with or without .debug) */
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi;             /* .debug_frame/.eh_frame, NULL when there is none */
	char build_id[41];          /* hex, "" when the file has none */
	struct DwarfIndex *index;   /* names of functions and types (index.c) */
} DwarfModule;

/* One place a probe fires: a function entry, an inline instance, a statement, or a return. */
typedef struct DwarfSite {
	DwarfModule *mod;
	Dwarf_Off cu;               /* offset of the compile unit DIE */
	Dwarf_Off scope;            /* the DW_TAG_subprogram or DW_TAG_inlined_subroutine DIE probed */
	Dwarf_Addr pc;              /* probe address, in the debuginfo's address space */
	char *function;             /* its name */
	char *decl_file;            /* "fs/read_write.c", relative to the build directory */
	int decl_line;              /* its line; for statements, the line probed */
	char *anchor;               /* a symbol kprobes resolves unambiguously ("vfs_read", "_stext", "MOD:sym") */
	uint64_t offset;            /* pc - anchor's address */
	int is_return;              /* .return: a kretprobe on the function (not for inline sites) */
	int is_inline;              /* an inline instance */
	int is_statement;           /* .statement(...) */
	int entry_size;             /* .return with @entry values: bytes saved at entry (targets.c sets it) */
} DwarfSite;

/* ---- debuginfo.c: finding and opening debuginfo ----------------------------------------------- */

/* The kernel's debuginfo for s->kver, opened on first call; NULL after an error was reported at
 * loc (a missing file names the package to install: linux-image-KVER-dbg). */
DwarfModule *dwarf_kernel(Session *s, SrcLoc loc);
/* A module's debuginfo, by module name ("ext4", "stap_testmod"); NULL after an error. */
DwarfModule *dwarf_module(Session *s, const char *name, SrcLoc loc);

/* ---- index.c: names of functions and types in a DwarfModule ---------------------------------- */

typedef struct DwarfName {
	const char *name;
	Dwarf_Off cu;               /* compile unit DIE offset */
	Dwarf_Off die;              /* the DIE */
	int tag;                    /* DW_TAG_subprogram, DW_TAG_structure_type, union, enumeration, typedef, base */
	int flags;                  /* DWARF_NAME_* */
} DwarfName;

enum {
	DWARF_NAME_HAS_PC = 1,      /* subprogram with code (low_pc or ranges) */
	DWARF_NAME_INLINE = 2,      /* abstract instance (DW_AT_inline): inlined somewhere in its CU */
	DWARF_NAME_EXTERNAL = 4,
	DWARF_NAME_DECLARATION = 8, /* declaration only (types: incomplete) */
};

/* Calls fn for every indexed name matching the shell glob pattern (exact names are fast). */
int dwarf_index_each(DwarfModule *m, const char *glob, int (*fn)(const DwarfName *n, void *arg), void *arg);

/* ---- types.c / loc.c / targets.c: target variables (pass 2) ----------------------------------- */

/* Binds every target variable, @cast, @defined, @choose_defined, @entry, $return and $$vars in the
 * program: in DWARF probes against their DwarfSite, elsewhere (@cast, @defined) against the kernel.
 * Called by elaborate() after probes are expanded and unused functions pruned. Returns errors. */
int dwarf_bind_program(Session *s);
/* "struct file *", "unsigned int", "char[16]": the C spelling of a type DIE (for -L). */
char *dwarf_type_name(Dwarf_Die *type);

/* pass 3: C for what bound target variables need beyond their expressions (kretprobe entry
 * handlers saving @entry values, helper functions); written before the probe family tables. */
void dwarf_emit_support(Session *s, StrBuf *out);

#endif
