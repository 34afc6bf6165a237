/* main.c - staprun: loads a compiled stap module, runs stapio for it, removes it.
 * Run by stap (pass 5) or by hand: staprun [-v] [-o FILE] MODULE.ko [name=value ...]. */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "staprun.h"

int verbose;

void say(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	fputs("staprun: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("staprun: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

struct options {
	const char *outfile;
	const char *module;     /* path to MODULE.ko */
	char **params;          /* name=value ... */
	int nparams;
};

static void usage(void)
{
	fputs("usage: staprun [-v] [-o FILE] MODULE.ko [name=value ...]\n"
	      "  -v       say what is done (stapio too)\n"
	      "  -o FILE  write the script's output to FILE instead of stdout\n", stderr);
	exit(1);
}

/* '+': options end at MODULE.ko; what follows are module parameters. */
static void parse_args(struct options *o, int argc, char **argv)
{
	int c, i;

	while ((c = getopt(argc, argv, "+vo:h")) != -1) {
		switch (c) {
		case 'v': verbose++; break;
		case 'o': o->outfile = optarg; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	o->module = argv[optind];
	o->params = argv + optind + 1;
	o->nparams = argc - optind - 1;
	for (i = 0; i < o->nparams; i++) {
		if (!strchr(o->params[i], '=') || o->params[i][0] == '=') {
			err("module parameter \"%s\" is not name=value", o->params[i]);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct stapio_args a;
	char stapio[PATH_MAX];
	char name[64];
	char *params;
	int status;

	parse_args(&o, argc, argv);
	if (module_name_from_path(o.module, name, sizeof(name)) < 0) {
		err("bad module file name \"%s\" (want NAME.ko, NAME shorter than 56)", o.module);
		return 1;
	}
	/* before loading anything: a module without its reader would be stranded */
	if (find_stapio(stapio, sizeof(stapio)) < 0)
		return 1;
	params = module_params_join(o.params, o.nparams);
	if (!params) {
		err("out of memory");
		return 1;
	}
	if (module_load(o.module, name, params) < 0) {
		free(params);
		return 1;
	}
	free(params);
	a.path = stapio;
	a.name = name;
	a.outfile = o.outfile;
	a.verbose = verbose;
	status = run_stapio(&a);
	if (module_remove(name) < 0 && status == 0)
		status = 1;
	return status;
}
