/* translate.h - pass 3: writes the C source of an elaborated program for its runtime
 * (codegen/translate.c).  Called by the driver. */
#ifndef STAP_CODEGEN_TRANSLATE_H
#define STAP_CODEGEN_TRANSLATE_H

#include "session.h"

/* Writes the C source into out; returns the number of errors. */
int translate(Session *s, StrBuf *out);

#endif
