/* translate.h - pass 3: writes the kernel module's C source for an
 * elaborated program.  Called by the driver; uses the probe providers. */
#ifndef STAP_TRANSLATE_H
#define STAP_TRANSLATE_H

#include "session.h"

/* Writes the C source into out; returns the number of errors. */
int translate(Session *s, StrBuf *out);

#endif
