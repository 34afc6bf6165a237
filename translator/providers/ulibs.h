/* ulibs.h - process("PATH").library("LIB") points (providers/ulibs.c), the libraries found by
 * dwarf/userfile.c. Used by registry.c. */
#ifndef STAP_ULIBS_H
#define STAP_ULIBS_H

#include "providers/provider.h"

/* process("PATH").library("LIB")...: dispatched to the function or marker provider once per
 * library matched (registered in registry.c). */
extern const ProbeProvider ulib_provider;

#endif
