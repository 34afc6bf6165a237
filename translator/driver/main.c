/* main.c - the stap driver: options, then the five passes (parse, elaborate,
 * translate, compile, run) with -v timings and temp directory cleanup. */
#include "../common/outopen.h"
#include "btf/btf.h"
#include "compile/compile.h"
#include "compile/cache.h"
#include "compile/modhash.h"
#include "codegen/translate.h"
#include "core/limits.h"
#include "compile/secureboot.h"
#include "compile/sign.h"
#include "elaborate/elaborate.h"
#include "kernel.h"
#include "driver/listing.h"
#include "driver/markers.h"
#include "parse/parse.h"
#include "driver/remote.h"
#include "driver/rootenv.h"
#include "driver/tmpdir.h"
#include "lib/sha256.h"
#include "elaborate/tapsets.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define STAP_VERSION "0.1"
#define STAP_COMPAT_VERSION "5.1"   /* the SystemTap language version scripts see (systemtap_v) */

static TmpDir tmp_dir = { .parent = -1, .fd = -1 };
static int tmp_to_remove;   /* tmp_dir is made and not kept (-k) */

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: stap [OPTIONS] FILE [ARGS...]\n"
		"       stap [OPTIONS] -e SCRIPT [ARGS...]\n"
		"Translates a script into a kernel module and runs it. Options may follow FILE too;\n"
		"ARGS that start with '-' go after \"--\".\n\n"
		"  -e SCRIPT   run SCRIPT given on the command line\n"
		"  -p NUM      stop after pass NUM: 1 parse, 2 elaborate, 3 translate (prints C),\n"
		"              4 compile (prints the .ko path), 5 run (default)\n"
		"  -m NAME     name the module NAME (NAME.ko is kept in the current directory with -p4)\n"
		"  -r KVER     target kernel release, or -r /path/to/build for a build tree\n"
		"  -o FILE     send the run's output to FILE (strftime patterns allowed)\n"
		"  -b          bulk mode: one output file per CPU (FILE_cpuN, or stpd_cpuN)\n"
		"  -s MB       per-CPU trace buffer size in MB ("
		STP_LIMIT_STR(STP_BUFSIZE_MB_MIN) "-" STP_LIMIT_STR(STP_BUFSIZE_MB_MAX) ", default "
		STP_LIMIT_STR(STP_BUFSIZE_MB) ")\n"
		"  -S SIZE_MB[,N]  switch output files at SIZE_MB, keep at most N of them\n"
		"  -c CMD      run CMD once the probes are armed; target() is its pid; stop when it exits\n"
		"  -x PID      target() is PID\n"
		"  -T SECONDS  end the run after SECONDS (its end probes run), as exit() would\n"
		"  --remote ssh://[USER@]HOST[:PORT]  run on that host over ssh (repeatable)\n"
		"  --remote-prefix  prefix each line of remote output with \"N: \", N the host's index\n"
		"  --runtime=MODE  kernel (a kernel module, the default) or bpf (a BPF object, NAME.bo, for\n"
		"                  machines that refuse modules: see stap(1) for what runs there)\n"
		"  -F          flight recorder: load, start and detach (staprun -A NAME reattaches)\n"
		"  -D NAME=VAL define a runtime limit, e.g. -D MAXACTION=5000\n"
		"  -G NAME=VAL set a global variable of the script when the run starts\n"
		"  --suppress-handler-errors  count script errors in probe handlers, never report or stop on them\n"
		"  --disable-cache  do not use or fill the cache ($SYSTEMTAP_DIR/cache or ~/.systemtap/cache)\n"
		"  --sign-module[=KEYDIR]  sign the module with KEYDIR's signing_key.priv (Secure Boot, MOK)\n"
		"  --make-signing-key[=KEYDIR]  make that key and certificate; print how to enroll it\n"
		"  --all-modules    accepted for compatibility: symbols of every loaded module are always known\n"
		"  -I DIR      also look for tapsets in DIR\n"
		"  -d MODULE   also use the debuginfo of MODULE (a name or a .ko path): its tracepoints;\n"
		"              -d /PATH of an executable or library: its symbols and unwind data (ubacktrace...)\n"
		"  --ldd       with -d and process probes: also every library those files need\n"
		"  -u          unoptimized: keep unused variables, functions and statements\n"
		"  -l PATTERN  list the probe points matching PATTERN\n"
		"  -L PATTERN  list them with their variables and types\n"
		"  --dump-probe-types    list the probe point forms the providers accept\n"
		"  --dump-probe-aliases  list the probe aliases the tapset library defines\n"
		"  --dump-functions      list the functions the tapset library defines\n"
		"  -k          keep the temporary directory and print its path\n"
		"  -v          more verbose: pass timings (repeat for more)\n"
		"  -w          suppress warnings\n"
		"  -W          treat warnings as errors\n"
		"  -g          guru mode\n"
		"  -V          print the version\n"
		"  -h          this help\n");
}

static void cleanup(void)
{
	if (tmp_to_remove) {
		tmpdir_remove(&tmp_dir);
		tmp_to_remove = 0;
	}
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static double cpu_ms(int user)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	struct timeval t = user ? ru.ru_utime : ru.ru_stime;
	return (double)t.tv_sec * 1e3 + (double)t.tv_usec / 1e3;
}

typedef struct PassTimer {
	double real, usr, sys;
} PassTimer;

static PassTimer timer_start(void)
{
	PassTimer t = { now_ms(), cpu_ms(1), cpu_ms(0) };
	return t;
}

static void timer_report(Session *s, const PassTimer *t, const char *what)
{
	if (!s->verbose)
		return;
	fprintf(stderr, "%s in %.0fusr/%.0fsys/%.0freal ms.\n", what, cpu_ms(1) - t->usr, cpu_ms(0) - t->sys,
		now_ms() - t->real);
}

static int valid_module_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 55)
		return 0;
	for (const char *p = name; *p; p++) {
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return 0;
	}
	return 1;
}

/* -D NAME or -D NAME=VALUE, NAME a C identifier, VALUE on one line. */
static int valid_define(const char *d)
{
	const char *p = d;

	if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return 0;
	while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
		p++;
	return (*p == '\0' || *p == '=') && !strchr(d, '\n');
}

/* stap -T SECONDS: as SystemTap does it, one more probe that calls exit() when
 * the time is up, so the end probes run. */
static SourceFile *timeout_probe(Session *s)
{
	char *text = xasprintf("probe timer.s(%ld) { exit() }\n", s->timeout_s);

	return source_new("<timeout>", text, strlen(text));
}

/* $N/@N given on the command line that neither the script nor a library file it used read. */
static void warn_unused_args(Session *s)
{
	for (int i = 1; i <= s->script_args.len; i++)
		if (!parse_arg_used(s->parse, i))
			diag_plain(&s->diag, "warning", "unused command line option $%d/@%d", i, i);
}

static SourceFile *load_script(Session *s)
{
	char *text;
	size_t len;

	if (s->script_text)
		return source_new("<input>", xstrdup(s->script_text), strlen(s->script_text));
	if (!strcmp(s->script_file, "-")) {
		text = read_file("/dev/stdin", &len);
	} else {
		text = read_file(s->script_file, &len);
	}
	if (!text) {
		diag_plain(&s->diag, "error", "cannot read script '%s': %s", s->script_file, strerror(errno));
		return NULL;
	}
	return source_new(s->script_file, text, len);
}

/* What %( conditions and $1 / @1 see. */
static void set_preprocessor_env(Session *s)
{
	PreprocEnv env = { 0 };

	env.kernel_v = xasprintf("%.*s", (int)strcspn(s->kver, "-"), s->kver);
	env.kernel_vr = s->kver;
	env.arch = "x86_64";
	env.runtime = s->bpf ? "bpf" : "kernel";
	env.systemtap_v = STAP_COMPAT_VERSION;
	env.privilege = "stapdev";
	env.guru_mode = s->guru;
	env.config = kernel_config_value;
	env.config_data = s;
	env.argc = s->script_args.len;
	env.argv = (char **)s->script_args.items;
	s->parse = parse_state_new(&s->diag, &env);
}

static int finish(int rc)
{
	cleanup();
	return rc;
}

/* Copies the module to the current directory (stap -p4, or a run that cannot
 * happen on this kernel) and prints its path. */
static int keep_module(Session *s)
{
	char *dest = xasprintf("%s.%s", s->module_name, s->bpf ? "bo" : "ko");
	char *data, why[256] = "";
	size_t len;

	data = read_file(s->ko_file, &len);
	if (data && !modhash_matches(s, data, len)) {   /* only the bytes pass 4 built (and signed) */
		modhash_refuse(s, "keeping it");
		free(data);
		free(dest);
		return -1;
	}
	if (!data || output_file_write(dest, data, len, why, sizeof(why)) != 0) {
		diag_plain(&s->diag, "error", "%s %s: %s", why[0] ? "not writing" : "cannot write", dest,
			   why[0] ? why : strerror(errno));
		free(data);
		free(dest);
		return -1;
	}
	printf("%s\n", dest);
	free(data);
	free(dest);
	return 0;
}

/* In the source tree stap is build/bin/stap (or build/asan/bin/stap) and the
 * runtime is the tree's runtime/; installed, it is bin/stap and the runtime is
 * share/systemtap/runtime.  SYSTEMTAP_RUNTIME / SYSTEMTAP_TAPSET override. */
static void locate_installation(Session *s)
{
	const char *ups[] = { "../..", "../../.." };

	s->bin_dir = self_exe_dir();
	s->runtime_dir = path_join(s->bin_dir, "../share/systemtap/runtime");
	s->tapset_dir = path_join(s->bin_dir, "../share/systemtap/tapset");
	for (size_t i = 0; i < sizeof ups / sizeof ups[0]; i++) {
		char *top = path_join(s->bin_dir, ups[i]);
		char *marker = path_join(top, "runtime/runtime.h");
		char *tree = path_join(top, "translator");
		if (file_exists(marker) && dir_exists(tree)) {
			char *real = realpath(top, NULL);
			s->runtime_dir = path_join(real, "runtime");
			s->tapset_dir = path_join(real, "tapset");
			free(real);
			i = sizeof ups / sizeof ups[0];
		}
		free(top);
		free(marker);
		free(tree);
	}
	{
		char *real = realpath(s->runtime_dir, NULL);   /* installed: no "bin/.." */
		if (real)
			s->runtime_dir = real;
		real = realpath(s->tapset_dir, NULL);
		if (real)
			s->tapset_dir = real;
	}
	if (getenv("SYSTEMTAP_RUNTIME"))
		s->runtime_dir = getenv("SYSTEMTAP_RUNTIME");
	if (getenv("SYSTEMTAP_TAPSET"))
		s->tapset_dir = getenv("SYSTEMTAP_TAPSET");
}

/* The option handlers below return -1 to go on, else the exit status. */

/* -s MB: the transport's buffer size */
static int option_bufsize(Session *s, const char *arg)
{
	char *end;
	long mb = strtol(arg, &end, 10);
	if (*end || mb < STP_BUFSIZE_MB_MIN || mb > STP_BUFSIZE_MB_MAX) {
		diag_plain(&s->diag, "error", "-s needs a buffer size in MB from %d to %d, got '%s'", STP_BUFSIZE_MB_MIN,
			   STP_BUFSIZE_MB_MAX, arg);
		return 1;
	}
	vec_push(&s->defines, xasprintf("STP_BUFSIZE_MB=%ld", mb));
	return -1;
}

/* -T SECONDS: the run's timeout */
static int option_timeout(Session *s, const char *arg)
{
	char *end;
	long secs = strtol(arg, &end, 10);
	if (end == arg || *end || secs < 1 || secs > 1000000000L / 1000) {
		diag_plain(&s->diag, "error", "-T needs a timeout in whole seconds from 1 to 1000000, got '%s'", arg);
		return 1;
	}
	s->timeout_s = secs;
	return -1;
}

/* -p N: the last pass */
static int option_pass(Session *s, const char *arg)
{
	s->last_pass = atoi(arg);
	if (s->last_pass < 1 || s->last_pass > 5 || arg[1]) {
		diag_plain(&s->diag, "error", "invalid pass number '%s' (1-5)", arg);
		return 1;
	}
	return -1;
}

/* -m NAME: the module's name */
static int option_module_name(Session *s, const char *arg)
{
	if (!valid_module_name(arg)) {
		diag_plain(&s->diag, "error", "invalid module name '%s': use at most 55 letters, digits and '_'", arg);
		return 1;
	}
	s->module_name = xstrdup(arg);
	return -1;
}

/* -D NAME[=VALUE]: a macro for the module's C */
static int option_define(Session *s, char *arg)
{
	if (!valid_define(arg)) {
		diag_plain(&s->diag, "error", "-D needs NAME or NAME=VALUE (NAME a C identifier), got '%s'", arg);
		return 1;
	}
	vec_push(&s->defines, arg);
	return -1;
}

/* -G NAME=VALUE: a global's initial value */
static int option_global_set(Session *s, char *arg)
{
	if (!strchr(arg, '=') || arg[0] == '=') {
		diag_plain(&s->diag, "error", "-G needs NAME=VALUE, got '%s'", arg);
		return 1;
	}
	vec_push(&s->global_sets, arg);
	return -1;
}

/* The long options with no one-letter form: their codes are a letter + 256 */
static const struct option long_options[] = {
	{ "dump-probe-types", no_argument, NULL, 'T' + 256 },
	{ "dump-probe-aliases", no_argument, NULL, 'A' + 256 },
	{ "dump-functions", no_argument, NULL, 'F' + 256 },
	{ "help", no_argument, NULL, 'h' },
	{ "suppress-handler-errors", no_argument, NULL, 'S' + 256 },
	{ "disable-cache", no_argument, NULL, 'C' + 256 },
	{ "sign-module", optional_argument, NULL, 'K' + 256 },
	{ "make-signing-key", optional_argument, NULL, 'N' + 256 },
	{ "all-modules", no_argument, NULL, 'M' + 256 },
	{ "ldd", no_argument, NULL, 'L' + 256 },
	{ "version", no_argument, NULL, 'V' },
	{ "remote", required_argument, NULL, 'R' + 256 },
	{ "remote-prefix", no_argument, NULL, 'P' + 256 },
	{ "runtime", required_argument, NULL, 'B' + 256 },
	{ NULL, 0, NULL, 0 },
};

static int long_option(Session *s, int c)
{
	switch (c) {
	case 'T' + 256: s->dump = "probe-types"; break;
	case 'A' + 256: s->dump = "probe-aliases"; break;
	case 'F' + 256: s->dump = "functions"; break;
	case 'S' + 256: s->suppress_handler_errors = 1; break;
	case 'C' + 256: s->disable_cache = 1; break;
	case 'K' + 256: s->sign_module = optarg ? optarg : ""; break;
	case 'N' + 256: return sign_make_key(&s->diag, optarg);
	case 'L' + 256: s->ldd = 1; break;
	case 'R' + 256:
		if (remote_add(s, optarg) != 0)
			return 1;
		break;
	case 'P' + 256: s->remote_prefix = 1; break;
	case 'B' + 256:
		if (strcmp(optarg, "kernel") && strcmp(optarg, "bpf")) {
			diag_plain(&s->diag, "error", "--runtime=%s: the runtimes are kernel and bpf", optarg);
			return 1;
		}
		s->bpf = !strcmp(optarg, "bpf");
		break;
	case 'M' + 256: break;   /* kernel symbols come from kallsyms at run time: modules included */
	default: usage(stderr); return 1;
	}
	return -1;
}

/* A one-letter option (or getopt's '?' for an unknown one); r_arg: -r's argument */
static int short_option(Session *s, int c, const char **r_arg)
{
	switch (c) {
	case 'b': vec_push(&s->defines, "STP_BULKMODE=1"); break;
	case 's': return option_bufsize(s, optarg);
	case 'S': s->size_arg = optarg; break;
	case 'T': return option_timeout(s, optarg);
	case 'c': s->command = optarg; break;
	case 'x': s->target_pid = optarg; break;
	case 'F': s->flight = 1; break;
	case 'u': s->unoptimized = 1; break;
	case 'l':
	case 'L':
		s->list_pattern = optarg;
		s->list_vars = c == 'L';
		break;
	case 'e': s->script_text = optarg; break;
	case 'p': return option_pass(s, optarg);
	case 'm': return option_module_name(s, optarg);
	case 'r': *r_arg = optarg; break;
	case 'o': s->output_file = optarg; break;
	case 'D': return option_define(s, optarg);
	case 'G': return option_global_set(s, optarg);
	case 'k': s->keep_tmp = 1; break;
	case 'v': s->verbose++; break;
	case 'w': s->suppress_warnings = 1; diag_set_warnings(&s->diag, 0); break;
	case 'W': s->warnings_fatal = 1; break;
	case 'g': s->guru = 1; break;
	case 'I': vec_push(&s->include_dirs, optarg); break;
	case 'd': vec_push(&s->debug_modules, optarg); break;
	case 'V':
		printf("stap (SystemTap-compatible translator) version %s\n", STAP_VERSION);
		return 0;
	case 'h': usage(stdout); return 0;
	default: usage(stderr); return 1;
	}
	return -1;
}

/* After the options: the script (a FILE unless -e, --dump-* or -l/-L gave one) and its arguments */
static int script_and_arguments(Session *s, int argc, char **argv)
{
	if (s->dump) {
		s->script_text = "";
		s->last_pass = 2;
	} else if (s->list_pattern) {
		s->script_text = xasprintf("probe %s {}", s->list_pattern);
		s->last_pass = 2;
	}
	if (!s->script_text) {
		if (optind >= argc) {
			diag_plain(&s->diag, "error", "no script given: use a FILE or -e SCRIPT");
			usage(stderr);
			return 1;
		}
		s->script_file = argv[optind++];
		/* stap FILE -- -5: as with getopt's own "--", the arguments follow it */
		if (optind < argc && !strcmp(argv[optind], "--"))
			optind++;
	}
	for (; optind < argc; optind++)
		vec_push(&s->script_args, argv[optind]);
	return -1;
}

/* The command line into the session (r_arg: -r's argument); -1 to go on, else the exit status */
static int main_options(Session *s, int argc, char **argv, const char **r_arg)
{
	int c;

	s->last_pass = 5;
	s->version = STAP_VERSION;
	while ((c = getopt_long(argc, argv, "e:p:m:r:o:D:G:kvwWgVhI:ul:L:bs:S:c:x:Fd:T:", long_options, NULL)) != -1) {
		int rc = c >= 256 ? long_option(s, c) : short_option(s, c, r_arg);
		if (rc >= 0)
			return rc;
	}
	return script_and_arguments(s, argc, argv);
}

/* -W: a pass that gave warnings fails, as SystemTap's "Pass N: ... failed" */
static int warnings_failed(Session *s, int pass)
{
	if (!s->warnings_fatal || !diag_warning_count(&s->diag))
		return 0;
	diag_plain(&s->diag, "error", "pass %d failed: %d warning%s treated as error%s (-W)", pass, diag_warning_count(&s->diag),
		   diag_warning_count(&s->diag) == 1 ? "" : "s", diag_warning_count(&s->diag) == 1 ? "" : "s");
	return 1;
}

/* Passes 1 and 2 (and what stops after them: --dump-*, -l/-L, -p1, -p2, --remote); -1 to go on
 * with *filep, the script, else the exit status */
static int main_passes_1_2(Session *s, const char *r_arg, SourceFile **filep)
{
	SourceFile *file;
	PassTimer t;
	StrBuf out;

	if (rootenv_check(&s->diag) != 0)
		return 1;
	locate_installation(s);
	if (remote_wanted(s))
		return remote_run(s, r_arg);

	/* pass 1: conditionals need the target kernel, so find it first */
	if (kernel_setup(s, r_arg, 0) != 0 || (s->last_pass >= 3 && !s->bpf && secureboot_check_features(s)))
		return 1;
	/* for BTF-typed probes of the running kernel: /proc/kallsyms read beside pass 1, once per kernel
	 * (not for pass 1 alone: the read, mostly the kernel's, would be cut short at exit every time) */
	if (s->last_pass >= 2)
		btf_kernel_twice_prefetch(s);
	set_preprocessor_env(s);
	t = timer_start();
	STAP_MARK_PASS(1a, start, s);
	if (tapsets_init(s) > 0)
		return 1;
	if (s->dump)
		return run_dump(s) ? 1 : 0;
	file = load_script(s);
	if (!file)
		return 1;
	if (parse_script(s->parse, file, &s->prog) > 0)
		return 1;
	STAP_MARK_PASS(1b, start, s);   /* the library: its index read, its files parsed on demand */
	if (s->timeout_s && parse_source(s->parse, timeout_probe(s), &s->prog) > 0)
		return 1;
	if (s->last_pass == 1)
		warn_unused_args(s);
	{
		int n = tapsets_parsed_count(s);
		char *what = xasprintf("Pass 1: parsed user script and %d library script%s", n, n == 1 ? "" : "s");
		timer_report(s, &t, what);
		free(what);
	}
	STAP_MARK_PASS(1, end, s);
	if (warnings_failed(s, 1))
		return 1;
	if (s->last_pass == 1) {
		sb_init(&out);
		print_program(&s->prog, &out);
		fputs(out.data, stdout);
		return 0;
	}
	/* a module is built in the kernel's build tree; a BPF object needs none */
	if (s->last_pass >= 3 && !s->bpf && kernel_setup(s, r_arg, 1) != 0)
		return 1;

	/* pass 2 */
	t = timer_start();
	STAP_MARK_PASS(2, start, s);
	if (s->list_pattern)
		return run_listing(s) ? 1 : 0;
	if (elaborate(s) > 0)
		return 1;
	warn_unused_args(s);   /* after the library files pass 2 read, which may use them (argv.stp) */
	STAP_MARK_PASS(2, end, s);
	{
		char *what = xasprintf("Pass 2: analyzed script: %d probe%s, %d function%s, %d global%s, "
				       "%d library file%s", s->derived.len, s->derived.len == 1 ? "" : "s",
				       s->prog.functions.len, s->prog.functions.len == 1 ? "" : "s",
				       s->prog.globals.len, s->prog.globals.len == 1 ? "" : "s",
				       tapsets_loaded_count(s), tapsets_loaded_count(s) == 1 ? "" : "s");
		timer_report(s, &t, what);
	}
	if (warnings_failed(s, 2))
		return 1;
	if (s->last_pass == 2) {
		sb_init(&out);
		print_resolved(s, &out);
		fputs(out.data, stdout);
		return 0;
	}
	*filep = file;
	return -1;
}

/* The SHA-256 of the script's text as read (hex), which the module's modinfo records
 * (stap_script_sha256) and staprun passes on to the output files' headers. */
static char *script_digest(const SourceFile *file)
{
	unsigned char d[SHA256_DIGEST_LEN];
	char hex[2 * SHA256_DIGEST_LEN + 1];
	Sha256 c;

	sha256_init(&c);
	sha256_update(&c, file->text, file->len);
	sha256_final(&c, d);
	sha256_hex(d, hex);
	return xstrdup(hex);
}

/* Passes 3 to 5 of the script file */
static int main_passes_3_5(Session *s, SourceFile *file)
{
	PassTimer t;
	StrBuf out;

	/* pass 3 */
	t = timer_start();
	if (!s->module_name)
		s->module_name = cache_module_name(s, s->timeout_s ?
			xasprintf("%s\n%s", file->text, timeout_probe(s)->text) : file->text);
	if (!s->script_sha256)
		s->script_sha256 = script_digest(file);
	sb_init(&out);
	STAP_MARK_PASS(3, start, s);
	if (translate(s, &out) > 0 || warnings_failed(s, 3))
		return 1;
	STAP_MARK_PASS(3, end, s);
	timer_report(s, &t, "Pass 3: translated to C");
	if (s->last_pass == 3) {
		fputs(out.data, stdout);
		return 0;
	}

	/* pass 4: from here on there is a temp directory to clean up */
	t = timer_start();
	STAP_MARK_PASS(4, start, s);
	if (tmpdir_make(&s->diag, "stap", &tmp_dir) != 0)
		return 1;
	s->tmp_dir = tmp_dir.path;
	if (s->keep_tmp)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", s->tmp_dir);
	else
		tmp_to_remove = 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	{
		char *c_path = xasprintf("%s/%s.c", s->tmp_dir, s->module_name);
		if (write_file(c_path, out.data, out.len) != 0) {
			diag_plain(&s->diag, "error", "cannot write %s: %s", c_path, strerror(errno));
			return finish(1);
		}
		s->c_file = c_path;
	}
	if (s->bpf ? compile_bpf(s) != 0 : compile_module(s) != 0 || sign_after_pass4(s) != 0)
		return finish(1);
	STAP_MARK_PASS(4, end, s);
	{
		const char *cached = cache_hit_path(s);
		char *what = cached ? xasprintf("Pass 4: using cached %s", cached) : xstrdup(s->bpf ? "Pass 4: compiled C into a BPF object" : "Pass 4: compiled C into a module");
		timer_report(s, &t, what);
		free(what);
		cache_report(s);
	}
	if (s->last_pass == 4)
		return finish(keep_module(s) ? 1 : 0);

	/* pass 5 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (!s->target_is_running) {
		fprintf(stderr, "stap: the target kernel %s is not the running kernel; stopping after pass 4.\n"
			"stap: run the module on a %s machine with: staprun %s.%s\n",
			s->kver, s->kver, s->module_name, s->bpf ? "bo" : "ko");
		return finish(keep_module(s) ? 1 : 0);
	}
	t = timer_start();
	{
		int rc;

		STAP_MARK_PASS(5, start, s);
		rc = run_module(s);
		STAP_MARK_PASS(5, end, s);
		timer_report(s, &t, "Pass 5: run completed");
		return finish(rc);
	}
}

/* The run's root state is main's Session, handed down.  main ends with exit(), not return: a
 * thread never joined (btf/source.c's kallsyms reader) may still warn through the session's Diag
 * until the process ends, so its frame must outlive the exit handlers. */
int main(int argc, char **argv)
{
	Session session = { 0 };
	const char *r_arg = NULL;
	SourceFile *file = NULL;
	int rc;

	diag_init(&session.diag);
	session.kernel_image_build_id = btf_kernel_image_build_id;
	STAP_MARK_PASS(0, start, &session);
	rc = main_options(&session, argc, argv, &r_arg);
	STAP_MARK_PASS(0, end, &session);
	if (rc < 0)
		rc = main_passes_1_2(&session, r_arg, &file);
	if (rc < 0)
		rc = main_passes_3_5(&session, file);
	/* pass 6, as SystemTap counts them: the clean-up */
	STAP_MARK_PASS(6, start, &session);
	cleanup();
	STAP_MARK_PASS(6, end, &session);
	exit(rc);
}
