/* listing.h - what pass 2 shows a user: the resolved program (stap -p2), the
 * probe points matching a pattern (-l, -L) and the library (--dump-*). */
#ifndef STAP_LISTING_H
#define STAP_LISTING_H

#include "session.h"

/* stap -p2 output: the resolved program. */
void print_resolved(Session *s, StrBuf *out);

/* stap -l / -L PATTERN (the script is "probe PATTERN {}"); returns errors. */
int run_listing(Session *s);

/* --dump-probe-types, --dump-probe-aliases, --dump-functions. */
int run_dump(Session *s);

#endif
