/* kfeatures.h - kernel feature tests (runtime/core/compat.h's STP_HAVE_* answers), run once per
 * kernel build tree and cached.  Used by compile.c before the module's kbuild. */
#ifndef STAP_KFEATURES_H
#define STAP_KFEATURES_H

#include "session.h"

/* "-DSTP_HAVE_X=0|1 ..." for s's build tree: from the cache, else compiled (in s->tmp_dir) and
 * stored.  NULL after an error message when the tests could not be written. */
char *kfeatures_cflags(Session *s);

#endif
