/* debuginfod.h - fetching missing debuginfo by build id from the servers in $DEBUGINFOD_URLS (libdebuginfod).
 * Used by debuginfo.c (the kernel, its modules) and providers/ulibs.c (user programs and their libraries). */
#ifndef STAP_DEBUGINFOD_H
#define STAP_DEBUGINFOD_H

#include "session.h"

/* The separate debuginfo of build_id (hex) for what ("kernel 6.1.0-56-amd64", "module loop", a file's path):
 * its path in libdebuginfod's cache (the caller frees it), its build id checked. NULL when it cannot be had:
 * *why says what was asked of whom and what answered (the caller frees it), or is NULL when nothing was
 * asked ($DEBUGINFOD_URLS unset or empty, no build id). A build id that failed once is not asked again in
 * the run. A download draws a progress line on stderr; ^C during it cancels it and ends stap. */
char *debuginfod_fetch(Session *s, const char *build_id, const char *what, char **why);

/* Whether $DEBUGINFOD_URLS names a server (the messages for missing debuginfo mention it when not). */
int debuginfod_configured(void);

#endif
