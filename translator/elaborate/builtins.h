/* builtins.h - functions built into the translator (printing, exit, process
 * context): their signatures for pass 2 and C templates for pass 3. */
#ifndef STAP_BUILTINS_H
#define STAP_BUILTINS_H

#include "parse/ast.h"

typedef enum BuiltinKind {
	BI_TEMPLATE,   /* C expression template, see below */
	BI_PRINTF,     /* printf(fmt, ...) */
	BI_SPRINTF,    /* sprintf(fmt, ...) */
	BI_PRINT,      /* print, println, printd, printdln, sprint, sprintln, sprintd: print_flags */
} BuiltinKind;

enum {
	PRINT_NEWLINE = 1,     /* ...ln: a newline after the values */
	PRINT_DELIMITED = 2,   /* ...d: the first argument goes between the values */
	PRINT_TO_STRING = 4,   /* s...: the result is a string value */
};

struct Builtin {
	const char *name;
	BuiltinKind kind;
	Type ret;                 /* TY_UNKNOWN = no value (statement only) */
	int nargs;                /* -1 = variadic */
	Type args[4];
	/* BI_TEMPLATE: C text; $1..$4 are the arguments, $0 a MAXSTRINGLEN
	 * buffer for string results, c the probe context. */
	const char *c_template;
	int can_fail;             /* sets c->last_error */
	int print_flags;          /* BI_PRINT: PRINT_* */
};

const Builtin *builtin_find(const char *name);

#endif
