/* site.h - a site: one place a probe fires, as the providers find it (from DWARF, BTF or ELF tables) and the
 * leaves of target variables answer for. Used by providers/, dwarf/, btf/, targets/ and driver/listing.c. */
#ifndef STAP_TARGETS_SITE_H
#define STAP_TARGETS_SITE_H

#include <stdint.h>

struct TgLeafFile;
struct Btf;

/* One place a probe fires: a function entry, an inline instance, a statement, or a return. */
typedef struct TgSite {
	struct TgLeafFile *mod;     /* the debuginfo file it is in (the DWARF leaf's, opaque); NULL when BTF placed it */
	uint64_t cu;                /* from DWARF: offset of the compile unit DIE */
	uint64_t scope;             /* from DWARF: the subprogram or inlined subroutine DIE probed (0: none) */
	uint64_t pc;                /* probe address, in the debuginfo's address space */
	char *function;             /* its name */
	char *decl_file;            /* "fs/read_write.c", relative to the build directory */
	int decl_line;              /* its line; for statements, the line probed */
	char *anchor;               /* a symbol kprobes resolves unambiguously ("vfs_read", "_stext", "MOD:sym") */
	uint64_t offset;            /* pc - anchor's address */
	int is_return;              /* .return: a kretprobe on the function (not for inline sites) */
	int is_inline;              /* an inline instance */
	int is_statement;           /* .statement(...) */
	int is_tracepoint;          /* kernel.trace(...): scope is the tracepoint's __traceiter_ function,
	                             * whose parameters after the first are the tracepoint's arguments */
	int entry_size;             /* .return with @entry values: bytes saved at entry (codegen/targetvars.c sets it) */
	int is_user;                /* process("PATH") probes: a uprobe in mod, a user binary */
	uint64_t file_offset;       /* is_user: where the probe lies in the file (what the uprobe API takes) */
	uint64_t save_offset;       /* is_user .return: where entry values are read (pc, in the file) */
	int cfa_reg;                /* ... and the CFA there: register number cfa_reg + cfa_offset (-1: unknown) */
	int64_t cfa_offset;
	uint32_t btf_func;          /* no DWARF: the kernel function's BTF FUNC id, or a tracepoint's (its
	                             * __traceiter_ FUNC or btf_trace_ typedef; mod NULL), its target
	                             * variables typed from BTF (btf/btfvars.c) */
	struct Btf *btf;            /* btf_func's BTF: a module's (split over the kernel's), NULL for the kernel's */
	int unchecked;              /* a site BTF gave a wildcard: no symbol table said whether kprobes allow it
	                             * (init text, blacklisted), so the kernel's refusal skips it with a warning */
} TgSite;

#endif
