/* context.h - the BPF runtime's per-CPU context: action count, error state, output buffer and the frame
 * stack of the bodies (union stp_frame, sized by the generated code before it includes this file). */
#ifndef STP_BPF_CONTEXT_H
#define STP_BPF_CONTEXT_H

struct stp_dec_lead {
	u64 unused;
};

struct stp_out {
	char buf[2 * STP_BPF_OUT_CAP];   /* writes start below STP_BPF_OUT_CAP (offsets masked) */
	unsigned int len;
	unsigned int text_at;            /* the hit's output: the open text sub-record's head (output.h) */
	unsigned int rec_at;             /* the printf sub-record being written */
	int is_str;                      /* sprintf's (STP_OUT_STR): kept, cut at MAXSTRINGLEN, never sent */
};
#define STP_OUT_STR_DEPTH 4              /* sprintf within sprintf's arguments, this deep */

/* x86-64's struct pt_regs, as a kprobe or uprobe hands it over (a trampoline fills some: targetvars.h) */
struct stp_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags,
		sp, ss;
};
#define STP_BPF_ARGS 12                  /* a tracepoint's arguments kept */
/* c->entry_data: a tracepoint's arguments, or a .return probe's values saved at entry (STP_BPF_ENTRY_BYTES,
 * the largest, defined by the generated code when it has any: targetvars.h's stp_entry_*) */
#if defined(STP_BPF_ENTRY_BYTES) && STP_BPF_ENTRY_BYTES > 8 * STP_BPF_ARGS
#define STP_BPF_ENTRY_WORDS ((STP_BPF_ENTRY_BYTES + 7) / 8)
#else
#define STP_BPF_ENTRY_WORDS STP_BPF_ARGS
#endif

/* a string being quoted (targetvars.h's stp_quote_mem) */
struct stp_quoting {
	long size, pos, len;
	int full, cut;
	char out[MAXSTRINGLEN];
};

/* a string being escaped (strings.h's stp_text_str, stp_json_str): positions in the input and the output */
struct stp_texting {
	long in, end, used, budget, mark, cut, q;
	int cut_short;
};

#include "bpf/regex.h"            /* matched()'s state, when the script records groups */

struct stp_context {
	int busy;                        /* a hit runs on this CPU: a nested one is skipped */
	long actioncount, maxaction;
	const char *last_error;          /* set = the hit is ending in error */
	const char *last_stmt;           /* "identifier 'x' at file:l:c" */
	int nesting;
	struct stp_dec_lead dec_lead;
	struct stp_out out;
	struct stp_out sout[STP_OUT_STR_DEPTH];   /* sprintf's outputs, innermost last (output.h) */
	int sout_depth;
	struct {
		struct stp_bpf_rec_head head;
		char msg[STP_BPF_ERR_MSG];
		char near[STP_BPF_ERR_MSG];
	} err;
	char key[512];                   /* an array's key being built (translator/bpfprog/bpfmaps.c) */
	char wrap_key[512];              /* a wrapping array's oldest key, found to give way (maps.h) */
	char wrap_value[MAXSTRINGLEN + 8];   /* a wrapping array's new entry: zeros and its number (maps.h) */
	u64 wrap_least;                  /* the least number a wrapping array's scan has seen so far (maps.h) */
	int wrap_found;
	char cat[2 * MAXSTRINGLEN];      /* a concatenation being built (strings.h) */
	char rx[MAXSTRINGLEN];           /* the subject of =~ (strings.h's stp_rxd_match), tokenize()'s delimiters */
	unsigned int rx_state;           /* =~: the DFA's state, and whether the subject matched */
	int rx_result;
	int tok_pos;                     /* tokenize(): where the rest of tok_str starts */
	u64 tok_set[4];                  /* tokenize(): the delimiters, a bit each */
	long tok_start, tok_end, tok_next;   /* tokenize(): the token's bytes in tok_str, where the next call starts */
	char tok_str[MAXSTRINGLEN];      /* tokenize(): the string being split (kept between hits) */
#ifdef STP_REGEX_MAXINSNS
	struct stp_rxc rxc;              /* =~ recording its groups, the last match (regex.h) */
#endif
	long sr_slen, sr_flen, sr_rlen, sr_pos, sr_skip;   /* str_replace()'s lengths and positions (strings.h) */
	int64_t loop_sum;                /* a bpf_loop's sum (targetvars.h's stp_bio_vecs_bytes) */
	struct {
		u64 ext;                 /* the extents of a user namespace's id map being scanned (tasks.h) */
		u32 id;
		int64_t found;
	} ns_scan;
	long argv_len;                   /* __get_argv(): the list's bytes so far, in argv_buf (targetvars.h) */
	char argv_buf[2 * MAXSTRINGLEN];
	char error_buf[MAXSTRINGLEN];    /* error()'s message, kept for the report */
	struct stp_quoting quoting;
	struct stp_texting texting;
	struct {
		struct stp_bpf_rec_head head;
		char msg[MAXSTRINGLEN];
	} warn;                          /* warn()'s or system()'s record */
	struct stp_stat_data stat;       /* a statistic's CPUs merged (stats.h) */
	struct stp_bpf_hist_rec hist;    /* a histogram's record (stats.h) */
	u64 overload_tick, overload_used, overload_window;   /* the overload guard (STP_RUN) */
	struct stp_regs regs[1];         /* the hit's registers (targetvars.h), as c->regs */
	unsigned long kstack[MAXBACKTRACE];   /* the hit's kernel stack, when a handler names a backtrace (symbols.h) */
	long kstack_n;
	unsigned long ret_entry;         /* a kretprobe's function entry, 0 elsewhere (targetvars.h, symbols.h) */
	long sym_len, stk_start, stk_digits;   /* a backtrace or print_stack() being written (symbols.h) */
	u64 stk_value;
	char sym_line[MAXSTRINGLEN];     /* one address written */
	char sym_buf[2 * MAXSTRINGLEN];  /* the string being built */
	char sym_stk[MAXSTRINGLEN];      /* print_stack()'s backtrace() string */
	struct {
		char pp[MAXSTRINGLEN], pn[MAXSTRINGLEN];
		char func[MAXSTRINGLEN];         /* ppfunc(): the function pp names, found by the translator */
		int is_return;                   /* is_return(): pp is a .return point, as the translator read it */
	} probe[1];                      /* pp() and pn() of the point hit, as c->probe->pp (copies the
	                                  * bodies may read as they read any string) */
	unsigned long entry_data[STP_BPF_ENTRY_WORDS];   /* a tracepoint's arguments, or @entry values */
	char frames[STP_FRAME_SIZE * (MAXNESTING + 1)];
};

/* One context per CPU, indexed by the CPU's number (an array: a per-CPU map's values are limited
 * to 32 KiB); stapio sizes it to the possible CPUs before loading. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stp_context);
} stp_contexts SEC(".maps");

#include "bpf/output.h"

/* abort()'s error, which no catch stops (core/errors.c's twin) */
static const char stp_abort_marker[] = "abort()";

static __always_inline void stp_error(struct stp_context *c, const char *msg)
{
	if (!c->last_error)
		c->last_error = msg;
}

/* A tapset's STAP_ERROR(format, values...): the message formatted by the kernel into the context's error buffer
 * (bpf_snprintf's conversions, at most 12 values: translator/bpfprog/object.c's #define) */
static __always_inline void stp_error_fmt(struct stp_context *c, const char *fmt, u64 *args, u32 len)
{
	if (c->last_error)
		return;
	if (bpf_snprintf(c->error_buf, sizeof(c->error_buf), fmt, args, len) < 0)
		c->error_buf[0] = 0;
	c->last_error = c->error_buf;
}

/* error("text") from a script: the text copied, as it must outlive the hit's frames */
static __always_inline void stp_error_str(struct stp_context *c, const char *msg)
{
	if (c->last_error)
		return;
	if (bpf_probe_read_kernel_str(c->error_buf, sizeof(c->error_buf), msg) < 0)
		c->error_buf[0] = 0;
	c->last_error = c->error_buf;
}

#define STP_BPF_CONTEXT_COMPLETE
#include "bpf/arith.h"
#include "bpf/strings.h"
#include "bpf/regex.h"
#include "bpf/maps.h"
#include "bpf/stats.h"
#include "bpf/targetvars.h"
#include "bpf/symbols.h"
#include "bpf/tasks.h"
#include "bpf/perf.h"

static __always_inline void stp_action_limit(struct stp_context *c)
{
	stp_error(c, "MAXACTION exceeded");
}

/* The frame stack (core/frames.h's twins): the nesting kept within MAXNESTING where the verifier sees it. */
static __always_inline union stp_frame *stp_frame_at(struct stp_context *c, long n)
{
	u64 k = (u64)n;

	asm volatile("" : "+r"(k));
	if (k > MAXNESTING)
		k = MAXNESTING;
	return (union stp_frame *)c->frames + k;
}

static __always_inline union stp_frame *stp_push_frame(struct stp_context *c)
{
	if (unlikely(c->nesting >= MAXNESTING)) {
		stp_error(c, "MAXNESTING exceeded");
		return stp_frame_at(c, c->nesting);
	}
	return stp_frame_at(c, ++c->nesting);
}

#define STP_LEAF_NESTING(c, where, label)						\
	do {										\
		if (unlikely((c)->nesting >= MAXNESTING)) {				\
			(c)->last_stmt = (where);					\
			stp_error((c), "MAXNESTING exceeded");				\
			goto label;							\
		}									\
	} while (0)

#define STP_PUSH_INLINED(c, nf, member, where, label)					\
	do {										\
		STP_LEAF_NESTING(c, where, label);					\
		(nf) = &stp_frame_at((c), ++(c)->nesting)->member;			\
	} while (0)

#include "core/actions.h"

/* A while or for loop's iterations run as a bpf_loop callback (translator/bpfprog/loops.c): each charges
 * an action, so MAXACTION ends the loop long before bpf_loop's own limit of iterations. */
struct stp_loop {
	struct stp_context *c;
	void *f;        /* the enclosing function's frame */
	long left;      /* the callback left by an error, next or return: so does the caller */
};
#define STP_LOOP_ITERATIONS (1 << 23)

static __always_inline void stp_exit(struct stp_context *c)
{
	struct stp_bpf_rec_head h = { STP_BPF_REC_EXIT, 0 };
	struct stp_bpf_counters *n = stp_counters_get();

	(void)c;
	stp_exiting = 1;
	if (n)
		n->exited = 1;
	if (bpf_ringbuf_output(&stp_ring, &h, sizeof(h), 0))
		stp_lost(sizeof(h));
}

/* This CPU's context for a hit; NULL when busy (counted) or, for a probe of the running session
 * (not begin or end), once exit() was called. */
/* pp() and pn(): what the program says of its point (translator/bpfprog/object.c) */
static __always_inline void stp_set_pp(struct stp_context *c, const char *pp, const char *pn, const char *func,
				       int is_return)
{
	c->probe->is_return = is_return;
	if (bpf_probe_read_kernel_str(c->probe->func, sizeof(c->probe->func), func) < 0)
		c->probe->func[0] = 0;
	if (bpf_probe_read_kernel_str(c->probe->pp, sizeof(c->probe->pp), pp) < 0)
		c->probe->pp[0] = 0;
	if (bpf_probe_read_kernel_str(c->probe->pn, sizeof(c->probe->pn), pn) < 0)
		c->probe->pn[0] = 0;
}

/* is_return() (tapset/linux/context-return.stp) */
#define stp_is_return(c) ((c)->probe->is_return)

/* ppfunc(): the function the point names, which the translator found (core/strfuncs.h's stp_ppfunc) */
#define stp_ppfunc(c, dst) stp_strlcpy((dst), (c)->probe->func, MAXSTRINGLEN)

/* abort(): exit(), and the hit ends at once, unwinding like an error neither reported nor counted */
static __always_inline void stp_abort(struct stp_context *c)
{
	stp_exit(c);
	c->last_error = stp_abort_marker;
}

/* A record of a string for stapio (type: STP_BPF_REC_WARN, _SYSTEM), after the output before it */
static __always_inline void stp_string_record(struct stp_context *c, int type, const char *msg)
{
	stp_flush(&c->out);
	c->warn.head.type = type;
	c->warn.head.len = sizeof(c->warn.msg);
	if (bpf_probe_read_kernel_str(c->warn.msg, sizeof(c->warn.msg), msg) < 0)
		c->warn.msg[0] = 0;
	if (bpf_ringbuf_output(&stp_ring, &c->warn, sizeof(c->warn), 0))
		stp_lost(sizeof(c->warn));
}

/* warn("text"): a warning on stderr */
#define stp_warn(c, msg) stp_string_record((c), STP_BPF_REC_WARN, (msg))
/* system("cmd"): stapio runs it, as the module's stapio does (stapio/system.c); nothing when the record is lost */
#define stp_system(c, cmd) stp_string_record((c), STP_BPF_REC_SYSTEM, (cmd))

/* switch_file(): what the hit wrote so far leaves, then a record telling stapio to go on in the next file (the module's
 * STP_REC_SWITCH) */
static __always_inline void stp_switch_file(struct stp_context *c)
{
	struct stp_bpf_rec_head h = { .type = STP_BPF_REC_SWITCH, .len = 0 };

	stp_flush(&c->out);
	if (bpf_ringbuf_output(&stp_ring, &h, sizeof(h), 0))
		stp_lost(sizeof(h));
}

static __always_inline struct stp_context *stp_context_claim(long maxaction, int session)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct stp_context *c = bpf_map_lookup_elem(&stp_contexts, &cpu);

	if (!c || (!session && stp_exiting))
		return NULL;
	if (c->busy) {
		stp_skipped();
		return NULL;
	}
	c->busy = 1;
	c->actioncount = 0;
	c->maxaction = maxaction;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->nesting = 0;
	stp_out_begin(&c->out);
	c->sout_depth = 0;
	/* what a program saves of its hit when a handler reads it (targetvars.h, symbols.h): none yet, so that a begin,
	 * end or timer probe reads no other hit's (addr() 0, no kernel registers, an empty backtrace) */
	c->ret_entry = 0;
	c->kstack_n = 0;
	c->regs->ip = 0;
	c->regs->cs = 3;
	return c;
}

/* A hit's script error: reported as a record and counted (past MAXERRORS the run ends, without end
 * probes), or with --suppress-handler-errors only counted (core/errors.c's twin). */
static __always_inline void stp_report_error(struct stp_context *c)
{
	struct stp_bpf_counters *n = stp_counters_get();

#ifdef STP_SUPPRESS_HANDLER_ERRORS
	if (n)
		__sync_fetch_and_add(&n->suppressed, 1);
#else
	c->err.head.type = STP_BPF_REC_ERROR;
	c->err.head.len = sizeof(c->err.msg) + sizeof(c->err.near);
	if (bpf_probe_read_kernel_str(c->err.msg, sizeof(c->err.msg), c->last_error) < 0)
		c->err.msg[0] = 0;
	c->err.near[0] = 0;
	if (c->last_stmt && bpf_probe_read_kernel_str(c->err.near, sizeof(c->err.near), c->last_stmt) < 0)
		c->err.near[0] = 0;
	if (bpf_ringbuf_output(&stp_ring, &c->err, sizeof(c->err), 0))
		stp_lost(sizeof(c->err));
	if (n && __sync_fetch_and_add(&n->errors, 1) + 1 > MAXERRORS) {
		n->aborted = 1;
		stp_exit(c);
	}
#endif
}

/* After the handler: its output as one record, its error as another. */
static __always_inline void stp_context_release(struct stp_context *c)
{
	stp_flush(&c->out);
	if (c->last_error && c->last_error != stp_abort_marker)
		stp_report_error(c);
	c->busy = 0;
}

/* A program's body: the handler run with this CPU's context (session: a begin or end probe, run by
 * stapio, with MAXACTION_INTERRUPTIBLE) */
/* The overload guard, core/probe.c's twin in nanoseconds (BPF reads no cycle counter): one hit in
 * STP_OVERLOAD_SAMPLE is timed for all of them; this CPU's handlers using more than STP_OVERLOAD_THRESHOLD
 * of an STP_OVERLOAD_INTERVAL end the run as an error, without end probes.  Not for begin and end. */
static __always_inline void stp_report_overload(struct stp_context *c)
{
	struct stp_bpf_counters *n = stp_counters_get();

	c->last_error = "probe overhead exceeded threshold";
	c->last_stmt = NULL;
	if (n && n->aborted)
		return;
	stp_report_error(c);
	c->last_error = NULL;
	if (n) {
		n->aborted = 1;
		stp_exit(c);
	}
}

static __always_inline void stp_overload_charge(struct stp_context *c, u64 start)
{
#ifndef STP_NO_OVERLOAD
	u64 now = bpf_ktime_get_ns();

	c->overload_used += (now - start) * STP_OVERLOAD_SAMPLE;
	if (unlikely(c->overload_used > STP_OVERLOAD_THRESHOLD)) {
		if (now - c->overload_window <= STP_OVERLOAD_INTERVAL)
			stp_report_overload(c);
		c->overload_window = now;
		c->overload_used = 0;
	}
#endif
}

#define STP_RUN(handler, session) STP_RUN_SAVING(handler, session, (void)0)
/* ... after save (a statement naming c: stp_save_regs(c, ctx) ...) */
#define STP_RUN_SAVING(handler, session, save)				\
	do {									\
		struct stp_context *c =						\
			stp_context_claim((session) ? MAXACTION_INTERRUPTIBLE : MAXACTION, session); \
		if (c) {							\
			save;							\
			if (!(session) && STP_OVERLOAD_ON &&			\
			    unlikely(++c->overload_tick >= STP_OVERLOAD_SAMPLE)) { \
				u64 stp_start = bpf_ktime_get_ns();		\
				c->overload_tick = 0;				\
				handler(c);					\
				stp_overload_charge(c, stp_start);		\
			} else {						\
				handler(c);					\
			}							\
			stp_context_release(c);					\
		}								\
	} while (0)
#ifdef STP_NO_OVERLOAD
#define STP_OVERLOAD_ON 0
#else
#define STP_OVERLOAD_ON 1
#endif

#endif
