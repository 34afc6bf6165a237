/* filecache.h - files the translator keeps in the user's cache directory ($SYSTEMTAP_DIR/cache,
 * else ~/.systemtap/cache): naming, atomic writes, read-only maps.  Used by the module cache
 * (cache.c), the tapset index (tapsets.c), the DWARF index (dwarf/index.c) and kernel.c. */
#ifndef STAP_FILECACHE_H
#define STAP_FILECACHE_H

#include <stddef.h>

#include "session.h"

/* The cache directory, whether or not it exists yet; NULL with neither SYSTEMTAP_DIR nor HOME. */
char *filecache_dir(void);

/* filecache_dir()/name, or NULL when there is none or --disable-cache is on. */
char *filecache_path(const Session *s, const char *name);

/* FNV-1a: a cache file's name from what it depends on. */
unsigned long long filecache_hash(unsigned long long h, const void *data, size_t n);
#define FILECACHE_HASH_INIT 1469598103934665603ULL

/* Hashes path and its size and modification time (zeros when it cannot be stat'ed). */
unsigned long long filecache_hash_stat(unsigned long long h, const char *path);

/* Creates path's missing parent directories (mkdir -p of its dirname). */
void filecache_make_parents(const char *path);

/* Writes size bytes to path through a temporary file and rename(2), so that readers see the
 * old file or the whole new one.  0, or -1 (nothing left behind). */
int filecache_write(const char *path, const void *data, size_t size);

/* Maps path read-only; NULL when it is missing, empty or cannot be mapped.  *size is its size. */
const char *filecache_map(const char *path, size_t *size);
void filecache_unmap(const char *base, size_t size);

#endif
