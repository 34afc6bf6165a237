/* cache.h - the pass-4 module cache ($SYSTEMTAP_DIR/cache, else ~/.systemtap/cache) and the default
 * module name.  Used by main.c (module name, -v report) and compile.c (lookup before kbuild, store after). */
#ifndef STAP_CACHE_H
#define STAP_CACHE_H

#include "session.h"
#include "lib/sha256.h"

/* stap_ + 16 hex digits of SHA-256 over the script text, its arguments and the options that
 * shape the generated C: the same run gets the same name (and so can hit the cache). */
char *cache_module_name(const Session *s, const char *script_text);

/* Before kbuild, with s->c_file written and kbuild_text the Kbuild file's text (for a BPF object: clang's
 * command line): 1 when the cache holds the module, now at s->ko_file; 0 to build it (cache off, miss, or no
 * cache). */
int cache_fetch(Session *s, const char *kbuild_text);

/* After a successful kbuild: stores s->ko_file (and the C beside it) under the key
 * cache_fetch computed, then removes the oldest entries beyond cache_mb_limit.  Stored only as
 * the bytes modhash recorded: else nothing is, and -1 after an error; a store that fails
 * otherwise is a -v note (0). */
int cache_store(Session *s);

/* Hashes the target kernel's identity into c: release, build tree, configuration, version stamp,
 * exported symbols, and the compiler and linker kbuild will run (also kbuild_steps.c's key). */
void cache_hash_kernel(Sha256 *c, const Session *s);

/* Finishes c (cache_hash_kernel's and whatever else the entry depends on) and names the entry
 * PREFIX + the digest in hex + SUFFIX in the cache directory: NULL when there is no cache (or
 * --disable-cache).  Used for kbuild's recorded steps and the kernel feature tests. */
char *cache_entry_path(const Session *s, Sha256 *c, const char *prefix, const char *suffix);

/* After pass 4 changed s->ko_file (signed it, modhash recording it): the entry fetched or stored
 * takes it as it is now; -1 after an error when the bytes are not the ones recorded. */
int cache_update_module(Session *s);

const char *cache_hit_path(const Session *s);   /* the cached module used, or NULL */
void cache_report(const Session *s);            /* -v: a line on a miss (stored where, or why not) */

#endif
