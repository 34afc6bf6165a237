/* procfs.c - procfs("NAME").read/.write probes: files in /proc/systemtap/MODULE/ whose reads and
 * writes run a probe in the reader's or writer's process context.  Included by generated code. */
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/mutex.h>
#include <linux/fs.h>

/* The read buffer of a file without .maxsize(N), including the NUL: any string value fits. */
#ifndef STP_PROCFS_BUFSIZE
#define STP_PROCFS_BUFSIZE MAXSTRINGLEN
#endif
#if STP_PROCFS_BUFSIZE < 1 || STP_PROCFS_BUFSIZE > (1 << 20) + 1
#error "STP_PROCFS_BUFSIZE must be between 1 and 1048577"
#endif

/* A write takes at most this many bytes (the longest string $value holds); a longer one fails
 * with EFBIG and runs no probe. */
#define STP_PROCFS_WRITE_MAX (MAXSTRINGLEN - 1)

/*
 * One file: its probes, its mode and its buffer, allocated when the session starts.  A read at
 * offset 0 runs the read probe, which fills the buffer through $value; the open file keeps a copy
 * (struct stp_procfs_snap), which that read and the later ones at offsets > 0 return, so a reader
 * reading in pieces gets one whole value whatever other readers do.  A write puts the bytes
 * written in the buffer and runs the write probe, whose $value they are.  A read or write whose
 * probe hit was skipped fails with EAGAIN (stp_procfs_run): nothing is lost quietly, and a read
 * keeps the open file's copy as it was.  lock serializes the file's reads and writes (process
 * context, outside any probe handler), so a handler has the buffer to itself.  It reaches it as value (c->entry_data), a string
 * destination, through core/context.h's stp_procfs_* (the handlers come before this file).
 */
struct stp_procfs_file {
	const char *path;                    /* under /proc/systemtap/MODULE/ */
	const struct stp_probe_desc *read;   /* NULL: no read probe */
	const struct stp_probe_desc *write;  /* NULL: no write probe */
	umode_t mode;
	unsigned int maxsize;                /* bytes a read returns at most */
	struct mutex lock;
	char *buf;                           /* size + 1 bytes, NUL-terminated */
	unsigned int size;                   /* max(maxsize, STP_PROCFS_WRITE_MAX with a write probe) */
	struct stp_out value;                /* buf as $value: value.len bytes, at most value.cap */
	struct proc_dir_entry *pde;
};

/* An open file's copy of the value its last read at offset 0 produced (file->private_data);
 * allocated by that read (process context, outside the handler), freed at release. */
struct stp_procfs_snap {
	size_t len;
	char data[];
};

/* A subdirectory a NAME with '/' needs ("a" for "a/f"), parents before children. */
struct stp_procfs_dir {
	const char *path;
	struct proc_dir_entry *pde;
};

/* Runs d with the file's buffer as $value: 0 when its handler ran (a script error in it is
 * reported as any hit's); -EAGAIN when the hit was skipped (counted: a global's lock held past
 * MAXTRYLOCK attempts, as by a descheduled vCPU under TCG), so that the reader or writer knows the
 * script never saw the call and may try again, rather than get an empty value or lose its write;
 * -EIO when the session is not running (starting, or ending: the file is about to go). */
static int stp_procfs_run(struct stp_procfs_file *pf, const struct stp_probe_desc *d)
{
	enum stp_hit hit;

	if (atomic_read(&stp_run_state) != STP_RUNNING)
		return -EIO;
	preempt_disable();
	hit = stp_run_probe_data(d, NULL, &pf->value);
	preempt_enable();
	switch (hit) {
	case STP_HIT_RAN:
	case STP_HIT_FAILED:
		return 0;
	case STP_HIT_SKIPPED:
		return -EAGAIN;
	default:
		return -EIO;
	}
}

/* Runs the read probe and replaces the open file's copy of the value.  pf->lock held. */
static int stp_procfs_fill(struct stp_procfs_file *pf, struct file *file)
{
	struct stp_procfs_snap *snap;
	int rc;

	stp_out_init_str(&pf->value, pf->buf, pf->maxsize + 1);
	stp_out_end_str(&pf->value);
	rc = stp_procfs_run(pf, pf->read);
	if (rc)
		return rc;
	snap = kvmalloc(struct_size(snap, data, pf->value.len), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	snap->len = pf->value.len;
	memcpy(snap->data, pf->buf, snap->len);
	kvfree(file->private_data);
	file->private_data = snap;
	return 0;
}

static ssize_t stp_procfs_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct stp_procfs_file *pf = pde_data(file_inode(file));
	struct stp_procfs_snap *snap;
	ssize_t rc = 0;

	if (!pf->read)
		return -EINVAL;
	if (mutex_lock_interruptible(&pf->lock))
		return -ERESTARTSYS;
	if (*ppos == 0 || !file->private_data)
		rc = stp_procfs_fill(pf, file);
	snap = file->private_data;
	if (!rc)
		rc = simple_read_from_buffer(ubuf, count, ppos, snap->data, snap->len);
	mutex_unlock(&pf->lock);
	return rc;
}

/* Called at close, or by proc_remove for a file still open when the run ends. */
static int stp_procfs_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	file->private_data = NULL;
	return 0;
}

static ssize_t stp_procfs_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	struct stp_procfs_file *pf = pde_data(file_inode(file));
	ssize_t rc = -EFAULT;

	if (!pf->write)
		return -EINVAL;
	if (count > STP_PROCFS_WRITE_MAX)
		return -EFBIG;
	if (mutex_lock_interruptible(&pf->lock))
		return -ERESTARTSYS;
	stp_out_init_str(&pf->value, pf->buf, pf->size + 1);
	if (!copy_from_user(pf->buf, ubuf, count)) {
		pf->value.len = count;
		stp_out_end_str(&pf->value);
		rc = stp_procfs_run(pf, pf->write);
	}
	pf->value.len = 0;
	stp_out_end_str(&pf->value);
	mutex_unlock(&pf->lock);
	if (rc)
		return rc;
	*ppos += count;
	return count;
}

static const struct proc_ops stp_procfs_ops = {
	.proc_read	= stp_procfs_read,
	.proc_write	= stp_procfs_write,
	.proc_release	= stp_procfs_release,
	.proc_lseek	= default_llseek,
};

/* Removes what stp_procfs_start created, files before the directories holding them.  proc_remove
 * waits for reads and writes in flight, releases the files still open and fails their later
 * operations with EIO, so buf can go after it. */
static void stp_procfs_stop(struct stp_procfs_file *files, unsigned int n, struct stp_procfs_dir *dirs)
{
	unsigned int i, nd = 0;

	for (i = n; i-- > 0;) {
		proc_remove(files[i].pde);
		files[i].pde = NULL;
		kvfree(files[i].buf);
		files[i].buf = NULL;
	}
	while (dirs[nd].path)
		nd++;
	while (nd-- > 0) {
		proc_remove(dirs[nd].pde);
		dirs[nd].pde = NULL;
	}
}

/* Creates the directories and files in the transport's /proc/systemtap/MODULE (stp_proc_dir),
 * owned by the user who loaded the module (transport/procfs.c, stp_proc_own). */
static int stp_procfs_start(struct stp_procfs_file *files, unsigned int n, struct stp_procfs_dir *dirs)
{
	const char *what = NULL;
	unsigned int i;

	if (!stp_proc_dir)
		return -ENOENT;
	for (i = 0; dirs[i].path; i++) {
		what = dirs[i].path;
		dirs[i].pde = proc_mkdir_mode(what, 0500, stp_proc_dir);
		if (!dirs[i].pde)
			goto fail;
		stp_proc_own(dirs[i].pde);	/* the run's owner's, as stp_proc_dir */
	}
	for (i = 0; i < n; i++) {
		struct stp_procfs_file *pf = &files[i];

		what = pf->path;
		mutex_init(&pf->lock);
		pf->size = max_t(unsigned int, pf->read ? pf->maxsize : 0, pf->write ? STP_PROCFS_WRITE_MAX : 0);
		pf->buf = kvzalloc(pf->size + 1, GFP_KERNEL);
		if (!pf->buf)
			goto fail;
		stp_out_init_str(&pf->value, pf->buf, pf->size + 1);
		pf->pde = proc_create_data(pf->path, pf->mode, stp_proc_dir, &stp_procfs_ops, pf);
		if (!pf->pde)
			goto fail;
		stp_proc_own(pf->pde);
	}
	return 0;
fail:
	pr_err("%s: cannot create /proc/%s/%s/%s\n", STP_MODULE_NAME, STP_PROC_ROOT, STP_MODULE_NAME, what);
	stp_procfs_stop(files, n, dirs);
	return -ENOMEM;
}

#define STP_PROCFS_FAMILY(files, dirs)						\
	static int stp_procfs_register(void)					\
	{									\
		return stp_procfs_start(files, ARRAY_SIZE(files), dirs);	\
	}									\
	static void stp_procfs_unregister(void)					\
	{									\
		stp_procfs_stop(files, ARRAY_SIZE(files), dirs);		\
	}
