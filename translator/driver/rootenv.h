/* rootenv.h - which environment variables that name files root takes from its caller (rootenv.c).
 * Used by main.c before anything reads them. */
#ifndef STAP_ROOTENV_H
#define STAP_ROOTENV_H

#include "lib/diag.h"

/* As root: each of SYSTEMTAP_TAPSET, SYSTEMTAP_RUNTIME, STAP_DEBUGINFO_PATH,
 * STAP_REMOTE_MODULES (directories) and STAP_REMOTE_STAPRUN (a program) that is set must name what
 * only root controls: reached by the trust walk, and (a directory) every file and directory in it
 * root's and not writable by group or others, each symbolic link in it root's and its target so
 * checked.  A missing directory inside checked ones is fine (there is nothing to read).  0, or -1
 * after an error to d naming the variable and why.  Not root: 0, nothing checked. */
int rootenv_check(Diag *d);

#endif
