/* kernelid.h - which kernel the module's probes were placed or typed for (kernelid.c): its build id, which
 * the module records for staprun's check. Used by kmodule/skeleton.c (the module's skeleton). */
#ifndef STAP_TARGETS_KERNELID_H
#define STAP_TARGETS_KERNELID_H

#include "session.h"

/* The kernel's whose DWARF placed or typed a probe, else the kernel's whose BTF was read; "" for none. */
const char *tg_kernel_build_id(Session *s);

#endif
