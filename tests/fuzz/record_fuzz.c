/* record_fuzz.c - libFuzzer target for what stapio parses from the module: the per-CPU trace records (relay.c,
 * merged by seq or bulk) and the control file's lines (control.c).  Built by `make fuzz`; see tests/fuzz/README.md.
 *
 * Input: byte 0 = streams - 1 (bits 0-2, 1..8 trace files), bulk mode (bit 3), a flight-recorder floor
 * (bit 4: byte 1 is the "attached" seq), the clock step per chunk (bits 5-7: 0, 1, 10, 50, 99, 100, 101
 * or 1000 ms); byte 1; then chunks [u8 target][u16 length, little-endian][bytes]: target mod
 * (streams + 1) is a trace file, or the control file when it equals streams.  Each chunk is written to a
 * pipe standing for that file (the kernel hands out whole records per read, a chunk is one read), then
 * stapio's loop step runs: relay_round() for a trace chunk, control_fill() and control_next_line() for a
 * control chunk.  At the end relay_drain().  Oracle besides the sanitizers: a run that drained without
 * error emitted every byte it was given, each record once. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stapio.h"

const char log_program[] = "stapio";

#define MAX_STREAMS 8
#define HDR sizeof(struct stp_record_header)

static long fake_now = 1000;
static int devnull = -1;

long now_ms(void)   /* stapio/main.c's clock, here a fake one the input advances */
{
	return fake_now;
}

struct seen {
	struct sink sink;
	unsigned long long bytes;       /* headers and payloads emitted */
	unsigned long long records;
};

static void emit(void *ctx, const struct stp_record_header *h, const char *payload)
{
	struct seen *seen = ctx;

	if (h->len > STP_REC_MAX_LEN)
		abort();   /* relay.c let an oversized record through */
	/* the payload as stapio's emit() uses it: to the output, stderr, or system() */
	sink_put(&seen->sink, payload, h->len);
	seen->bytes += HDR + h->len;
	seen->records++;
}

/* A run of plain records (relay.c): each whole, flags 0, ending exactly at the run's end. */
static void emit_run(void *ctx, const char *run, size_t bytes)
{
	struct stp_record_header h;

	while (bytes) {
		if (bytes < HDR)
			abort();   /* a run ends inside a header */
		memcpy(&h, run, HDR);
		if (h.flags || h.len > bytes - HDR)
			abort();   /* a record not plain, or not whole, in a run */
		emit(ctx, &h, run + HDR);
		run += HDR + h.len;
		bytes -= HDR + h.len;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *keep = getenv("STAP_FUZZ_STDERR");
	FILE *null;

	(void)argc;
	(void)argv;
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	verbose = 1;            /* say()'s formats run too */
	if (keep && *keep && strcmp(keep, "0") != 0)
		return 0;
	null = fopen("/dev/null", "w");
	if (null) {
		__fsetlocking(null, FSETLOCKING_BYCALLER);
		setvbuf(null, NULL, _IOFBF, 1 << 16);
		stderr = null;
	}
	return 0;
}

/* Writes all of data to a non-blocking pipe that was drained before; returns the bytes written. */
static size_t put(int fd, const uint8_t *data, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return done;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long steps[8] = { 0, 1, 10, 50, 99, 100, 101, 1000 };
	struct relay r;
	struct control c;
	struct seen seen;
	const struct relay_emit records = { emit, emit_run, &seen };
	int wr[MAX_STREAMS + 1], fds[2], backlog, failed = 0;
	size_t n, pos = 2;
	unsigned long long given = 0;
	long step;
	char line[512];

	if (size < 2)
		return 0;
	n = (size_t)(data[0] & 7) + 1;
	step = steps[data[0] >> 5];
	memset(&r, 0, sizeof r);
	memset(&c, 0, sizeof c);
	memset(&seen, 0, sizeof seen);
	sink_init(&seen.sink, devnull, 4096);
	r.unordered = !!(data[0] & 8);
	if (data[0] & 16)
		r.floor = data[1];
	r.s = calloc(n, sizeof *r.s);
	if (!r.s)
		abort();
	/* the streams as relay_open() leaves them, reading pipes instead of /proc/systemtap/NAME/traceN */
	for (size_t i = 0; i <= n; i++) {
		if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
			abort();
		wr[i] = fds[1];
		if (i == n) {
			c.fd = fds[0];
			continue;
		}
		r.s[i].fd = fds[0];
		r.s[i].cpu = (unsigned)i;
		r.s[i].cap = 1;         /* stream_reserve() grows it to a read's worth */
		r.s[i].buf = malloc(1);
		r.n++;
	}
	while (!failed && size - pos >= 3) {
		size_t target = data[pos] % (n + 1);
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
		pos += 3;
		if (len > size - pos)
			len = size - pos;
		fake_now += step;
		if (target == n) {
			put(wr[n], data + pos, len);
			if (control_fill(&c, 0) < 0)
				failed = 1;
			while (control_next_line(&c, line, sizeof line))
				if (strlen(line) >= sizeof line)
					abort();
			if (c.len == sizeof c.buf)
				c.len = 0;      /* a full buffer without a newline: the module never sends one */
		} else {
			given += put(wr[target], data + pos, len);
			if (relay_round(&r, &backlog, &records) < 0)
				failed = 1;
		}
		pos += len;
	}
	if (!failed) {
		fake_now += 1000;
		if (relay_drain(&r, &records) == 0 && (seen.bytes != given || r.pending != 0))
			abort();   /* drained without error, yet a record was lost or emitted twice */
	}
	sink_flush(&seen.sink);
	sink_free(&seen.sink);
	relay_close(&r);
	control_close(&c);
	for (size_t i = 0; i <= n; i++)
		close(wr[i]);
	return 0;
}
