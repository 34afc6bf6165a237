/* log.h - the diagnostics staprun and stapio share: -v notes (say) and errors (err) on stderr, each
 * line prefixed by the program's name (log_program, defined by each program's main.c). */
#ifndef COMMON_LOG_H
#define COMMON_LOG_H

extern int verbose;                 /* -v count: say() writes only when it is set */
extern const char log_program[];    /* "staprun", "stapio": the prefix of every line */

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* -v trace to stderr */
void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* "PROGRAM: ..." to stderr */

#endif
