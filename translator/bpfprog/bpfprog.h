/* bpfprog.h - pass 3's BPF writer (bpfprog/): the BPF object's C around the bodies the runtime-neutral
 * lowering (codegen/) generates, for runtime/bpf/; bpf_backend is what codegen/translate.c drives for --runtime=bpf. */
#ifndef STAP_BPFPROG_H
#define STAP_BPFPROG_H

#include "codegen/backend.h"

struct DerivedProbe;

extern const CgBackend bpf_backend;

int bpf_refuse(Session *s);
int bpf_embedded_ok(const Function *f);   /* refuse.c: its embedded C is marked as the BPF runtime's too */
/* bpfmaps.c: a global array's BPF map and gm_ functions; the bytes of each of its string keys */
void bpf_map_decl(Session *s, const Symbol *arr, int has_hist, StrBuf *decl);   /* with the globals (has_hist: statistics') */
void bpf_map_functions(const Symbol *arr, StrBuf *code);   /* after the context */
int bpf_key_string_bytes(Session *s, const Symbol *arr);   /* refuse.c: what the BPF runtime cannot run yet, each with its reason */

/* loops.c: a loop's iterations as a bpf_loop callback (the verifier follows no unbounded loop) */
void bpf_loop_open(struct Gen *g, struct LoopLabels *l);
void bpf_loop_close(struct Gen *g, struct LoopLabels *l);
void bpf_foreach_open(struct Gen *g, Stmt *st, struct LoopLabels *l);
void bpf_foreach_close(struct Gen *g, Stmt *st, struct LoopLabels *l);

/* printf.c: printf as a record of its values, which stapio formats; the formats' tables, written into the object */
char *bpf_printf(struct Gen *g, Expr *e);
void bpf_write_formats(Session *s, StrBuf *out);

/* dfamatch.c: =~ and !~ as the pattern's DFA walked over the subject (its closures', when the script asks for groups:
 * calls matched() or ngroups()); why a pattern cannot be matched so (its tables too large), or NULL */
char *bpf_regex_match(struct Gen *g, Expr *e);
int bpf_regex_groups(Session *s);
const char *bpf_regex_refusal(const Expr *pattern, int groups);

/* entryvals.c: a .return probe's values saved at entry: whether dp has any; their frames (into frames and, as members of
 * union stp_frame, members), functions (code) and the bytes of the largest (a #define into settings) */
int bpf_entry_saved(const struct DerivedProbe *dp);
void bpf_entry_functions(Session *s, StrBuf *settings, StrBuf *frames, StrBuf *members, StrBuf *code);

/* corereloc.c: a step's members as offsets relocated at load (CgBackend.member_offset), and the copies of their
 * holders that name them (before the bodies) */
char *bpf_member_offset(struct Gen *g, const struct TgStep *st);
char *bpf_symbol_address(struct Gen *g, const struct TgAccess *a);   /* a kernel global's, by its name (__ksym) */
void bpf_write_core_copies(Session *s, StrBuf *out);

/* procfsfiles.c: runtime/bpf/procfs.h and the table stapio serves the procfs probes' files from
 * (STP_BPF_PROCFS_SECTION), when the object has any: before the bodies */
void bpf_procfs_files(Session *s, StrBuf *out);

/* refuse.c: the kind of BPF program a derived probe becomes (NONE: it cannot be one).  Kprobes and uprobes
 * are attached by stapio from their section's name: "kprobe/OFFSET/SYMBOL" ("kretprobe/..."), or
 * "uprobe/OFFSET/SEMAPHORE/PID/PATH" ("uretprobe/..."), the numbers in hexadecimal but the PID. */
typedef enum BpfProgKind {
	BPF_PROG_NONE, BPF_PROG_NEVER, BPF_PROG_BEGIN, BPF_PROG_END, BPF_PROG_ERROR, BPF_PROG_TIMER, BPF_PROG_PROFILE, BPF_PROG_TP_BTF, BPF_PROG_KPROBE, BPF_PROG_UPROBE,
	BPF_PROG_PERF, BPF_PROG_PROCFS,
	BPF_PROG_PERF_COUNTER   /* no program: a perf event array stapio fills with an event on each CPU (object.c) */
} BpfProgKind;
BpfProgKind bpf_prog_kind(const struct DerivedProbe *dp);

#endif
