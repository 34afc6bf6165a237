/* permissions.c - who may do what with staprun: root, groups stapdev and stapusr, and where stapusr's modules must be.
 * Used by staprun/main.c; the model is documented in man/staprun.8 (SAFETY AND SECURITY). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "staprun.h"
#include "../common/fileline.h"

static int in_group(const char *group)
{
	struct group *g = getgrnam(group);
	gid_t gid, *list;
	int n, i, found = 0;

	if (!g)
		return 0;
	gid = g->gr_gid;
	if (getgid() == gid)
		return 1;
	n = getgroups(0, NULL);
	if (n <= 0)
		return 0;
	list = calloc((size_t)n, sizeof(*list));
	if (!list)
		return 0;
	n = getgroups(n, list);
	for (i = 0; i < n && !found; i++)
		found = list[i] == gid;
	free(list);
	return found;
}

/* The real uid and groups count, never the privileges of a setuid staprun. */
enum privilege privilege_of_caller(void)
{
	if (getuid() == 0)
		return PRIV_ROOT;
	if (in_group("stapdev"))
		return PRIV_DEV;
	if (in_group("stapusr"))
		return PRIV_USR;
	return PRIV_NONE;
}

const char *privilege_name(enum privilege p)
{
	switch (p) {
	case PRIV_ROOT: return "root";
	case PRIV_DEV: return "a member of stapdev";
	case PRIV_USR: return "a member of stapusr";
	default: return "not privileged";
	}
}

/* /lib/modules/RELEASE/systemtap, where stapusr's modules must be: the release the kernel
 * says, never uname()'s, which the caller can change (setarch --uname-2.6). */
void systemtap_dir(char *buf, size_t size)
{
	char release[256];

	if (kernel_release(release, sizeof(release)) < 0)
		snprintf(release, sizeof(release), "unknown");
	snprintf(buf, size, "/lib/modules/%s/systemtap", release);
}

void privilege_refuse(void)
{
	char dir[PATH_MAX];

	systemtap_dir(dir, sizeof(dir));
	err("you are not allowed to run stap modules: that takes root, or membership in group"
	    " stapdev (any module built by stap) or stapusr (modules installed in %s)", dir);
}

/* A bare NAME (no '/', no .ko) stands for NAME.ko in the systemtap directory. */
int module_locate(const char *arg, char *path, size_t size)
{
	size_t len = strlen(arg);
	int n;

	if (strchr(arg, '/') || (len > 3 && !strcmp(arg + len - 3, ".ko")))
		n = snprintf(path, size, "%s", arg);
	else {
		char dir[PATH_MAX];
		systemtap_dir(dir, sizeof(dir));
		n = snprintf(path, size, "%s/%s.ko", dir, arg);
	}
	if (n < 0 || (size_t)n >= size) {
		err("module path too long: %s", arg);
		return -1;
	}
	return 0;
}

static int dir_trusted(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Each directory on the way to real[0..len), a path without symbolic links,
 * must be root's alone: "/", every prefix ending before a '/', and
 * real[0..len) itself.  Returns the first that is not, or NULL. */
static const char *untrusted_dir(const char *real, size_t len)
{
	static char dir[PATH_MAX];
	size_t i;

	if (len >= sizeof(dir) || real[0] != '/')
		return real;
	if (!dir_trusted("/"))
		return "/";
	for (i = 2; i <= len; i++) {
		if (i < len && real[i] != '/')
			continue;
		memcpy(dir, real, i);
		dir[i] = '\0';
		if (!dir_trusted(dir))
			return dir;
	}
	return NULL;
}

/* stapusr: the file open on fd must be a regular file inside the systemtap
 * directory, root's alone, as every directory above it.  The checks are
 * made on the open file (its fstat, and its path as /proc/self/fd tells),
 * so renaming or relinking things meanwhile cannot fool them. */
static const char *not_installed(int fd, const char *dir)
{
	static char why[PATH_MAX + 64];
	char base[PATH_MAX], real[PATH_MAX], link[64];
	struct stat st, lst;
	const char *bad;
	ssize_t n;
	size_t blen;
	char *slash;

	if (!realpath(dir, base))
		return "there is no such directory";
	if ((bad = untrusted_dir(base, strlen(base)))) {
		snprintf(why, sizeof(why), "directory %s is not root's alone", bad);
		return why;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return "it is not a regular file";
	if (st.st_uid != 0)
		return "it is not owned by root";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return "it is writable by group or others";
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n < 0)
		return "cannot tell where it is (is /proc mounted?)";
	real[n] = '\0';
	blen = strlen(base);
	if (strncmp(real, base, blen) || real[blen] != '/') {
		snprintf(why, sizeof(why), "it is %s", real);
		return why;
	}
	slash = strrchr(real, '/');
	if ((bad = untrusted_dir(real, (size_t)(slash - real)))) {
		snprintf(why, sizeof(why), "directory %s is not root's alone", bad);
		return why;
	}
	if (lstat(real, &lst) < 0 || !S_ISREG(lst.st_mode) || lst.st_dev != st.st_dev ||
	    lst.st_ino != st.st_ino)
		return "it changed while it was being checked";
	return NULL;
}

/* Opens the module file (what: "module", or "BPF object") with the caller's access rights: O_NOFOLLOW and the
 * location checks for stapusr.  The fd is what gets loaded. */
int module_open(const char *path, enum privilege p, const char *what)
{
	int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (p == PRIV_USR ? O_NOFOLLOW : 0);
	char dir[PATH_MAX];
	const char *why = NULL;
	struct stat st;
	int fd;

	systemtap_dir(dir, sizeof(dir));
	fd = open_as_caller(path, flags);
	if (fd < 0) {
		if (errno == ELOOP && p == PRIV_USR)
			why = "it is a symbolic link";
		else {
			err("cannot open %s %s: %s", what, path, strerror(errno));
			return -1;
		}
	} else if (p == PRIV_USR) {
		why = not_installed(fd, dir);
	} else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err("cannot load %s %s: not a regular file", what, path);
		close(fd);
		return -1;
	}
	if (why) {
		err("cannot load %s %s: members of stapusr may only run modules installed in %s/,"
		    " where root alone can change them: %s", what, path, dir, why);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int dash(char c)
{
	return c == '-' || c == '_';
}

/* Whether "name=value" param sets the parameter name, as the kernel's parameq() compares
 * names: '-' and '_' alike, so "_stp-bufsize=" is "_stp_bufsize=". */
static int param_is(const char *param, const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++)
		if (param[i] != name[i] && !(dash(param[i]) && dash(name[i])))
			return 0;
	return param[i] == '=';
}

/* Module parameters can change what an approved module does: stapusr may
 * set none (-b is fine: staprun makes _stp_bufsize itself, within bounds).
 * Nobody sets the buffer size but through -b, whose size is checked (however
 * the name is spelled: the kernel takes '-' for '_'), and no parameter may hold
 * whitespace or a quote: the kernel splits its parameter string at spaces
 * outside double quotes, so "a=1 _stp_bufsize=4096" would be two. */
int params_allowed(enum privilege p, char **params, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (strpbrk(params[i], " \t\n\v\f\r\"'")) {
			char shown[80];
			size_t k;

			for (k = 0; params[i][k] && k + 1 < sizeof(shown); k++)
				shown[k] = params[i][k] < ' ' || params[i][k] == 127 ? '?' : params[i][k];
			shown[k] = '\0';
			err("module parameter \"%s\" holds whitespace or a quote: give each name=value"
			    " as one argument, without spaces or quotes", shown);
			return 0;
		}
		if (param_is(params[i], "_stp_bufsize")) {
			err("give the buffer size with -b MB, not as the module parameter \"%s\"",
			    params[i]);
			return 0;
		}
	}
	if (p != PRIV_USR || n == 0)
		return 1;
	err("members of stapusr may not set module parameters (\"%s\"): only root and members"
	    " of stapdev may", params[0]);
	return 0;
}

/* The uid that loaded the module: the owner of /proc/systemtap/NAME, which
 * the runtime gives to the real uid of the process that loaded it; its
 * _stp_owner_uid parameter, when there, must say the same.  -1: unknown. */
long module_owner(const char *name)
{
	char path[128], value[32] = "";
	struct stat st;
	FILE *f;
	char *end;
	unsigned long uid;

	module_proc_dir(name, path, sizeof(path));
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return -1;
	snprintf(path, sizeof(path), "/sys/module/%s/parameters/_stp_owner_uid", name);
	f = fopen(path, "re");
	if (!f)
		return (long)st.st_uid;     /* a module without it: its files say */
	if (!fgets(value, sizeof(value), f))
		value[0] = '\0';
	fclose(f);
	errno = 0;
	uid = strtoul(value, &end, 10);
	if (errno || end == value || (*end && *end != '\n') || uid != (unsigned long)st.st_uid)
		return -1;
	return (long)st.st_uid;
}

/*
 * -A NAME and -d NAME: a loaded module built by stap whose run the caller
 * owns: root may attach to and remove any; anyone else only a run they
 * loaded themselves (module_owner).  Dashes are taken as '_', as rmmod does.
 * id gets the run checked (name, owner, load id): what run_remove() will
 * compare again before removing anything.  WHAT is "attach to" or "remove".
 */
int loaded_module_allowed(const char *arg, struct run_id *id, const char *what)
{
	char name[MODULE_NAME_MAX + 2] = "";
	char *p;

	if (strlen(arg) < sizeof(name))
		strcpy(name, arg);
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	if (!module_name_valid(name)) {
		err("bad module name \"%s\": a module name is 1 to %d letters, digits or '_'", arg,
		    MODULE_NAME_MAX);
		return 0;
	}
	if (!module_loaded(name)) {
		err("module %s is not loaded", name);
		return 0;
	}
	if (!module_ours(name)) {
		err("module %s is not a stap module (it has no /proc/systemtap/%s): staprun only"
		    " attaches to and removes modules built by stap", name, name);
		return 0;
	}
	if (run_identify(name, id) < 0) {
		err("may not %s module %s: cannot tell who loaded it or which load it is (its"
		    " _stp_owner_uid or _stp_load_id cannot be read)", what, name);
		return 0;
	}
	if (getuid() == 0 || (uid_t)id->owner == getuid())
		return 1;
	err("may not %s module %s: its run belongs to uid %ld; only that user and root"
	    " may attach to it or remove it", what, name, id->owner);
	return 0;
}

/* Bytes of memory available for new allocations (MemAvailable), 0: unknown. */
static unsigned long long mem_available(void)
{
	unsigned long long kb = 0;

	file_line_number("/proc/meminfo", "MemAvailable: %llu kB", &kb);
	return kb << 10;
}

/* CPUs the kernel may ever bring up (/sys/devices/system/cpu/possible, "0-3,8"):
 * the runtime gives each its own buffer. */
static unsigned long possible_cpus(void)
{
	char buf[1024], *p, *end;
	unsigned long n = 0, lo, hi;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	long conf;

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		for (p = buf; *p >= '0' && *p <= '9'; p = end + (*end == ',')) {
			lo = hi = strtoul(p, &end, 10);
			if (*end == '-')
				hi = strtoul(end + 1, &end, 10);
			if (hi >= lo && hi - lo < 65536)
				n += hi - lo + 1;
		}
	}
	if (n)
		return n;
	conf = sysconf(_SC_NPROCESSORS_CONF);
	return conf > 0 ? (unsigned long)conf : 1;
}

/* The trace buffers of a run of mb MB per CPU: one ring per possible CPU, each of mb rounded up
 * to a power of two (runtime/transport/transport.c), in bytes. */
static unsigned long long rings_bytes(unsigned long mb, unsigned long cpus)
{
	unsigned long long ring = 1;

	while (ring < mb)
		ring <<= 1;
	return (ring << 20) * cpus;
}

/* The trace buffers of the caller's runs loaded now (stap modules in /proc/systemtap whose
 * owner is the caller's real uid), in bytes; *runs gets how many. */
static unsigned long long my_runs_bytes(unsigned long cpus, unsigned *runs)
{
	unsigned long long total = 0;
	char dir[128];
	struct dirent *e;
	DIR *d;

	*runs = 0;
	module_proc_dir("", dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char name[MODULE_NAME_MAX + 1];
		unsigned long mb;

		size_t n = strlen(e->d_name);

		if (n >= sizeof(name) || !module_name_valid(e->d_name))
			continue;
		memcpy(name, e->d_name, n + 1);
		if (module_owner(name) != (long)getuid())
			continue;
		mb = module_bufsize_mb(name);
		total += rings_bytes(mb ? mb : STP_BUFSIZE_MB_MAX, cpus);
		(*runs)++;
	}
	closedir(d);
	return total;
}

/* -b MB: at most BUFSIZE_STAPUSR_MB for stapusr, STP_BUFSIZE_MB_MAX for root and stapdev. */
int bufsize_allowed(enum privilege p, unsigned long mb)
{
	unsigned long cap = p == PRIV_USR ? BUFSIZE_STAPUSR_MB : STP_BUFSIZE_MB_MAX;

	if (mb <= cap)
		return 1;
	err("-b %lu: %s may ask for at most %lu MB per CPU", mb, privilege_name(p), cap);
	return 0;
}

/*
 * One budget for each user, for every load (with -b MB, or the module's own size, mb, when
 * given is 0): the buffers of this run and of the caller's runs loaded already (-L/-F, or going
 * on) must take at most half of the memory they would have without those runs (MemAvailable now
 * plus what those take), so that loading installed modules one after the other adds up.
 * Checked under load_lock(), so that a load of the caller's started meanwhile counts this one.
 */
int buffers_fit(unsigned long mb, int given)
{
	unsigned long long need, mine, avail;
	unsigned long cpus;
	unsigned runs;
	char what[96];

	if (given)
		snprintf(what, sizeof(what), "-b %lu", mb);
	else
		snprintf(what, sizeof(what), "the module's own buffer size, %lu MB (stap -s; -b sets another)", mb);
	cpus = possible_cpus();
	need = rings_bytes(mb, cpus);
	mine = my_runs_bytes(cpus, &runs);
	avail = mem_available();
	if (avail && need + mine > (avail + mine) / 2) {
		if (runs)
			err("%s: the trace buffers would take %llu MB (%llu MB for each of %lu possible"
			    " CPUs), and those of your %u loaded run%s %llu MB: together more than half of"
			    " the %llu MB of memory available without them: give a smaller -b, or end a run",
			    what, need >> 20, need / cpus >> 20, cpus, runs, runs == 1 ? "" : "s", mine >> 20,
			    (avail + mine) >> 20);
		else
			err("%s: the trace buffers would take %llu MB (%llu MB for each of %lu possible"
			    " CPUs), more than half of the %llu MB of memory available: give a smaller -b",
			    what, need >> 20, need / cpus >> 20, cpus, avail >> 20);
		return 0;
	}
	say("%s: %llu MB of trace buffers, %llu MB in %u loaded run%s of yours, %llu MB of memory"
	    " available", what, need >> 20, mine >> 20, runs, runs == 1 ? "" : "s", avail >> 20);
	return 1;
}
