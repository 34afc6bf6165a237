/* format.h - parses printf-style format strings at translate time into literal pieces and conversions, once
 * per call (resolution keeps it in Expr.format).  Used by type checking and code generation. */
#ifndef STAP_FORMAT_H
#define STAP_FORMAT_H

#include "parse/ast.h"
#include "../../runtime/output/fmtflags.h"   /* the flags' numbers, shared with the runtime's writer */

enum {
	FMT_LEFT = STP_FMT_LEFT,
	FMT_PLUS = STP_FMT_PLUS,
	FMT_SPACE = STP_FMT_SPACE,
	FMT_ALT = STP_FMT_ALT,
	FMT_ZERO = STP_FMT_ZERO,
};

typedef struct FormatPiece {
	char conv;        /* 0 = literal text; else d i u x X o c s p b */
	int flags;
	int width;        /* -1 none */
	int prec;         /* -1 none */
	int width_star;   /* '*': the width is the argument before the value */
	int prec_star;    /* '.*': so is the precision (after a '*' width's) */
	char *text;       /* literal text (conv == 0) */
	size_t len;
} FormatPiece;

typedef struct Format {
	FormatPiece *pieces;
	int npieces;
	int nargs;        /* arguments consumed: values and '*' widths/precisions */
} Format;

/* Returns 0, or -1 with *err set to a static message. */
int format_parse(const char *fmt, Format *out, const char **err);
Type format_arg_type(char conv);

#endif
