/* stapio.h - declarations shared by stapio's source files.
 * Used by the stapio sources only (main.c, control.c, relay.c, output.c). */
#ifndef STAPIO_H
#define STAPIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol.h"

extern int verbose;
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* -v trace to stderr */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* "stapio: ..." to stderr */

/* output.c: buffered sink with full-write loops. */
struct sink {
	int fd;
	char *buf;
	size_t len, cap;
	int failed;             /* a write failed; later output is discarded */
};
int write_full(int fd, const void *data, size_t len);
int sink_init(struct sink *s, int fd, size_t cap);
void sink_put(struct sink *s, const void *data, size_t len);
int sink_flush(struct sink *s);
void sink_free(struct sink *s);

/* control.c: the .cmd channel, text lines both ways. */
struct control {
	int fd;
	char buf[4096];
	size_t len;
	int eof;
};
int control_open(struct control *c, const char *dir);
int control_send(struct control *c, const char *cmd);
int control_send_quiet(struct control *c, const char *cmd);     /* no message; errno kept */
int control_fill(struct control *c, int block);                 /* -1 error */
int control_next_line(struct control *c, char *line, size_t size); /* 1 = got a line */
void control_close(struct control *c);

/* relay.c: the per-CPU trace files and the merge by seq (docs/transport.md, "Ordering"). */
struct stream {
	int fd;
	unsigned cpu;
	char *buf;              /* pending records are buf[pos, len) */
	size_t cap, len, pos;
};
struct relay {
	struct stream *s;
	size_t n;
	uint64_t last;          /* highest seq emitted so far */
	size_t pending;         /* bytes of records read but not emitted yet */
	int holding;            /* records are held back behind a missing seq */
	uint64_t gap_seq;       /* the missing seq, awaited since gap_since (ms) */
	long gap_since;
	unsigned long gaps_held;    /* holes waited for */
	long gap_max_ms;            /* longest wait for a hole that filled */
	unsigned long gaps_passed;  /* holes emitted past (timeout, memory cap, drain) */
	unsigned long late;         /* records emitted after a higher seq */
	uint64_t floor;             /* seqs <= floor missing are gone (flight recorder) */
};
typedef void (*emit_fn)(void *ctx, const struct stp_record_header *h, const char *payload);
int relay_open(struct relay *r, const char *dir);
ssize_t relay_round(struct relay *r, int *backlog, emit_fn emit, void *ctx); /* bytes read, -1 */
long relay_deadline(const struct relay *r);   /* ms when a held gap expires, -1 if none */
int relay_holding(const struct relay *r);     /* records held behind a seq hole */
int relay_drain(struct relay *r, emit_fn emit, void *ctx);
void relay_close(struct relay *r);

/* target.c: the -c command, held back until the probes are armed. */
struct target {
	pid_t pid;              /* 0: no command */
	int go_fd;              /* write end of the release pipe, -1 once used */
	int done;               /* reaped */
};
int target_spawn(struct target *t, const char *command);
void target_release(struct target *t);
int target_exited(struct target *t);    /* 1 once, when it has exited (reaped) */
void target_finish(struct target *t);   /* end of run: reap or terminate it */

long now_ms(void);      /* main.c: CLOCK_MONOTONIC in ms */

#endif /* STAPIO_H */
