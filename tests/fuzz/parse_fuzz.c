/* parse_fuzz.c - libFuzzer target for pass 1: every input is parsed as a script by parse_source().
 * Built and run by `make fuzz` (build/fuzz/parse_fuzz) and tests/unit/fuzz-smoke.t; see tests/fuzz/README.md. */
#include "lib/diag.h"
#include "parse/parse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

/* The translator writes its diagnostics to `stderr`.  Pointing that variable
 * (assignable in glibc) at /dev/null silences them without touching fd 2, so
 * libFuzzer's status lines and the sanitizers' reports still reach the
 * terminal.  STAP_FUZZ_STDERR=1 keeps the diagnostics, e.g. to see what an
 * artifact does: STAP_FUZZ_STDERR=1 build/fuzz/parse_fuzz build/fuzz/crashes/crash-... */
/* CONFIG_ values the %( CONFIG_X == "y" %) conditions see. */
static const char *fuzz_config(void *data, const char *name)
{
	(void)data;
	if (!strcmp(name, "CONFIG_SMP") || !strcmp(name, "CONFIG_KPROBES"))
		return "y";
	if (!strcmp(name, "CONFIG_HZ"))
		return "250";
	return NULL;
}

/* the macros and env every input is parsed with, as the driver's session keeps them */
static ParseState *parse;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* what the driver (main.c) gives the preprocessor, with script arguments
	 * so that $1, @1, $2, @2 and $# take their defined paths, and $3, $4 are
	 * token lists: one naming another argument (and an open parenthesis),
	 * one a probe point */
	static char *script_args[] = { "42", "str", "$1 + ($2", "syscall.{read, write}?", NULL };
	static PreprocEnv env = {
		.kernel_v = "6.1.0", .kernel_vr = "6.1.0-26-amd64", .arch = "x86_64",
		.runtime = "kernel", .systemtap_v = "5.1", .privilege = "stapdev",
		.guru_mode = 0, .config = fuzz_config, .argc = 4, .argv = script_args,
	};
	const char *keep = getenv("STAP_FUZZ_STDERR");
	Diag *diag = calloc(1, sizeof *diag);   /* the diagnostics of every input, as one run's */
	FILE *null;

	(void)argc;
	(void)argv;
	if (!diag)
		abort();
	diag_init(diag);
	parse = parse_state_new(diag, &env);
	if (keep && *keep && strcmp(keep, "0") != 0)
		return 0;
	null = fopen("/dev/null", "w");
	if (null) {
		/* the fuzzer is single-threaded: no stdio locking per fputc */
		__fsetlocking(null, FSETLOCKING_BYCALLER);
		setvbuf(null, NULL, _IOFBF, 1 << 16);
		stderr = null;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The translator keeps its tree (and the text the nodes point into) until
	 * exit, so the text, the SourceFile and the nodes of each input are leaked
	 * on purpose; run with -detect_leaks=0. */
	char *text = malloc(size + 1);
	Program *prog = calloc(1, sizeof *prog);
	SourceFile *file;

	if (!text || !prog)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	file = source_new("<fuzz>", text, size);
	parse_source(parse, file, prog);
	return 0;
}
