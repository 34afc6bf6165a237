/* main.c - the stap driver: options, then the five passes (parse, elaborate,
 * translate, compile, run) with -v timings and temp directory cleanup. */
#include "btf/btf.h"
#include "build/build.h"
#include "build/cache.h"
#include "codegen/module.h"
#include "core/limits.h"
#include "build/secureboot.h"
#include "build/sign.h"
#include "elaborate/elaborate.h"
#include "kernel.h"
#include "driver/listing.h"
#include "driver/markers.h"
#include "parse/parse.h"
#include "driver/remote.h"
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

static Session session;
static char *tmp_to_remove;

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
		remove_tree(tmp_to_remove);
		tmp_to_remove = NULL;
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

static void timer_report(const PassTimer *t, const char *what)
{
	if (!session.verbose)
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
static SourceFile *timeout_probe(void)
{
	char *text = xasprintf("probe timer.s(%ld) { exit() }\n", session.timeout_s);

	return source_new("<timeout>", text, strlen(text));
}

/* $N/@N given on the command line that neither the script nor a library file it used read. */
static void warn_unused_args(void)
{
	for (int i = 1; i <= session.script_args.len; i++)
		if (!parse_arg_used(session.parse, i))
			diag_plain("warning", "unused command line option $%d/@%d", i, i);
}

static SourceFile *load_script(void)
{
	char *text;
	size_t len;

	if (session.script_text)
		return source_new("<input>", xstrdup(session.script_text), strlen(session.script_text));
	if (!strcmp(session.script_file, "-")) {
		text = read_file("/dev/stdin", &len);
	} else {
		text = read_file(session.script_file, &len);
	}
	if (!text) {
		diag_plain("error", "cannot read script '%s': %s", session.script_file, strerror(errno));
		return NULL;
	}
	return source_new(session.script_file, text, len);
}

/* What %( conditions and $1 / @1 see. */
static void set_preprocessor_env(void)
{
	PreprocEnv env = { 0 };

	env.kernel_v = xasprintf("%.*s", (int)strcspn(session.kver, "-"), session.kver);
	env.kernel_vr = session.kver;
	env.arch = "x86_64";
	env.runtime = "kernel";
	env.systemtap_v = STAP_COMPAT_VERSION;
	env.privilege = "stapdev";
	env.guru_mode = session.guru;
	env.config = kernel_config_value;
	env.config_data = &session;
	env.argc = session.script_args.len;
	env.argv = (char **)session.script_args.items;
	session.parse = parse_state_new(&env);
}

static int finish(int rc)
{
	cleanup();
	return rc;
}

/* Copies the module to the current directory (stap -p4, or a run that cannot
 * happen on this kernel) and prints its path. */
static int keep_module(void)
{
	char *dest = xasprintf("%s.ko", session.module_name);
	char *data;
	size_t len;
	FILE *f;

	data = read_file(session.ko_file, &len);
	f = data ? fopen(dest, "wb") : NULL;
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		diag_plain("error", "cannot write %s: %s", dest, strerror(errno));
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
static void locate_installation(void)
{
	const char *ups[] = { "../..", "../../.." };

	session.bin_dir = self_exe_dir();
	session.runtime_dir = path_join(session.bin_dir, "../share/systemtap/runtime");
	session.tapset_dir = path_join(session.bin_dir, "../share/systemtap/tapset");
	for (size_t i = 0; i < sizeof ups / sizeof ups[0]; i++) {
		char *top = path_join(session.bin_dir, ups[i]);
		char *marker = path_join(top, "runtime/runtime.h");
		char *tree = path_join(top, "translator");
		if (file_exists(marker) && dir_exists(tree)) {
			char *real = realpath(top, NULL);
			session.runtime_dir = path_join(real, "runtime");
			session.tapset_dir = path_join(real, "tapset");
			free(real);
			i = sizeof ups / sizeof ups[0];
		}
		free(top);
		free(marker);
		free(tree);
	}
	{
		char *real = realpath(session.runtime_dir, NULL);   /* installed: no "bin/.." */
		if (real)
			session.runtime_dir = real;
		real = realpath(session.tapset_dir, NULL);
		if (real)
			session.tapset_dir = real;
	}
	if (getenv("SYSTEMTAP_RUNTIME"))
		session.runtime_dir = getenv("SYSTEMTAP_RUNTIME");
	if (getenv("SYSTEMTAP_TAPSET"))
		session.tapset_dir = getenv("SYSTEMTAP_TAPSET");
}

/* The option handlers below return -1 to go on, else the exit status. */

/* -s MB: the transport's buffer size */
static int option_bufsize(const char *arg)
{
	char *end;
	long mb = strtol(arg, &end, 10);
	if (*end || mb < STP_BUFSIZE_MB_MIN || mb > STP_BUFSIZE_MB_MAX) {
		diag_plain("error", "-s needs a buffer size in MB from %d to %d, got '%s'", STP_BUFSIZE_MB_MIN,
			   STP_BUFSIZE_MB_MAX, arg);
		return 1;
	}
	vec_push(&session.defines, xasprintf("STP_BUFSIZE_MB=%ld", mb));
	return -1;
}

/* -T SECONDS: the run's timeout */
static int option_timeout(const char *arg)
{
	char *end;
	long secs = strtol(arg, &end, 10);
	if (end == arg || *end || secs < 1 || secs > 1000000000L / 1000) {
		diag_plain("error", "-T needs a timeout in whole seconds from 1 to 1000000, got '%s'", arg);
		return 1;
	}
	session.timeout_s = secs;
	return -1;
}

/* -p N: the last pass */
static int option_pass(const char *arg)
{
	session.last_pass = atoi(arg);
	if (session.last_pass < 1 || session.last_pass > 5 || arg[1]) {
		diag_plain("error", "invalid pass number '%s' (1-5)", arg);
		return 1;
	}
	return -1;
}

/* -m NAME: the module's name */
static int option_module_name(const char *arg)
{
	if (!valid_module_name(arg)) {
		diag_plain("error", "invalid module name '%s': use at most 55 letters, digits and '_'", arg);
		return 1;
	}
	session.module_name = xstrdup(arg);
	return -1;
}

/* -D NAME[=VALUE]: a macro for the module's C */
static int option_define(char *arg)
{
	if (!valid_define(arg)) {
		diag_plain("error", "-D needs NAME or NAME=VALUE (NAME a C identifier), got '%s'", arg);
		return 1;
	}
	vec_push(&session.defines, arg);
	return -1;
}

/* -G NAME=VALUE: a global's initial value */
static int option_global_set(char *arg)
{
	if (!strchr(arg, '=') || arg[0] == '=') {
		diag_plain("error", "-G needs NAME=VALUE, got '%s'", arg);
		return 1;
	}
	vec_push(&session.global_sets, arg);
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
	{ NULL, 0, NULL, 0 },
};

static int long_option(int c)
{
	switch (c) {
	case 'T' + 256: session.dump = "probe-types"; break;
	case 'A' + 256: session.dump = "probe-aliases"; break;
	case 'F' + 256: session.dump = "functions"; break;
	case 'S' + 256: session.suppress_handler_errors = 1; break;
	case 'C' + 256: session.disable_cache = 1; break;
	case 'K' + 256: session.sign_module = optarg ? optarg : ""; break;
	case 'N' + 256: return sign_make_key(optarg);
	case 'L' + 256: session.ldd = 1; break;
	case 'R' + 256:
		if (remote_add(&session, optarg) != 0)
			return 1;
		break;
	case 'P' + 256: session.remote_prefix = 1; break;
	case 'M' + 256: break;   /* kernel symbols come from kallsyms at run time: modules included */
	default: usage(stderr); return 1;
	}
	return -1;
}

/* A one-letter option (or getopt's '?' for an unknown one); r_arg: -r's argument */
static int short_option(int c, const char **r_arg)
{
	switch (c) {
	case 'b': vec_push(&session.defines, "STP_BULKMODE=1"); break;
	case 's': return option_bufsize(optarg);
	case 'S': session.size_arg = optarg; break;
	case 'T': return option_timeout(optarg);
	case 'c': session.command = optarg; break;
	case 'x': session.target_pid = optarg; break;
	case 'F': session.flight = 1; break;
	case 'u': session.unoptimized = 1; break;
	case 'l':
	case 'L':
		session.list_pattern = optarg;
		session.list_vars = c == 'L';
		break;
	case 'e': session.script_text = optarg; break;
	case 'p': return option_pass(optarg);
	case 'm': return option_module_name(optarg);
	case 'r': *r_arg = optarg; break;
	case 'o': session.output_file = optarg; break;
	case 'D': return option_define(optarg);
	case 'G': return option_global_set(optarg);
	case 'k': session.keep_tmp = 1; break;
	case 'v': session.verbose++; break;
	case 'w': session.suppress_warnings = 1; diag_set_warnings(0); break;
	case 'W': session.warnings_fatal = 1; break;
	case 'g': session.guru = 1; break;
	case 'I': vec_push(&session.include_dirs, optarg); break;
	case 'd': vec_push(&session.debug_modules, optarg); break;
	case 'V':
		printf("stap (SystemTap-compatible translator) version %s\n", STAP_VERSION);
		return 0;
	case 'h': usage(stdout); return 0;
	default: usage(stderr); return 1;
	}
	return -1;
}

/* After the options: the script (a FILE unless -e, --dump-* or -l/-L gave one) and its arguments */
static int script_and_arguments(int argc, char **argv)
{
	if (session.dump) {
		session.script_text = "";
		session.last_pass = 2;
	} else if (session.list_pattern) {
		session.script_text = xasprintf("probe %s {}", session.list_pattern);
		session.last_pass = 2;
	}
	if (!session.script_text) {
		if (optind >= argc) {
			diag_plain("error", "no script given: use a FILE or -e SCRIPT");
			usage(stderr);
			return 1;
		}
		session.script_file = argv[optind++];
		/* stap FILE -- -5: as with getopt's own "--", the arguments follow it */
		if (optind < argc && !strcmp(argv[optind], "--"))
			optind++;
	}
	for (; optind < argc; optind++)
		vec_push(&session.script_args, argv[optind]);
	return -1;
}

/* The command line into the session (r_arg: -r's argument); -1 to go on, else the exit status */
static int main_options(int argc, char **argv, const char **r_arg)
{
	int c;

	session.last_pass = 5;
	session.version = STAP_VERSION;
	while ((c = getopt_long(argc, argv, "e:p:m:r:o:D:G:kvwWgVhI:ul:L:bs:S:c:x:Fd:T:", long_options, NULL)) != -1) {
		int rc = c >= 256 ? long_option(c) : short_option(c, r_arg);
		if (rc >= 0)
			return rc;
	}
	return script_and_arguments(argc, argv);
}

/* -W: a pass that gave warnings fails, as SystemTap's "Pass N: ... failed" */
static int warnings_failed(int pass)
{
	if (!session.warnings_fatal || !diag_warning_count())
		return 0;
	diag_plain("error", "pass %d failed: %d warning%s treated as error%s (-W)", pass, diag_warning_count(),
		   diag_warning_count() == 1 ? "" : "s", diag_warning_count() == 1 ? "" : "s");
	return 1;
}

/* Passes 1 and 2 (and what stops after them: --dump-*, -l/-L, -p1, -p2, --remote); -1 to go on
 * with *filep, the script, else the exit status */
static int main_passes_1_2(const char *r_arg, SourceFile **filep)
{
	SourceFile *file;
	PassTimer t;
	StrBuf out;

	locate_installation();
	if (remote_wanted(&session))
		return remote_run(&session, r_arg);

	/* pass 1: conditionals need the target kernel, so find it first */
	if (kernel_setup(&session, r_arg, 0) != 0 || (session.last_pass >= 3 && secureboot_check_features(&session)))
		return 1;
	/* for BTF-typed probes of the running kernel: /proc/kallsyms read beside pass 1, once per kernel */
	btf_kernel_twice_prefetch(&session);
	set_preprocessor_env();
	t = timer_start();
	STAP_MARK_PASS(1a, start, &session);
	if (tapsets_init(&session) > 0)
		return 1;
	if (session.dump)
		return run_dump(&session) ? 1 : 0;
	file = load_script();
	if (!file)
		return 1;
	if (parse_script(session.parse, file, &session.prog) > 0)
		return 1;
	STAP_MARK_PASS(1b, start, &session);   /* the library: its index read, its files parsed on demand */
	if (session.timeout_s && parse_source(session.parse, timeout_probe(), &session.prog) > 0)
		return 1;
	if (session.last_pass == 1)
		warn_unused_args();
	{
		int n = tapsets_parsed_count(&session);
		char *what = xasprintf("Pass 1: parsed user script and %d library script%s", n, n == 1 ? "" : "s");
		timer_report(&t, what);
		free(what);
	}
	STAP_MARK_PASS(1, end, &session);
	if (warnings_failed(1))
		return 1;
	if (session.last_pass == 1) {
		sb_init(&out);
		print_program(&session.prog, &out);
		fputs(out.data, stdout);
		return 0;
	}
	if (session.last_pass >= 3 && kernel_setup(&session, r_arg, 1) != 0)
		return 1;

	/* pass 2 */
	t = timer_start();
	STAP_MARK_PASS(2, start, &session);
	if (session.list_pattern)
		return run_listing(&session) ? 1 : 0;
	if (elaborate(&session) > 0)
		return 1;
	warn_unused_args();   /* after the library files pass 2 read, which may use them (argv.stp) */
	STAP_MARK_PASS(2, end, &session);
	{
		char *what = xasprintf("Pass 2: analyzed script: %d probe%s, %d function%s, %d global%s, "
				       "%d library file%s", session.derived.len, session.derived.len == 1 ? "" : "s",
				       session.prog.functions.len, session.prog.functions.len == 1 ? "" : "s",
				       session.prog.globals.len, session.prog.globals.len == 1 ? "" : "s",
				       tapsets_loaded_count(&session), tapsets_loaded_count(&session) == 1 ? "" : "s");
		timer_report(&t, what);
	}
	if (warnings_failed(2))
		return 1;
	if (session.last_pass == 2) {
		sb_init(&out);
		print_resolved(&session, &out);
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
static int main_passes_3_5(SourceFile *file)
{
	PassTimer t;
	StrBuf out;

	/* pass 3 */
	t = timer_start();
	if (!session.module_name)
		session.module_name = cache_module_name(&session, session.timeout_s ?
			xasprintf("%s\n%s", file->text, timeout_probe()->text) : file->text);
	if (!session.script_sha256)
		session.script_sha256 = script_digest(file);
	sb_init(&out);
	STAP_MARK_PASS(3, start, &session);
	if (translate(&session, &out) > 0 || warnings_failed(3))
		return 1;
	STAP_MARK_PASS(3, end, &session);
	timer_report(&t, "Pass 3: translated to C");
	if (session.last_pass == 3) {
		fputs(out.data, stdout);
		return 0;
	}

	/* pass 4: from here on there is a temp directory to clean up */
	t = timer_start();
	STAP_MARK_PASS(4, start, &session);
	session.tmp_dir = path_join(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", "stapXXXXXX");
	if (!mkdtemp(session.tmp_dir)) {
		diag_plain("error", "cannot create a temporary directory: %s", strerror(errno));
		return 1;
	}
	if (session.keep_tmp)
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", session.tmp_dir);
	else
		tmp_to_remove = session.tmp_dir;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	{
		char *c_path = xasprintf("%s/%s.c", session.tmp_dir, session.module_name);
		FILE *f = fopen(c_path, "w");
		if (!f || fputs(out.data, f) < 0 || fclose(f) != 0) {
			diag_plain("error", "cannot write %s: %s", c_path, strerror(errno));
			return finish(1);
		}
		session.c_file = c_path;
	}
	if (compile_module(&session) != 0 || sign_after_pass4(&session) != 0)
		return finish(1);
	STAP_MARK_PASS(4, end, &session);
	{
		const char *cached = cache_hit_path(&session);
		char *what = cached ? xasprintf("Pass 4: using cached %s", cached) : xstrdup("Pass 4: compiled C into a module");
		timer_report(&t, what);
		free(what);
		cache_report(&session);
	}
	if (session.last_pass == 4)
		return finish(keep_module() ? 1 : 0);

	/* pass 5 */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (!session.target_is_running) {
		fprintf(stderr, "stap: the target kernel %s is not the running kernel; stopping after pass 4.\n"
			"stap: run the module on a %s machine with: staprun %s.ko\n",
			session.kver, session.kver, session.module_name);
		return finish(keep_module() ? 1 : 0);
	}
	t = timer_start();
	{
		int rc;

		STAP_MARK_PASS(5, start, &session);
		rc = run_module(&session);
		STAP_MARK_PASS(5, end, &session);
		timer_report(&t, "Pass 5: run completed");
		return finish(rc);
	}
}

int main(int argc, char **argv)
{
	const char *r_arg = NULL;
	SourceFile *file = NULL;
	int rc;

	diag_attach(&session.diag);
	STAP_MARK_PASS(0, start, &session);
	rc = main_options(argc, argv, &r_arg);
	STAP_MARK_PASS(0, end, &session);
	if (rc < 0)
		rc = main_passes_1_2(r_arg, &file);
	if (rc < 0)
		rc = main_passes_3_5(file);
	/* pass 6, as SystemTap counts them: the clean-up */
	STAP_MARK_PASS(6, start, &session);
	cleanup();
	STAP_MARK_PASS(6, end, &session);
	return rc;
}
