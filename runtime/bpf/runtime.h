/* runtime.h - the BPF runtime: what the bodies pass 3 lowers (translator/codegen/) name, implemented for
 * clang -target bpf; included first by the C that translator/bpfprog/ writes.  The kernel module's twin is runtime/runtime.h. */
#ifndef STP_BPF_RUNTIME_H
#define STP_BPF_RUNTIME_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

typedef __s64 int64_t;
typedef __u64 uint64_t;
typedef __u32 uint32_t;
typedef __s32 int32_t;
typedef __u16 uint16_t;
typedef __u8 uint8_t;
typedef __u64 u64;
typedef __u32 u32;
typedef __u8 u8;
typedef unsigned long size_t;
typedef __u16 u16;
typedef __s64 s64;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define STP_NOINIT
#define __maybe_unused __attribute__((unused))
#define noinline __attribute__((noinline))

#include "core/limits.h"
#include "bpf/records.h"

/* the context (bpf/context.h), which the handlers' static data may name before it is defined (@perf's reader) */
struct stp_context;

/* a string value is at most a map key's 512 bytes here; printf's values (output.h, translator/bpfprog/printf.c) count on it */
#define STP_BPF_STRING_MAX 512
#if MAXSTRINGLEN > STP_BPF_STRING_MAX
#error "MAXSTRINGLEN is at most 512 on the BPF runtime"
#endif
#if MAXSTRINGLEN & (MAXSTRINGLEN - 1)
#error "MAXSTRINGLEN is a power of two on the BPF runtime (its indexes are bounded by masks the verifier follows)"
#endif

/* The kernel's task as much as the templates read of it (pid(), tid(), execname()): CO-RE relocates
 * each field by name against the running kernel's BTF, so one object runs on any kernel with BTF. */
typedef struct { unsigned int val; } kuid_t;
typedef struct { unsigned int val; } kgid_t;
struct cred {
	kuid_t uid;
	kgid_t gid;
	kuid_t euid;
	kgid_t egid;
	struct user_namespace *user_ns;  /* its uid and gid maps (bpf/tasks.h) */
} __attribute__((preserve_access_index));
#define TASK_COMM_LEN 16
struct thread_info {
	unsigned long flags;
	unsigned int cpu;                /* since 5.16 (bpf/tasks.h: task_struct.cpu before) */
} __attribute__((preserve_access_index));
struct hlist_node {
	struct hlist_node *next, **pprev;
} __attribute__((preserve_access_index));
struct task_struct {
	struct thread_info thread_info;  /* x86-64's, in the task (CONFIG_THREAD_INFO_IN_TASK) */
	unsigned int __state;            /* since 5.14 (bpf/tasks.h: state before) */
	unsigned int flags;              /* PF_* */
	int prio, static_prio;           /* task_prio(), task_nice() */
	int pid;
	int tgid;
	char comm[16];
	struct task_struct *real_parent;
	const struct cred *real_cred, *cred;
	u64 utime, stime;
	struct signal_struct *signal;    /* its process's pids (bpf/tasks.h) */
	struct pid *thread_pid;          /* its struct pid, and its place in each pid's list of tasks (bpf/tasks.h) */
	struct hlist_node pid_links[4];
	struct mm_struct *mm;            /* its memory's argument and environment areas (bpf/tasks.h) */
} __attribute__((preserve_access_index));
/* what the tapsets' C reads of a dentry (tapset/linux/dentry.stp's d_name), relocated by name as the task's */
struct qstr {
	unsigned int len;
	const unsigned char *name;
} __attribute__((preserve_access_index));
struct dentry {
	struct qstr d_name;
	struct dentry *d_parent;
} __attribute__((preserve_access_index));
/* what tapset/linux/ioblock.stp's C reads of a bio and the page cache, relocated by name as the task's; the numbers
 * its C names, as the kernels since 4.10 have them (BIO_CLONED the second of its anonymous enum) */
struct bvec_iter {
	unsigned int bi_size;
} __attribute__((preserve_access_index));
struct bio_vec {
	struct page *bv_page;
	unsigned int bv_len, bv_offset;
};
struct bio {
	unsigned short bi_flags, bi_vcnt;
	struct bvec_iter bi_iter;
	struct bio_vec *bi_io_vec;
} __attribute__((preserve_access_index));
struct page {
	struct address_space *mapping;
} __attribute__((preserve_access_index));
struct address_space {
	struct inode *host;
} __attribute__((preserve_access_index));
struct inode {
	unsigned long i_ino;
} __attribute__((preserve_access_index));
/* what tapset/linux/signal.stp's C reads of a signal's action (x86-64's struct k_sigaction is its sigaction) */
struct sigaction {
	void *sa_handler;
	unsigned long sa_flags;
	struct { unsigned long sig[1]; } sa_mask;
} __attribute__((preserve_access_index));
struct k_sigaction {
	struct sigaction sa;
} __attribute__((preserve_access_index));
#define REQ_OP_BITS 8
#define BIO_CLONED 1
#define BIO_MAX_VECS 256
#define PAGE_MAPPING_FLAGS 3UL

/* the ids the templates and tapsets read (uid(), euid()...), as the initial user namespace sees them */
#define current_user_ns() 0
#define current_uid() BPF_CORE_READ(current, cred, uid.val)
#define current_euid() BPF_CORE_READ(current, cred, euid.val)
#define current_gid() BPF_CORE_READ(current, cred, gid.val)
#define current_egid() BPF_CORE_READ(current, cred, egid.val)
#define from_kuid_munged(ns, id) (id)
#define from_kgid_munged(ns, id) (id)
#define stp_ppid() ((int64_t)BPF_CORE_READ(current, real_parent, tgid))
/* the current task's thread flags the tapsets test (x86-64's numbers: arch/x86/include/asm/thread_info.h) */
#define TIF_ADDR32 29
#define test_thread_flag(f) ((int)((BPF_CORE_READ(current, thread_info.flags) >> (f)) & 1))
#define current ((struct task_struct *)bpf_get_current_task_btf())
#define smp_processor_id() bpf_get_smp_processor_id()
/* get_cycles(): BPF reads no cycle counter; the monotonic clock is as increasing (tapset/linux/timestamp.stp) */
#define get_cycles() bpf_ktime_get_ns()

char LICENSE[] SEC("license") = "GPL";

/* a string key's bytes in an array's map key: what translator/bpfprog/bpfmaps.c gives it, at most
 * MAXSTRINGLEN (the kernel takes keys of 512 bytes at most) */
#define STP_KEY_STR(n) ((n) < MAXSTRINGLEN ? (n) : MAXSTRINGLEN)

/* Records to stapio (bpf/records.h), one ring for every CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, STP_BPF_RING_BYTES);
} stp_ring SEC(".maps");

/* Hits skipped (a context busy on their CPU) and records lost (the ring full): read by stapio. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stp_bpf_counters);
} stp_counters SEC(".maps");

static __always_inline struct stp_bpf_counters *stp_counters_get(void)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(&stp_counters, &zero);
}

/* a hit that found its CPU's context busy */
static __always_inline void stp_skipped(void)
{
	struct stp_bpf_counters *n = stp_counters_get();

	if (n)
		__sync_fetch_and_add(&n->skipped, 1);
}

/* output_lost_records(), output_lost_bytes(): what stp_lost counted so far (core/transport's name) */
static __always_inline void stp_rings_lost(unsigned long *records, unsigned long *bytes)
{
	struct stp_bpf_counters *n = stp_counters_get();

	*records = n ? n->lost : 0;
	*bytes = n ? n->lost_bytes : 0;
}

/* a record of bytes (its head's and what follows) the full ring refused */
static __always_inline void stp_lost(u64 bytes)
{
	struct stp_bpf_counters *n = stp_counters_get();

	if (n) {
		__sync_fetch_and_add(&n->lost, 1);
		__sync_fetch_and_add(&n->lost_bytes, bytes);
	}
}

/* x & mask, the mask kept where the verifier sees it (the compiler may not fold it into x's range) */
#define STP_BOUND(x, mask)							\
	({									\
		u64 __b = (u64)(x);						\
		asm volatile("" : "+r"(__b));					\
		__b & (mask);							\
	})

/* A statistic's accumulator (stats/statdata.h, shared with the module) with room for any histogram, and a
 * statistic global: a per-CPU array of one, as large as its shape needs (bpf/stats.h) */
#define STP_STAT_HIST_DIM STP_MAX_BUCKETS
#define STP_STAT_READ_ONCE(x) (x)
#define STP_STAT_BUCKET_INDEX(b) STP_BOUND((b), STP_MAX_BUCKETS - 1)
#if STP_MAX_BUCKETS != 128
#error "the BPF runtime's histograms have 128 buckets at most (records.h): STP_MAX_BUCKETS is 128"
#endif
#define S64_MIN ((int64_t)(-0x7fffffffffffffffLL - 1))
#define memset __builtin_memset
static __always_inline u64 stp_abs64(int64_t a)
{
	return a < 0 ? 0 - (u64)a : (u64)a;
}
/* the kernel's math64 names, signed division through unsigned (BPF before cpu v4 has none) */
static __always_inline int64_t div64_s64(int64_t a, int64_t b)
{
	u64 q = stp_abs64(a) / stp_abs64(b);

	return (a < 0) != (b < 0) ? (int64_t)(0 - q) : (int64_t)q;
}
#define div64_u64(a, b) ((u64)(a) / (u64)(b))
static __always_inline int fls64(u64 x)
{
	int n = 0;

	if (!x)
		return 0;
	if (x >> 32) { n += 32; x >>= 32; }
	if (x >> 16) { n += 16; x >>= 16; }
	if (x >> 8) { n += 8; x >>= 8; }
	if (x >> 4) { n += 4; x >>= 4; }
	if (x >> 2) { n += 2; x >>= 2; }
	if (x >> 1) { n += 1; x >>= 1; }
	return n + 1;
}
#include "stats/statdata.h"

/* What the tapsets' C marked for both runtimes names of the kernel's: IS_ERR_VALUE, PAGE_SIZE, the priorities, ARRAY_SIZE, snprintf (the
 * kernel's formatter: a literal format, at most 12 numbers), errno names (the kernel-internal codes' values as
 * include/linux/errno.h gives them: uapi's headers lack them) */
#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) ((unsigned long)(x) >= (unsigned long)-MAX_ERRNO)
#define PAGE_SIZE 4096UL               /* x86-64's, the one architecture of the BPF runtime */
#define MAX_RT_PRIO 100                /* include/linux/sched/prio.h's, the same since 2.6 */
#define DEFAULT_PRIO 120
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define snprintf(buf, size, fmt, ...)							\
	({										\
		static const char stp_fmt_[] = fmt;					\
		u64 stp_args_[] = { __VA_ARGS__ };					\
		bpf_snprintf((buf), (size), stp_fmt_, stp_args_, sizeof(stp_args_));	\
	})
/* time64_to_tm (ctime()): the civil date of t seconds since the epoch at offset seconds east of UTC, without
 * loops (days to a date by eras of 400 years) and in unsigned arithmetic (BPF divides no signed numbers): the
 * seconds counted from 0000-03-01, a Wednesday, so that any time ctime() takes is positive */
struct tm {
	unsigned int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_wday;   /* unsigned: the tapset's % too */
	long tm_year;
};
static __always_inline void time64_to_tm(int64_t t, int offset, struct tm *tm)
{
	u64 secs = (u64)(t + offset + 719468LL * 86400), days = secs / 86400, rem = secs % 86400;
	u64 era = days / 146097, doe = days - era * 146097, yoe, doy, mp;

	tm->tm_hour = (unsigned int)(rem / 3600);
	tm->tm_min = (unsigned int)(rem % 3600 / 60);
	tm->tm_sec = (unsigned int)(rem % 60);
	tm->tm_wday = (unsigned int)STP_BOUND((days + 3) % 7, 7);   /* a table's index the verifier sees bounded */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	tm->tm_mday = (unsigned int)(doy - (153 * mp + 2) / 5 + 1);
	tm->tm_mon = (unsigned int)STP_BOUND(mp < 10 ? mp + 2 : mp - 10, 15);
	tm->tm_year = (long)(yoe + era * 400) + (tm->tm_mon <= 1) - 1900;
}
#define S32_MIN (-2147483647 - 1)
#define S32_MAX 2147483647
#include <linux/errno.h>
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ENOIOCTLCMD 515
#define ERESTART_RESTARTBLOCK 516
#define EPROBE_DEFER 517
#define EOPENSTALE 518
#define ENOPARAM 519
#define EBADHANDLE 521
#define ENOTSYNC 522
#define EBADCOOKIE 523
#define ENOTSUPP 524
#define ETOOSMALL 525
#define ESERVERFAULT 526
#define EBADTYPE 527
#define EJUKEBOX 528
#define EIOCBQUEUED 529
#define ERECALLCONFLICT 530
#include "core/errnames.h"
#define STP_STAT_DATA_SIZE(has_hist) ((has_hist) ? sizeof(struct stp_stat_data) : __builtin_offsetof(struct stp_stat_data, hist))
#define STP_BPF_STAT(name, has_hist)					\
	struct {								\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);			\
		__uint(max_entries, 1);						\
		__type(key, u32);						\
		__uint(value_size, STP_STAT_DATA_SIZE(has_hist));			\
	} name SEC(".maps")

/* per CPU, a number the verifier is not to follow (output.h's stp_forget) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} stp_scratch_n SEC(".maps");

volatile int stp_exiting;          /* exit() was called: no more hits */

/* stapio's (records.h): the wall clock (gettimeofday_*(), under the builtins' kernel names) from the boot
 * clock, and target() */
volatile struct stp_bpf_run_vars stp_run_vars SEC(STP_BPF_RUN_SECTION) = { .remote_id = -1, .tz_name = "UTC" };
_Static_assert(STP_BPF_REMOTE_URI_BYTES == STP_REMOTE_URI_MAX + 1, "remote_uri()'s room");
#define ktime_get_real_fast_ns() ((u64)(bpf_ktime_get_boot_ns() + stp_run_vars.realtime_offset))
#define stp_target (stp_run_vars.target_pid)
#define stp_tz_gmtoff (stp_run_vars.tz_gmtoff)
#define stp_tz_name ((const char *)stp_run_vars.tz_name)
#define local_clock() bpf_ktime_get_ns()
#define jiffies bpf_jiffies64()
#define ktime_get_real_seconds() ((int64_t)(ktime_get_real_fast_ns() / 1000000000ULL))

#endif
