/* trace.c - the per-CPU trace files /proc/systemtap/<name>/traceN (read side of the rings).
 * Used by stapio, which polls and reads them; woken by transport.c's periodic worker. */

/*
 * read() never blocks: it returns whole records (0 when the ring is empty,
 * -EINVAL when count cannot hold the next record; see STP_REC_MAX_LEN).
 * poll() reports EPOLLIN while the ring holds data; since the write path may
 * not wake anybody, sleepers are woken by the worker every STP_WAKE_MS.
 */

static DECLARE_WAIT_QUEUE_HEAD(stp_data_wait);

/*
 * An open trace file pins the module: a poller sleeping on stp_data_wait
 * (module memory) must never outlive it, and proc_remove() only waits for
 * file operations in progress, not for sleeping pollers.
 */
static int stp_trace_open(struct inode *inode, struct file *file)
{
	if (!try_module_get(THIS_MODULE))
		return -ENODEV;
	file->private_data = pde_data(inode);
	return nonseekable_open(inode, file);
}

static int stp_trace_release(struct inode *inode, struct file *file)
{
	module_put(THIS_MODULE);
	return 0;
}

static ssize_t stp_trace_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	return stp_ring_read(file->private_data, buf, count);
}

static __poll_t stp_trace_poll(struct file *file, struct poll_table_struct *wait)
{
	struct stp_ring *r = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &stp_data_wait, wait);
	if (stp_ring_pending(r))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(stp_transport_dying))
		mask |= EPOLLHUP;
	return mask;
}

static const struct proc_ops stp_trace_ops = {
	.proc_open	= stp_trace_open,
	.proc_release	= stp_trace_release,
	.proc_read	= stp_trace_read,
	.proc_poll	= stp_trace_poll,
	.proc_lseek	= noop_llseek,
};
