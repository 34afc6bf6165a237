/* session.h - the options and state of one stap run, shared by all passes:
 * what to translate, for which kernel, where the runtime lives, timings. */
#ifndef STAP_SESSION_H
#define STAP_SESSION_H

#include "parse/ast.h"

typedef struct Session {
	/* input */
	const char *script_file;     /* NULL with -e */
	const char *script_text;     /* -e SCRIPT */
	PtrVec script_args;          /* char*: $1 $2 ... */
	/* options */
	int last_pass;               /* -pN, 5 by default */
	int verbose;                 /* -v count */
	int keep_tmp;                /* -k */
	int guru;                    /* -g */
	int suppress_warnings;       /* -w */
	int warnings_fatal;          /* -W: a run with warnings fails */
	int unoptimized;             /* -u: keep unused variables, functions, statements */
	PtrVec include_dirs;         /* char*: -I DIR, searched after the tapset directory */
	PtrVec debug_modules;        /* char*: -d MODULE (a name or a .ko path): also read its debuginfo
	                              * (its tracepoints for kernel.trace); -d /PATH of a user-space
	                              * executable or library: embed its symbols and unwind data */
	int ldd;                     /* --ldd: also the libraries those and the probed files need */
	const char *list_pattern;    /* -l / -L PATTERN */
	int list_vars;               /* -L */
	const char *dump;            /* --dump-probe-types / -aliases / -functions */
	char *module_name;           /* -m NAME or generated */
	char *script_sha256;         /* SHA-256 (hex) of the script's text, in the module's modinfo */
	const char *output_file;     /* -o FILE, passed to staprun */
	const char *size_arg;        /* -S SIZE_MB[,N], passed to staprun */
	long timeout_s;              /* -T SECONDS: the run ends after that long (0: no limit) */
	const char *command;         /* -c CMD, passed to staprun */
	const char *target_pid;      /* -x PID, passed to staprun */
	int flight;                  /* -F: staprun -F (flight recorder, detached) */
	int bpf;                     /* --runtime=bpf: a BPF object (translator/bpfprog/), not a kernel module */
	PtrVec defines;              /* char*: -D NAME=VALUE */
	PtrVec global_sets;          /* char*: -G NAME=VALUE, passed to staprun */
	int suppress_handler_errors; /* --suppress-handler-errors */
	const char *sign_module;     /* --sign-module[=KEYDIR]: NULL not asked, "" the default key directory */
	int disable_cache;           /* --disable-cache: no module cache, no tapset index cache */
	PtrVec remote_hosts;         /* RemoteHost*: --remote targets in command-line order (remote.c) */
	int remote_prefix;           /* --remote-prefix: each line starts with its host's index */
	const char *version;         /* the translator's version (part of the module cache key) */
	Diag diag;                   /* what was reported (diag.h): the driver attaches it first */
	/* target kernel */
	char *kver;                  /* release string */
	char *kbuild_dir;            /* /lib/modules/KVER/build */
	int target_is_running;       /* kver equals uname -r */
	struct KernelInfo *kinfo;    /* its configuration and symbol table, read on first use (kernel.c) */
	/* where things are */
	char *bin_dir;               /* directory of the stap executable */
	char *runtime_dir;
	char *tapset_dir;
	char *tmp_dir;               /* mkdtemp, removed unless -k */
	/* products */
	Program prog;
	struct ParseState *parse;    /* pass 1's macros and env, kept from file to file (parse.h) */
	struct TapsetLibrary *library;  /* the tapset index (tapsets.c) */
	PtrVec derived;              /* DerivedProbe*: resolved probe points (pass 2) */
	char *c_file;                /* pass 3 output */
	char *ko_file;               /* pass 4 output */
	unsigned char ko_sha256[32]; /* its SHA-256 as kbuild (or the cache) gave it, signed since (modhash.c) */
	int ko_sha256_set;
	struct Btf *btf;             /* the target kernel's BTF, read on first use (btf/source.c) */
	char *btf_error;             /* why there is none */
	PtrVec btf_modules;          /* modules' BTF asked for so far, found or not (btf/source.c) */
	void *btf_twice_job;         /* the running kernel's functions defined twice, being read (btf/source.c) */
	/* the target kernel's build id from its image, when the running kernel's notes cannot say: asked by
	 * dwarf/debuginfo.c (debuginfod), answered by btf/source.c (which reads the image); set by the driver */
	const char *(*kernel_image_build_id)(struct Session *s);
	struct ModuleCache *module_cache;  /* pass 4: this run's cache key, hit or miss (cache.c) */
	char *kbuild_nm;             /* pass 4: the NM= kbuild gets, "" none; found on first use (kbuild_nm.c) */
	struct DebuginfodState *debuginfod; /* the debuginfod client and the build ids that failed (dwarf/debuginfod.c) */
	struct CgState *cg;          /* pass 3's, while translate() runs (codegen/gen.h) */
	struct DwarfCache *dwarf;    /* debuginfo opened and looked up so far (dwarf/dwarf.h) */
} Session;

#endif
