/* tmpdir.h - the run's temporary directory (pass 4's work, --remote's staging): made 0700 inside a
 * checked $TMPDIR, kept open, removed through its descriptor.  Used by main.c and remote.c. */
#ifndef STAP_TMPDIR_H
#define STAP_TMPDIR_H

#include "lib/diag.h"

typedef struct TmpDir {
	int parent;     /* the directory it was made in, open (-1: none) */
	int fd;         /* the directory itself, open */
	char *name;     /* its name in parent: PREFIXxxxxxx */
	char *path;     /* parent's path + name, for the programs that take paths (kbuild) */
} TmpDir;

/* Makes PREFIXxxxxxx (mode 0700) in $TMPDIR, or /tmp.  As root, $TMPDIR is used only when the trust
 * walk passes it (it and every directory above it root's, not writable by others unless sticky):
 * else a warning, and /tmp.  0, or -1 after an error to d. */
int tmpdir_make(Diag *d, const char *prefix, TmpDir *t);

/* Removes what t holds and t itself through the descriptors, never following a symbolic link
 * (openat/unlinkat); t is closed.  0, or -1 when something was left. */
int tmpdir_remove(TmpDir *t);

#endif
