/* remote.h - stap --remote ssh://[USER@]HOST[:PORT] and --remote-prefix: run one script on
 * several machines over OpenSSH. Used by main.c's option parsing and pass-5 driver. */
#ifndef STAP_REMOTE_H
#define STAP_REMOTE_H

#include "session.h"

int remote_add(Session *s, const char *url);   /* --remote URL: checked; -1 (reported) when refused */
int remote_wanted(const Session *s);           /* at least one --remote was given */
/* Translates and compiles once per kernel release of the targets, copies the module to
 * each, runs staprun on all of them at once and brings their output back: stap's status. */
int remote_run(Session *s, const char *r_arg);

#endif
