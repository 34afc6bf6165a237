/* records.h - the records of the BPF runtime's ring (runtime/bpf/) read by stapio (stapio/bpfrun.c):
 * a header and the text, an error, or the end of the run.  Shared by both sides: plain C, no kernel types. */
#ifndef STP_BPF_RECORDS_H
#define STP_BPF_RECORDS_H

#ifndef STP_BPF_RING_BYTES
#define STP_BPF_RING_BYTES (1 << 24)    /* the ring shared by every CPU (a power of 2, pages): 16 MiB, 200,000 records of a
					 * printf of five values in a burst (bench/README.md) */
#endif
#define STP_BPF_OUT_CAP 4096            /* a hit's output before it is flushed as a record */
#define STP_BPF_ERR_MSG 128             /* an error's message */

enum stp_bpf_record {
	STP_BPF_REC_TEXT = 1,           /* output text */
	STP_BPF_REC_ERROR = 2,          /* a script error: the message, then "near ..." (both NUL-ended) */
	STP_BPF_REC_EXIT = 3,           /* exit(), or the errors' abort (stp_bpf_counters.aborted) */
	STP_BPF_REC_WARN = 4,           /* warn(): the message (NUL-ended) */
	STP_BPF_REC_HIST = 5,           /* print(@hist_*(x)): struct stp_bpf_hist_rec */
	STP_BPF_REC_PRINTF = 6,         /* a printf's values: its format's number (4 bytes), then per value 8 bytes
					 * (a number, a '*' width or precision) or a NUL-ended string */
	STP_BPF_REC_SWITCH = 7,         /* switch_file(): the output goes on in the next file (no payload) */
	STP_BPF_REC_SYSTEM = 8,         /* system(): the command (NUL-ended), which stapio runs with /bin/sh -c */
};

/* printf's formats, which stapio applies to the values (translator/bpfprog/printf.c writes them into the object's
 * section of this name, stapio/bpfformat.c reads them): the head, then the formats, their pieces and the literal
 * text, each array right after the one before (every member 4-byte aligned) */
#define STP_BPF_FMT_SECTION ".rodata.stp_fmt"
/* The kernel release whose types an object's handlers read by offset (target variables, statements inside a function;
 * absent when they read none: an object portable to any kernel with BTF), a NUL-ended string in this section */
#define STP_BPF_KVER_SECTION ".rodata.stp_kver"
/* The entry addresses of the kernel functions whose returns the object probes, where a handler reads the point's
 * address (addr(), print_backtrace()'s "Returning from"): a u64 per program, indexed by the N of its name stp_kp_N,
 * which stapio fills from /proc/kallsyms before loading (a kretprobe program knows only the return site) */
#define STP_BPF_FUNCS_SECTION ".data.stp_funcs"
/* The procfs probes' files, which stapio serves (stapio/bpfprocfs.c): a line per probe, "r MODE MAXSIZE PROGRAM PATH"
 * or "w MODE 0 PROGRAM PATH" (MODE in octal, MAXSIZE 0: the default, PATH to the line's end), NUL-ended; the value
 * the probes read and write is the map STP_BPF_PROCFS_MAP's one entry, a NUL-ended string */
#define STP_BPF_PROCFS_SECTION ".rodata.stp_procfs"
#define STP_BPF_PROCFS_MAP "stp_procfs"
/* A perf .counter probe's perf event array: this prefix, then "K_TYPE_CONFIG" (K its position among the perf probes,
 * translator/bpfprog/object.c), which stapio fills with the event TYPE, CONFIG it opens on each CPU */
#define STP_BPF_COUNTER_MAP "stp_pc_"
#define STP_BPF_FMT_MAGIC 0x53544631u   /* "STF1" */
struct stp_bpf_fmt_head {
	unsigned int magic, nformats, npieces, ntext;
};
struct stp_bpf_fmt {
	unsigned int first, npieces;    /* its pieces */
};
struct stp_bpf_fmt_piece {
	unsigned char conv;             /* 0: literal text; else d i u x X o c s p b */
	unsigned char flags;            /* output/fmtflags.h */
	unsigned char width_star, prec_star;
	int width, prec;                /* -1: none; %b: width is its bytes */
	unsigned int text, len;         /* literal text: its offset in the text, its length */
};

#define STP_BPF_HIST_BUCKETS 128        /* a histogram's buckets, at most (core/limits.h's STP_MAX_BUCKETS) */

/* What stapio tells the object before loading it, in its map of this name: the wall clock's offset from
 * the boot clock (CLOCK_REALTIME less CLOCK_BOOTTIME, ns: gettimeofday_*()), target()'s process, and stap
 * --remote's index and target for this host */
#define STP_BPF_RUN_SECTION ".data.stp_run"
#define STP_BPF_REMOTE_URI_BYTES 256   /* core/limits.h's STP_REMOTE_URI_MAX + 1 */
struct stp_bpf_run_vars {
	long long realtime_offset;
	long long target_pid;           /* -x PID or the -c command's; 0: none */
	long long remote_id;            /* staprun -r N:URI's N (remote_id()), -1 when not given */
	char remote_uri[STP_BPF_REMOTE_URI_BYTES];   /* its URI (remote_uri()), "" when not given */
	long long tz_gmtoff;            /* the caller's time zone at the start, seconds west of UTC (tz_gmtoff()) */
	char tz_name[16];               /* ... and its abbreviation (tz_name()), "UTC" when it has no usable one */
};


struct stp_bpf_rec_head {
	unsigned int type;              /* enum stp_bpf_record */
	unsigned int len;               /* bytes after the head */
};

/* A histogram to draw (stapio/bpfhist.c): stats/statdata.h's shape and counts */
struct stp_bpf_hist_rec {
	struct stp_bpf_rec_head head;
	int htype, buckets;
	int width, elision;             /* the object's HIST_WIDTH and HIST_ELISION (core/limits.h) */
	long long start, interval;
	long long counts[STP_BPF_HIST_BUCKETS];
};

/* The runtime's counters (the map stp_counters, one element), read by stapio at the end. */
struct stp_bpf_counters {
	unsigned long long skipped;     /* hits that found their CPU's context busy */
	unsigned long long lost;        /* records the full ring refused */
	unsigned long long errors;      /* script errors reported */
	unsigned long long suppressed;  /* script errors not reported (--suppress-handler-errors) */
	unsigned long long aborted;     /* more errors than MAXERRORS: the run ends without end probes */
	unsigned long long lost_bytes;  /* the bytes of the records lost */
	unsigned long long exited;      /* exit() was called: stapio ends the run even when a full ring refused its record */
};

#endif
