/* parse.c - pass 1 driver: runs the flex scanner, the preprocessor and the
 * bison parser over a file.  Used by main.c for scripts and macro libraries. */
#include "parse/parse.h"
#include "parser.h"

typedef void *yyscan_t;
int stp_rawlex_init_extra(ParseCtx *extra, yyscan_t *scanner);
int stp_rawlex_destroy(yyscan_t scanner);
void *stp_raw_scan_bytes(const char *bytes, int len, yyscan_t scanner);
int stp_yyparse(void *scanner, ParseCtx *ctx);
int stp_rawlex(STP_YYSTYPE *lval, StpLoc *lloc, void *scanner);
Preproc *preproc_new(ParseCtx *ctx, int defs_only);
void preproc_free(Preproc *pp);
int preproc_definitions(Preproc *pp);

/* A bare histogram operator left where a value is expected (counted in the ParseCtx's errors). */
static int report_bare_histogram(Expr *e, void *data)
{
	ParseCtx *ctx = data;

	if (e->kind == EX_AT && e->op == OP_HIST_BARE) {
		diag_at(ctx->diag, e->loc, "parse error", "histogram operator @%s where a value is expected (print it, "
			"index a bucket with @%s(...)[N], or iterate it with foreach)", e->str, e->str);
		e->op = OP_NONE;
		ctx->errors++;
	}
	return 0;
}

/* Walks the probes and functions this file added (from the given counts on). */
static void check_bare_histograms(ParseCtx *ctx, int first_probe, int first_function)
{
	Program *prog = ctx->prog;
	AstVisitor v = { NULL, report_bare_histogram, ctx };

	for (int i = first_probe; i < prog->probes.len; i++) {
		Probe *p = prog->probes.items[i];
		ast_walk_stmt(p->body, &v);
		for (int j = 0; j < p->points.len; j++)
			ast_walk_expr(((ProbePoint *)p->points.items[j])->cond, &v);
	}
	for (int i = first_function; i < prog->functions.len; i++)
		ast_walk_stmt(((Function *)prog->functions.items[i])->body, &v);
}

static int run(ParseState *st, SourceFile *file, Program *prog, int defs_only)
{
	ParseCtx ctx = { .file = file, .prog = prog, .state = st, .diag = parse_state_diag(st) };
	int first_probe = prog->probes.len, first_function = prog->functions.len;
	yyscan_t scanner;

	if (stp_rawlex_init_extra(&ctx, &scanner) != 0) {
		diag_plain(ctx.diag, "error", "cannot initialize the scanner");
		return 1;
	}
	ctx.scanner = scanner;
	ctx.pp = preproc_new(&ctx, defs_only);
	sb_init(&ctx.embedded);
	/* a "#!" first line is a comment like any other "#" line */
	stp_raw_scan_bytes(file->text, (int)file->len, scanner);
	if (defs_only)
		preproc_definitions(ctx.pp);
	else if (stp_yyparse(scanner, &ctx) != 0 && ctx.errors == 0) {
		diag_plain(ctx.diag, "error", "%s: cannot parse", file->name);
		ctx.errors++;
	}
	stp_rawlex_destroy(scanner);
	preproc_free(ctx.pp);
	sb_free(&ctx.embedded);
	if (!defs_only)
		check_bare_histograms(&ctx, first_probe, first_function);
	return ctx.errors;
}

int parse_source(ParseState *st, SourceFile *file, Program *prog)
{
	vec_push(&prog->files, file);
	return run(st, file, prog, 0);
}

/* The user's script: as in SystemTap, a script that declares nothing (empty,
 * or only comments and macro definitions) is a pass-1 error. */
/* The tokens of a text on its own (a command-line argument given as $1):
 * each goes to emit with its location in file; returns the lexical errors. */
int parse_tokens_of(Diag *d, SourceFile *file, Program *prog,
		    void (*emit)(void *data, int kind, const STP_YYSTYPE *val, const StpLoc *loc), void *data)
{
	ParseCtx ctx = { .file = file, .prog = prog, .diag = d };
	StpLoc loc = { 1, 1, 1, 1, file };
	STP_YYSTYPE val;
	yyscan_t scanner;
	int kind;

	if (stp_rawlex_init_extra(&ctx, &scanner) != 0) {
		diag_plain(d, "error", "cannot initialize the scanner");
		return 1;
	}
	ctx.scanner = scanner;
	sb_init(&ctx.embedded);
	stp_raw_scan_bytes(file->text, (int)file->len, scanner);
	while ((kind = stp_rawlex(&val, &loc, scanner)) != 0)
		emit(data, kind, &val, &loc);
	stp_rawlex_destroy(scanner);
	sb_free(&ctx.embedded);
	return ctx.errors;
}

int parse_script(ParseState *st, SourceFile *file, Program *prog)
{
	int before = prog->probes.len + prog->functions.len + prog->globals.len + prog->embedded.len;
	int errors = parse_source(st, file, prog);

	if (!errors && prog->probes.len + prog->functions.len + prog->globals.len + prog->embedded.len == before) {
		diag_at(parse_state_diag(st), (SrcLoc){ file, 1, 1 }, "parse error",
			"the script is empty: no probe, function, global or %%{ %%} block in it");
		errors++;
	}
	return errors;
}

int parse_macro_library(ParseState *st, SourceFile *file)
{
	Program unused = { 0 };
	return run(st, file, &unused, 1);
}
