/* outfile-driver.c - drives stapio/outfile.c (output file naming, -S rotation, switches, bulk files) on the host.
 * Built and run by tests/unit/outfile.t: stapio's options as arguments, records to write as commands on stdin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stapio.h"

const char log_program[] = "stapio";

/*
 * usage: outfile-driver [-v] [-b] [-H|-J] [-o PATTERN] [-S SIZE_MB[,N]] [CPU...]
 * CPUs: the trace files of a bulk run (their files are created at once).
 * -H, -J: self-describing files (a one-line header, text or JSON, and the trailer).
 * Commands on stdin, one per line:
 *   w CPU LEN [COUNT]   COUNT (default 1) records of LEN bytes from CPU: the
 *                       text "seq S cpu C " padded with '.' to LEN-1, then '\n'
 *   W CPU LEN [COUNT]   the same records given as one run (outfile_write_run: headers
 *                       and payloads one after another, as stapio reads them)
 *   e CPU LEN           one stderr record (not written by outfile.c: skipped)
 *   s                   request a switch (SIGUSR2)
 *   f                   flush (the end of a round)
 *   r PATH              remove PATH (space again on a full file system)
 * Exit 0, or 1 with stapio's message when output failed.
 */
/* the header of -H (text) and -J (JSON): one line naming the file */
static size_t test_header(void *ctx, char *buf, size_t size, const char *path, unsigned long gen, int *json)
{
	int n;

	*json = *(int *)ctx;
	if (*json)
		n = snprintf(buf, size, "{\"type\":\"header\",\"number\":%lu}\n", gen);
	else
		n = snprintf(buf, size, "# header: %s %lu\n", path, gen);
	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

int main(int argc, char **argv)
{
	const char *pattern = NULL, *size_arg = NULL;
	unsigned cpus[64];
	size_t ncpus = 0;
	int bulk = 0, c, header = -1;
	struct outfile o;
	struct stp_record_header h = { 0, 0, 0, 0 };
	char line[256], *payload, *run = NULL;
	unsigned long long seq = 0;
	unsigned cpu, len, count, i;

	while ((c = getopt(argc, argv, "vbHJo:S:")) != -1) {
		switch (c) {
		case 'v': verbose++; break;
		case 'b': bulk = 1; break;
		case 'H': header = 0; break;
		case 'J': header = 1; break;
		case 'o': pattern = optarg; break;
		case 'S': size_arg = optarg; break;
		default: return 2;
		}
	}
	for (; optind < argc && ncpus < 64; optind++)
		cpus[ncpus++] = (unsigned)atoi(argv[optind]);
	if (outfile_open(&o, pattern, size_arg, bulk, cpus, ncpus) < 0)
		return 1;
	if (header >= 0)
		outfile_set_header(&o, test_header, &header);
	if (!(payload = malloc(STP_REC_MAX_LEN)))
		return 2;
	while (fgets(line, sizeof(line), stdin)) {
		count = 1;
		if ((line[0] == 'w' || line[0] == 'W') && sscanf(line + 1, "%u %u %u", &cpu, &len, &count) >= 2) {
			size_t at = 0;
			if (len < 2 || len > STP_REC_MAX_LEN)
				return 2;
			if (line[0] == 'W' && !(run = realloc(run, (size_t)count * (sizeof h + len))))
				return 2;
			for (i = 0; i < count; i++) {
				int n = snprintf(payload, len, "seq %llu cpu %u ", ++seq, cpu);
				if (n < 0 || (unsigned)n >= len)
					n = (int)len - 1;
				memset(payload + n, '.', len - 1 - (unsigned)n);
				payload[len - 1] = '\n';
				h.len = len;
				h.cpu = (uint16_t)cpu;
				h.flags = STP_REC_STDOUT;
				h.seq = seq;
				if (line[0] == 'w') {
					outfile_write(&o, &h, payload);
					continue;
				}
				memcpy(run + at, &h, sizeof h);
				memcpy(run + at + sizeof h, payload, len);
				at += sizeof h + len;
			}
			if (line[0] == 'W')
				outfile_write_run(&o, run, at);
		} else if (line[0] == 'e' && sscanf(line + 1, "%u %u", &cpu, &len) == 2) {
			seq++;          /* stapio sends these to stderr: a hole in the files' seqs */
		} else if (line[0] == 's') {
			outfile_request_switch(&o);
		} else if (line[0] == 'f') {
			outfile_flush(&o);
		} else if (line[0] == 'r' && line[1] == ' ') {
			line[strcspn(line, "\n")] = '\0';
			if (unlink(line + 2) < 0)
				perror(line + 2);
		} else {
			fprintf(stderr, "bad command: %s", line);
			return 2;
		}
	}
	free(payload);
	free(run);
	if (outfile_close(&o) < 0 || outfile_failed(&o)) {
		err("%s", outfile_error(&o));
		return 1;
	}
	return 0;
}
