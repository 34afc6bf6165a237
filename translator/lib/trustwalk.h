/* trustwalk.h - opening a directory by a checked walk from / (trustwalk.c): the cache's top directory, the signing
 * key's, and what root takes from the environment. Used by filecache.c, signkey.c and the driver (tmpdir.c, rootenv.c). */
#ifndef STAP_TRUSTWALK_H
#define STAP_TRUSTWALK_H

#include "lib/diag.h"

/* path (absolute, or relative to the working directory) opened as a directory (O_RDONLY), walked
 * from "/" one component at a time: every directory passed through must be root's or the
 * effective user's and not writable by group or others unless sticky; a symbolic link is followed
 * only when root's or the effective user's; with create, a missing directory is made (0755) inside
 * one so checked.  The last directory itself is not checked: the caller does.  The fd, or -1 with
 * errno (EPERM after a warning to d through filecache_warn). */
int trustwalk_open(Diag *d, const char *path, int create);

/* The same walk for another directory (signkey.c: the signing key's): a refusal says "WHAT PATH <why>: VERDICT",
 * as a diag of kind (e.g. "error"), or as filecache_warn's warning when kind is NULL. */
int trustwalk_open_as(Diag *d, const char *path, int create, const char *what, const char *verdict, const char *kind);

/* The same walk, nothing made, the last directory checked as the ones before it; no warning: the fd,
 * or -1 with errno (EPERM with the reason in why, e.g. "is inside /home/u, which is owned by uid 1000";
 * ENOENT when a component is missing inside checked directories, ENOTDIR...). */
int trustwalk_check(const char *path, char *why, size_t why_size);

#endif
