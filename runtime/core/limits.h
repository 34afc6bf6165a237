/* limits.h - the safety limits every probe runs under (most can be set with stap -D NAME=VALUE)
 * and the sizes the programs share.  Used by all of runtime/, the translator and staprun. */
#ifndef STP_LIMITS_H
#define STP_LIMITS_H

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512        /* bytes of a string value, including the NUL */
#endif
#ifndef MAXACTION
#define MAXACTION 1000          /* statements per probe hit */
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)  /* in begin and end probes */
#endif
/* nested function calls: as SystemTap sizes it, the deepest call chain of the
 * script (STP_CALL_DEPTH, the translator's count, a recursive call counting one
 * level) plus 10 more when the script recurses */
#ifndef MAXNESTING
#if defined(STP_CALL_DEPTH) && defined(STP_RECURSIVE)
#define MAXNESTING (STP_CALL_DEPTH + (STP_RECURSIVE ? 10 : 0))
#else
#define MAXNESTING 10
#endif
#endif
/* bytes of kernel stack that the C calls of nested script functions may use
 * below the probe handler's own frame, whatever MAXNESTING says: deeper calls
 * end the hit with "MAXNESTING exceeded" instead of overflowing the stack */
#ifndef STP_STACK_BUDGET
#define STP_STACK_BUDGET 4096
#endif
/* per-CPU bytes of the function-call frames (MAXNESTING + 1 of them) */
#ifndef STP_FRAMES_MAX_BYTES
#define STP_FRAMES_MAX_BYTES (4 << 20)
#endif
/* frames of a kernel or user backtrace (core/symbols.h, core/ustack.h), the first (the probed
 * address) included */
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048      /* elements of an array without a declared size */
#endif
#ifndef MAXERRORS
#define MAXERRORS 0             /* script errors tolerated before the run stops */
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100          /* skipped probe hits tolerated before the run stops */
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 1000         /* attempts to take a global's lock */
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10         /* ns between attempts */
#endif
/* The overload guard: a CPU whose probe handlers (begin/end aside) used more
 * than STP_OVERLOAD_THRESHOLD of any STP_OVERLOAD_INTERVAL cycles ends the
 * run (estimated from one hit in STP_OVERLOAD_SAMPLE).  -DSTP_NO_OVERLOAD
 * turns it off. */
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL 1000000000LL
#endif
#ifndef STP_OVERLOAD_SAMPLE
#define STP_OVERLOAD_SAMPLE 8   /* one hit in 8 is timed, for all 8 */
#endif
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD 500000000LL
#endif
/* probe points (stp_descs[], STP_NSITES: the translator's count) up to which each site's trampoline gets
 * its own copy of the hit path, its descriptor known at compile time; a module with more (a syscall.*
 * wildcard, a handler a site) shares one out-of-line copy (core/probe.c).  Measured on syscall.*'s ~700
 * sites: pass 4 27 s -> 20 s, a hit 293 -> 351 guest instructions (bench/run hits, stap-many-sc*). */
#ifndef STP_INLINE_SITES
#define STP_INLINE_SITES 256
#endif
/* places in the script naming a global array (the translator's count) up to which its hash, lookup and
 * slot code is inlined into each (no call per hit); past it, one copy is called from all of them.
 * Measured on syscall.*'s ~700 handlers each updating one array: pass 4 22 s -> 9 s of CPU. */
#ifndef STP_MAP_INLINE_SITES
#define STP_MAP_INLINE_SITES 16
#endif
#ifndef STP_BUFSIZE
#define STP_BUFSIZE 8192        /* per-CPU print buffer, the largest record */
#endif
#ifndef STP_BUFSIZE_MB
#define STP_BUFSIZE_MB 1        /* per-CPU trace ring in MB (stap -s, staprun -b) */
#endif
/* the range of stap -s and staprun -b (MB per CPU) */
#define STP_BUFSIZE_MB_MIN 1
#define STP_BUFSIZE_MB_MAX 1024
#if STP_BUFSIZE_MB < STP_BUFSIZE_MB_MIN || STP_BUFSIZE_MB > STP_BUFSIZE_MB_MAX
#error "STP_BUFSIZE_MB (stap -s) must be between STP_BUFSIZE_MB_MIN and STP_BUFSIZE_MB_MAX"
#endif
/* a limit as text, for the programs' help: STP_LIMIT_STR(STP_BUFSIZE_MB_MAX) is "1024" */
#define STP_LIMIT_STR_(x) #x
#define STP_LIMIT_STR(x) STP_LIMIT_STR_(x)

/* keys of one array: the translator rejects more (maps/map.c) */
#define STP_MAP_MAX_KEYS 9
/* buckets of a log histogram; of a linear one at most STP_MAX_BUCKETS, under- and overflow
 * included (stats/stat.c; the translator checks @hist_linear's bounds against it) */
#define STP_HIST_LOG_BUCKETS 128
#ifndef STP_MAX_BUCKETS
#define STP_MAX_BUCKETS 128
#endif
/* '@' columns of a printed histogram's largest bar (stats/hist.c) */
#ifndef HIST_WIDTH
#define HIST_WIDTH 50
#endif
/* empty rows either side of a row that make it shown (stats/hist.c; < 0: none left out) */
#ifndef HIST_ELISION
#define HIST_ELISION 2
#endif
/* kretprobe instances per .return probe: calls in flight at once (sleeping ones count); a
 * return missed for lack of one is counted and reported at the end (probes/dwarf.c) */
#ifndef KRETACTIVE
#define KRETACTIVE max_t(int, 32, 8 * num_possible_cpus())
#endif
/* remote_uri()'s length: stap --remote and staprun -r N:URI check it, the module holds it
 * (core/context.h) */
#define STP_REMOTE_URI_MAX 255

/* Frames a context needs: without recursion the translator knows the
 * deepest call chain (STP_CALL_DEPTH), so no more than that is allocated. */
#if defined(STP_CALL_DEPTH) && !STP_RECURSIVE && STP_CALL_DEPTH < MAXNESTING
#define STP_FRAME_SLOTS (STP_CALL_DEPTH + 1)
#else
#define STP_FRAME_SLOTS (MAXNESTING + 1)
#endif

#if MAXSTRINGLEN < 16 || MAXSTRINGLEN > 65536
#error "MAXSTRINGLEN must be between 16 and 65536"
#endif
#if MAXNESTING < 0 || MAXACTION < 1
#error "MAXNESTING must be >= 0 and MAXACTION >= 1"
#endif
#if MAXBACKTRACE < 1 || MAXBACKTRACE > 1024
#error "MAXBACKTRACE must be between 1 and 1024"
#endif
#if MAXNESTING > 100000
#error "MAXNESTING must be at most 100000"
#endif

#endif
