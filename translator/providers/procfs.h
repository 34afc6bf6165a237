/* procfs.h - what the procfs family tells a runtime that serves the files itself (the BPF runtime's stapio):
 * each probe's file, direction, mode and read size.  Used by providers/procfs.c and bpfprog/procfsfiles.c. */
#ifndef STAP_PROVIDERS_PROCFS_H
#define STAP_PROVIDERS_PROCFS_H

#include "session.h"

struct DerivedProbe;

/* A procfs probe's point: 1 for .write, 0 for .read; *mode its permission bits (0444 or 0222 minus its
 * umask), *maxsize a read's bytes (0: the default).  Its file is dp->symbol, under the run's directory. */
int procfs_point(Session *s, const struct DerivedProbe *dp, unsigned *mode, int64_t *maxsize);

#endif
