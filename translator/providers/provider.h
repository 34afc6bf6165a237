/* provider.h - the interface every probe-point family implements (begin/end,
 * timer, kprobe, ...): resolution in pass 2, C tables in pass 3. */
#ifndef STAP_PROVIDER_H
#define STAP_PROVIDER_H

#include "session.h"

typedef struct ProbeProvider ProbeProvider;

/* One concrete probe point bound to a probe body. */
typedef struct DerivedProbe {
	Probe *probe;                /* the script probe (body, locals) */
	ProbePoint *point;           /* the point as written */
	const ProbeProvider *provider;
	char *name;                  /* canonical text of the point, for pp() */
	char *written;               /* the point as the script wrote it, or the alias it matched: pn() */
	/* provider data */
	int64_t number;              /* timer period in ns; begin/end priority */
	char *symbol;                /* kprobe symbol */
	int is_return;               /* kretprobe */
	int optional;                /* marked '?' on the way: may fail to arm at run time */
	struct TgSite *site;      /* kernel/module DWARF probes: where it fires (dwarf/dwarf.h) */
	int entry_size;              /* kprobe.function(...).return with @entry values: bytes saved at entry
	                              * (on the first such probe of its body, which the others share) */
	int index;                   /* position among all derived probes */
	void *data;                  /* the provider's own (sdt.c: the SdtMark it fires at) */
} DerivedProbe;

/* A context variable a family gives its probes without DWARF: $value in procfs probes, $skb in
 * netfilter ones. Becomes an EX_CONTEXT node in pass 2 (targets/bind.c asks the provider). */
typedef struct ContextVar {
	const char *name;            /* "$value" */
	Type type;                   /* TY_LONG or TY_STRING */
	const char *read;            /* C expression of its value in a handler (c: the struct stp_context *);
	                              * a string's is a const char * */
	const char *write;           /* C statement with "%s" where the new value goes (an int64_t, or a
	                              * const char * for strings); NULL: read-only */
	int write_needs_guru;        /* writing it needs -g ($verdict) */
	const char *append;          /* a string's `.=`: C statement with "%s" for what is appended;
	                              * NULL: only '=' assigns it */
	int bpf;                     /* the names read, write and append use are runtime/bpf's too */
} ContextVar;

/* Where a probe fires, for a runtime that arms it by itself (the BPF runtime): a uprobe (path set: the
 * file, the offset in it, its SDT semaphore's offset or 0, the process or 0 for any) or a kprobe (symbol
 * set, as kprobes resolve it, and an offset from it). */
typedef struct ProbePlace {
	const char *path;
	const char *symbol;
	uint64_t offset, sem_offset;
	int64_t pid;
	int is_return;
	/* a kernel function's own entry or its return, in the kernel image: a BPF trampoline (fentry, fexit)
	 * may take it where the running kernel has one for the symbol */
	int trampoline;
} ProbePlace;

struct ProbeProvider {
	const char *family;          /* first component: "begin", "end", "timer", "kprobe", "kernel" */
	/* A second component that selects this provider within its family ("trace" for kernel.trace,
	 * "profile" for timer.profile), NULL when the family's first component is enough. */
	const char *member;
	/* The runtime's name: stp_<cname>_register/unregister and stp_providers[]; NULL: family. */
	const char *cname;
	/* Claims points whose first component is its family; validates the rest.
	 * Returns 1 and fills dp when the point is valid, 0 with a diagnostic. */
	int (*resolve)(Session *s, ProbePoint *pp, DerivedProbe *dp);
	/* Pass 3, for a family with derived probes (dps, n > 0): what it gives the module, which
	 * kmodule/skeleton.c writes in the runtime's order, among every family's in the registry's order:
	 * settings: #defines its runtime file reads (NULL: none), before that file;
	 * runtime: the file of runtime/ implementing the family ("probes/kprobes.c"; NULL: none),
	 * which the module includes;
	 * emit: its C tables after that file: the sites' table (indices into stp_descs[]) and
	 * stp_<cname>_register/unregister, which the module's list of families arms and disarms. */
	void (*settings)(Session *s, DerivedProbe **dps, int n, StrBuf *out);
	const char *runtime;
	void (*emit)(Session *s, DerivedProbe **dps, int n, StrBuf *out);
	/* The forms it accepts, for --dump-probe-types; NULL-terminated. */
	const char *const *forms;
	/* Instead of resolve, for families where one point becomes many probes (DWARF: a wildcard or
	 * an inline function has many sites). Pushes one DerivedProbe* per site onto out, each a copy
	 * of tmpl with its own data; each then gets its own copy of the probe body. Returns the count
	 * pushed (0: matches nothing, no diagnostic needed), or -1 after an error was reported. */
	int (*resolve_many)(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out);
	/* The context variable `name` ("$value") of dp's probes, or NULL when they have none of
	 * that name. NULL: the family has no context variables. */
	const ContextVar *(*context_var)(Session *s, const DerivedProbe *dp, const char *name);
	/* The names context_var knows, for -L; NULL-terminated, NULL when none. */
	const char *const *context_vars;
	/* dp's place as a kprobe or a uprobe: 1 with *at filled, 0 when it is neither; NULL: none of the
	 * family's probes is (a BPF runtime arms those it can place) */
	int (*place)(const DerivedProbe *dp, ProbePlace *at);
};

/* The registry: the provider of a point whose first component is `family` and second `member`
 * (NULL when there is none): one registered for both names wins over the family's general one. */
const ProbeProvider *provider_find(const char *family, const char *member);
/* The i-th provider, NULL past the last. The registry's order is the order families are armed in
 * when a run starts (disarmed in reverse): error, end, begin first, so end probes run last. */
const ProbeProvider *provider_at(int i);
/* The runtime name of p (cname, else family). */
const char *provider_cname(const ProbeProvider *p);

extern const ProbeProvider begin_provider, end_provider, error_provider, never_provider, timer_provider,
	kprobe_provider, dwarf_provider, tracepoint_provider;
extern const ProbeProvider procfs_provider;
extern const ProbeProvider netfilter_provider;
extern const ProbeProvider profile_provider;   /* timer.profile: providers/profile.c */
extern const ProbeProvider perf_provider;      /* perf.type(N).config(M): providers/perf.c */
extern const ProbeProvider hwbkpt_provider;    /* kernel.data(ADDRESS|"SYMBOL").write/.rw: providers/hwbkpt.c */
extern const ProbeProvider uprobe_provider;    /* process("PATH").function(...): providers/uprobe.c */
extern const ProbeProvider sdt_provider;       /* process("PATH").mark(...): providers/sdt.c */
extern const ProbeProvider process_lifecycle_provider;   /* process[(PATH|PID)].begin/.end/.thread.*: process.c */

/* PATH of a process("PATH") point resolved as SystemTap does ($PATH, symbolic links): malloc'd, or
 * NULL with *why set (providers/uprobe.c). */
char *find_executable(const char *arg, char **why);
/* The same for the process("PATH") component c0, reporting "process(\"PATH\"): why" at its
 * argument when there is none (NULL then); for process(PID), the executable of that process now
 * (/proc/PID/exe), or NULL after "process(PID): no such process". */
char *process_point_path(Session *s, const ProbePointComponent *c0);

/* A process point without PATH or PID (process.function("f"), process.plt, process.mark...) run with
 * -c CMD: CMD's program becomes its PATH, as SystemTap fills it in; begin/end/thread points keep
 * meaning every process. 0 when nothing was to be done or it was done, -1 after an error
 * (providers/uprobe.c). */
int process_fill_command_path(Session *s, ProbePoint *pp);

/* Helpers shared by providers. */
const ProbePointComponent *pp_component(const ProbePoint *pp, int i);
char *pp_text(const ProbePoint *pp);
/* For resolve_many: a copy of tmpl named name (taken over) firing at site, pushed onto out and
 * returned; the caller sets the rest of its own data (is_return, number, ...). */
DerivedProbe *provider_derive(const DerivedProbe *tmpl, char *name, struct TgSite *site, PtrVec *out);
/* The stp_descs index of the first of dps[0..n) whose hits can share dps[i]'s trampoline: the same
 * handler (Probe.handler, pass 3) and the same kind(dp, s); -1 when dps[i] keeps its own (kind < 0, or
 * no other site of its handler and kind) */
int provider_shared_site(DerivedProbe **dps, int n, int i, int (*kind)(const DerivedProbe *, Session *), Session *s);

#endif
