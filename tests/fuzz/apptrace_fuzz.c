/* apptrace_fuzz.c - libFuzzer target for app-trace-report's trace reading: line parsing (parse.c, JSON lines jsonl.c) and aggregation (trace.c).
 * Built by `make fuzz` (FUZZ_TARGETS apptrace); see tests/fuzz/README.md.
 *
 * Input: byte 0 picks the time-bin width (1 us to 10 s) and whether the input is read as one or two
 * hosts' files (the second from the first newline on), and with bit 0x40 whether every call is kept
 * for --timeline (printed instead of the report); the rest is trace text (text or JSON lines, and
 * the second host's header read for its host name as app-trace-report does).  The report is then
 * printed to /dev/null.  Oracle besides the sanitizers: the per-host call count equals the calls
 * counted per program, and bytes read and written per file never exceed the programs' totals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static FILE *devnull;

static void check(const AtrReport *r)
{
	size_t i, j;
	int k;

	for (i = 0; i < r->nhosts; i++) {
		const AtrHost *h = &r->hosts[i];
		uint64_t calls = 0, rd = 0, wr = 0, frd = 0, fwr = 0;
		for (j = 0; j < h->nprogs; j++) {
			for (k = 0; k < ATR_NOPS; k++)
				calls += h->progs[j].calls[k];
			rd += h->progs[j].bytes_read;
			wr += h->progs[j].bytes_written;
		}
		for (j = 0; j < h->nfiles; j++) {
			frd += h->files[j].bytes_read;
			fwr += h->files[j].bytes_written;
		}
		if (calls != h->lines || frd > rd || fwr > wr)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const double widths[] = { 1e-6, 1e-3, 0.1, 1, 10 };
	AtrReport r = { 0 };
	const char *text, *split;
	size_t len;
	AtrHost *h;

	if (size < 1)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	r.bin_s = widths[(data[0] & 0x7f) % 5];
	r.keep_events = (data[0] & 0x40) != 0;	/* --timeline */
	text = (const char *)data + 1;
	len = size - 1;
	split = data[0] & 0x80 ? memchr(text, '\n', len) : NULL;
	h = atr_host(&r, "a");
	if (h && split) {
		if (atr_read_buffer(&r, h, "a-app-trace.out", text, (size_t)(split - text), devnull, 3) >= 0) {
			char name[ATR_NAME_MAX] = "b";
			atr_header_host(split + 1, len - (size_t)(split - text) - 1, name, sizeof(name));
			h = atr_host(&r, name);
			if (h)
				atr_read_buffer(&r, h, "b-app-trace.out", split + 1, len - (size_t)(split - text) - 1,
						devnull, 3);
		}
	} else if (h) {
		atr_read_buffer(&r, h, "a-app-trace.out", text, len, devnull, 3);
	}
	check(&r);
	if (r.keep_events)
		atr_print_timeline(&r, devnull);
	else
		atr_print(&r, devnull, 5);
	atr_print_json(&r, devnull);
	atr_report_free(&r);
	return 0;
}
