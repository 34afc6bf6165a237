/* kbuild_nm.h - the NM= argument pass 4 adds to kbuild's make: nm loading GCC's LTO plugin only.
 * Used by kbuild_steps.c (kbuild in full) and kfeatures.c (the feature tests). */
#ifndef STAP_KBUILD_NM_H
#define STAP_KBUILD_NM_H

#include "session.h"

/* "NM=PREFIXnm --plugin=PATH" for a kernel built by GCC (PREFIXgcc..., its configuration's compiler; PATH: that
 * compiler's liblto_plugin.so), found once per run; NULL when NM, LLVM or CROSS_COMPILE is in the environment,
 * or PREFIXnm or the plugin is not found. */
const char *kbuild_nm_arg(Session *s);

#endif
