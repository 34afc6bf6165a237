/* dwarf.h - the kernel-debuginfo side of the translator: debuginfo files, the function and type
 * index, probe sites (providers/kernelfn.c); target variables bound to them: dwvars.h. */
#ifndef STAP_DWARF_H
#define STAP_DWARF_H

#include "session.h"
#include "image/tpcatalog.h"
#include "targets/site.h"

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdint.h>

/* One debuginfo file open for the run: the kernel ("kernel") or one module. Owned by debuginfo.c;
 * opened on first use, kept until exit. */
/* (its tag is TgLeafFile: the neutral records, targets/site.h and image/tpcatalog.h, hold it opaque) */
typedef struct TgLeafFile {
	char *name;                 /* "kernel" or the module name as the kernel knows it ("ext4") */
	char *path;                 /* the file read: vmlinux-KVER or MODULE.ko (with or without .debug); a user
	                             * file whose DWARF is separate (providers/ulibs.c) keeps its own ELF in elf */
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi;             /* .debug_frame/.eh_frame, NULL when there is none */
	char build_id[41];          /* hex, "" when the file has none */
	struct DwarfIndex *index;   /* names of functions and types (index.c) */
	StrMap cu_files;            /* index.c: "CU offset" -> the CU's file names, read on first use */
	PtrVec exact;               /* exactname.c: DwarfExact*, names found without the index */
	/* debuginfo.c's own (additions) */
	struct Dwfl *dwfl;          /* a module .ko: the libdwfl session that relocated it; NULL for vmlinux */
	struct Dwfl_Module *dwfl_mod;  /* and the module in it */
	struct DwarfSymtab *syms;   /* ELF symbols, loaded on first use (anchors, blacklist) */
	int is_kernel;
	Session *session;           /* the run it was opened for: its index is built on first use */
	struct TpCatalog *tracepoints;  /* the tracepoints it defines, read on first use (dwtracepoints.c) */
	int is_user;                /* a user-space binary (process probes, providers/uprobe.c): its
	                             * variables live in the probed process's memory */
	/* what others look up in it, once each */
	struct SymTable *symtable;  /* loc.c: its symbols by name, read on first use */
	PtrVec cu_data;             /* providers/dwarfpoint.c: CuData*, inline instances per compile unit */
	StrMap cu_loclists;         /* providers/uprobe.c: "CU offset" -> 1 + whether it has location lists */
} DwarfModule;

/* What the DWARF side opened and found during one run, owned by the Session (Session.dwarf, made
 * on first use by dwarf_cache()): each file is opened once, each lookup done once. */
typedef struct DwarfCache {
	DwarfModule *kernel;        /* debuginfo.c: vmlinux once opened */
	char *kernel_error;         /* set once opening failed: repeated at every later probe point */
	char kernel_build_id[41];   /* the kernel's build id once opened, for dwarf_kernel_build_id() */
	PtrVec modules;             /* debuginfo.c: OpenedModule*, module("NAME") asked for so far */
	PtrVec user_modules;        /* dwarf/userfile.c: DwarfModule*, the user binaries opened */
	StrMap cast_types;          /* dwvars.c: "module|tag|name" -> Dwarf_Die* of @cast types */
	PtrVec entry_lists;         /* targets/access.c: EntryList*, the @entry expressions of .return probes */
} DwarfCache;

DwarfCache *dwarf_cache(Session *s);


/* ---- debuginfo.c: finding and opening debuginfo ----------------------------------------------- */

/* The kernel's debuginfo for s->kver, opened on first call; NULL after an error was reported at
 * loc (a missing file names the package to install: linux-image-KVER-dbg). */
DwarfModule *dwarf_kernel(Session *s, SrcLoc loc);
/* The kernel's debuginfo if there is any, with no error reported (the BTF fallback asks first). */
DwarfModule *dwarf_kernel_quiet(Session *s);
/* A module's debuginfo, by module name ("ext4", "stap_testmod"); NULL after an error. */
DwarfModule *dwarf_module(Session *s, const char *name, SrcLoc loc);
/* The same with no error reported (the BTF fallback asks first). */
DwarfModule *dwarf_module_quiet(Session *s, const char *name);
/* A DwarfModule for an opened file (fd, elf and dw become the module's): CFI and build id read. */
DwarfModule *dwarf_module_from_elf(const char *name, const char *path, int fd, Elf *elf, Dwarf *dw);

/* The symbol kprobes can resolve for pc: "sym" (kernel) or "MOD:sym" with pc - sym in *offset; the
 * function's own symbol when its name is unique, else a unique symbol of the same section below pc
 * ("_stext" in the kernel). Returns NULL when there is none. */
char *dwarf_anchor(DwarfModule *m, Dwarf_Addr pc, uint64_t *offset);
/* Why kprobes would refuse pc ("in .noinstr.text", "blacklisted (NOKPROBE_SYMBOL)", "in __init code,
 * gone after boot"...), or NULL when it can be probed. */
const char *dwarf_unprobeable(DwarfModule *m, Dwarf_Addr pc);
/* The names of the function symbols (STT_FUNC) at pc, space-separated ("" for none; malloc'd). */
char *dwarf_functions_at(DwarfModule *m, Dwarf_Addr pc);
/* The name is exported (EXPORT_SYMBOL*: a __ksymtab_NAME symbol). */
int dwarf_exported(DwarfModule *m, const char *name);
/* How many ELF symbols (functions, objects, untyped) are named name: 0, 1 or 2 (for 2 or more);
 * when exactly one, its address, type (STT_FUNC...) and binding (STB_GLOBAL...). */
int dwarf_symbol_named(DwarfModule *m, const char *name, Dwarf_Addr *addr, int *type, int *bind);
/* Calls fn for each symbol of the ELF symbol table of m's own file (not a libdwfl-relocated module). */
void dwarf_elf_symbols(DwarfModule *m, void (*fn)(const char *name, const GElf_Sym *sym, void *arg), void *arg);
/* Reads m's ELF symbol table now rather than on first use (index.c, on a thread of its own while
 * its others read the DWARF: nothing else may use m's Elf meanwhile). */
void dwarf_symtab_load(DwarfModule *m);
/* The ELF section holding pc (".text", ".init.text"), or NULL. */
const char *dwarf_section_name(DwarfModule *m, Dwarf_Addr pc);
/* Every kernel build id recorded by the DWARF probes of this run ("" when none): for the module's
 * MODULE_INFO(stap_kernel_build_id, ...), which staprun checks before loading. */
const char *dwarf_kernel_build_id(Session *s);

/* ---- index.c: names of functions and types in a DwarfModule ---------------------------------- */

typedef struct DwarfName {
	const char *name;
	Dwarf_Off cu;               /* compile unit DIE offset */
	Dwarf_Off die;              /* the DIE */
	int tag;                    /* DW_TAG_subprogram, DW_TAG_structure_type, union, enumeration, typedef, base */
	int flags;                  /* DWARF_NAME_* */
	uint32_t idx;               /* index.c: its position in the index */
} DwarfName;

enum {
	DWARF_NAME_HAS_PC = 1,      /* subprogram with code (low_pc or ranges) */
	DWARF_NAME_INLINE = 2,      /* abstract instance (DW_AT_inline): inlined somewhere in its CU */
	DWARF_NAME_EXTERNAL = 4,
	DWARF_NAME_DECLARATION = 8, /* declaration only (types: incomplete) */
};

/* index.c additions: where the name is declared and its entry address */
typedef struct DwarfNameInfo {
	const char *decl_file;      /* relative to the build directory when possible, "" when unknown */
	int decl_line;
	Dwarf_Addr pc;              /* subprograms with code: the entry address, else 0 */
	const char *cu_name;        /* the compile unit's source file */
} DwarfNameInfo;

/* Extra data about n (valid during the dwarf_index_each callback, or while m is open). */
void dwarf_name_info(DwarfModule *m, const DwarfName *n, DwarfNameInfo *info);
/* The index of m, loaded from or saved to the cache, or built in memory (index.c). 0 or -1. */
int dwarf_index_open(Session *s, DwarfModule *m);
/* Why the index file [base, base + size) cannot be used (a static string), or NULL when every
 * offset, length and count in it is in bounds, its strings end within it and its entries are
 * sorted; build_id NULL skips the build id check.  base must be 8-byte aligned (a mapping is). */
const char *dwarf_index_check(const char *base, size_t size, const char *build_id);
/* An index over a buffer that passed dwarf_index_check (else NULL and *why), for m->index; the
 * buffer stays the caller's.  Used by tests/fuzz/index_fuzz.c. */
struct DwarfIndex *dwarf_index_from_buffer(const char *base, size_t size, const char **why);
void dwarf_index_free(struct DwarfIndex *idx);
/* The decl_file of a DIE as the index spells file names (relative to the build directory). */
const char *dwarf_decl_file_of(DwarfModule *m, Dwarf_Die *die);
/* The file of a line table row, spelled as the index spells file names. */
const char *dwarf_line_source(DwarfModule *m, Dwarf_Die *cudie, Dwarf_Line *line);
/* Normalizes a source path of a CU with compilation directory comp_dir; returns a new string. */
char *dwarf_normalize_path(const char *comp_dir, const char *path);

/* A subprogram found without the index (exactname.c): what the index would say of it. Its n.idx is
 * DWARF_NAME_IDX_EXACT + its position in the module's exact list (dwarf_name_info reads info). */
typedef struct DwarfExact {
	DwarfName n;
	DwarfNameInfo info;
} DwarfExact;
#define DWARF_NAME_IDX_EXACT 0x80000000u
/* index.c: pushes onto out (DwarfExact*, new) the subprograms named name the index holds of the
 * compile unit cudie, in index order; returns how many. */
int dwarf_index_cu_functions(DwarfModule *m, Dwarf_Die *cudie, const char *name, PtrVec *out);
/* exactname.c: calls fn for each subprogram named name as dwarf_index_each would, without the
 * index: from name's ELF symbol, its CU by .debug_aranges and that CU alone. Returns how many
 * names fn was called for, or -1 when that could differ from the index's answer (no such symbol,
 * several, a local one, ...): the caller then uses the index. Only subprograms: for functions. */
int dwarf_exact_each(DwarfModule *m, const char *name, int (*fn)(const DwarfName *n, void *arg), void *arg);

/* exactname.c: whether dwarf_exact_each may be tried on m (the kernel; not STAP_DWARF_FASTPATH=0). */
int dwarf_exact_wanted(DwarfModule *m);
/* dwarf_index_each for functions (DW_TAG_subprogram names): an exact name, with no index cached,
 * through dwarf_exact_each when that gives the index's answer, so that no index is built. */
int dwarf_index_each_function(DwarfModule *m, const char *glob, int (*fn)(const DwarfName *n, void *arg), void *arg);

/* Calls fn for every indexed name matching the shell glob pattern (exact names are fast), in name
 * order; fn returns 0 to go on, non-zero to stop. Returns how many names fn was called for.
 * Subprograms: declarations are not indexed; a nameless concrete instance (DW_AT_abstract_origin)
 * has its origin's name. Types: one DIE per (name, tag), a complete one when there is one. */
int dwarf_index_each(DwarfModule *m, const char *glob, int (*fn)(const DwarfName *n, void *arg), void *arg);

/* ---- dwtracepoints.c: the tracepoints a debuginfo file defines ----------------------------------- */

/* Pushes onto out (Tracepoint*, owned by the catalog) the tracepoints of m whose system matches
 * system_glob (NULL: any) and name matches name_glob, sorted by system and name; returns how many.
 * The catalog is read once per run, cached in $SYSTEMTAP_DIR/cache/dwarf/BUILDID.tp. */
int dwarf_tracepoints(Session *s, DwarfModule *m, const char *system_glob, const char *name_glob, PtrVec *out);
/* Whether m defines a tracepoint of a system matching system_glob. */
int dwarf_tracepoint_system_known(Session *s, DwarfModule *m, const char *system_glob);

/* ---- types.c: the spelling of a type (the rest of target variables: dwvars.h) ------------------- */

/* "struct file *", "unsigned int", "char[16]": the C spelling of a type DIE (for -L). */
char *dwarf_type_name(Dwarf_Die *type);

#endif
