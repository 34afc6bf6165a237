/* ulibs.h - shared libraries of user-space probes (providers/ulibs.c): sonames found as the dynamic
 * loader finds them, process("PATH").library("LIB") points, separate debuginfo. Used by uprobe.c, sdt.c, dwarf/targets.c. */
#ifndef STAP_ULIBS_H
#define STAP_ULIBS_H

#include "providers/provider.h"
#include "dwarf/dwarf.h"

/* A bare soname ("libc.so.6") as the loader finds it with no executable to start from: the
 * ld.so cache, then the standard directories. The resolved path (malloc'd) or NULL. */
char *ulib_find_soname(const char *name);

/* The DWARF of the user ELF file elf (at path): its own .debug_info, else the separate debuginfo
 * file found by build id (/usr/lib/debug/.build-id/xx/rest.debug) or .gnu_debuglink (next to the
 * file, in .debug/, under /usr/lib/debug/DIR/; $STAP_DEBUGINFO_PATH in place of /usr/lib/debug), else
 * fetched by build id from $DEBUGINFOD_URLS (dwarf/debuginfod.c). NULL with *why set when there is none. */
Dwarf *ulib_open_dwarf(Session *s, Elf *elf, const char *path, char **why);

/* The DWARF name of the function an ELF symbol `name` of m starts (an alias such as libc's malloc,
 * whose DWARF calls it __libc_malloc); NULL when there is no such symbol or no other name. */
char *ulib_symbol_alias(DwarfModule *m, const char *name);

/* The user module of the binary or library at path (resolved): opened once per run (uprobe.c). */
DwarfModule *ulib_module(Session *s, const char *path, SrcLoc loc);

/* Whether spec (a @cast/@var module argument) names a user binary or library rather than a kernel
 * module: a path with a '/' that exists, or a name with ".so" the loader finds. Its resolved path
 * (malloc'd) or NULL. */
char *ulib_user_path(const char *spec);

/* process("PATH").library("LIB")...: dispatched to the function or marker provider once per
 * library matched (registered in registry.c). */
extern const ProbeProvider ulib_provider;

#endif
