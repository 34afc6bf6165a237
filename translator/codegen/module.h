/* module.h - pass 3: writes the kernel module's C source for an
 * elaborated program (codegen/module.c).  Called by the driver; uses the probe providers. */
#ifndef STAP_CODEGEN_MODULE_H
#define STAP_CODEGEN_MODULE_H

#include "session.h"

/* Writes the C source into out; returns the number of errors. */
int translate(Session *s, StrBuf *out);

#endif
