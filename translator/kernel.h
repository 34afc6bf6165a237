/* kernel.h - the target kernel: release, build tree, and its symbol table
 * when one is available.  Used by the driver, kprobe provider and pass 4. */
#ifndef STAP_KERNEL_H
#define STAP_KERNEL_H

#include "session.h"

#include <stdint.h>

/* Sets kver/kbuild_dir from -r (NULL = running kernel).  Returns 0, or -1 after
 * a one-line error when the build tree is needed (need_tree) and missing. */
int kernel_setup(Session *s, const char *r_arg, int need_tree);

/* CONFIG_NAME's setting in the target's build tree ("y", "m", "250", a
 * string without quotes), or NULL when unset.  session is a Session*. */
const char *kernel_config_value(void *session, const char *name);

/* 1 = the kernel has this symbol, 0 = it does not, -1 = cannot tell here
 * (no symbol table for the target kernel on this machine). */
int kernel_symbol_known(Session *s, const char *name);

/* The target kernel's address of its function NAME (read on first use): the running kernel's from /proc/kallsyms,
 * another release's from its System.map (link-time): 1 with *addr set, 0 when it lists no such function or lists
 * it twice, -1 when there are no addresses (no real System.map: Debian's is a stub; a caller kptr_restrict hides
 * them from). */
int kernel_symbol_address(Session *s, const char *name, uint64_t *addr);

/* The path of the target's System.map when it is a real one (the build tree's, else /boot/System.map-KVER), or
 * NULL; to free. */
char *kernel_system_map(Session *s);

/* The names of the address ADDR there ("a b c"; "" for none), after kernel_symbol_address. */
char *kernel_symbols_at(Session *s, uint64_t addr);

/* Calls fn for each line of a /proc/kallsyms or System.map TEXT ("ADDR TYPE NAME", a module's with
 * "\t[MODULE]"), NAME and MODULE (NULL: vmlinux's) NUL-terminated in TEXT, which must end in a NUL. */
typedef void (*KernelSymbolFn)(void *arg, uint64_t addr, char type, const char *name, const char *module);
void kernel_symbols_each(char *text, size_t len, KernelSymbolFn fn, void *arg);

#endif
