/* trace.c - the per-CPU trace files /proc/systemtap/<name>/traceN (read side of the rings).
 * Used by stapio, which reads them when the control file says data is pending. */

/*
 * read() never blocks: it returns whole records (0 when the ring is empty,
 * -EINVAL when count cannot hold the next record; see STP_REC_MAX_LEN;
 * -EBUSY while a detached flight recorder owns the rings).  There is no
 * poll(): a poller's wait entry would sit on a waitqueue in module memory,
 * which rmmod may free under it.  Readers sleep in read() of the control file
 * instead, which wakes when any ring holds data (control.c).  Open files do
 * not pin the module: procfs waits for operations in flight at removal and
 * fails later ones with EIO.
 */

static int stp_trace_open(struct inode *inode, struct file *file)
{
	file->private_data = pde_data(inode);
	return nonseekable_open(inode, file);
}

static ssize_t stp_trace_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	return stp_ring_read(file->private_data, buf, count);
}

static const struct proc_ops stp_trace_ops = {
	.proc_open	= stp_trace_open,
	.proc_read	= stp_trace_read,
	.proc_lseek	= noop_llseek,
};
