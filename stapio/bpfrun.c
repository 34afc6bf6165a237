/* bpfrun.c - stapio's run of a BPF object (staprun NAME.bo, stap --runtime=bpf): libbpf loads it, the begin
 * programs run (BPF_PROG_TEST_RUN), the others attach, the ring's records go to the output until exit(), a
 * signal or an error; then the probes detach and the end programs run.  Called by main.c for stapio -B. */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bpfglue.h"
#include "../common/fileline.h"
#include "../common/log.h"
#include "../runtime/bpf/records.h"

/* A timer probe (stp_timer_N_PERIOD): stapio runs it every period. */
struct bpf_timer_prog {
	int fd;
	long long period_ns, next_ns;
};

struct bpf_run {
	struct bpf_object *obj;
	struct bpf_timer_prog *timers;
	size_t ntimers;
	struct ring_buffer *ring;
	struct bpf_link **links;
	struct bpf_program **linked;  /* the program of each link */
	size_t nlinks;
	struct bpf_output *out;
	struct bpf_formats *formats;  /* printf's, when the object has any */
	struct target *cmd;         /* -c CMD, or NULL */
	int trampolines;            /* trampoline programs in the load */
	const char *remote;         /* -r N:URI, or NULL */
	const struct bpf_run_args *args;   /* main.c's: headers, globals' settings */
	struct bpf_procfs *procfs;  /* its procfs files, when it has any (served while bpf_procfs_fd gives one) */
	int exit_seen;              /* an exit() record, or the counters' mark of exit() */
	long long exit_checked_ns;  /* when the counters were last looked at for it */
	int *counter_fds;           /* the perf counters' events (open_counters), open until the run's end */
	size_t ncounter_fds;
	struct system_cmds *sys;    /* the script's system() commands still running (bpf_system_run) */
};

/* libbpf's own messages: its warnings (a refused program's verifier log among them) with -v, its
 * debugging with -vvv */
static int libbpf_message(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (verbose < (level == LIBBPF_DEBUG ? 3 : 1))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* One (sub-)record of the ring (runtime/bpf/records.h): text to the output, errors to stderr. */
static void one_record(struct bpf_run *r, const struct stp_bpf_rec_head *h, size_t size)
{
	const char *body = (const char *)(h + 1);

	switch (h->type) {
	case STP_BPF_REC_TEXT:
		bpf_output_text(r->out, body, h->len);
		break;
	case STP_BPF_REC_ERROR:
		if (h->len >= 2 * STP_BPF_ERR_MSG) {
			const char *msg = body, *near = body + STP_BPF_ERR_MSG;
			bpf_output_flush(r->out);
			if (memchr(near, 0, STP_BPF_ERR_MSG) && near[0])
				fprintf(stderr, "ERROR: %.*s near %s\n", STP_BPF_ERR_MSG, msg, near);
			else
				fprintf(stderr, "ERROR: %.*s\n", STP_BPF_ERR_MSG, msg);
		}
		break;
	case STP_BPF_REC_HIST:
		bpf_hist_draw(r->out, h, size);
		break;
	case STP_BPF_REC_PRINTF:
		bpf_format_record(r->out, r->formats, body, h->len);
		break;
	case STP_BPF_REC_WARN:
		bpf_output_flush(r->out);
		fprintf(stderr, "WARNING: %.*s\n", (int)strnlen(body, h->len), body);
		break;
	case STP_BPF_REC_EXIT:
		r->exit_seen = 1;
		break;
	case STP_BPF_REC_SWITCH:
		bpf_output_switch(r->out);
		break;
	case STP_BPF_REC_SYSTEM:
		if (bpf_output_flush(r->out) == 0)
			bpf_system_run(&r->sys, body, strnlen(body, h->len));
		break;
	default:
		break;
	}
}

/* A record of the ring: a hit's output is one, its text and printf values the sub-records it holds, each at an 8-byte
 * boundary (runtime/bpf/output.h); the others are one sub-record. */
static int on_record(void *ctx, void *data, size_t size)
{
	const char *p = data;
	struct stp_bpf_rec_head first;

	/* the common record, one printf's or one text: its text written as it is formatted, not gathered first */
	if (size >= sizeof(first)) {
		memcpy(&first, p, sizeof(first));
		bpf_output_record_begin(((struct bpf_run *)ctx)->out,
					first.len <= size - sizeof(first) && sizeof(first) + first.len + 7 >= size ? 1 : 2);
	}
	while (size >= sizeof(struct stp_bpf_rec_head)) {
		struct stp_bpf_rec_head h;
		size_t step;

		memcpy(&h, p, sizeof(h));
		if (h.len > size - sizeof(h))
			break;
		one_record(ctx, (const struct stp_bpf_rec_head *)p, sizeof(h) + h.len);   /* 8-aligned: a ring's records are */
		step = (sizeof(h) + h.len + 7) & ~(size_t)7;
		if (step >= size)
			break;
		p += step;
		size -= step;
	}
	bpf_output_record_end(((struct bpf_run *)ctx)->out);   /* the hit's output: one record, as a module's */
	return 0;
}

static struct stp_bpf_counters counters(const struct bpf_run *r);

static long long now_ns(void);

/* exit() was called: its record came, or a full ring refused it (the counters say so: looked at every 20 ms at most) */
static int exit_called(struct bpf_run *r)
{
	long long now = now_ns();

	if (!r->exit_seen && now - r->exit_checked_ns >= 20000000LL) {
		r->exit_checked_ns = now;
		r->exit_seen = counters(r).exited != 0;
	}
	return r->exit_seen;
}

static int prefixed(const struct bpf_program *p, const char *prefix)
{
	return !strncmp(bpf_program__name(p), prefix, strlen(prefix));
}

/* Runs the programs named PREFIX* (begin or end probes) in the object's order, the rest of them
 * skipped after an exit() when begin is set: 0, or -1. */
static int run_programs(struct bpf_run *r, const char *prefix, int begin)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, r->obj) {
		LIBBPF_OPTS(bpf_test_run_opts, opts);

		if (!prefixed(p, prefix))
			continue;
		/* exit() in a begin probe: the later begin probes do not run */
		if (begin && r->exit_seen)
			break;
		if (bpf_prog_test_run_opts(bpf_program__fd(p), &opts) < 0) {
			err("cannot run %s: %s", bpf_program__name(p), strerror(errno));
			return -1;
		}
		ring_buffer__consume(r->ring);
		r->exit_checked_ns = 0;
		exit_called(r);
	}
	return 0;
}

/* Room for one item per program of the object (NULL after a message). */
static void *per_program(const struct bpf_run *r, size_t size)
{
	struct bpf_program *p;
	size_t n = 0;
	void *v;

	bpf_object__for_each_program(p, r->obj)
		n++;
	v = calloc(n + 1, size);
	if (!v)
		err("out of memory");
	return v;
}

/* A program where its section says (translator/bpfprog/bpfprog.h): a kprobe or uprobe stapio places itself,
 * anything else as libbpf reads its section.  NULL with errno set when it cannot be attached. */
static struct bpf_link *attach_one(struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);
	unsigned long long off, sem;
	long long pid;
	int n = 0, ret = !strncmp(sec, "uret", 4) || !strncmp(sec, "kret", 4);
	const char *rest = sec + (ret ? 4 : 1);

	if (!strncmp(rest, "probe/", 6) && (sec[0] == 'k') &&
	    sscanf(rest + 6, "%llx/%n", &off, &n) == 1 && n > 0) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .offset = off, .retprobe = ret);
		return bpf_program__attach_kprobe_opts(p, rest + 6 + n, &ko);
	}
	if (!strncmp(rest, "probe/", 6) && sec[0] == 'u' &&
	    sscanf(rest + 6, "%llx/%llx/%lld/%n", &off, &sem, &pid, &n) == 3 && n > 0) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .ref_ctr_offset = sem, .retprobe = ret);
		return bpf_program__attach_uprobe_opts(p, pid > 0 ? (pid_t)pid : -1, rest + 6 + n, off, &uo);
	}
	if (!strncmp(sec, "tp_btf/", 7) && bpf_program__type(p) == BPF_PROG_TYPE_RAW_TRACEPOINT)
		return bpf_program__attach_raw_tracepoint(p, sec + 7);   /* choose_tracepoints' */
	return bpf_program__attach(p);
}

/* The running kernel's release into release (size bytes), "" when it cannot be read */
static void kernel_release(char *release, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/osrelease", "r");

	release[0] = 0;
	if (f) {
		if (!fgets(release, (int)size, f))
			release[0] = 0;
		release[strcspn(release, "\n")] = 0;
		fclose(f);
	}
}

/* The kernel's tick in ns (CONFIG_HZ of /boot/config-RELEASE), 4 ms (HZ=250) when it cannot be read */
static long long tick_ns(void)
{
	char path[300], release[128];
	unsigned long long hz = 0;

	kernel_release(release, sizeof(release));
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	file_line_number(path, "CONFIG_HZ=%llu", &hz);
	return hz > 0 && hz <= 10000 ? 1000000000LL / (long long)hz : 4000000LL;
}

/* timer.profile (a program named stp_profile_N_PERIOD, PERIOD in ns, 0 for the tick): a cpu-clock perf event
 * of that period on each CPU; perf.type(T).config(C) (stp_perf_N_T_C_RATE_FREQ: RATE events per hit, or hits per
 * second when FREQ is 1): that event on each CPU.  The program attached to each, the links into r; 0, or -1
 * after a message. */
static int attach_profile(struct bpf_run *r, struct bpf_program *p)
{
	int ncpus = libbpf_num_possible_cpus(), attached = 0, freq = 0;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr), .config = PERF_COUNT_SW_CPU_CLOCK,
	};
	unsigned long long config = 0, rate = 0;
	unsigned type = 0;

	if (prefixed(p, "stp_perf_")) {
		if (sscanf(bpf_program__name(p), "stp_perf_%*d_%u_%llu_%llu_%d", &type, &config, &rate, &freq) != 4 || !rate) {
			err("%s names no perf event", bpf_program__name(p));
			return -1;
		}
		attr.type = type;
		attr.config = config;
		attr.freq = freq != 0;
		attr.sample_period = rate;   /* sample_freq when freq */
	} else {
		long long period = strtoll(strrchr(bpf_program__name(p), '_') + 1, NULL, 10);

		attr.sample_period = period > 0 ? (unsigned long long)period : (unsigned long long)tick_ns();
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		int fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *l;

		if (fd < 0 && errno == ENODEV)
			continue;   /* a CPU offline */
		if (fd < 0) {
			err("cannot open perf event type %u config %llu on CPU %d for %s: %s", attr.type,
			    (unsigned long long)attr.config, cpu, bpf_program__name(p), strerror(errno));
			return -1;
		}
		l = bpf_program__attach_perf_event(p, fd);
		if (!l) {
			err("cannot attach %s to CPU %d's perf event: %s", bpf_program__name(p), cpu, strerror(errno));
			close(fd);
			return -1;
		}
		r->links[r->nlinks++] = l;
		attached++;
	}
	return attached ? 0 : -1;
}

/* A trampoline program's function (its section "fentry/NAME" or "fexit/NAME"), NULL when p is none */
static const char *trampoline_function(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);

	if (!prefixed(p, "stp_tr_"))
		return NULL;
	if (!strncmp(sec, "fentry/", 7))
		return sec + 7;
	if (!strncmp(sec, "fexit/", 6))
		return sec + 6;
	return NULL;
}

/* Whether kprobe program p's trampoline twin (stp_tr_N for stp_kp_N) is attached in its stead */
static int twin_attached(const struct bpf_run *r, const struct bpf_program *p)
{
	char twin[64];

	if (!prefixed(p, "stp_kp_"))
		return 0;
	snprintf(twin, sizeof(twin), "stp_tr_%s", bpf_program__name(p) + 7);
	for (size_t i = 0; i < r->nlinks; i++)
		if (r->linked[i] && !strcmp(bpf_program__name(r->linked[i]), twin))
			return 1;
	return 0;
}

/* Attaches every program but those stapio runs (begin, end, error, timers, procfs files'): the trampolines first, each of which the
 * kernel takes standing for its kprobe twin; 0, or -1 after a message. */
static int attach_probes(struct bpf_run *r)
{
	struct bpf_program *p;
	size_t per = (size_t)(libbpf_num_possible_cpus() > 0 ? libbpf_num_possible_cpus() : 1);

	/* a link per program, or per CPU for a profile timer, and the program of each */
	r->links = per_program(r, sizeof(*r->links) * per);
	r->linked = per_program(r, sizeof(*r->linked) * per);
	if (!r->links || !r->linked)
		return -1;
	bpf_object__for_each_program(p, r->obj) {
		struct bpf_link *l;

		if (!trampoline_function(p) || !bpf_program__autoload(p))
			continue;
		l = bpf_program__attach(p);
		if (verbose)
			fprintf(stderr, "stapio: %s (%s): %s\n", bpf_program__name(p), bpf_program__section_name(p),
				l ? "attached" : strerror(errno));
		if (l) {
			r->linked[r->nlinks] = p;
			r->links[r->nlinks++] = l;
		}
	}
	bpf_object__for_each_program(p, r->obj) {
		struct bpf_link *l;

		if (prefixed(p, "stp_begin_") || prefixed(p, "stp_end_") || prefixed(p, "stp_error_") ||
		    prefixed(p, "stp_timer_") || prefixed(p, "stp_procfs_") || prefixed(p, "stp_tr_") || twin_attached(r, p))
			continue;
		if (prefixed(p, "stp_profile_") || prefixed(p, "stp_perf_")) {
			if (attach_profile(r, p) < 0)
				return -1;
			continue;
		}
		l = attach_one(p);
		if (!l) {
			int e = errno;
			/* libbpf places kprobes through perf's kprobe event source, which a kernel without
			 * kprobes (CONFIG_KPROBES) lacks */
			int no_kprobes = bpf_program__section_name(p)[0] == 'k' &&
					 access("/sys/bus/event_source/devices/kprobe", F_OK) != 0;
			char twin[64];

			snprintf(twin, sizeof(twin), "stp_tr_%s", bpf_program__name(p) + (prefixed(p, "stp_kp_") ? 7 : 0));
			err("cannot attach %s (%s): %s%s", bpf_program__name(p), bpf_program__section_name(p),
			    no_kprobes ? "this kernel has no kprobes" : strerror(e),
			    bpf_object__find_program_by_name(r->obj, twin) ? ", and no BPF trampoline for its function" : "");
			return -1;
		}
		if ((verbose && prefixed(p, "stp_kp_")) || verbose >= 2)
			fprintf(stderr, "stapio: %s (%s): attached\n", bpf_program__name(p), bpf_program__section_name(p));
		r->linked[r->nlinks] = p;
		r->links[r->nlinks++] = l;
	}
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The timer programs and their periods (the number ending their names): 0, or -1 after a message. */
static int find_timers(struct bpf_run *r)
{
	struct bpf_program *p;

	r->timers = per_program(r, sizeof(*r->timers));
	if (!r->timers)
		return -1;
	bpf_object__for_each_program(p, r->obj) {
		const char *period;

		if (!prefixed(p, "stp_timer_"))
			continue;
		period = strrchr(bpf_program__name(p), '_') + 1;
		r->timers[r->ntimers].fd = bpf_program__fd(p);
		r->timers[r->ntimers].period_ns = strtoll(period, NULL, 10);
		if (r->timers[r->ntimers].period_ns <= 0) {
			err("%s: no period", bpf_program__name(p));
			return -1;
		}
		r->timers[r->ntimers].next_ns = now_ns() + r->timers[r->ntimers].period_ns;
		r->ntimers++;
	}
	return 0;
}

/* Runs the timers that are due (a late one once, its next period from now); the ms until the next
 * is due, at most 100. */
static int run_timers(struct bpf_run *r)
{
	long long now = now_ns(), wait = 100000000LL;

	for (size_t i = 0; i < r->ntimers; i++) {
		struct bpf_timer_prog *t = &r->timers[i];

		if (t->next_ns <= now) {
			LIBBPF_OPTS(bpf_test_run_opts, opts);
			bpf_prog_test_run_opts(t->fd, &opts);
			t->next_ns += t->period_ns;
			if (t->next_ns <= now)
				t->next_ns = now + t->period_ns;
		}
		if (t->next_ns - now < wait)
			wait = t->next_ns - now;
	}
	return (int)((wait + 999999) / 1000000);
}

/* Waits at most timeout ms for the ring's records (consumed: a count, or -errno) and the procfs files' requests
 * (answered). */
static int wait_for_work(struct bpf_run *r, int timeout)
{
	struct pollfd fds[2] = { { .fd = ring_buffer__epoll_fd(r->ring), .events = POLLIN },
				 { .fd = bpf_procfs_fd(r->procfs), .events = POLLIN } };

	if (fds[1].fd < 0)
		return ring_buffer__poll(r->ring, timeout);
	if (poll(fds, 2, timeout) < 0)
		return -errno;
	if (fds[1].revents & (POLLERR | POLLHUP | POLLNVAL)) {
		err("the procfs files were unmounted: no more reads or writes of them");
		bpf_procfs_unmount(r->procfs);
	} else if (fds[1].revents & POLLIN) {
		bpf_procfs_serve(r->procfs);
	}
	return ring_buffer__consume(r->ring);
}

/* A perf counter's map (runtime/bpf/records.h's STP_BPF_COUNTER_MAP): a perf event array, one event per CPU */
static int counter_map(const struct bpf_map *m)
{
	return !strncmp(bpf_map__name(m), STP_BPF_COUNTER_MAP, strlen(STP_BPF_COUNTER_MAP));
}

/* The perf counters (a counter_map per perf.type(TYPE).config(CONFIG).counter("NAME") probe): their event opened on
 * each CPU, counting from the load (before the begin probes, which may read them) to the run's end (after the end
 * probes).  0, or -1 after a message. */
static int open_counters(struct bpf_run *r)
{
	int ncpus = libbpf_num_possible_cpus();
	struct bpf_map *m;

	bpf_object__for_each_map(m, r->obj) {
		struct perf_event_attr attr = { .size = sizeof(attr) };
		unsigned long long config;
		unsigned type;
		int opened = 0;

		if (!counter_map(m))
			continue;
		if (sscanf(bpf_map__name(m) + strlen(STP_BPF_COUNTER_MAP), "%*d_%u_%llu", &type, &config) != 2) {
			err("%s names no perf event", bpf_map__name(m));
			return -1;
		}
		attr.type = type;
		attr.config = config;
		for (int cpu = 0; cpu < ncpus; cpu++) {
			int fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
			int *fds;

			if (fd < 0 && errno == ENODEV)
				continue;   /* a CPU offline */
			if (fd < 0) {
				err("cannot open perf event type %u config %llu on CPU %d for its counter: %s", type, config, cpu,
				    strerror(errno));
				return -1;
			}
			fds = realloc(r->counter_fds, (r->ncounter_fds + 1) * sizeof(*fds));
			if (!fds) {
				close(fd);
				err("out of memory");
				return -1;
			}
			r->counter_fds = fds;
			r->counter_fds[r->ncounter_fds++] = fd;
			if (bpf_map_update_elem(bpf_map__fd(m), &cpu, &fd, BPF_ANY) < 0) {
				err("cannot give %s CPU %d's perf event: %s", bpf_map__name(m), cpu, strerror(errno));
				return -1;
			}
			opened++;
		}
		if (!opened) {
			err("cannot open perf event type %u config %llu on any CPU for its counter", type, config);
			return -1;
		}
	}
	return 0;
}

static void close_counters(struct bpf_run *r)
{
	for (size_t i = 0; i < r->ncounter_fds; i++)
		close(r->counter_fds[i]);
	free(r->counter_fds);
	r->counter_fds = NULL;
	r->ncounter_fds = 0;
}

static void detach_probes(struct bpf_run *r)
{
	for (size_t i = 0; i < r->nlinks; i++)
		bpf_link__destroy(r->links[i]);
	r->nlinks = 0;
}

/* The runtime's counters (runtime/bpf/runtime.h's stp_counters): errors, skipped hits, lost records. */
static struct stp_bpf_counters counters(const struct bpf_run *r)
{
	struct stp_bpf_counters c = { 0 };
	int fd = bpf_object__find_map_fd_by_name(r->obj, "stp_counters");
	unsigned int zero = 0;

	if (fd >= 0)
		bpf_map_lookup_elem(fd, &zero, &c);
	return c;
}

/* The closing summary, as the module runtime's (core/errors.c) */
static void report_counters(const struct bpf_run *r, const struct stp_bpf_counters *c)
{
	if (c->lost) {   /* as the module runtime's (main.c), then why */
		const struct bpf_map *ring = bpf_object__find_map_by_name(r->obj, "stp_ring");
		fprintf(stderr, "WARNING: %llu records (%llu bytes) lost\n", c->lost, c->lost_bytes);
		fprintf(stderr, "WARNING: the ring of %u bytes was full (-D STP_BPF_RING_BYTES=N makes it larger:"
			" a power of 2)\n", ring ? bpf_map__max_entries(ring) : 0);
	}
	if (c->skipped)
		fprintf(stderr, "WARNING: Skipped probes: %llu (reentrancy %llu, lock contention 0)\n", c->skipped,
			c->skipped);
	if (c->errors || c->skipped)
		fprintf(stderr, "WARNING: Number of errors: %llu, skipped probes: %llu\n", c->errors, c->skipped);
	if (c->suppressed)
		fprintf(stderr, "WARNING: Suppressed handler errors: %llu\n", c->suppressed);
}

/* What the object is told before it loads (runtime/bpf/records.h): the wall clock's offset from the boot
 * clock, target()'s process, -r N:URI (remote; NULL: none, else as staprun checked it): 0, or -1 when the object
 * has no room for them. */
static int set_run_vars(struct bpf_object *obj, long target_pid, const char *remote)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, STP_BPF_RUN_SECTION);
	struct stp_bpf_run_vars v = { .target_pid = target_pid, .remote_id = -1 };
	const char *uri = remote ? strchr(remote, ':') : NULL;
	struct timespec real, boot;
	size_t size = 0;

	if (!m || !bpf_map__initial_value(m, &size) || size != sizeof(v))
		return -1;
	if (uri) {
		v.remote_id = strtol(remote, NULL, 10);
		snprintf(v.remote_uri, sizeof(v.remote_uri), "%s", uri + 1);
	}
	bpf_time_zone(&v.tz_gmtoff, v.tz_name, sizeof(v.tz_name));
	clock_gettime(CLOCK_BOOTTIME, &boot);
	clock_gettime(CLOCK_REALTIME, &real);
	v.realtime_offset = (long long)(real.tv_sec - boot.tv_sec) * 1000000000 + (real.tv_nsec - boot.tv_nsec);
	return bpf_map__set_initial_value(m, &v, sizeof(v));
}

/* The trampoline programs (translator/bpfprog/object.c: stp_tr_N, the twin of kprobe stp_kp_N) loaded when allowed
 * and the kernel's BTF types their function; the others are left out of the load.  The number loaded. */
static int choose_trampolines(struct bpf_object *obj, int allowed)
{
	struct btf *vmlinux = allowed ? btf__load_vmlinux_btf() : NULL;
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, obj) {
		const char *fn = trampoline_function(p);
		int use = fn && vmlinux && btf__find_by_name_kind(vmlinux, fn, BTF_KIND_FUNC) > 0;

		if (fn && bpf_program__set_autoload(p, use) == 0 && use)
			n++;
	}
	btf__free(vmlinux);
	return n;
}

/* Whether the kernel's BTF (vmlinux's, else a loaded module's) has the type btf_trace_NAME a tp_btf program attaches by */
static int tracepoint_typed(const struct btf *vmlinux, const char *type)
{
	__u32 id = 0;
	int found = 0;

	if (vmlinux && btf__find_by_name_kind(vmlinux, type, BTF_KIND_TYPEDEF) > 0)
		return 1;
	while (!found && vmlinux && bpf_btf_get_next_id(id, &id) == 0) {
		struct btf *m = btf__load_from_kernel_by_id_split(id, (struct btf *)vmlinux);

		found = m && btf__find_by_name_kind(m, type, BTF_KIND_TYPEDEF) > 0;
		btf__free(m);
	}
	return found;
}

/* A BTF tracepoint's program (translator/bpfprog/object.c: "tp_btf/NAME") whose tracepoint the kernel has no BTF type for
 * becomes a raw tracepoint's (attach_one attaches it by name): the same u64 arguments, read fault-safely. */
static void choose_tracepoints(struct bpf_object *obj)
{
	struct btf *vmlinux = NULL;
	struct bpf_program *p;
	int loaded = 0;

	bpf_object__for_each_program(p, obj) {
		const char *sec = bpf_program__section_name(p);
		char type[160];

		if (strncmp(sec, "tp_btf/", 7) || !bpf_program__autoload(p))
			continue;
		if (!loaded++)
			vmlinux = btf__load_vmlinux_btf();
		snprintf(type, sizeof(type), "btf_trace_%s", sec + 7);
		if (tracepoint_typed(vmlinux, type))
			continue;
		say("no BTF type for tracepoint %s: a raw tracepoint", sec + 7);
		bpf_program__set_type(p, BPF_PROG_TYPE_RAW_TRACEPOINT);
		bpf_program__set_expected_attach_type(p, 0);
	}
	btf__free(vmlinux);
}

/* Opens the object, with one context per possible CPU and the trampolines allowed or not: 0, or -1 after a message.
 * path names it in messages. */
static int open_object(struct bpf_run *r, const char *opened, const char *path, long target_pid, int trampolines)
{
	struct bpf_map *contexts, *scratch, *fmts, *kver, *m;
	int ncpus = libbpf_num_possible_cpus();
	char missing[256];

	r->obj = bpf_object__open_file(opened, NULL);
	if (!r->obj) {
		err("cannot open BPF object %s: %s", path, strerror(errno));
		return -1;
	}
	contexts = bpf_object__find_map_by_name(r->obj, "stp_contexts");
	scratch = bpf_object__find_map_by_name(r->obj, "stp_scratch_n");
	if (!contexts || !scratch || ncpus <= 0 || bpf_map__set_max_entries(contexts, (unsigned int)ncpus) < 0 ||
	    bpf_map__set_max_entries(scratch, (unsigned int)ncpus) < 0) {
		err("%s is not a BPF object of stap --runtime=bpf", path);
		return -1;
	}
	bpf_object__for_each_map(m, r->obj)   /* a perf counter's events: one per CPU (open_counters) */
		if (counter_map(m) && bpf_map__set_max_entries(m, (unsigned int)ncpus) < 0)
			return -1;
	if ((kver = bpf_object__find_map_by_name(r->obj, STP_BPF_KVER_SECTION)) != NULL) {
		/* its handlers read the kernel by the offsets of that release's types, as a module does */
		size_t size = 0;
		const char *built_for = bpf_map__initial_value(kver, &size);
		char release[128];

		kernel_release(release, sizeof(release));
		if (!built_for || !size || built_for[size - 1] || strcmp(built_for, release)) {
			err("cannot run BPF object %s: its probes read kernel data laid out as in kernel %s; this is kernel %s:"
			    " rebuild it with stap --runtime=bpf -r %s (or -p4 on a matching machine)", path,
			    built_for && size && !built_for[size - 1] ? built_for : "(unreadable)", release, release);
			return -1;
		}
	}
	if (bpf_ksyms_missing(r->obj, missing, sizeof(missing))) {
		err("cannot run BPF object %s: its probes read the kernel's global %s, which /proc/kallsyms does not list"
		    " (a kernel built without CONFIG_KALLSYMS_ALL lists no variables)", path, missing);
		return -1;
	}
	if (set_run_vars(r->obj, target_pid, r->remote) < 0 || bpf_funcs_set(r->obj) < 0) {
		err("%s is not a BPF object of stap --runtime=bpf", path);
		return -1;
	}
	if (bpf_globals_set(r->obj, r->args->globals, r->args->nglobals) < 0)
		return -1;
	if (!r->formats && (fmts = bpf_object__find_map_by_name(r->obj, STP_BPF_FMT_SECTION)) != NULL) {
		size_t size = 0;
		const void *blob = bpf_map__initial_value(fmts, &size);

		if (!blob || !(r->formats = bpf_formats_read(blob, size)))
			return -1;
	}
	r->trampolines = choose_trampolines(r->obj, trampolines);
	choose_tracepoints(r->obj);
	return 0;
}

#define LOCKDOWN_PATH "/sys/kernel/security/lockdown"

/* The kernel's lockdown is "confidentiality", under which no BPF program may read kernel memory
 * (bpf_probe_read_kernel) */
static int locked_down_for_confidentiality(void)
{
	char buf[128] = "";
	FILE *f = fopen(LOCKDOWN_PATH, "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	return strstr(buf, "[confidentiality]") != NULL;
}

/* Opens and loads the object: 0, or -1 after a message.  staprun hands it over as /proc/self/fd/N, the file it
 * opened and checked: messages name the file's path.  When the kernel refuses its trampolines, it is loaded again
 * without them (their kprobe twins serve). */
static int load(struct bpf_run *r, const char *opened, long target_pid)
{
	char shown[PATH_MAX];
	const char *path = shown;
	ssize_t n = strncmp(opened, "/proc/self/fd/", 14) ? -1 : readlink(opened, shown, sizeof(shown) - 1);
	int rc;

	if (n > 0)
		shown[n] = 0;
	else
		path = opened;
	if (open_object(r, opened, path, target_pid, 1) < 0)
		return -1;
	rc = bpf_object__load(r->obj);
	if (rc < 0 && r->trampolines) {
		if (verbose)
			fprintf(stderr, "stapio: the kernel refused %s's trampolines (%s): kprobes instead\n", path,
				strerror(errno));
		bpf_object__close(r->obj);
		if (open_object(r, opened, path, target_pid, 0) < 0)
			return -1;
		rc = bpf_object__load(r->obj);
	}
	if (rc < 0) {
		int e = errno;
		if (locked_down_for_confidentiality())
			err("cannot load BPF object %s: the kernel is locked down for confidentiality (%s), which refuses BPF "
			    "programs that read kernel memory, as stap's do: boot it with lockdown=integrity (Secure Boot's "
			    "default), which allows them", path, LOCKDOWN_PATH);
		else
			err("cannot load BPF object %s: %s%s", path, strerror(e),
			    e == EPERM ? " (BPF needs root)" : verbose ? "" : " (-v shows the kernel's reasons)");
		return -1;
	}
	if (verbose)
		bpf_report_cost(r->obj);
	if (open_counters(r) < 0)
		return -1;
	r->ring = ring_buffer__new(bpf_object__find_map_fd_by_name(r->obj, "stp_ring"), on_record, r, NULL);
	if (!r->ring) {
		err("cannot read the ring of %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A setuid staprun's stapio -B (staprun/setuid.c's become_caller_loading) has root's effective and saved uid beside
 * the caller's real one: root's serves to load and attach the object only, the caller's the rest (to_caller), and
 * once the probes are armed root's is given up for good (caller_for_good). 0, or -1 after a message. */
static int to_caller(int caller)
{
	if (seteuid(caller ? getuid() : 0) < 0) {
		err("cannot change my effective uid: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int caller_for_good(void)
{
	uid_t uid = getuid(), r, e, s;

	if (setresuid(uid, uid, uid) < 0 || getresuid(&r, &e, &s) < 0 || r != uid || e != uid || s != uid ||
	    (uid != 0 && seteuid(0) == 0)) {
		err("cannot give up root's ids after loading the object: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* the procfs("header") file's text, for the output files' headers */
static long read_header(void *ctx, char *buf, size_t size)
{
	return bpf_procfs_read(ctx, "header", buf, size);
}

int bpf_run(const char *path, const char *name, const struct bpf_run_args *args, const char *outfile, const char *size_arg, const char *command, long target_pid,
	    const char *remote, volatile sig_atomic_t *got_signal, volatile sig_atomic_t *got_child)
{
	struct bpf_run r = { .remote = remote, .args = args };
	struct stp_bpf_counters c = { 0 };
	int status = 1, loading = geteuid() != getuid(), unarmed = 0, procfs_failed = 0;

	libbpf_set_print(libbpf_message);
	/* the output and the -c command as the caller */
	if (loading && to_caller(1) < 0)
		return 1;
	r.out = bpf_output_open(outfile, size_arg);
	if (!r.out)
		return 1;
	/* the -c command first, held back, for target() */
	if ((!command || (r.cmd = bpf_target_spawn(command)) != NULL) && (!loading || to_caller(0) == 0) &&
	    load(&r, path, r.cmd ? bpf_target_pid(r.cmd) : target_pid) == 0 && run_programs(&r, "stp_begin_", 1) == 0) {
		status = 0;
		if (!r.exit_seen && (attach_probes(&r) < 0 || find_timers(&r) < 0 ||
				     (!(r.procfs = bpf_procfs_start(r.obj, name, &procfs_failed)) && procfs_failed)))
			status = unarmed = 1;   /* as a module that fails to start: no end probes */
		/* self-describing output files when the script has a procfs("header") file, as a module's */
		if (!status && bpf_procfs_readable(r.procfs, "header"))
			bpf_output_headers(r.out, name, args, read_header, r.procfs);
		if (loading && caller_for_good() < 0)   /* armed, or not to be: root's ids no more */
			status = 1;
		if (!status)
			bpf_target_release(r.cmd);   /* the probes are armed (not when they failed to be) */
		while (!status && !*got_signal && !exit_called(&r)) {
			if (*got_child) {
				*got_child = 0;
				bpf_system_poll(r.sys);   /* system()'s commands that ended */
				if (bpf_target_exited(r.cmd))
					break;
			}
			int n = wait_for_work(&r, run_timers(&r));
			if (n < 0 && n != -EINTR) {
				err("reading the ring: %s", strerror(-n));
				status = 1;
			}
			if (bpf_output_flush(r.out) < 0)
				status = 1;
		}
		detach_probes(&r);
		bpf_procfs_unmount(r.procfs);   /* no more reads or writes of the files */
		ring_buffer__consume(r.ring);
		/* too many errors: no end probes */
		c = counters(&r);
		if (!c.aborted && !unarmed && run_programs(&r, "stp_end_", 0) < 0)   /* each one's records consumed */
			status = 1;
		c = counters(&r);
		/* after script errors: the error probes */
		if (c.errors && run_programs(&r, "stp_error_", 0) < 0)
			status = 1;
		c = counters(&r);
		report_counters(&r, &c);
		if (c.aborted)
			status = 1;
	}
	bpf_target_finish(r.cmd);
	bpf_system_finish(r.sys);
	if (bpf_output_close(r.out) < 0)
		status = 1;
	bpf_procfs_stop(r.procfs);
	close_counters(&r);
	ring_buffer__free(r.ring);
	free(r.links);
	free(r.linked);
	free(r.timers);
	bpf_formats_free(r.formats);
	bpf_object__close(r.obj);
	return status;
}
