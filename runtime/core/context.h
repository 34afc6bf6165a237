/* context.h - the per-CPU probe context (reentrancy guard, action count,
 * error state, print buffer, frame stack) and the probe descriptor. */
#ifndef STP_CONTEXT_H
#define STP_CONTEXT_H

struct stp_context;

/* What the translator emits for each probe point. */
struct stp_probe_desc {
	void (*handler)(struct stp_context *c);
	const struct stp_lock_req *locks;   /* sorted by global, no duplicates */
	unsigned int nlocks;
	const char *pp;                     /* probe point text, for pp() */
	const char *pn;                     /* the point as the script wrote it (or the alias), for pn();
	                                     * NULL when it is pp */
	bool light;                         /* the handler needs no context: the light hit path
	                                     * (core/probe.c); the translator's STP_LIGHT_PROBE_n */
	bool uncounted;                     /* none of the handler's code charges actions: no count
	                                     * kept (STP_CHARGES_NONE_probe_n) */
};

struct stp_ring;

/* An output destination: the context's print buffer (ctx set: flushed as a
 * record when full) or a string value (ctx NULL: truncated when full).  The
 * print buffer may lie in this CPU's trace ring (ring set: a record being
 * formatted in place, transport.c's stp_out_direct_begin). */
struct stp_out {
	char *buf;
	unsigned int len, cap;
	struct stp_context *ctx;
	struct stp_ring *ring;
};

/* The leading digits of the last number of 9 to 16 digits this context's printf wrote (its value
 * over 10^8), kept because a trace's timestamps share them from one line to the next
 * (gettimeofday_us() has 16 digits, the leading 8 change every 100 s): output/decimal.h
 * stp_put_sdec_lead_at. */
struct stp_dec_lead {
	uint64_t q;                         /* the value / 10^8, at least 1; 0: none kept yet */
	unsigned int n;                     /* its digits, 1 to 8 */
	char digits[8];                     /* they, at the front */
};

struct stp_context {
	const struct stp_probe_desc *probe;
	struct pt_regs *regs;
	void *entry_data;                   /* the hit's own data, given to stp_run_probe_data(): @entry
	                                     * values saved at the call (.return probes), a tracepoint's
	                                     * arguments, a family's state behind its context variables */
	long actioncount;
	long maxaction;                     /* MAXACTION, or MAXACTION_INTERRUPTIBLE in begin/end */
	cycles_t overload_window;           /* start of the current overload interval */
	cycles_t overload_used;             /* cycles spent in handlers since then (estimated) */
	unsigned int overload_tick;         /* hits since the last timed one */
	int nesting;                        /* frames pushed by function calls */
	unsigned long stack_top;            /* kernel stack address when the handler started */
	const char *last_error;             /* set = the hit is ending in error */
	const char *last_stmt;              /* "identifier 'x' at file:l:c" */
	void *frames;                       /* union stp_frame[MAXNESTING + 1] */
	struct stp_out out;
	struct stp_dec_lead dec_lead;       /* printf's %d: the last long number's leading digits */
	char error_buf[256];
	char print_buf[STP_BUFSIZE];
	int tok_pos;                        /* tokenize(): where the rest of tok_str starts */
	char tok_str[MAXSTRINGLEN];         /* tokenize(): the string being split (kept between hits) */
	struct stp_regex_state regex;       /* =~: the last match (matched(), ngroups()), work area */
};

/* A family's stp_<cname>_register/unregister (its entry in stp_providers[]) over a table of its
 * probes, armed with start(table, n) and disarmed with stop(table, n). */
#define STP_FAMILY(cname, start, stop, table)					\
	static int stp_##cname##_register(void)					\
	{									\
		return start(table, ARRAY_SIZE(table));				\
	}									\
	static void stp_##cname##_unregister(void)				\
	{									\
		stop(table, ARRAY_SIZE(table));					\
	}

/* A probe family as generated code lists it in stp_providers[]. */
struct stp_provider {
	const char *family;
	int (*start)(void);     /* arm (begin: run the begin probes) */
	void (*stop)(void);     /* disarm (end: run the end probes) */
};

/* Session states: probes other than begin/end run only while RUNNING. */
enum {
	STP_STARTING,
	STP_RUNNING,
	STP_STOPPING,
	STP_STOPPED,
};

static atomic_t stp_run_state = ATOMIC_INIT(STP_STARTING);

/* target(): the process given with stap -x PID / -c CMD, set at load. */
static int stp_target;
module_param_named(_stp_target, stp_target, int, 0444);

/* remote_id(), remote_uri(): this host's index in stap --remote's list and its target as given
 * there, set at load (staprun -r N:URI makes the two parameters); -1 and "" otherwise. */
static int stp_remote_id = -1;
module_param_named(_stp_remote_id, stp_remote_id, int, 0444);
static char stp_remote_uri[STP_REMOTE_URI_MAX + 1];
module_param_string(_stp_remote_uri, stp_remote_uri, sizeof(stp_remote_uri), 0444);

/* tz_gmtoff(), tz_name(): the time zone of the user running stapio ("tz" command), else UTC. */
static long stp_tz_gmtoff;
static char stp_tz_name[16] = "UTC";
static struct stp_context **stp_contexts;   /* indexed by CPU */

/* A probe handler runs on this CPU (set by every hit path, light or not, while it runs): a hit
 * that would nest on it is skipped and counted.  Apart from the context so that the light hit
 * path can claim the CPU without looking the context up. */
static DEFINE_PER_CPU(int, stp_busy);

/* A procfs probe's $value (translator/providers/procfs.c): its file's buffer, a string destination given
 * as the hit's data (probes/procfs.c); what a read probe sets, what a write probe was given. */
#define stp_procfs_value(c) ((const char *)((struct stp_out *)(c)->entry_data)->buf)
#define stp_procfs_set(c, s)                                                                    \
	do {                                                                                    \
		struct stp_out *stp_pv_ = (c)->entry_data;                                      \
		stp_pv_->len = 0;                                                               \
		stp_out_str(stp_pv_, (s));                                                      \
		stp_out_end_str(stp_pv_);                                                       \
	} while (0)
#define stp_procfs_append(c, s)                                                                 \
	do {                                                                                    \
		struct stp_out *stp_pv_ = (c)->entry_data;                                      \
		stp_out_str(stp_pv_, (s));                                                      \
		stp_out_end_str(stp_pv_);                                                       \
	} while (0)

#endif
