/* print.c - app-trace-report's text report: per host and program the calls of each operation, bytes, request-size histograms, sequential share; the busiest files.
 * Used by app-trace-report (main.c). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static void atr_hist(FILE *out, const char *what, const uint64_t *hist)
{
	unsigned k;
	uint64_t lo, hi;
	int any = 0;

	for (k = 0; k < ATR_BUCKETS; k++)
		if (hist[k]) {
			if (!any)
				fprintf(out, "    %s request sizes (bytes):\n", what);
			any = 1;
			lo = k == 0 ? 0 : (uint64_t)1 << (k - 1);
			hi = k == 0 ? 0 : k == 64 ? UINT64_MAX : ((uint64_t)1 << k) - 1;
			fprintf(out, "      %20llu - %-20llu %llu\n", (unsigned long long)lo, (unsigned long long)hi,
				(unsigned long long)hist[k]);
		}
}

static void atr_prog(FILE *out, const AtrProg *p)
{
	int i;
	uint64_t acc = p->seq + p->rnd;
	char e[ATR_ESC_SIZE];

	fprintf(out, "  program %s\n    calls:", atr_esc(e, sizeof(e), p->name, ATR_ESC_NAME));
	for (i = 0; i < ATR_NOPS; i++)
		if (p->calls[i])
			fprintf(out, " %s %llu", atr_op_names[i], (unsigned long long)p->calls[i]);
	fprintf(out, "\n    bytes read %llu, written %llu\n", (unsigned long long)p->bytes_read,
		(unsigned long long)p->bytes_written);
	if (acc)
		fprintf(out, "    accesses with an offset %llu: sequential %llu (%.1f%%), random %llu (%.1f%%)\n",
			(unsigned long long)acc, (unsigned long long)p->seq, 100.0 * (double)p->seq / (double)acc,
			(unsigned long long)p->rnd, 100.0 * (double)p->rnd / (double)acc);
	atr_hist(out, "read", p->hist[0]);
	atr_hist(out, "write", p->hist[1]);
}

static const AtrFile *atr_sort_files;

/* by bytes (read + written), then calls, descending; then by path */
static int atr_file_cmp(const void *a, const void *b)
{
	const AtrFile *x = &atr_sort_files[*(const size_t *)a], *y = &atr_sort_files[*(const size_t *)b];
	uint64_t bx = x->bytes_read + x->bytes_written, by = y->bytes_read + y->bytes_written;

	if (bx != by)
		return bx < by ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->path, y->path);
}

static const AtrProg *atr_sort_progs;

static int atr_prog_cmp(const void *a, const void *b)
{
	return strcmp(atr_sort_progs[*(const size_t *)a].name, atr_sort_progs[*(const size_t *)b].name);
}

/* progs: the programs in name order */
static void atr_progs(FILE *out, const AtrHost *h)
{
	size_t *idx, i;

	idx = malloc((h->nprogs ? h->nprogs : 1) * sizeof(*idx));
	if (!idx)
		return;
	for (i = 0; i < h->nprogs; i++)
		idx[i] = i;
	atr_sort_progs = h->progs;
	qsort(idx, h->nprogs, sizeof(*idx), atr_prog_cmp);
	for (i = 0; i < h->nprogs; i++)
		atr_prog(out, &h->progs[idx[i]]);
	free(idx);
}

static void atr_files(FILE *out, const AtrHost *h, unsigned top)
{
	size_t *idx, i, n = h->nfiles;
	char e[ATR_ESC_SIZE];

	if (n == 0 || top == 0)
		return;
	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return;
	for (i = 0; i < n; i++)
		idx[i] = i;
	atr_sort_files = h->files;
	qsort(idx, n, sizeof(*idx), atr_file_cmp);
	fprintf(out, "  busiest files (bytes read, written, calls):\n");
	for (i = 0; i < n && i < top; i++) {
		const AtrFile *f = &h->files[idx[i]];
		fprintf(out, "    %12llu %12llu %8llu  %s\n", (unsigned long long)f->bytes_read,
			(unsigned long long)f->bytes_written, (unsigned long long)f->calls,
			atr_esc(e, sizeof(e), f->path, ATR_ESC_QUOTED));
	}
	free(idx);
}

void atr_print(const AtrReport *r, FILE *out, unsigned top)
{
	char e[ATR_ESC_SIZE];
	size_t i;

	for (i = 0; i < r->nhosts; i++) {
		const AtrHost *h = &r->hosts[i];
		fprintf(out, "host %s: %llu calls\n", atr_esc(e, sizeof(e), h->name, ATR_ESC_NAME),
			(unsigned long long)h->lines);
		if (h->lost)
			fprintf(out, "  WARNING: the trace lost %llu records\n", (unsigned long long)h->lost);
		atr_progs(out, h);
		atr_files(out, h, top);
	}
}

static int atr_event_cmp(const void *a, const void *b)
{
	const AtrEvent *x = a, *y = b;

	if (x->t_ctl != y->t_ctl)
		return x->t_ctl < y->t_ctl ? -1 : 1;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The per-host table of --timeline, then whose file's header gave each host's clock offset. */
static void atr_print_hosts(const AtrReport *r, FILE *out)
{
	char e[ATR_ESC_SIZE], f[ATR_ESC_PATH_SIZE];
	size_t i, j;

	fprintf(out, "%-20s %10s %10s %14s %8s %8s %18s %18s %12s %10s\n", "host", "lines", "calls",
		"bytes", "lost", "errors", "first_us", "last_us", "offset_us", "error_us");
	for (i = 0; i < r->nhosts; i++) {
		const AtrHost *h = &r->hosts[i];
		uint64_t bytes = 0;

		for (j = 0; j < h->nprogs; j++)
			bytes += h->progs[j].bytes_read + h->progs[j].bytes_written;
		fprintf(out, "%-20s %10llu %10llu %14llu %8llu %8llu %18llu %18llu ",
			atr_esc(e, sizeof(e), h->name, ATR_ESC_NAME),
			(unsigned long long)(h->lines + h->lost), (unsigned long long)h->lines,
			(unsigned long long)bytes, (unsigned long long)h->lost, (unsigned long long)h->errors,
			(unsigned long long)h->first_us, (unsigned long long)h->last_us);
		if (h->has_offset)
			fprintf(out, "%12lld %10lld\n", (long long)h->offset_us, (long long)h->offset_err_us);
		else
			fprintf(out, "%12s %10s\n", "unknown", "-");
	}
	for (i = 0; i < r->nhosts; i++)
		if (r->hosts[i].has_offset && r->hosts[i].offset_file)
			fprintf(out, "clock offset of %s: from the header of %s\n",
				atr_esc(e, sizeof(e), r->hosts[i].name, ATR_ESC_NAME),
				atr_esc(f, sizeof(f), r->hosts[i].offset_file, ATR_ESC_NAME));
}

/* a - b, held to int64_t's range (a time and an offset from a trace may be anything) */
static int64_t atr_sub_sat(int64_t a, int64_t b)
{
	int64_t d;

	if (__builtin_sub_overflow(a, b, &d))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return d;
}

void atr_print_timeline(AtrReport *r, FILE *out)
{
	int64_t err = 0;
	size_t i;
	int unknown = 0;

	atr_print_hosts(r, out);
	for (i = 0; i < r->nhosts; i++) {
		if (!r->hosts[i].has_offset || r->hosts[i].offset_err_us < 0)
			unknown = 1;
		else if (__builtin_add_overflow(err, r->hosts[i].offset_err_us, &err))
			err = INT64_MAX;
	}
	for (i = 0; i < r->nevents; i++) {
		const AtrHost *h = &r->hosts[r->events[i].host];
		r->events[i].t_ctl = atr_sub_sat((int64_t)r->events[i].ts_us, h->has_offset ? h->offset_us : 0);
	}
	if (r->nevents)
		qsort(r->events, r->nevents, sizeof(*r->events), atr_event_cmp);
	if (unknown)
		fprintf(out, "timeline (controller's clock; a host without a measured offset as its own clock):\n");
	else
		fprintf(out, "timeline (controller's clock; two hosts' calls are in order when more than %lld us apart):\n",
			(long long)err);
	for (i = 0; i < r->nevents; i++) {
		const AtrEvent *e = &r->events[i];
		const AtrHost *h = &r->hosts[e->host];
		char eh[ATR_ESC_SIZE], ep[ATR_ESC_SIZE];

		fprintf(out, "%lld %s op: %s execname: %s pid: %ld fd: %ld", (long long)e->t_ctl,
			atr_esc(eh, sizeof(eh), h->name, ATR_ESC_NAME), atr_op_names[e->op],
			atr_esc(ep, sizeof(ep), h->progs[e->prog].name, ATR_ESC_NAME), e->pid, e->fd);
		if (e->has_ret)
			fprintf(out, " ret: %lld", (long long)e->ret);
		fputc('\n', out);
	}
}
