/* usyms.h - user-space symbol and unwind tables embedded in the module (usyms.c); used by
 * kmodule/skeleton.c (emission), main.c and providers/tracepoint.c (which -d arguments are user files). */
#ifndef STAP_USYMS_H
#define STAP_USYMS_H

#include "session.h"
#include "lib/util.h"

int usyms_needed(Session *s);              /* a used function asks for them (pragma:usyms) */
int usyms_is_user_path(const char *arg);   /* a -d argument naming a user-space file */
void usyms_emit(Session *s, StrBuf *out);  /* the tables (between core/umods.h and core/ustack.h) */

#endif
