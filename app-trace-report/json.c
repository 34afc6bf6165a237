/* json.c - app-trace-report --json: the per-host summary as one JSON object (hosts, their programs and files), for log pipelines.
 * Used by app-trace-report (main.c) and tests/fuzz/apptrace_fuzz.c; the numbers are those of the text report (print.c). */
#include "report.h"

/* s as a JSON string: quotes, backslashes and every byte outside printable ASCII as \u00XX
 * (a byte, not a character: any input gives valid JSON). */
static void atr_json_str(FILE *out, const char *s)
{
	const unsigned char *p;

	fputc('"', out);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void atr_json_u64(FILE *out, const char *key, uint64_t v, int comma)
{
	fprintf(out, "%s\"%s\":%llu", comma ? "," : "", key, (unsigned long long)v);
}

/* A request-size histogram: [{"from":A,"to":B,"count":N}...] for its non-empty buckets. */
static void atr_json_hist(FILE *out, const char *key, const uint64_t *hist)
{
	int k, first = 1;

	fprintf(out, ",\"%s\":[", key);
	for (k = 0; k < ATR_BUCKETS; k++) {
		uint64_t from = k == 0 ? 0 : (uint64_t)1 << (k - 1);
		uint64_t to = k == 0 ? 0 : k == 64 ? UINT64_MAX : ((uint64_t)1 << k) - 1;

		if (!hist[k])
			continue;
		fprintf(out, "%s{\"from\":%llu,\"to\":%llu,\"count\":%llu}", first ? "" : ",",
			(unsigned long long)from, (unsigned long long)to, (unsigned long long)hist[k]);
		first = 0;
	}
	fputc(']', out);
}

static void atr_json_prog(FILE *out, const AtrProg *p)
{
	int op, first = 1;

	fputs("{\"execname\":", out);
	atr_json_str(out, p->name);
	fputs(",\"calls\":{", out);
	for (op = 0; op < ATR_NOPS; op++) {
		if (!p->calls[op])
			continue;
		atr_json_u64(out, atr_op_names[op], p->calls[op], !first);
		first = 0;
	}
	fputc('}', out);
	atr_json_u64(out, "bytes_read", p->bytes_read, 1);
	atr_json_u64(out, "bytes_written", p->bytes_written, 1);
	atr_json_u64(out, "sequential", p->seq, 1);
	atr_json_u64(out, "random", p->rnd, 1);
	atr_json_hist(out, "read_sizes", p->hist[0]);
	atr_json_hist(out, "write_sizes", p->hist[1]);
	fputc('}', out);
}

static void atr_json_host(FILE *out, const AtrHost *h)
{
	uint64_t rd = 0, wr = 0;
	size_t i;

	for (i = 0; i < h->nprogs; i++) {
		rd += h->progs[i].bytes_read;
		wr += h->progs[i].bytes_written;
	}
	fputs("{\"host\":", out);
	atr_json_str(out, h->name);
	atr_json_u64(out, "calls", h->lines, 1);
	atr_json_u64(out, "lost", h->lost, 1);
	atr_json_u64(out, "errors", h->errors, 1);
	atr_json_u64(out, "bytes_read", rd, 1);
	atr_json_u64(out, "bytes_written", wr, 1);
	atr_json_u64(out, "first_us", h->first_us, 1);
	atr_json_u64(out, "last_us", h->last_us, 1);
	if (h->has_offset) {
		fprintf(out, ",\"clock_offset_us\":%lld,\"clock_offset_err_us\":%lld", (long long)h->offset_us,
			(long long)h->offset_err_us);
		/* whose file's header said it */
		if (h->offset_file) {
			fputs(",\"clock_offset_from\":", out);
			atr_json_str(out, h->offset_file);
		}
	}
	fputs(",\"programs\":[", out);
	for (i = 0; i < h->nprogs; i++) {
		if (i)
			fputc(',', out);
		atr_json_prog(out, &h->progs[i]);
	}
	fputs("],\"files\":[", out);
	for (i = 0; i < h->nfiles; i++) {
		fputs(i ? ",{\"path\":" : "{\"path\":", out);
		atr_json_str(out, h->files[i].path);
		atr_json_u64(out, "bytes_read", h->files[i].bytes_read, 1);
		atr_json_u64(out, "bytes_written", h->files[i].bytes_written, 1);
		atr_json_u64(out, "calls", h->files[i].calls, 1);
		fputc('}', out);
	}
	fputs("]}", out);
}

void atr_print_json(const AtrReport *r, FILE *out)
{
	size_t i;

	fputs("{\"hosts\":[", out);
	for (i = 0; i < r->nhosts; i++) {
		if (i)
			fputc(',', out);
		atr_json_host(out, &r->hosts[i]);
	}
	fprintf(out, "],\"malformed_lines\":%lu}\n", r->bad_lines);
}
