/* userfile.h - user binaries and libraries (dwarf/userfile.c): found as the dynamic loader finds them,
 * their DWARF, their DwarfModule opened once per run. Used by providers/uprobe.c, providers/ulibs.c, dwarf/dwvars.c. */
#ifndef STAP_USERFILE_H
#define STAP_USERFILE_H

#include "dwarf/dwarf.h"

/* A bare soname ("libc.so.6") as the loader finds it with no executable to start from: the
 * ld.so cache, then the standard directories. The resolved path (malloc'd) or NULL. */
char *userfile_find_soname(const char *name);

/* The libraries the executable exe loads at start, as the loader finds them (DT_NEEDED, breadth
 * first, each object's DT_RPATH/DT_RUNPATH with $ORIGIN, LD_LIBRARY_PATH, the cache, the standard
 * directories): sonames[i] was found at paths[i]. */
void userfile_needed(const char *exe, PtrVec *sonames, PtrVec *paths);

/* Whether spec (a @cast/@var module argument) names a user binary or library rather than a kernel
 * module: a path with a '/' that exists, or a name with ".so" the loader finds. Its resolved path
 * (malloc'd) or NULL. */
char *userfile_path(const char *spec);

/* The DWARF of the user ELF file elf (at path): its own .debug_info, else the separate debuginfo
 * file found by build id (/usr/lib/debug/.build-id/xx/rest.debug) or .gnu_debuglink (next to the
 * file, in .debug/, under /usr/lib/debug/DIR/; $STAP_DEBUGINFO_PATH in place of /usr/lib/debug), else
 * fetched by build id from $DEBUGINFOD_URLS (dwarf/debuginfod.c). NULL with *why set when there is none. */
Dwarf *userfile_open_dwarf(Session *s, Elf *elf, const char *path, char **why);

/* The DWARF name of the function an ELF symbol `name` of m starts (an alias such as libc's malloc,
 * whose DWARF calls it __libc_malloc); NULL when there is no such symbol or no other name. */
char *userfile_symbol_alias(DwarfModule *m, const char *name);

/* The user binary or library at path (resolved) and its DWARF (m->dw NULL when it has none), opened
 * once per run; NULL after an error at loc. */
DwarfModule *userfile_module(Session *s, const char *path, SrcLoc loc);

#endif
