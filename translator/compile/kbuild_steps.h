/* kbuild_steps.h - pass 4's kbuild run: kbuild's recorded sub-make steps when the cache has them for
 * this kernel build tree and environment, else kbuild in full (recording them).  Used by compile.c. */
#ifndef STAP_KBUILD_STEPS_H
#define STAP_KBUILD_STEPS_H

#include "session.h"

/* Builds s->ko_file from the Kbuild file and C in s->tmp_dir, make's output into log: 0 on success,
 * else make's exit status (-1 when it could not be started).  A failed replay falls back to the
 * full kbuild; STAP_KBUILD_STEPS=0 or --disable-cache always runs it in full. */
int kbuild_steps_build(Session *s, const char *log);

#endif
