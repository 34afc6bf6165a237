/* protocol.h - wire format shared by the kernel transport and stapio.
 * Included by the kernel transport (runtime/transport/) and by stapio (userspace); see docs/transport.md. */
#ifndef STP_PROTOCOL_H
#define STP_PROTOCOL_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
#endif

/* Version of this protocol, in every module's modinfo as stap_transport=N;
 * staprun refuses modules without it (not built by stap) or with another N.
 * 3: the module publishes _stp_load_id, without which staprun cannot remove it
 * (a module of 2 would be loaded, then left behind). */
#define STP_TRANSPORT_VERSION "3"

/* Everything lives under /proc/systemtap/<module name>/. */
#define STP_PROC_ROOT      "systemtap"
#define STP_CTL_FILE       ".cmd"     /* control channel, text lines both ways */
#define STP_TRACE_PREFIX   "trace"    /* trace0 .. traceN-1, one per possible CPU */

/* Commands stapio writes to the control file (one per write, newline optional). */
#define STP_CMD_START      "start"    /* run begin probes, arm the other probes */
#define STP_CMD_STOP       "stop"     /* disarm, drain, run end probes, reply "stopped" */
#define STP_CMD_TARGET     "target"   /* "target <pid>" before start: target() */
#define STP_CMD_TZ         "tz"       /* "tz <secs west of UTC> <name>" before start: tz_gmtoff(), tz_name() */
#define STP_CMD_DETACH     "detach"   /* "detach [flight]": the run outlives the reader */
#define STP_CMD_FLIGHT     "flight"
#define STP_CMD_ATTACH     "attach"   /* take over a detached run */

/* Messages the module queues for stapio on the control file, one line each. */
#define STP_MSG_STARTED    "started"  /* begin probes ran, probes armed */
#define STP_MSG_EXIT       "exit"     /* the script asked to end (exit(), error limit) */
#define STP_MSG_STOPPED    "stopped"  /* "stopped <lost_records> <lost_bytes> <script_errors> <overwritten>": all output is in the trace files */
#define STP_MSG_ERROR      "error"    /* "error <text>": startup failed, text for stderr */
#define STP_MSG_LOST       "lost"     /* "lost <records> <bytes>": totals so far, when they grew (<= 1/s) */
#define STP_MSG_DETACHED   "detached" /* answer to detach: the reader may close the file */
#define STP_MSG_ATTACHED   "attached" /* "attached <seq>": answer to attach; seqs <= it may be missing for good */
#define STP_MSG_UNLOADING  "unloading" /* rmmod: the module ends the run ("stopped" follows) */

/* A record in a per-CPU trace file: header then len payload bytes.  Records are
 * written whole by one CPU and read whole; seq is global, so merging all CPUs'
 * records by seq gives the order in which they were produced. */
struct stp_record_header {
	__u32 len;     /* payload bytes following the header */
	__u16 cpu;     /* CPU that produced it */
	__u16 flags;   /* STP_REC_* */
	__u64 seq;     /* global production order, starting at 1 */
};

#define STP_REC_STDOUT  0x0   /* script output (print, printf...) */
#define STP_REC_STDERR  0x1   /* warnings and errors, for stderr */
#define STP_REC_SWITCH  0x2   /* no payload: switch_file(), output goes on in the next file */
#define STP_REC_SYSTEM  0x4   /* system(CMD): the payload is CMD, for stapio to run as the user */

/* Largest payload of one record (longer writes are dropped and counted as lost).
 * A read() of a trace file returns only whole records, so a reader must offer at
 * least sizeof(struct stp_record_header) + STP_REC_MAX_LEN bytes, else it may get
 * EINVAL.  The core flushes at most 8192 payload bytes per record. */
#define STP_REC_MAX_LEN 65536

#endif /* STP_PROTOCOL_H */
