/* parse.h - pass 1 entry point: turns a source file into syntax tree nodes
 * appended to a Program.  Shared by the bison grammar and the flex lexer. */
#ifndef STAP_PARSE_H
#define STAP_PARSE_H

#include "ast.h"

typedef struct ParseCtx {
	SourceFile *file;
	Program *prog;
	void *scanner;          /* flex reentrant scanner */
	int errors;
	char last_text[48];      /* text of the last token, for messages */
	int open_line, open_col; /* where an unterminated construct began */
} ParseCtx;

/* Parses one file into prog; returns the number of errors reported. */
int parse_source(SourceFile *file, Program *prog);

/* Location helpers used by the grammar actions. */
SrcLoc parse_loc(ParseCtx *ctx, int line, int col);

#endif
