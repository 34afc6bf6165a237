/* parse.c - runs the flex scanner and bison parser over one source file.
 * Used by the driver (main.c) for the script and, later, tapset files. */
#include "parse.h"
#include "parser.h"

typedef void *yyscan_t;
int stp_yylex_init_extra(ParseCtx *extra, yyscan_t *scanner);
int stp_yylex_destroy(yyscan_t scanner);
void *stp_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);
int stp_yyparse(void *scanner, ParseCtx *ctx);

int parse_source(SourceFile *file, Program *prog)
{
	ParseCtx ctx = { .file = file, .prog = prog };
	yyscan_t scanner;
	const char *text = file->text;
	int len = (int)file->len;

	vec_push(&prog->files, file);
	/* a "#!" first line is a comment like any other "#" line */
	if (stp_yylex_init_extra(&ctx, &scanner) != 0) {
		diag_plain("error", "cannot initialize the scanner");
		return 1;
	}
	ctx.scanner = scanner;
	stp_yy_scan_bytes(text, len, scanner);
	if (stp_yyparse(scanner, &ctx) != 0 && ctx.errors == 0) {
		diag_plain("error", "%s: cannot parse", file->name);
		ctx.errors++;
	}
	stp_yylex_destroy(scanner);
	return ctx.errors;
}
