/* bpfprocfs.c - a BPF run's procfs("NAME").read/.write files, served by stapio through FUSE under /run/systemtap/MODULE
 * (a module's are /proc/systemtap/MODULE): a read at offset 0 runs the read probe, a write runs the write probe.  Used by bpfrun.c. */
#define FUSE_USE_VERSION 31
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfglue.h"
#include "../common/log.h"
#include "../runtime/bpf/records.h"

#define PROCFS_ROOT "/run/systemtap"   /* root's: no other user can put anything in its place */

/* One probe's file (a file with both a read and a write probe has two entries of one path). */
struct procfs_file {
	char *path;                 /* under the run's directory, as the script names it */
	int write;                  /* a .write probe, else a .read */
	unsigned mode;              /* its permission bits */
	size_t maxsize;             /* a read's bytes at most */
	int prog_fd;                /* its program, run by BPF_PROG_TEST_RUN */
};

/* What an open file's read at offset 0 got: its later reads continue from it (fi->fh, from the open on). */
struct procfs_snap {
	size_t len;
	char *data;                 /* NULL: no read at offset 0 yet */
};

struct bpf_procfs {
	struct procfs_file *files;
	size_t nfiles;
	int map_fd;                 /* the value the probes read and write (runtime/bpf/procfs.h) */
	size_t value_size;          /* its bytes: MAXSTRINGLEN of the object */
	char *value;                /* a buffer of value_size */
	uid_t uid;                  /* the files' owner: the run's caller */
	gid_t gid;
	struct fuse *fuse;
	struct fuse_session *se;
	struct fuse_buf buf;        /* the request being answered */
	char dir[PATH_MAX];         /* the mount point */
	int helper_fd;              /* the unmounting helper's pipe: it unmounts when this closes */
	pid_t helper;
};

static struct bpf_procfs *me(void)
{
	return fuse_get_context()->private_data;
}

/* The entry of path ("/a/f": FUSE's) with the given direction, or with any when write < 0; NULL when none. */
static struct procfs_file *find_file(struct bpf_procfs *pf, const char *path, int write)
{
	for (size_t i = 0; i < pf->nfiles; i++)
		if (!strcmp(pf->files[i].path, path + 1) && (write < 0 || pf->files[i].write == write))
			return &pf->files[i];
	return NULL;
}

/* Whether path is the root or a directory above some file ("/a" for "a/f"). */
static int is_dir(struct bpf_procfs *pf, const char *path)
{
	size_t n = strlen(path + 1);

	if (!path[1])
		return 1;
	for (size_t i = 0; i < pf->nfiles; i++)
		if (!strncmp(pf->files[i].path, path + 1, n) && pf->files[i].path[n] == '/')
			return 1;
	return 0;
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct bpf_procfs *pf = me();
	struct procfs_file *f;

	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_uid = pf->uid;
	st->st_gid = pf->gid;
	if (is_dir(pf, path)) {
		st->st_mode = S_IFDIR | 0500;   /* as the module's directories */
		st->st_nlink = 2;
		return 0;
	}
	if (!find_file(pf, path, -1))
		return -ENOENT;
	st->st_mode = S_IFREG;
	for (int w = 0; w < 2; w++)
		if ((f = find_file(pf, path, w)) != NULL)
			st->st_mode |= f->mode;
	st->st_nlink = 1;
	return 0;
}

/* The names right under path, each once. */
static int op_readdir(const char *path, void *out, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	struct bpf_procfs *pf = me();
	size_t n = strlen(path + 1);

	(void)off;
	(void)fi;
	(void)flags;
	if (!is_dir(pf, path))
		return -ENOTDIR;
	fill(out, ".", NULL, 0, 0);
	fill(out, "..", NULL, 0, 0);
	for (size_t i = 0; i < pf->nfiles; i++) {
		const char *name = pf->files[i].path + n + (n > 0);
		size_t len = strcspn(name, "/");
		int seen = 0;

		if (n && (strncmp(pf->files[i].path, path + 1, n) || pf->files[i].path[n] != '/'))
			continue;
		for (size_t j = 0; j < i && !seen; j++) {
			const char *other = pf->files[j].path + n + (n > 0);
			seen = (!n || (!strncmp(pf->files[j].path, path + 1, n) && pf->files[j].path[n] == '/')) &&
			       !strncmp(other, name, len) && (other[len] == '/' || !other[len]);
		}
		if (!seen) {
			char entry[NAME_MAX + 1];
			snprintf(entry, sizeof(entry), "%.*s", (int)len, name);
			fill(out, entry, NULL, 0, 0);
		}
	}
	return 0;
}

/* Runs f's probe with the value buffer (pf->value) as its $value before, and into pf->value after: 0, -EAGAIN when
 * its hit was skipped (the script never saw the call), -EIO when it could not run. */
static int run_probe(struct bpf_procfs *pf, const struct procfs_file *f)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	unsigned int zero = 0;

	if (bpf_map_update_elem(pf->map_fd, &zero, pf->value, BPF_ANY) < 0 ||
	    bpf_prog_test_run_opts(f->prog_fd, &opts) < 0) {
		err("procfs file %s: cannot run its probe: %s", f->path, strerror(errno));
		return -EIO;
	}
	if (!opts.retval)
		return -EAGAIN;
	if (bpf_map_lookup_elem(pf->map_fd, &zero, pf->value) < 0)
		return -EIO;
	pf->value[pf->value_size - 1] = 0;
	return 0;
}

/* f's read probe run with $value empty: the bytes of pf->value a read returns (cut at f's maxsize), or run_probe's
 * -errno */
static long read_value(struct bpf_procfs *pf, const struct procfs_file *f)
{
	size_t len;
	int rc;

	pf->value[0] = 0;
	if ((rc = run_probe(pf, f)) < 0)
		return rc;
	len = strlen(pf->value);
	return (long)(len > f->maxsize ? f->maxsize : len);
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	struct procfs_snap *snap;

	if (!find_file(me(), path, -1))
		return -ENOENT;
	if (!(snap = calloc(1, sizeof(*snap))))
		return -ENOMEM;
	fi->direct_io = 1;   /* no page cache: every read reaches op_read */
	fi->fh = (uintptr_t)snap;
	return 0;
}

/* A read at offset 0 runs the read probe and keeps what it set as the open file's copy; reads at later offsets
 * continue in that copy, so a reader reading in pieces gets one whole value. */
static int op_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct bpf_procfs *pf = me();
	struct procfs_file *f = find_file(pf, path, 0);
	struct procfs_snap *snap = (struct procfs_snap *)(uintptr_t)fi->fh;

	if (!f)
		return -EINVAL;   /* no read probe: as the module's file */
	if (off == 0 || !snap->data) {
		long len = read_value(pf, f);
		char *fresh;

		if (len < 0)
			return (int)len;
		if (!(fresh = malloc((size_t)len + 1)))
			return -ENOMEM;
		memcpy(fresh, pf->value, (size_t)len);
		free(snap->data);
		snap->data = fresh;
		snap->len = (size_t)len;
	}
	if (off < 0 || (size_t)off >= snap->len)
		return 0;
	if (size > snap->len - (size_t)off)
		size = snap->len - (size_t)off;
	memcpy(buf, snap->data + off, size);
	return (int)size;
}

/* A write gives its bytes to the write probe as $value: at most MAXSTRINGLEN - 1 (more: EFBIG, and no probe runs). */
static int op_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct bpf_procfs *pf = me();
	struct procfs_file *f = find_file(pf, path, 1);
	int rc;

	(void)off;
	(void)fi;
	if (!f)
		return -EINVAL;   /* no write probe */
	if (size > pf->value_size - 1)
		return -EFBIG;
	memset(pf->value, 0, pf->value_size);
	memcpy(pf->value, buf, size);
	rc = run_probe(pf, f);
	return rc < 0 ? rc : (int)size;
}

/* a shell's `>` opens with O_TRUNC: there is nothing to cut */
static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)size;
	(void)fi;
	return find_file(me(), path, -1) ? 0 : -ENOENT;
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
	struct procfs_snap *snap = (struct procfs_snap *)(uintptr_t)fi->fh;

	(void)path;
	if (snap)
		free(snap->data);
	free(snap);
	return 0;
}

static const struct fuse_operations procfs_ops = {
	.getattr = op_getattr,
	.readdir = op_readdir,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.truncate = op_truncate,
	.release = op_release,
};

/* The object's table (STP_BPF_PROCFS_SECTION) into pf->files: 0, or -1 after a message. */
static int read_table(struct bpf_procfs *pf, struct bpf_object *obj, const char *table, size_t size)
{
	const char *p = table, *end = table + strnlen(table, size);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char kind, prog[64];
		unsigned mode;
		unsigned long long maxsize;
		int at = 0;
		struct procfs_file *f, *more;
		struct bpf_program *bp;

		if (!nl)
			nl = end;
		if (sscanf(p, "%c %o %llu %63s %n", &kind, &mode, &maxsize, prog, &at) != 4 || !at || p + at >= nl ||
		    (kind != 'r' && kind != 'w') || !(bp = bpf_object__find_program_by_name(obj, prog))) {
			err("the object's procfs table is damaged");
			return -1;
		}
		if (!(more = realloc(pf->files, (pf->nfiles + 1) * sizeof(*more))))
			return err("out of memory"), -1;
		pf->files = more;
		f = &pf->files[pf->nfiles++];
		f->path = strndup(p + at, (size_t)(nl - p - at));
		f->write = kind == 'w';
		f->mode = mode & 0666;
		f->maxsize = maxsize && maxsize < pf->value_size ? maxsize : pf->value_size - 1;
		f->prog_fd = bpf_program__fd(bp);
		if (!f->path)
			return err("out of memory"), -1;
		p = nl + 1;
	}
	return 0;
}

/* PROCFS_ROOT/NAME, made if need be: 0, or -1 after a message.  A mount a run killed left there is taken down; one
 * a live run serves is refused. */
static int make_mount_point(struct bpf_procfs *pf, const char *name)
{
	struct stat root, st;

	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(name)) {
		err("cannot serve the procfs files: bad run name \"%s\"", name);
		return -1;
	}
	snprintf(pf->dir, sizeof(pf->dir), "%s/%s", PROCFS_ROOT, name);
	if ((mkdir(PROCFS_ROOT, 0755) < 0 && errno != EEXIST) || lstat(PROCFS_ROOT, &root) < 0 || !S_ISDIR(root.st_mode) ||
	    root.st_uid != 0 || (root.st_mode & 022)) {
		err("cannot serve the procfs files: %s is not a directory only root may change%s%s", PROCFS_ROOT,
		    errno ? ": " : "", errno ? strerror(errno) : "");
		return -1;
	}
	if (lstat(pf->dir, &st) < 0 && errno == ENOTCONN)
		umount2(pf->dir, MNT_DETACH);   /* its server is gone */
	if (mkdir(pf->dir, 0700) < 0 && errno != EEXIST) {
		err("cannot serve the procfs files: cannot make %s: %s", pf->dir, strerror(errno));
		return -1;
	}
	if (lstat(pf->dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) {
		err("cannot serve the procfs files: %s is not root's directory", pf->dir);
		return -1;
	}
	if (st.st_dev != root.st_dev) {
		err("cannot serve the procfs files: %s is served by another run named %s", pf->dir, name);
		return -1;
	}
	return 0;
}

/* A child that unmounts the files when the run ends, however it ends (killed too): it waits for the end of a pipe
 * whose other end only stapio holds.  As root, in a session of its own: the caller's signals do not reach it. */
static int start_helper(struct bpf_procfs *pf)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pf->helper = fork();
	if (pf->helper < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pf->helper == 0) {
		char c;
		int null = open("/dev/null", O_RDWR);

		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if (setresuid(0, 0, 0) < 0 || null < 0)
			_exit(1);
		dup2(null, 0);
		dup2(null, 1);
		/* not the FUSE device, the BPF object's files or the output: only the pipe */
		dup2(p[0], 3);
		close_range(4, ~0U, 0);
		while (read(3, &c, 1) != 0 && errno == EINTR)
			;
		umount2(pf->dir, MNT_DETACH);
		rmdir(pf->dir);
		_exit(0);
	}
	close(p[0]);
	pf->helper_fd = p[1];
	return 0;
}

struct bpf_procfs *bpf_procfs_start(struct bpf_object *obj, const char *name, int *failed)
{
	struct bpf_map *table = bpf_object__find_map_by_name(obj, STP_BPF_PROCFS_SECTION);
	struct bpf_map *value = bpf_object__find_map_by_name(obj, STP_BPF_PROCFS_MAP);
	char *argv[] = { "stapio", "-o", "default_permissions,allow_other,fsname=systemtap", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct bpf_procfs *pf;
	const void *data;
	size_t size = 0;

	*failed = 0;
	if (!table)
		return NULL;
	*failed = 1;
	if (!value || !(data = bpf_map__initial_value(table, &size))) {
		err("the object's procfs files have no value map");
		return NULL;
	}
	if (!(pf = calloc(1, sizeof(*pf)))) {
		err("out of memory");
		return NULL;
	}
	pf->helper_fd = -1;
	pf->map_fd = bpf_map__fd(value);
	pf->value_size = bpf_map__value_size(value);
	pf->uid = getuid();
	pf->gid = getgid();
	if (pf->value_size < 2 || !(pf->value = calloc(1, pf->value_size)) || read_table(pf, obj, data, size) < 0 ||
	    make_mount_point(pf, name) < 0)
		goto fail;
	pf->fuse = fuse_new(&args, &procfs_ops, sizeof(procfs_ops), pf);
	if (!pf->fuse || fuse_mount(pf->fuse, pf->dir) < 0) {
		err("cannot serve the procfs files at %s (FUSE: is /dev/fuse there, and the fuse module loaded?)", pf->dir);
		goto fail;
	}
	pf->se = fuse_get_session(pf->fuse);
	if (start_helper(pf) < 0) {
		err("cannot start the helper unmounting %s: %s", pf->dir, strerror(errno));
		fuse_unmount(pf->fuse);
		goto fail;
	}
	fuse_opt_free_args(&args);
	*failed = 0;
	return pf;
fail:
	fuse_opt_free_args(&args);
	bpf_procfs_stop(pf);
	return NULL;
}

int bpf_procfs_fd(const struct bpf_procfs *pf)
{
	return pf && pf->se ? fuse_session_fd(pf->se) : -1;
}

void bpf_procfs_serve(struct bpf_procfs *pf)
{
	int n = fuse_session_receive_buf(pf->se, &pf->buf);

	if (n > 0)
		fuse_session_process_buf(pf->se, &pf->buf);
}

int bpf_procfs_readable(const struct bpf_procfs *pf, const char *name)
{
	for (size_t i = 0; pf && i < pf->nfiles; i++)
		if (!pf->files[i].write && !strcmp(pf->files[i].path, name))
			return 1;
	return 0;
}

long bpf_procfs_read(struct bpf_procfs *pf, const char *name, char *buf, size_t size)
{
	size_t len;

	for (size_t i = 0; i < pf->nfiles; i++) {
		const struct procfs_file *f = &pf->files[i];
		long got;

		if (f->write || strcmp(f->path, name) || size == 0)
			continue;
		got = read_value(pf, f);
		if (got < 0)
			return -1;
		len = (size_t)got < size - 1 ? (size_t)got : size - 1;
		memcpy(buf, pf->value, len);
		buf[len] = 0;
		return (long)len;
	}
	return -1;
}

void bpf_procfs_unmount(struct bpf_procfs *pf)
{
	if (!pf)
		return;
	/* the helper unmounts (the files' readers then get errors) and is reaped: the files are gone on return */
	if (pf->helper_fd >= 0) {
		close(pf->helper_fd);
		pf->helper_fd = -1;
		while (waitpid(pf->helper, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (pf->fuse)
		fuse_destroy(pf->fuse);
	pf->fuse = NULL;
	pf->se = NULL;
}

void bpf_procfs_stop(struct bpf_procfs *pf)
{
	if (!pf)
		return;
	bpf_procfs_unmount(pf);
	free(pf->buf.mem);
	for (size_t i = 0; i < pf->nfiles; i++)
		free(pf->files[i].path);
	free(pf->files);
	free(pf->value);
	free(pf);
}
