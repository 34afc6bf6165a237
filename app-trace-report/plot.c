/* plot.c - app-trace-report --plot: a gnuplot picture (PNG or SVG) of each host's throughput and mean request size over time.
 * Used by app-trace-report (main.c); runs gnuplot (Debian's gnuplot-nox) with a script on its standard input. */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ok_text: usable inside a gnuplot single-quoted string (no quote, no control bytes). */
static int atr_ok_text(const char *s)
{
	for (; *s; s++)
		if (*s == '\'' || (unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* data: DIR/hostN.dat: seconds, read MB/s, write MB/s, mean request size (bytes; 0 without requests). */
static int atr_write_data(const AtrReport *r, const char *dir)
{
	char path[4200];
	size_t i, j;
	FILE *f;

	for (i = 0; i < r->nhosts; i++) {
		const AtrHost *h = &r->hosts[i];
		snprintf(path, sizeof(path), "%s/host%zu.dat", dir, i);
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "app-trace-report: %s: %s\n", path, strerror(errno));
			return -1;
		}
		for (j = 0; j < h->nbins; j++) {
			const AtrBin *b = &h->bins[j];
			fprintf(f, "%.6f %.6f %.6f %.1f\n", b->t, (double)b->rd / r->bin_s / 1e6,
				(double)b->wr / r->bin_s / 1e6, b->reqs ? (double)b->req_bytes / (double)b->reqs : 0.0);
		}
		if (h->nbins == 0)	/* a host without transfers: a line at 0 (gnuplot refuses empty files) */
			fprintf(f, "0 0 0 0\n");
		if (fclose(f) != 0) {
			fprintf(stderr, "app-trace-report: %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* script: the gnuplot commands: two plots, one above the other, a line per host and direction. */
static void atr_script(const AtrReport *r, FILE *g, const char *dir, const char *out, int svg)
{
	size_t i;

	fprintf(g, "set terminal %s size 1000,800\nset output '%s'\n",
		svg ? "svg" : "png", out);
	fprintf(g, "set multiplot layout 2,1 title 'app-trace: %zu host(s)'\nset grid\nset key outside right\n",
		r->nhosts);
	fprintf(g, "set xlabel 'seconds since the host''s first line'\nset ylabel 'MB/s'\nset title 'throughput'\nplot ");
	for (i = 0; i < r->nhosts; i++)
		fprintf(g, "%s'%s/host%zu.dat' using 1:2 with linespoints title '%s read', "
			"'%s/host%zu.dat' using 1:3 with linespoints title '%s write'",
			i ? ", " : "", dir, i, r->hosts[i].name, dir, i, r->hosts[i].name);
	fprintf(g, "\nset ylabel 'bytes'\nset title 'mean request size'\nplot ");
	for (i = 0; i < r->nhosts; i++)
		fprintf(g, "%s'%s/host%zu.dat' using 1:4 with linespoints title '%s'", i ? ", " : "", dir, i,
			r->hosts[i].name);
	fprintf(g, "\nunset multiplot\n");
}

static void atr_rm_dir(const AtrReport *r, const char *dir)
{
	char path[4200];
	size_t i;

	for (i = 0; i < r->nhosts; i++) {
		snprintf(path, sizeof(path), "%s/host%zu.dat", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

int atr_plot(const AtrReport *r, const char *out)
{
	size_t n = strlen(out), i;
	int svg, status = -1;
	char dir[4096];
	const char *tmp = getenv("TMPDIR");
	char e[ATR_ESC_SIZE], eo[ATR_ESC_PATH_SIZE];
	FILE *g;

	svg = n > 4 && strcmp(out + n - 4, ".svg") == 0;
	if (!svg && !(n > 4 && strcmp(out + n - 4, ".png") == 0)) {
		fprintf(stderr, "app-trace-report: --plot %s: the name must end in .png or .svg\n", out);
		return -1;
	}
	if (!atr_ok_text(out)) {
		fprintf(stderr, "app-trace-report: --plot %s: a quote or control character in the name\n",
			atr_esc(eo, sizeof(eo), out, ATR_ESC_NAME));
		return -1;
	}
	for (i = 0; i < r->nhosts && r->hosts[i].nbins == 0; i++)
		;
	if (i == r->nhosts) {
		fprintf(stderr, "app-trace-report: --plot %s: no reads or writes to plot\n", out);
		return -1;
	}
	for (i = 0; i < r->nhosts; i++) {
		if (r->hosts[i].unplotted)
			fprintf(stderr, "app-trace-report: --plot: host %s: %llu transfers after the last time bin "
				"left out (use a wider --bin)\n", atr_esc(e, sizeof(e), r->hosts[i].name, ATR_ESC_NAME),
				(unsigned long long)r->hosts[i].unplotted);
		if (!atr_ok_text(r->hosts[i].name)) {
			fprintf(stderr, "app-trace-report: --plot: host name '%s' has a quote or control character\n",
				atr_esc(e, sizeof(e), r->hosts[i].name, ATR_ESC_NAME));
			return -1;
		}
	}
	snprintf(dir, sizeof(dir), "%s/app-trace-report.XXXXXX", tmp && *tmp && atr_ok_text(tmp) ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "app-trace-report: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (atr_write_data(r, dir) == 0) {
		g = popen("gnuplot", "w");
		if (!g) {
			fprintf(stderr, "app-trace-report: cannot run gnuplot: %s\n", strerror(errno));
		} else {
			atr_script(r, g, dir, out, svg);
			status = pclose(g);
			if (status != 0)
				fprintf(stderr, "app-trace-report: gnuplot failed (status %d; is gnuplot-nox installed?)\n",
					WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			status = status == 0 ? 0 : -1;
		}
	}
	atr_rm_dir(r, dir);
	return status;
}
