/* modhash.h - the built module's SHA-256, taken right after kbuild (or the cache hit) and checked before
 * the module is signed, cached, copied out or loaded.  Used by compile.c, sign.c, cache.c and main.c. */
#ifndef STAP_MODHASH_H
#define STAP_MODHASH_H

#include <stddef.h>

#include "session.h"

/* Records data (the module's bytes) as the module this run built. */
void modhash_set(Session *s, const void *data, size_t len);

/* Records s->ko_file as read now; 0, or -1 after an error. */
int modhash_take(Session *s);

/* Whether data is the module recorded (1) or not (0). */
int modhash_matches(const Session *s, const void *data, size_t len);

/* The refusal: s->ko_file is not the module built; doing says what was not done ("signing it"). */
void modhash_refuse(Session *s, const char *doing);

/* s->ko_file read now is the module recorded: 0, else -1 after modhash_refuse. */
int modhash_check(Session *s, const char *doing);

#endif
