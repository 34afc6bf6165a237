/* bpffmt_fuzz.c - libFuzzer target for what stapio reads of a BPF object's printf: the formats section
 * (bpf_formats_read) and the printf records formatted with it (bpf_format_record).  Built by `make fuzz`.
 *
 * Input: [u16 n, little-endian][n bytes: the section], then records [u16 len][len bytes: a record's body].
 * Oracle besides the sanitizers: no formatted record is longer than the output's limit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfglue.h"

const char log_program[] = "stapio";

/* outfile.c's, here a check of what bpfformat.c hands the output */
void bpf_output_text(struct bpf_output *o, const char *text, size_t len)
{
	(void)o;
	if (len > (1u << 20) || (len && !text))
		abort();
	if (len)
		(void)*(volatile const char *)(text + len - 1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* err()'s messages (one per malformed input) to nowhere, unless STAP_FUZZ_STDERR; the fuzzer's and the
	 * sanitizers' reports go to fd 2 still */
	const char *keep = getenv("STAP_FUZZ_STDERR");
	FILE *null;

	if (keep && *keep && strcmp(keep, "0") != 0)
		return 0;
	null = fopen("/dev/null", "w");
	if (null)
		stderr = null;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bpf_formats *fm;
	size_t n, at;

	if (size < 2)
		return 0;
	n = data[0] | (size_t)data[1] << 8;
	if (n > size - 2)
		n = size - 2;
	{
		/* the section as libbpf hands it: its own copy, no byte more */
		char *blob = malloc(n ? n : 1);
		if (!blob)
			return 0;
		memcpy(blob, data + 2, n);
		fm = bpf_formats_read(blob, n);
		free(blob);
	}
	at = 2 + n;
	while (size - at >= 2) {
		size_t len = data[at] | (size_t)data[at + 1] << 8;
		char *rec;

		at += 2;
		if (len > size - at)
			len = size - at;
		rec = malloc(len ? len : 1);
		if (!rec)
			break;
		memcpy(rec, data + at, len);
		bpf_format_record(NULL, fm, rec, len);
		free(rec);
		at += len;
	}
	bpf_formats_free(fm);
	return 0;
}
