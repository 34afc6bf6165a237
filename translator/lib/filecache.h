/* filecache.h - files the translator keeps in the user's cache directory ($SYSTEMTAP_DIR/cache,
 * else ~/.systemtap/cache): naming, atomic writes, read-only maps.  Used by the module cache
 * (cache.c), the tapset index (tapsets.c), the DWARF index (dwarf/index.c), kernel.c, and
 * dwarf/debuginfod.c for root's download cache. */
#ifndef STAP_FILECACHE_H
#define STAP_FILECACHE_H

#include <stddef.h>

#include "session.h"

/* $HOME, but for root its home in the password database (a root shell keeps a user's HOME after
 * sudo or su); NULL when there is none. */
const char *filecache_home_dir(void);

/* The cache directory, whether or not it exists yet; NULL with neither SYSTEMTAP_DIR nor a home
 * ($HOME; for root, root's home in the password database). */
char *filecache_dir(void);

/* filecache_dir()/name, or NULL when there is none or --disable-cache is on. */
char *filecache_path(const Session *s, const char *name);

/* FNV-1a: a cache file's name from what it depends on. */
unsigned long long filecache_hash(unsigned long long h, const void *data, size_t n);
#define FILECACHE_HASH_INIT 1469598103934665603ULL

/* Hashes path and its size and modification time (zeros when it cannot be stat'ed). */
unsigned long long filecache_hash_stat(unsigned long long h, const char *path);

/* Trust: the cache is used only where every directory from filecache_dir() down to an entry, and the
 * entry itself, belongs to the effective user and is not writable by group or others (the directories
 * above filecache_dir() belong to root or that user, not group/other-writable unless sticky, and are
 * walked from / following only root's or the user's symlinks: trustwalk.c); an entry is never a
 * symlink.  Root's home is the password database's, never $HOME.  Otherwise a one-line warning says why, and the caller goes on without the cache
 * (builds what it looked for, and does not store it). */

/* "stap: warning: MSG" on stderr, each distinct message once; shown whatever -w says.  Every
 * function below that warns takes the Diag d it warns through (diag_warning_once). */
void filecache_warn(Diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The directory holding path (a file under filecache_dir()), opened, every directory from the
 * top down checked (and created 0755 first when create); *base is path's last component.  -1
 * when missing, not a directory, or not trusted (warned). */
int filecache_open_dir(Diag *d, const char *path, int create, const char **base);

/* The top directory (filecache_dir()), opened and checked as filecache_open_dir() does; -1 when
 * missing or not trusted (warned). */
int filecache_open_top(Diag *d);

/* Any directory opened as filecache_open_top() opens the top: walked from / (made 0755 where
 * missing when create), itself the effective user's and writable by it alone.  -1 when missing or
 * not trusted (warned).  Used by dwarf/debuginfod.c for root's debuginfod cache. */
int filecache_open_trusted(Diag *d, const char *path, int create);

/* The directory name inside the checked directory top, opened without following a symlink: ours
 * and not writable by group or others; -1 otherwise (no warning). */
int filecache_open_sub(int top, const char *name);

/* path opened read-only without following a symlink: a regular file, trusted, in a trusted
 * directory; *st is its fstat.  -1 when missing or refused (warned). */
struct stat;
int filecache_open_entry(Diag *d, const char *path, struct stat *st);

/* A new temporary file in dir for base (BASE.PID.tmp, another name when that exists), made with
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode 0644; its name in name.  The fd, or -1 with errno. */
int filecache_create_tmp(int dir, const char *base, char *name, size_t size);

/* Writes size bytes to path through a temporary file and rename(2), so that readers see the
 * old file or the whole new one.  0, or -1 (nothing left behind; also for an untrusted cache). */
int filecache_write(Diag *d, const char *path, const void *data, size_t size);

/* Maps a trusted entry read-only (a private mapping); NULL when it is missing, refused, empty or
 * cannot be mapped.  *size is its size. */
const char *filecache_map(Diag *d, const char *path, size_t *size);
void filecache_unmap(const char *base, size_t size);

/* A trusted entry's contents, NUL-terminated (malloc'd); NULL like filecache_map. */
char *filecache_read(Diag *d, const char *path, size_t *len);

#endif
