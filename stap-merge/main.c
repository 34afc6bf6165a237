/* main.c - stap-merge: merges the per-CPU files of a bulk-mode run (stap -b) back into one stream.
 * Run by users on stpd_cpuN / FILE_cpuN[.K] files written by stapio; tested by tests/unit/stap-merge.t. */

/* POSIX only: with _GNU_SOURCE, <sys/stat.h> pulls in <linux/types.h>, whose
 * __u64 clashes with the one protocol.h defines for userspace. */
#undef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "protocol.h"

/*
 * Each input file holds records exactly as stapio read them from one CPU's
 * trace file: a struct stp_record_header (len, cpu, flags, seq) and len
 * payload bytes, back to back, seq increasing.  seq is global, so taking
 * always the input whose next record has the lowest seq restores the order in
 * which the records were produced: the payloads come out byte for byte as
 * stapio's merged mode would have written them.  Inputs are read one record
 * at a time (at most one payload buffered per input), so memory is bounded
 * by the number of files, whatever their size.  Rotated files (-S) of one CPU
 * may be given as separate inputs: each is in order by itself, which is all
 * the merge needs.
 */

#define HDR sizeof(struct stp_record_header)
#define DEFAULT_PREFIX "stpd_cpu"

struct input {
	const char *name;
	FILE *f;
	long long off;                  /* offset of the record in h */
	struct stp_record_header h;
	char *payload;
	size_t cap;
	int have;                       /* h and payload hold the next record */
	uint64_t first, last;           /* seqs read so far (last 0: none) */
	unsigned long long records, bytes;
};

static int verbose;

static void usage(FILE *to, int status) __attribute__((noreturn));
static void usage(FILE *to, int status)
{
	fputs("usage: stap-merge [-v] [-o OUTFILE] [FILE...]\n"
	      "Merges the per-CPU files of a bulk-mode run (stap -b) in the order the records\n"
	      "were produced and writes their output to stdout or OUTFILE.\n"
	      "Without FILE: every " DEFAULT_PREFIX "N file of the current directory.\n"
	      "  -o OUTFILE  write to OUTFILE instead of standard output\n"
	      "  -v          summary on stderr (-v -v: also one line per record)\n", to);
	exit(status);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("stap-merge: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Reads the next record of in (in->have = 0 at the end of the file); a
 * truncated or malformed record is fatal. */
static void next_record(struct input *in)
{
	struct stp_record_header h;
	size_t n;

	in->have = 0;
	if (!in->f)
		return;
	if (in->records)
		in->off += (long long)(HDR + in->h.len);
	n = fread(&h, 1, HDR, in->f);
	if (n == 0 && !ferror(in->f)) {
		fclose(in->f);
		in->f = NULL;
		return;
	}
	if (n < HDR) {
		if (ferror(in->f))
			die("%s: read error at offset %lld: %s", in->name, in->off, strerror(errno));
		die("%s: truncated record header at offset %lld (%zu of %zu bytes)",
		    in->name, in->off, n, HDR);
	}
	if (h.len > STP_REC_MAX_LEN)
		die("%s: bad record header at offset %lld: payload length %u > %u (not a bulk-mode file?)",
		    in->name, in->off, h.len, STP_REC_MAX_LEN);
	if (h.flags & ~(STP_REC_STDERR | STP_REC_SWITCH))
		die("%s: bad record header at offset %lld: unknown flags 0x%x (not a bulk-mode file?)",
		    in->name, in->off, h.flags);
	if (h.seq == 0 || h.seq <= in->last)
		die("%s: bad record header at offset %lld: seq %llu after seq %llu (corrupt file?)",
		    in->name, in->off, (unsigned long long)h.seq, (unsigned long long)in->last);
	if (h.len > in->cap) {
		char *p = realloc(in->payload, STP_REC_MAX_LEN);
		if (!p)
			die("out of memory");
		in->payload = p;
		in->cap = STP_REC_MAX_LEN;
	}
	n = fread(in->payload, 1, h.len, in->f);
	if (n < h.len) {
		if (ferror(in->f))
			die("%s: read error at offset %lld: %s", in->name, in->off, strerror(errno));
		die("%s: truncated record at offset %lld: %u payload bytes, only %zu in the file",
		    in->name, in->off, h.len, n);
	}
	if (!in->records)
		in->first = h.seq;
	in->last = h.seq;
	in->records++;
	in->bytes += h.len;
	in->h = h;
	in->have = 1;
}

/* "stpd_cpuN" -> N; -1 for other names. */
static long default_cpu(const char *name)
{
	size_t plen = strlen(DEFAULT_PREFIX);
	char *end;
	long cpu;

	if (strncmp(name, DEFAULT_PREFIX, plen) || name[plen] < '0' || name[plen] > '9')
		return -1;
	cpu = strtol(name + plen, &end, 10);
	return *end || cpu > 65535 ? -1 : cpu;
}

static int by_cpu(const void *a, const void *b)
{
	long x = default_cpu(*(char *const *)a), y = default_cpu(*(char *const *)b);
	return (x > y) - (x < y);
}

/* The stpd_cpuN files of the current directory, by CPU. */
static char **default_files(size_t *count)
{
	DIR *d = opendir(".");
	struct dirent *e;
	char **names = NULL, **p;
	size_t n = 0;

	if (!d)
		die("cannot read the current directory: %s", strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (default_cpu(e->d_name) < 0)
			continue;
		if (!(p = realloc(names, (n + 1) * sizeof(*names))) || !(p[n] = strdup(e->d_name)))
			die("out of memory");
		names = p;
		n++;
	}
	closedir(d);
	if (n == 0)
		die("no " DEFAULT_PREFIX "N files in the current directory (give the files to merge)");
	qsort(names, n, sizeof(*names), by_cpu);
	*count = n;
	return names;
}

static void write_out(FILE *out, const char *outname, const void *data, size_t len)
{
	if (len && fwrite(data, 1, len, out) != len)
		die("writing %s: %s", outname, strerror(errno));
}

int main(int argc, char **argv)
{
	const char *outname = NULL;
	struct input *in, *pick;
	char **names;
	size_t n, i;
	struct stat st, ost;
	FILE *out = stdout;
	uint64_t last = 0, lo = 0;
	unsigned long long records = 0;
	int c, have_out_stat = 0;

	while ((c = getopt(argc, argv, "vo:h")) != -1) {
		switch (c) {
		case 'v': verbose++; break;
		case 'o': outname = optarg; break;
		case 'h': usage(stdout, 0);
		default: usage(stderr, 1);
		}
	}
	if (optind < argc) {
		names = argv + optind;
		n = (size_t)(argc - optind);
	} else {
		names = default_files(&n);
	}
	if (outname && stat(outname, &ost) == 0)
		have_out_stat = 1;
	if (!(in = calloc(n, sizeof(*in))))
		die("out of memory");
	for (i = 0; i < n; i++) {
		in[i].name = names[i];
		if (!(in[i].f = fopen(names[i], "rb")))
			die("cannot open %s: %s", names[i], strerror(errno));
		if (fstat(fileno(in[i].f), &st) == 0 && have_out_stat &&
		    st.st_dev == ost.st_dev && st.st_ino == ost.st_ino)
			die("%s is also an input file", outname);
		setvbuf(in[i].f, NULL, _IOFBF, 64 * 1024);
	}
	/* every input's first record is checked before any output is written */
	for (i = 0; i < n; i++)
		next_record(&in[i]);
	if (outname && !(out = fopen(outname, "wb")))
		die("cannot open %s: %s", outname, strerror(errno));
	if (!outname)
		outname = "standard output";

	for (;;) {
		pick = NULL;
		for (i = 0; i < n; i++) {
			if (in[i].have && (!pick || in[i].h.seq < pick->h.seq))
				pick = &in[i];
		}
		if (!pick)
			break;
		if (pick->h.seq == last)
			die("seq %llu appears twice (%s at offset %lld and an earlier file): "
			    "was a file given twice?", (unsigned long long)last, pick->name, pick->off);
		if (!records)
			lo = pick->h.seq;
		last = pick->h.seq;
		records++;
		if (verbose >= 2)
			fprintf(stderr, "[cpu %u seq %llu len %u]%s\n", pick->h.cpu,
				(unsigned long long)pick->h.seq, pick->h.len,
				pick->h.flags & STP_REC_STDERR ? " stderr" : "");
		if (pick->h.flags & STP_REC_STDERR) {
			/* as stapio's merged mode: earlier output first, then the message */
			if (fflush(out) != 0)
				die("writing %s: %s", outname, strerror(errno));
			write_out(stderr, "standard error", pick->payload, pick->h.len);
		} else {
			write_out(out, outname, pick->payload, pick->h.len);
		}
		next_record(pick);
	}
	if (fflush(out) != 0 || ferror(out) || (out != stdout && fclose(out) != 0))
		die("writing %s: %s", outname, strerror(errno));
	if (verbose) {
		for (i = 0; i < n; i++)
			fprintf(stderr, "stap-merge: %s: %llu records, %llu bytes, seq %llu..%llu\n",
				in[i].name, in[i].records, in[i].bytes,
				(unsigned long long)in[i].first, (unsigned long long)in[i].last);
		fprintf(stderr, "stap-merge: %llu records from %zu files, seq %llu..%llu",
			records, n, (unsigned long long)lo, (unsigned long long)last);
		if (records && last - lo + 1 > records)
			fprintf(stderr, ", %llu seqs not in these files (warnings went to stderr, "
				"or files are missing)", (unsigned long long)(last - lo + 1 - records));
		fputc('\n', stderr);
	}
	for (i = 0; i < n; i++)
		free(in[i].payload);
	free(in);
	return 0;
}
