/* stapio.h - declarations shared by stapio's source files.
 * Used by the stapio sources (main.c, control.c, relay.c, output.c, outfile.c, target.c, system.c)
 * and by tests/unit/outfile.t's driver. */
#ifndef STAPIO_H
#define STAPIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol.h"

#include "../common/log.h"       /* say, err, verbose */
int check_privileges(int bpf_loading);   /* privileges.c: -1 unless real = effective = saved ids (-B: or root's) */
#include <signal.h>
/* bpfrun.c: runs the BPF object at path (stapio -B), named name (-N), until exit(), an error, *got_signal or the
 * -c command's end (*got_child: a SIGCHLD came): the exit status.  args: what its output files' headers say of
 * the script, its globals' settings (bpfglue.h); remote: -r N:URI, or NULL. */
struct bpf_run_args;
int bpf_run(const char *path, const char *name, const struct bpf_run_args *args, const char *outfile, const char *size_arg, const char *command, long target_pid,
	    const char *remote, volatile sig_atomic_t *got_signal, volatile sig_atomic_t *got_child);
/* Exit status of stapio -A when it never attached (the run is untouched): staprun
 * then leaves the module loaded (staprun/staprun.h has the same number). */
#define STAPIO_NOT_ATTACHED 3

/* output.c: buffered sink with full-write loops. */
struct sink {
	int fd;
	char *buf;              /* allocated by the first sink_put() */
	size_t len, cap;
	int failed;             /* errno of a failed write; later output is discarded */
};
int write_full(int fd, const void *data, size_t len);
void sink_init(struct sink *s, int fd, size_t cap);
void sink_put(struct sink *s, const void *data, size_t len);
int sink_flush(struct sink *s);
void sink_free(struct sink *s);

/* outfile.c: the output files (naming, strftime, -S rotation, bulk per-CPU files). */
struct outstream {
	struct sink sink;
	int cpu;                    /* bulk: the CPU whose records go here; -1: merged output */
	char *path;                 /* current file; NULL: stdout */
	unsigned long gen;          /* its number (NAME.gen) */
	unsigned long long size;    /* bytes given to it so far */
	char **kept;                /* -S ...,N: names of the newest files, oldest first */
	size_t nkept, kept_cap;
	unsigned long long disk;    /* bytes of the file holding whole records (a full disk's cut) */
	uint32_t *ends;             /* where each record buffered in sink ends */
	size_t nends, ends_cap;
	int need_header;            /* self-describing files: the header is not written yet */
	int json;                   /* its header was a JSON object: the end and lost lines are too */
	unsigned long long trailer; /* -S: the room its trailer needs (trailer_room) */
	unsigned long long file_records, file_dropped; /* records given to this file, not written */
	unsigned long long unwritten, unwritten_bytes; /* records dropped here, not yet noted in it */
};
struct outfile {
	const char *pattern;        /* -o argument (strftime pattern), NULL: stdout / stpd_cpuN */
	int bulk;                   /* one file per CPU, records with their headers */
	int numbered;               /* -S: every file is NAME.K (else NAME, then NAME.1...) */
	unsigned long long limit;   /* -S: largest file in bytes, 0: none */
	unsigned long keep;         /* -S ...,N: files kept per stream, 0: all */
	int switch_req;             /* switch every file at the next record boundary */
	struct outstream *s;
	size_t n, cap, last;
	int failed;                 /* errno of the first failure; later output is discarded */
	char error[4352];           /* its description */
	int full;                   /* errno (ENOSPC, EDQUOT) while records are being dropped, else 0 */
	/* self-describing files (header.c): the header of file path number gen into buf, its length;
	 * *json set when it is a JSON object (the module's header file held one) */
	size_t (*header)(void *ctx, char *buf, size_t size, const char *path, unsigned long gen, int *json);
	void *header_ctx;
	unsigned long long unwritten, unwritten_bytes; /* records (bytes) a full disk dropped, in all */
};
int outfile_parse_size(const char *arg, unsigned long long *limit, unsigned long *keep);
int outfile_open(struct outfile *o, const char *pattern, const char *size_arg, int bulk,
		 const unsigned *cpus, size_t ncpus);  /* prints why on failure */
void outfile_write(struct outfile *o, const struct stp_record_header *h, const char *payload);
/* whole records as the trace files hold them (header, payload, ...), bytes long */
void outfile_write_run(struct outfile *o, const char *run, size_t bytes);
void outfile_request_switch(struct outfile *o);  /* SIGUSR2, switch_file() */
/* self-describing files from now on: fn writes each -o file's header (NULL: none) */
void outfile_set_header(struct outfile *o, size_t (*fn)(void *, char *, size_t, const char *,
							 unsigned long, int *), void *ctx);
int outfile_flush(struct outfile *o);           /* also does a requested switch; -1 failed */
int outfile_failed(const struct outfile *o);    /* errno of the first failure, 0 */
const char *outfile_error(const struct outfile *o);
int outfile_close(struct outfile *o);           /* says on stderr what a full disk dropped */

/* header.c: what makes the output files self-describing (a module with a procfs("header") file). */
struct header_info {
	const char *dir, *module;   /* /proc/systemtap/MODULE, MODULE */
	unsigned long long start_wall_ns, start_mono_ns;
	const char *script, *script_sha256;   /* the module's script (staprun's -s, -H), or NULL */
	long long clock_offset_us, clock_offset_err_us;   /* to the controller's clock; err -1: unknown */
	char script_text[2048];     /* the procfs("header") file's text as last read ("" before) */
	/* a BPF run's: the header file's text read by running its probe (stapio serves the file itself, so a read
	 * of it through the file system would wait for stapio): its length, or -1 (NULL: dir/header is read) */
	long (*read_script)(void *ctx, char *buf, size_t size);
	void *read_ctx;
};
int header_wanted(const char *dir);
void header_start(struct header_info *hi, const char *dir, const char *module);
size_t header_text(void *ctx, char *buf, size_t size, const char *path, unsigned long gen, int *json);

/* jsonstr.c: s as a JSON string literal into dst (size >= 3), its length: " and \ escaped, control
 * bytes and DEL as \u00XX, well-formed UTF-8 as it is, other bytes as \u00XX of their value; cut
 * between characters when it does not fit (still valid). */
size_t json_quote(char *dst, size_t size, const char *s);

/* stdin.c: standard input to the module's __stdin file (input.char), from a thread of its own;
 * 1 forwarding, 0 when the module has no such file, -1 on failure */
int stdin_forward(const char *dir);

/* control.c: the .cmd channel, text lines both ways. */
struct control {
	int fd;
	char buf[4096];
	size_t len;
	int eof;
	int nonblock;           /* O_NONBLOCK is set on fd */
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
	size_t most;                /* the most bytes one trace file gave in the last round */
	int unordered;              /* bulk mode: each file's records as read, not merged */
};
typedef void (*emit_fn)(void *ctx, const struct stp_record_header *h, const char *payload);
/* a run of plain output records (flags 0), whole and in seq order: headers and payloads */
typedef void (*emit_run_fn)(void *ctx, const char *run, size_t bytes);
struct relay_emit {
	emit_fn one;            /* a record of stderr, switch_file() or system(); any in bulk mode */
	emit_run_fn run;        /* plain output records, a run of them or one */
	void *ctx;
};
int relay_open(struct relay *r, const char *dir);
ssize_t relay_round(struct relay *r, int *backlog, const struct relay_emit *e); /* bytes read, -1 */
long relay_deadline(const struct relay *r);   /* ms when a held gap expires, -1 if none */
int relay_holding(const struct relay *r);     /* records held behind a seq hole */
int relay_drain(struct relay *r, const struct relay_emit *e);
void relay_close(struct relay *r);

/* target.c: the -c command, held back until the probes are armed. */
struct target {
	pid_t pid;              /* 0: no command */
	int go_fd;              /* write end of the release pipe, -1 once used */
	int done;               /* reaped */
};
int target_spawn(struct target *t, const char *command);

/* child.c: a forked child's signals reset and privileges dropped (-1: it must exit) */
int child_prepare(const char *what);
void target_release(struct target *t);
int target_exited(struct target *t);    /* 1 once, when it has exited (reaped) */
void target_finish(struct target *t);   /* end of run: reap or terminate it */

/* system.c: the script's system(CMD) commands (STP_REC_SYSTEM records); a zeroed struct
 * system_cmds holds none.  Past SYSTEM_MAX still running, stapio first waits for the oldest. */
#define SYSTEM_MAX 64
struct system_cmds {
	pid_t running[SYSTEM_MAX];  /* commands still running, oldest first */
	int n;
};
void system_run(struct system_cmds *sc, const char *cmd, size_t len);
/* main.c: the local time zone now (TZ, /etc/localtime): seconds west of UTC and its abbreviation (name, size bytes);
 * 0 when it has no usable name (printable, at most 15 bytes) */
int time_zone_now(long long *west, char *name, size_t size);
void system_poll(struct system_cmds *sc);     /* reap the ones that exited */
void system_finish(struct system_cmds *sc);   /* end of run: wait (bounded) for the rest */

/* pace.c: the wait between trace rounds, from how fast the busiest ring filled (docs/transport.md,
 * "Waiting"); ring_bytes 0: the default ring size */
struct pace {
	long wait_ms;           /* from one round's start to the next's */
	size_t target;          /* bytes a round should find in the busiest ring */
	long last_ms;           /* when the last round started, -1 before the first */
};
void pace_init(struct pace *p, size_t ring_bytes);
void pace_round(struct pace *p, long now, size_t most);   /* after a round: most from relay */
long pace_due_in(const struct pace *p, long now);         /* ms until the next round, <= 0: now */

long now_ms(void);      /* main.c: CLOCK_MONOTONIC in ms */

#endif /* STAPIO_H */
