/* main.c - app-trace-report: reads per-host app-trace.stp output files (HOST-app-trace.out) and prints per host and program what they did with files and sockets.
 * Used by operations teams after a traced run (man/app-trace-report.1), and tests/unit/app-trace-report.t. */
#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define ATR_MAX_MSGS 20		/* malformed lines reported per file */

static void atr_usage(FILE *f)
{
	fprintf(f, "usage: app-trace-report [--top N] [--bin SECONDS] [--plot FILE.png|FILE.svg] [--timeline | --json] TRACE...\n"
		   "  TRACE: app-trace.stp output; its host is its header's, else the name up to \"-app-trace\"\n"
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
	const char *plot = NULL;
	char host[ATR_NAME_MAX], *buf;
	const char *base;
	double v;
	unsigned top = 10;
	size_t len;
	int c, i, rc = 0, json = 0;
	long bad;

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
	for (i = optind; i < argc; i++) {
		AtrHost *h;

		buf = atr_slurp(argv[i], &len);
		if (!buf) {
			fprintf(stderr, "app-trace-report: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		/* HOST-app-trace.out* names the host; a file named otherwise, its header */
		base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		if (strstr(base, "-app-trace") || !atr_header_host(buf, len, host, sizeof(host)))
			atr_host_of(argv[i], host, sizeof(host));
		h = atr_host(&r, host);
		bad = h ? atr_read_buffer(&r, h, argv[i], buf, len, stderr, ATR_MAX_MSGS) : -1;
		free(buf);
		if (bad < 0) {
			fprintf(stderr, "app-trace-report: %s: out of memory\n", argv[i]);
			atr_report_free(&r);
			return 1;
		}
		if (bad > 0)
			rc = 1;
	}
	if (json)
		atr_print_json(&r, stdout);
	else if (r.keep_events)
		atr_print_timeline(&r, stdout);
	else
		atr_print(&r, stdout, top);
	if (plot && atr_plot(&r, plot) < 0)
		rc = 1;
	atr_report_free(&r);
	return rc;
}
