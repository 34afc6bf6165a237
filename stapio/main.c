/* main.c - stapio: drives one run of a loaded stap module and copies its output.
 * Started by staprun (stapio -N NAME [-o FILE] [-v]); protocol in docs/transport.md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/modparam.h"
#include "bpfglue.h"
#include "stapio.h"

const char log_program[] = "stapio";   /* the prefix of its diagnostics (common/log.c) */

#define POLL_SAFETY_MS 200   /* wake up at least this often regardless */

enum state { STARTING, RUNNING, STOPPING, DONE };

struct stapio {
	const char *name, *outfile;
	const char *bpf_object; /* -B FILE: a BPF object to run (bpfrun.c), not a loaded module */
	const char *remote;     /* -r N:URI with -B: remote_id() and remote_uri() (a module has them as parameters) */
	char **globals;         /* -G NAME=VALUE with -B: the script's globals set (a module has them as parameters) */
	int nglobals;
	const char *size_arg;   /* -S SIZE_MB[,N] (output files, see outfile.c) */
	int bulk;               /* -b: one output file per CPU, not merged */
	const char *command;    /* -c CMD: run after the probes are armed */
	long target_pid;        /* -x PID (or the -c command's pid): target() */
	int attach;             /* -A: attach to a running (detached) session */
	int detach;             /* -L: start the session, then detach and exit */
	int flight;             /* -F (with -L): flight recorder, rings keep the latest output */
	char dir[512];
	struct control ctl;
	struct relay relay;
	struct relay_emit records;  /* where relay.c sends the records: emit, emit_run */
	struct outfile out;     /* stdout, -o FILE(s) or bulk per-CPU files (outfile.c) */
	struct header_info header;  /* self-describing -o files (header.c) */
	const char *script, *script_sha256;   /* -s NAME -H SHA256: the module's script, for headers */
	long long clock_offset_us, clock_offset_err_us;   /* -C OFFSET_US,ERR_US (err -1: unknown) */
	struct target cmd;      /* -c CMD */
	struct system_cmds sys; /* the script's system() commands still running (system.c) */
	enum state state;
	int status;             /* exit status once DONE */
	int started;            /* got "started" */
	int start_failed;       /* "error" before "started": exit 1 after printing them all */
	int output_error_reported;
	int detached;           /* -L: got "detached" */
};

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t signals_got;   /* SIGINT/SIGTERM/SIGHUP received: -v says how many */
static volatile sig_atomic_t got_child;
static volatile sig_atomic_t got_switch;    /* SIGUSR2: go on in the next output file */

static void usage(void)
{
	fputs("usage: stapio -N NAME [-v] [-o FILE] [-b] [-S SIZE_MB[,N]] [-c CMD | -x PID] [-A | -L [-F]]\n"
	      "              [-s SCRIPT] [-H SHA256] [-C OFFSET_US,ERR_US]\n"
	      "internal helper of staprun: runs the loaded module NAME through\n"
	      "/proc/" STP_PROC_ROOT "/NAME and copies its output to stdout or FILE\n"
	      "  -o FILE  output file (strftime patterns expanded)    -b  one file per CPU (bulk)\n"
	      "  -S SIZE_MB[,N]  write FILE.0, FILE.1... of at most SIZE_MB each, keep the newest N\n"
	      "  -c CMD   run CMD once the probes are armed; the run ends when it exits\n"
	      "  -x PID   target() is PID       -A  attach to a detached session\n"
	      "  -L       start, then detach    -F  with -L: flight recorder mode\n"
	      "  -s, -H   the script's name and SHA-256, -C this host's clock offset to a controller's:\n"
	      "           for the headers of self-describing files\n"
	      "  -B FILE  run the BPF object FILE instead  (-r N:URI, -G NAME=VALUE: its remote id, its globals)\n", stderr);
	exit(1);
}

/* "OFFSET_US,ERR_US": two whole numbers, the error -1 (unknown) or more; -1 if malformed. */
static int parse_clock_offset(const char *arg, long long *offset, long long *err)
{
	char *end;

	errno = 0;
	*offset = strtoll(arg, &end, 10);
	if (errno || end == arg || *end != ',')
		return -1;
	arg = end + 1;
	*err = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || *err < -1)
		return -1;
	return 0;
}

static void parse_args(struct stapio *io, int argc, char **argv)
{
	int c;

	char *end;

	io->clock_offset_err_us = -1;
	io->globals = calloc((size_t)argc, sizeof(*io->globals));   /* at most one an argument */
	if (!io->globals) {
		err("out of memory");
		exit(1);
	}
	while ((c = getopt(argc, argv, "N:o:vbS:c:x:ALFs:H:C:B:r:G:")) != -1) {
		switch (c) {
		case 'G': io->globals[io->nglobals++] = optarg; break;
		case 'N': io->name = optarg; break;
		case 'B': io->bpf_object = optarg; break;
		case 'r': io->remote = optarg; break;
		case 'o': io->outfile = optarg; break;
		case 'v': verbose++; break;
		case 'b': io->bulk = 1; break;
		case 'S': io->size_arg = optarg; break;
		case 'c': io->command = optarg; break;
		case 'x':
			errno = 0;
			io->target_pid = strtol(optarg, &end, 10);
			if (errno || *end || io->target_pid <= 0 || io->target_pid > 0x3fffffff) {
				err("-x needs a process id, got \"%s\"", optarg);
				exit(1);
			}
			break;
		case 'A': io->attach = 1; break;
		case 'L': io->detach = 1; break;
		case 'F': io->flight = 1; break;
		case 's': io->script = optarg; break;
		case 'H': io->script_sha256 = optarg; break;
		case 'C':
			if (parse_clock_offset(optarg, &io->clock_offset_us, &io->clock_offset_err_us) < 0) {
				err("-C needs OFFSET_US,ERR_US (whole numbers, ERR_US -1 or more), got \"%s\"", optarg);
				exit(1);
			}
			break;
		default: usage();
		}
	}
	if (!io->name || optind != argc || strchr(io->name, '/') ||
	    (io->command && io->target_pid) || (io->attach && io->detach) ||
	    (io->flight && !io->detach) || (io->remote && !io->bpf_object))
		usage();
}

static void on_signal(int sig)
{
	got_signal = sig;
	signals_got++;
}

static void on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

static void on_switch(int sig)
{
	(void)sig;
	got_switch = 1;
}

/*
 * Handlers without SA_RESTART: a signal interrupts the read of the control
 * file where stapio sleeps (docs/transport.md, "Waiting"), and the flags are
 * checked before every sleep.  A signal landing between the check and the
 * read is seen when the read returns, at most ~100 ms later.
 */
static void setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_switch;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* SIGUSR2 asks for the next output file: taken at a record boundary. */
static void take_switch(struct stapio *io)
{
	if (got_switch) {
		got_switch = 0;
		outfile_request_switch(&io->out);
	}
}

/* One record: script output to the output (file), warnings and errors to
 * stderr in every mode. */
static void emit(void *ctx, const struct stp_record_header *h, const char *payload)
{
	struct stapio *io = ctx;

	if (h->flags & STP_REC_SWITCH) {
		outfile_request_switch(&io->out);   /* switch_file(): at this point of the output */
		return;
	}
	if (h->flags & STP_REC_SYSTEM) {
		outfile_flush(&io->out);            /* system(): after what was printed before it */
		system_run(&io->sys, payload, h->len);
		return;
	}
	take_switch(io);
	if (h->flags & STP_REC_STDERR) {
		if (!io->out.bulk)
			outfile_flush(&io->out);   /* keep stdout/stderr interleaving */
		write_full(STDERR_FILENO, payload, h->len);
	} else {
		outfile_write(&io->out, h, payload);
	}
}

/* Plain output records together (relay.c): straight into the output. */
static void emit_run(void *ctx, const char *run, size_t bytes)
{
	struct stapio *io = ctx;

	take_switch(io);
	outfile_write_run(&io->out, run, bytes);
}

static void request_stop(struct stapio *io, const char *why)
{
	if (io->state != STARTING && io->state != RUNNING)
		return;
	say("stopping: %s", why);
	io->state = STOPPING;
	if (control_send(&io->ctl, STP_CMD_STOP) < 0) {
		io->status = 1;
		io->state = DONE;
	}
}

/* Output failed (e.g. EPIPE): say so once, end the run cleanly, exit 1. */
static void check_output(struct stapio *io)
{
	if (!outfile_failed(&io->out) || io->output_error_reported)
		return;
	io->output_error_reported = 1;
	err("%s", outfile_error(&io->out));
	request_stop(io, "output error");
}

/* Final drain after "stopped", "error" or loss of the channel. */
static void finish(struct stapio *io, int status)
{
	if (relay_drain(&io->relay, &io->records) < 0)
		status = 1;
	if (outfile_flush(&io->out) < 0) {
		check_output(io);
		status = 1;
	}
	io->status = status;
	io->state = DONE;
}

static void on_stopped(struct stapio *io, const char *args)
{
	unsigned long long records = 0, bytes = 0, errors = 0, overwritten = 0;

	if (sscanf(args, "%llu %llu %llu %llu", &records, &bytes, &errors, &overwritten) < 3)
		err("malformed \"%s\" message: \"%s\"", STP_MSG_STOPPED, args);
	if (overwritten)
		say("the flight recorder discarded %llu older records", overwritten);
	say("stopped; draining the trace files");
	/* a run with script errors ended badly even when it ended cleanly */
	finish(io, io->output_error_reported || io->start_failed || errors ? 1 : 0);
	if (records > 0)
		fprintf(stderr, "WARNING: %llu records (%llu bytes) lost\n", records, bytes);
}

/* "word rest": returns rest (after one space) if line's first word is word. */
static const char *msg_is(const char *line, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(line, word, n) || (line[n] && line[n] != ' '))
		return NULL;
	return line[n] ? line + n + 1 : line + n;
}

/* Self-describing -o files when the module has a procfs("header") file (created with the
 * module's procfs files once the begin probes ran): header.c. */
static void offer_headers(struct stapio *io)
{
	if (!io->outfile || io->out.bulk || io->detach || !header_wanted(io->dir))
		return;
	say("module %s has a header file: each output file starts with a header", io->name);
	header_start(&io->header, io->dir, io->name);
	io->header.script = io->script;
	io->header.script_sha256 = io->script_sha256;
	io->header.clock_offset_us = io->clock_offset_us;
	io->header.clock_offset_err_us = io->clock_offset_err_us;
	outfile_set_header(&io->out, header_text, &io->header);
}

/* The probes are armed ("started", or "attached" to a detached run). */
static void on_started(struct stapio *io)
{
	io->started = 1;
	offer_headers(io);
	if (io->state == STARTING)
		io->state = RUNNING;
	if (io->detach) {
		if (control_send(&io->ctl, io->flight ? STP_CMD_DETACH " " STP_CMD_FLIGHT
						      : STP_CMD_DETACH) < 0)
			finish(io, 1);
		return;
	}
	target_release(&io->cmd);
	stdin_forward(io->dir);   /* input.char: the keys typed, once the probes are armed */
}

static void handle_message(struct stapio *io, const char *line)
{
	const char *args;

	say("got \"%s\"", line);
	if (msg_is(line, STP_MSG_STARTED)) {
		on_started(io);
	} else if ((args = msg_is(line, STP_MSG_ATTACHED))) {
		io->relay.floor = strtoull(args, NULL, 10);
		on_started(io);
	} else if (msg_is(line, STP_MSG_DETACHED)) {
		io->detached = 1;
		io->status = 0;
		io->state = DONE;
	} else if ((args = msg_is(line, STP_MSG_LOST))) {
		unsigned long long records = 0, bytes = 0;
		if (verbose && sscanf(args, "%llu %llu", &records, &bytes) == 2)
			fprintf(stderr, "WARNING: %llu records (%llu bytes) lost so far\n", records, bytes);
	} else if (msg_is(line, STP_MSG_UNLOADING)) {
		say("module %s is being removed; it ends the run", io->name);
		if (io->state == RUNNING)
			io->state = STOPPING;
	} else if (msg_is(line, STP_MSG_EXIT)) {
		request_stop(io, "the module asked to exit");
	} else if ((args = msg_is(line, STP_MSG_STOPPED))) {
		on_stopped(io, args);
	} else if ((args = msg_is(line, STP_MSG_ERROR))) {
		fprintf(stderr, "ERROR: %s\n", args);
		if (!io->started)
			io->start_failed = 1;
	} else {
		err("unknown control message \"%s\"", line);
	}
}

static void handle_control(struct stapio *io, int block)
{
	char line[512];

	if (control_fill(&io->ctl, block) < 0) {
		finish(io, 1);
		return;
	}
	while (io->state != DONE && control_next_line(&io->ctl, line, sizeof(line)))
		handle_message(io, line);
	if (io->state != DONE && io->start_failed)
		finish(io, 1);
	if (io->state != DONE && io->ctl.eof) {
		err("module %s closed the control channel (unloading?)", io->name);
		finish(io, 1);
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);       /* a signal cuts it short */
}

/* Signals, and the -c command's exit, end the run. */
static void check_events(struct stapio *io)
{
	int sig = got_signal;

	if (sig) {
		got_signal = 0;
		request_stop(io, strsignal(sig));   /* later signals: no-op */
	}
	if (got_child) {
		got_child = 0;
		system_poll(&io->sys);
		if (target_exited(&io->cmd))
			request_stop(io, "the -c command exited");
	}
}

/* Was the module built for bulk mode (stap -b)?  Its _stp_bulkmode parameter
 * says "Y"; modules without the parameter are not. */
static int module_bulkmode(const char *name)
{
	char value[8];

	if (module_param_read(name, "_stp_bulkmode", value, sizeof(value)) < 0)
		return 0;
	return value[0] == 'Y' || value[0] == '1';
}

/*
 * One round per iteration, paced by how fast the busiest ring fills (pace.c), sooner after a read
 * that filled its buffer (backlog).  Between rounds stapio sleeps in the control file's read,
 * which returns when a message is queued, a trace file holds data, ~100 ms pass, or a signal
 * arrives; it does not sleep there while records are held behind a seq hole (their deadline is
 * near).
 */
static void run(struct stapio *io)
{
	struct pace pace;
	long wait_ms, start;
	int backlog = 0;

	pace_init(&pace, (size_t)module_bufsize_mb(io->name) << 20);
	while (io->state != DONE) {
		check_events(io);
		wait_ms = pace_due_in(&pace, now_ms());
		if (!backlog && wait_ms > 0)
			sleep_ms(wait_ms);
		check_events(io);
		handle_control(io, !backlog && !relay_holding(&io->relay) && !got_signal &&
				   !got_child);
		if (io->state == DONE || io->detach)
			continue;
		start = now_ms();
		if (relay_round(&io->relay, &backlog, &io->records) < 0) {
			request_stop(io, "trace read error");
			io->status = 1;
		}
		pace_round(&pace, start, io->relay.most);
		take_switch(io);
		outfile_flush(&io->out);
		check_output(io);
	}
}

/* stdout or -o FILE (merged), or one file per trace file (bulk mode, all
 * created now).  With -L nothing is written: no file is created. */
static int open_output(struct stapio *io)
{
	unsigned *cpus = NULL;
	size_t i;
	int rc;

	if (io->detach)
		return outfile_open(&io->out, NULL, NULL, 0, NULL, 0);
	if (!io->bulk && module_bulkmode(io->name)) {
		say("module %s was built for bulk mode (stap -b)", io->name);
		io->bulk = 1;
	}
	if (io->bulk) {
		io->relay.unordered = 1;    /* each CPU's file in its own order: no merge */
		if (!(cpus = calloc(io->relay.n, sizeof(*cpus)))) {
			err("out of memory");
			return -1;
		}
		for (i = 0; i < io->relay.n; i++)
			cpus[i] = io->relay.s[i].cpu;
	}
	rc = outfile_open(&io->out, io->outfile, io->size_arg, io->bulk, cpus,
			  io->bulk ? io->relay.n : 0);
	free(cpus);
	return rc;
}

/* -x PID must name a process that exists. */
static int check_target_pid(long pid)
{
	if (kill((pid_t)pid, 0) < 0 && errno != EPERM) {
		err("-x %ld: no such process", pid);
		return -1;
	}
	return 0;
}

int time_zone_now(long long *west, char *name, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	if (!localtime_r(&now, &tm) || !tm.tm_zone || !tm.tm_zone[0] || strlen(tm.tm_zone) > 15 ||
	    strlen(tm.tm_zone) >= size)
		return 0;
	for (i = 0; tm.tm_zone[i]; i++)
		if (tm.tm_zone[i] <= ' ' || tm.tm_zone[i] > '~')
			return 0;
	*west = -(long long)tm.tm_gmtoff;
	snprintf(name, size, "%s", tm.tm_zone);
	return 1;
}

/* "tz <seconds west of UTC> <name>" for the local time zone now, for tz_gmtoff(), tz_name() and tz_ctime(); 0 when
 * it has no usable name. */
static int tz_line(char *line, size_t size)
{
	long long west;
	char name[16];

	if (!time_zone_now(&west, name, sizeof(name)))
		return 0;
	snprintf(line, size, "%s %lld %s", STP_CMD_TZ, west, name);
	return 1;
}

/* Sends what the mode needs: attach (-A), or target, tz and start. */
static int begin_session(struct stapio *io)
{
	char line[64];

	if (io->attach) {
		if (control_send_quiet(&io->ctl, STP_CMD_ATTACH) < 0) {
			err("cannot attach to module %s: %s", io->name,
			    errno == EINVAL ? "it has no detached run" : strerror(errno));
			return -1;
		}
		return 0;
	}
	if (io->target_pid && check_target_pid(io->target_pid) < 0)
		return -1;
	if (io->command) {
		if (target_spawn(&io->cmd, io->command) < 0)
			return -1;
		io->target_pid = io->cmd.pid;
	}
	if (io->target_pid) {
		snprintf(line, sizeof(line), "%s %ld", STP_CMD_TARGET, io->target_pid);
		if (control_send(&io->ctl, line) < 0)
			return -1;
	}
	if (tz_line(line, sizeof(line)) && control_send(&io->ctl, line) < 0)
		return -1;
	return control_send(&io->ctl, STP_CMD_START);
}

/* The process name (/proc/self/comm, what prctl(PR_SET_NAME) sets). */
static void set_name(void)
{
	int fd = open("/proc/self/comm", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, "stapio", 6) < 0)
			say("cannot set the process name: %s", strerror(errno));
		close(fd);
	}
}

int main(int argc, char **argv)
{
	struct stapio io = { .state = STARTING };
	io.ctl.fd = -1;
	io.cmd.go_fd = -1;
	io.records = (struct relay_emit){ emit, emit_run, &io };
	int early;      /* exit status of a failure before the session began */

	/* staprun executes stapio through an fd (execveat), which names the process after
	 * the fd's number: its name is "stapio" again for ps, pgrep and top */
	set_name();
	parse_args(&io, argc, argv);
	/* -A: until "attach" is accepted the detached run is untouched, and staprun leaves it */
	early = io.attach ? STAPIO_NOT_ATTACHED : 1;
	if (check_privileges(io.bpf_object != NULL) < 0)
		return early;
	setup_signals();
	if (io.bpf_object) {
		struct bpf_run_args args = { io.script, io.script_sha256, io.clock_offset_us, io.clock_offset_err_us,
					     io.globals, io.nglobals };
		return bpf_run(io.bpf_object, io.name, &args, io.outfile, io.size_arg, io.command, io.target_pid, io.remote,
			       &got_signal, &got_child);
	}
	snprintf(io.dir, sizeof(io.dir), "/proc/%s/%s", STP_PROC_ROOT, io.name);
	/* the module's files are the loading user's (or root may open them) */
	if (control_open(&io.ctl, io.dir) < 0 || relay_open(&io.relay, io.dir) < 0 ||
	    open_output(&io) < 0)
		return early;
	if (begin_session(&io) < 0) {
		target_finish(&io.cmd);
		return early;
	}
	run(&io);
	target_finish(&io.cmd);
	outfile_flush(&io.out);
	system_finish(&io.sys);
	relay_close(&io.relay);
	control_close(&io.ctl);
	if (outfile_close(&io.out) < 0 && !io.output_error_reported) {
		err("%s", outfile_error(&io.out));
		io.status = 1;
	}
	say("ending signals received: %d", (int)signals_got);
	say("exit status %d", io.status);
	return io.status;
}
