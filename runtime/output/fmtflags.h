/* fmtflags.h - the flags of a printf conversion (- + space # 0), as the translator's parse (lib/format.h) and
 * the runtime's writer (output.c's struct stp_fmt) both number them: defined here once. */
#ifndef STP_FMTFLAGS_H
#define STP_FMTFLAGS_H

#define STP_FMT_LEFT  1     /* - */
#define STP_FMT_PLUS  2     /* + */
#define STP_FMT_SPACE 4     /* space */
#define STP_FMT_ALT   8     /* # */
#define STP_FMT_ZERO  16    /* 0 */

#endif
