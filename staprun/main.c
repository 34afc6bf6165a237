/* main.c - staprun: checks the caller and a compiled stap module, loads it, runs stapio for it, removes it.
 * Run by stap (pass 5) or by hand: staprun [-v] [-o FILE] MODULE.ko [name=value ...]; see man/staprun.8. */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "staprun.h"

const char log_program[] = "staprun";   /* the prefix of its diagnostics (common/log.c) */

struct options {
	const char *outfile;    /* -o FILE */
	const char *size_arg;   /* -S SIZE_MB[,N] */
	const char *command;    /* -c CMD */
	const char *target_pid; /* -x PID */
	unsigned long bufsize;  /* -b MB, 0: not given */
	long remote_id;         /* -r N:URI: N, -1 when not given */
	const char *remote_uri; /* -r N:URI: URI */
	const char *remote;     /* -r N:URI, whole */
	int attach;             /* -A: MODULE is the name of a loaded, detached module */
	int detach;             /* -L */
	int flight;             /* -F */
	int delete;             /* -d: MODULE is the name of a loaded module to remove */
	const char *clock_offset;  /* -O OFFSET_US,ERR_US: this host's clock offset, for the headers */
	const char *module;     /* path to MODULE.ko (a module name with -A and -d) */
	char **params;          /* name=value ... */
	int nparams;
};

static void usage(void)
{
	fputs("usage: staprun [-v] [-o FILE] [-b MB] [-S SIZE_MB[,N]] [-c CMD | -x PID] [-L | -F]\n"
	      "               [-r N:URI] [-O OFFSET_US,ERR_US] MODULE.ko [name=value ...]\n"
	      "       staprun [-v] [-o FILE] [-S SIZE_MB[,N]] [-c CMD | -x PID] NAME.bo\n"
	      "       staprun [-v] [-o FILE] [-S SIZE_MB[,N]] -A NAME\n"
	      "       staprun [-v] -d NAME\n"
	      "  -v       say what is done (stapio too)\n"
	      "  -o FILE  write the script's output to FILE (strftime patterns allowed);\n"
	      "           bulk-mode modules write FILE_cpuN (stpd_cpuN without -o)\n"
	      "  -b MB    per-CPU trace buffer size in MB ("
	      STP_LIMIT_STR(STP_BUFSIZE_MB_MIN) "-" STP_LIMIT_STR(STP_BUFSIZE_MB_MAX) "; stapusr: "
	      STP_LIMIT_STR(STP_BUFSIZE_MB_MIN) "-" STP_LIMIT_STR(BUFSIZE_STAPUSR_MB) ")\n"
	      "  -S SIZE_MB[,N]  write FILE.0, FILE.1... switching before a file exceeds SIZE_MB,\n"
	      "           keep at most N files (needs -o)\n"
	      "  -O OFFSET_US,ERR_US  this host's clock minus a controller's, and the error of that\n"
	      "           measure (-1: unknown), for the headers of self-describing files\n"
	      "  -c CMD   run CMD once the probes are armed; target() is its pid; the run\n"
	      "           ends when CMD exits\n"
	      "  -x PID   target() is PID\n"
	      "  -L       load the module, start it, and leave it running detached\n"
	      "  -F       like -L, in flight recorder mode: the buffers keep the latest output\n"
	      "  -r N:URI remote_id() is N and remote_uri() URI (stap --remote gives them)\n"
	      "  -A NAME  attach to the detached module NAME and go on with its run\n"
	      "  -d NAME  remove the module NAME\n", stderr);
	exit(1);
}

/* -b MB: decimal digits only (no sign, space, base prefix or suffix), 1 to
 * STP_BUFSIZE_MB_MAX; the caller's own cap is checked later (permissions.c). */
static unsigned long parse_bufsize(const char *arg)
{
	unsigned long mb = 0;
	const char *p;

	for (p = arg; *p >= '0' && *p <= '9' && mb <= STP_BUFSIZE_MB_MAX; p++)
		mb = mb * 10 + (unsigned long)(*p - '0');
	if (p == arg || *p || mb < STP_BUFSIZE_MB_MIN || mb > STP_BUFSIZE_MB_MAX) {
		err("-b needs a buffer size in MB, a number from %d to %d, got \"%s\"",
		    STP_BUFSIZE_MB_MIN, STP_BUFSIZE_MB_MAX, arg);
		exit(1);
	}
	return mb;
}

/* -O OFFSET_US,ERR_US: an optional '-' and 1 to 18 digits, a comma, -1 or 1 to 18 digits. */
static const char *parse_clock_offset(const char *arg)
{
	const char *p = arg + (*arg == '-');
	size_t n = strspn(p, "0123456789");

	if (n >= 1 && n <= 18 && p[n] == ',') {
		p += n + 1;
		n = strspn(p, "0123456789");
		if ((!strcmp(p, "-1")) || (n >= 1 && n <= 18 && !p[n]))
			return arg;
	}
	err("-O needs OFFSET_US,ERR_US (whole numbers of microseconds, ERR_US -1 when unknown), got \"%s\"", arg);
	exit(1);
}

/* -r N:URI: N decimal digits, 0 to REMOTE_ID_MAX; URI 1 to STP_REMOTE_URI_MAX letters, digits and
 * . _ - @ : / [ ] (what stap --remote accepts as a target): nothing that could end the value or
 * start another parameter in the kernel's "a=1 b=x" string. */
static void parse_remote(struct options *o, const char *arg)
{
	long id = 0;
	const char *p, *uri;

	for (p = arg; *p >= '0' && *p <= '9' && id <= REMOTE_ID_MAX; p++)
		id = id * 10 + (*p - '0');
	uri = p + 1;
	if (p == arg || *p != ':' || id > REMOTE_ID_MAX || !*uri || strlen(uri) > STP_REMOTE_URI_MAX ||
	    strspn(uri, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@:/[]") !=
	    strlen(uri)) {
		err("-r needs N:URI, N a number from 0 to %d, URI 1 to %d letters, digits and"
		    " . _ - @ : / [ ], got \"%s\"", REMOTE_ID_MAX, STP_REMOTE_URI_MAX, arg);
		exit(1);
	}
	o->remote_id = id;
	o->remote_uri = uri;
	o->remote = arg;
}

/* '+': options end at MODULE.ko; what follows are module parameters. */
static void parse_args(struct options *o, int argc, char **argv)
{
	int c, i;

	o->remote_id = -1;
	while ((c = getopt(argc, argv, "+vo:b:S:c:x:r:O:LFAdh")) != -1) {
		switch (c) {
		case 'v': verbose++; break;
		case 'o': o->outfile = optarg; break;
		case 'b': o->bufsize = parse_bufsize(optarg); break;
		case 'S': o->size_arg = optarg; break;
		case 'c': o->command = optarg; break;
		case 'x': o->target_pid = optarg; break;
		case 'r': parse_remote(o, optarg); break;
		case 'O': o->clock_offset = parse_clock_offset(optarg); break;
		case 'L': o->detach = 1; break;
		case 'F': o->detach = o->flight = 1; break;
		case 'A': o->attach = 1; break;
		case 'd': o->delete = 1; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if ((o->command && o->target_pid) || o->attach + o->detach + o->delete > 1 ||
	    ((o->attach || o->delete) &&
	     (optind + 1 != argc || o->bufsize || o->command || o->target_pid || o->remote_uri)) ||
	    (o->delete && (o->outfile || o->size_arg)) || (o->detach && o->command))
		usage();
	if (o->detach && (o->outfile || o->size_arg)) {
		err("-L and -F leave the output in the module's buffers: give -o/-S to staprun -A NAME");
		exit(1);
	}
	o->module = argv[optind];
	o->params = argv + optind + 1;
	o->nparams = argc - optind - 1;
	for (i = 0; i < o->nparams; i++) {
		if (!strchr(o->params[i], '=') || o->params[i][0] == '=') {
			err("module parameter \"%s\" is not name=value", o->params[i]);
			exit(1);
		}
	}
}

static void fill_stapio_args(struct stapio_args *a, const struct options *o,
			     const char *stapio, int fd, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->path = stapio;
	a->fd = fd;
	a->name = name;
	a->outfile = o->outfile;
	a->size_arg = o->size_arg;
	a->command = o->command;
	a->target_pid = o->target_pid;
	a->attach = o->attach;
	a->detach = o->detach;
	a->flight = o->flight;
	a->verbose = verbose;
	a->clock_offset = o->clock_offset;
	a->remote = o->remote;
}

/* The module parameters: the user's, then _stp_bufsize=MB for -b, the
 * number staprun parsed and checked (never the argument's text), and for -r N:URI
 * _stp_remote_id=N _stp_remote_uri=URI (both checked by parse_remote). */
static char *build_params(const struct options *o)
{
	char **all = calloc((size_t)o->nparams + 3, sizeof(*all));
	char bufsize[48], remote_id[48], remote_uri[STP_REMOTE_URI_MAX + 32], *params;
	int n = o->nparams;

	if (!all)
		return NULL;
	memcpy(all, o->params, (size_t)o->nparams * sizeof(*all));
	if (o->bufsize) {
		snprintf(bufsize, sizeof(bufsize), "_stp_bufsize=%lu", o->bufsize);
		all[n++] = bufsize;
	}
	if (o->remote_uri) {
		snprintf(remote_id, sizeof(remote_id), "_stp_remote_id=%ld", o->remote_id);
		snprintf(remote_uri, sizeof(remote_uri), "_stp_remote_uri=%s", o->remote_uri);
		all[n++] = remote_id;
		all[n++] = remote_uri;
	}
	params = module_params_join(all, n);
	free(all);
	return params;
}

/* -A NAME and -d NAME: the module is loaded already; id is the run the caller may use. */
static int run_loaded(const struct options *o, const struct run_id *id)
{
	struct stapio_args a;
	char stapio[PATH_MAX];
	int status, fd;

	if (o->delete)
		return run_remove(id) < 0 ? 1 : 0;
	fd = find_stapio(stapio, sizeof(stapio));
	if (fd < 0)
		return 1;
	fill_stapio_args(&a, o, stapio, fd, id->name);
	status = run_stapio(&a);
	close(fd);
	/* stapio never attached (busy, refused, output not opened), or cannot tell: not our run to end */
	if (status == STAPIO_NOT_ATTACHED || status == STAPIO_LOST) {
		err("did not attach to module %s: its run was left as it was (staprun -A %s tries"
		    " again, staprun -d %s removes it)", id->name, id->name, id->name);
		return 1;
	}
	if (run_remove(id) < 0 && status == 0)
		status = 1;
	return status;
}

/* The budget check and the load, under the caller's load lock (a load of theirs started meanwhile
 * waits, then counts this run); mb: -b's, else the module's own size.  0, or -1 after a message. */
static int load_within_budget(const struct options *o, enum privilege priv, int fd, const char *path,
			      const char *name, const struct script_info *script)
{
	unsigned long mb = o->bufsize ? o->bufsize : script->bufsize_mb;
	char *params;
	int lock, rc = -1;

	params = build_params(o);
	if (!params) {
		err("out of memory");
		return -1;
	}
	if (load_lock(priv, &lock) == 0) {
		if (buffers_fit(mb, o->bufsize != 0)) {
			signals_hold();
			rc = module_load(fd, path, name, params);
		}
		load_unlock(lock);
	}
	free(params);
	return rc;
}

/*
 * What the caller's own signal state must not change: SIGCHLD ignored (the SIG_IGN survives
 * exec) makes the kernel reap stapio itself, so waitpid() fails and staprun could not tell a
 * stapio that never attached from a run that ended; signals blocked by the caller would stay
 * blocked in stapio.  Handlers are reset by exec already.
 */
static void signals_reset_inherited(void)
{
	sigset_t none;

	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* After our load: the run we loaded, the module named so that the caller's real uid owns (the
 * runtime takes the owner from finit_module's caller).  -1 after a message: then that module is
 * not ours to touch. */
static int identify_our_load(const char *name, struct run_id *id)
{
	if (run_identify(name, id) == 0 && (uid_t)id->owner == getuid())
		return 0;
	err("module %s was loaded, but is no longer the run started here (it cannot be identified, or"
	    " another user's load has taken the name): left alone", name);
	return -1;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct stapio_args a;
	struct script_info script;
	struct run_id id;
	char stapio[PATH_MAX], path[PATH_MAX];
	char name[64];
	enum privilege priv;
	int status, fd, iofd;

	setuid_init();
	signals_reset_inherited();
	parse_args(&o, argc, argv);
	/* who may do what: man/staprun.8, SAFETY AND SECURITY */
	priv = privilege_of_caller();
	if (priv == PRIV_NONE) {
		privilege_refuse();
		return 1;
	}
	say("the caller is %s", privilege_name(priv));
	if (bpf_object_path(o.module)) {
		/* NAME=VALUE: the script's globals, allowed as a module's parameters are */
		if (bpf_object_allowed(o.module, o.attach || o.delete || o.detach || o.flight || o.bufsize) < 0 ||
		    !params_allowed(priv, o.params, o.nparams))
			return 1;
		iofd = find_stapio(stapio, sizeof(stapio));
		if (iofd < 0)
			return 1;
		fill_stapio_args(&a, &o, stapio, iofd, NULL);
		a.globals = o.params;
		a.nglobals = o.nparams;
		status = bpf_object_run(o.module, priv, &a, name, sizeof(name));
		close(iofd);
		return status == STAPIO_LOST ? 1 : status;
	}
	if (o.attach || o.delete)
		return loaded_module_allowed(o.module, &id, o.attach ? "attach to" : "remove")
			? run_loaded(&o, &id) : 1;
	if (module_locate(o.module, path, sizeof(path)) < 0)
		return 1;
	if (module_name_from_path(path, name, sizeof(name)) < 0) {
		err("cannot load module %s: a module file is named NAME.ko, NAME being 1 to %d"
		    " letters, digits, '_' or '-'", o.module, MODULE_NAME_MAX);
		return 1;
	}
	if (!params_allowed(priv, o.params, o.nparams))
		return 1;
	if (o.bufsize && !bufsize_allowed(priv, o.bufsize))
		return 1;
	/* before loading anything: a module without its reader would be stranded */
	iofd = find_stapio(stapio, sizeof(stapio));
	if (iofd < 0)
		return 1;
	fd = module_open(path, priv, "module");
	if (fd < 0)
		return 1;
	if (module_verify(fd, path, name, &script) < 0) {
		close(fd);
		return 1;
	}
	status = load_within_budget(&o, priv, fd, path, name, &script);
	close(fd);
	if (status < 0 || identify_our_load(name, &id) < 0)
		return 1;
	fill_stapio_args(&a, &o, stapio, iofd, name);
	a.script = script.name[0] ? script.name : NULL;
	a.script_sha256 = script.sha256[0] ? script.sha256 : NULL;
	status = run_stapio(&a);
	close(iofd);
	if (status == STAPIO_LOST)
		status = 1;
	if (o.detach && status == 0) {
		fprintf(stderr, "Disconnected from module %s, which keeps running%s.\n"
			"Reattach with: staprun -A %s    Remove with: staprun -d %s\n",
			name, o.flight ? " in flight recorder mode" : "", name, name);
		return 0;
	}
	if (run_remove(&id) < 0 && status == 0)
		status = 1;
	return status;
}
