/* main.c - app-trace-report: reads per-host app-trace.stp output files (HOST-app-trace.out) and prints per host and program what they did with files and sockets.
 * Used by operations teams after a traced run (man/app-trace-report.1), and tests/unit/app-trace-report.t. */
#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ATR_MAX_MSGS 20		/* malformed lines reported per file */

static void atr_usage(FILE *f)
{
	fprintf(f, "usage: app-trace-report [--top N] [--bin SECONDS] [--plot FILE.png|FILE.svg] [--timeline | --json] TRACE...\n"
		   "  TRACE: app-trace.stp output; its host is its header's, else the name up to \"-app-trace\";\n"
		   "    in (or a file of) a directory app-trace.yml fetched into: the host directory's name\n"
		   "  --timeline: a table per host and every call of all hosts in the controller's time\n"
		   "  --json: the summary as one JSON object\n");
}

/* slurp: the whole file (NUL-free check left to the parser); NULL with errno. */
static char *atr_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *p;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf ? buf : calloc(1, 1);
}

/* What reading the traces needs beside the report: the status so far. */
typedef struct {
	AtrReport *r;
	int rc;		/* 1: a file was missing or had malformed lines */
	int oom;	/* out of memory: the report is not whole */
} AtrRun;

/* notice: file's header names another host (claimed) than the inventory host it was fetched from. */
static void atr_claim_notice(const char *file, const char *claimed, const AtrHost *h)
{
	char f[ATR_ESC_PATH_SIZE], c[ATR_ESC_SIZE], n[ATR_ESC_SIZE];

	fprintf(stderr, "app-trace-report: notice: %s: its header names host %s, but it was fetched from %s: "
		"counted as %s's%s\n", atr_esc(f, sizeof(f), file, ATR_ESC_NAME),
		atr_esc(c, sizeof(c), claimed, ATR_ESC_NAME), atr_esc(n, sizeof(n), h->name, ATR_ESC_NAME), n,
		h->offset_file && strcmp(h->offset_file, file) == 0 ? ", its clock offset too" : "");
}

/* read_file: one trace into its host: inventory's when it was fetched from there (a header naming
 * another host said), else its name's or header's. 0, or 1: out of memory (run->oom). */
static int atr_read_file(const char *path, const char *inventory, void *arg)
{
	AtrRun *run = arg;
	char host[ATR_NAME_MAX], claimed[ATR_NAME_MAX], e[ATR_ESC_PATH_SIZE], *buf;
	const char *base;
	size_t len;
	long bad;
	AtrHost *h;

	buf = atr_slurp(path, &len);
	if (!buf) {
		fprintf(stderr, "app-trace-report: %s: %s\n", atr_esc(e, sizeof(e), path, ATR_ESC_NAME), strerror(errno));
		run->rc = 1;
		return 0;
	}
	claimed[0] = '\0';
	if (inventory) {
		snprintf(host, sizeof(host), "%s", inventory);
		if (!atr_header_host(buf, len, claimed, sizeof(claimed)) || strcmp(claimed, inventory) == 0)
			claimed[0] = '\0';
	} else {
		/* HOST-app-trace.out* names the host; a file named otherwise, its header */
		base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		if (strstr(base, "-app-trace") || !atr_header_host(buf, len, host, sizeof(host)))
			atr_host_of(path, host, sizeof(host));
	}
	h = atr_host(run->r, host);
	bad = h ? atr_read_buffer(run->r, h, path, buf, len, stderr, ATR_MAX_MSGS) : -1;
	free(buf);
	if (bad < 0) {
		fprintf(stderr, "app-trace-report: %s: out of memory\n", atr_esc(e, sizeof(e), path, ATR_ESC_NAME));
		run->oom = 1;
		return 1;
	}
	if (claimed[0])
		atr_claim_notice(path, claimed, h);
	if (bad > 0)
		run->rc = 1;
	return 0;
}

/* read_arg: a trace file (its inventory host when it lies in a fetch directory), or a fetch
 * directory (every host's files). 0, or -1: out of memory. */
static int atr_read_arg(AtrRun *run, const char *arg)
{
	char host[ATR_NAME_MAX], e[ATR_ESC_PATH_SIZE];
	struct stat st;

	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (!atr_is_fleet_dir(arg)) {
			fprintf(stderr, "app-trace-report: %s: a directory without %s (not one app-trace.yml fetched "
				"into): give the trace files in it\n", atr_esc(e, sizeof(e), arg, ATR_ESC_NAME), ATR_FLEET_MARK);
			run->rc = 1;
			return 0;
		}
		if (atr_fleet_each(arg, stderr, atr_read_file, run) < 0)
			run->rc = 1;
	} else {
		atr_read_file(arg, atr_inventory_host(arg, host, sizeof(host)) ? host : NULL, run);
	}
	return run->oom ? -1 : 0;
}

static int atr_number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno == 0 && end != s && *end == '\0' && *v > 0 && *v < 1e9 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 't' },
		{ "bin", required_argument, NULL, 'b' },
		{ "plot", required_argument, NULL, 'p' },
		{ "timeline", no_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	AtrReport r = { .bin_s = 1.0 };
	AtrRun run = { &r, 0, 0 };
	const char *plot = NULL;
	double v;
	unsigned top = 10;
	int c, i, json = 0;

	while ((c = getopt_long(argc, argv, "t:b:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'T':
			r.keep_events = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 't':
			if (atr_number(optarg, &v) < 0 && strcmp(optarg, "0") != 0) {
				fprintf(stderr, "app-trace-report: --top %s: not a number\n", optarg);
				return 2;
			}
			top = strcmp(optarg, "0") == 0 ? 0 : (unsigned)v;
			break;
		case 'b':
			if (atr_number(optarg, &r.bin_s) < 0 || r.bin_s < 1e-6) {
				fprintf(stderr, "app-trace-report: --bin %s: not a positive number of seconds\n", optarg);
				return 2;
			}
			break;
		case 'p':
			plot = optarg;
			break;
		case 'h':
			atr_usage(stdout);
			return 0;
		default:
			atr_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		atr_usage(stderr);
		return 2;
	}
	for (i = optind; i < argc; i++)
		if (atr_read_arg(&run, argv[i]) < 0) {
			atr_report_free(&r);
			return 1;
		}
	if (json)
		atr_print_json(&r, stdout);
	else if (r.keep_events)
		atr_print_timeline(&r, stdout);
	else
		atr_print(&r, stdout, top);
	if (plot && atr_plot(&r, plot) < 0)
		run.rc = 1;
	atr_report_free(&r);
	return run.rc;
}
