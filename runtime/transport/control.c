/* control.c - the control file /proc/systemtap/<name>/.cmd: commands in, message lines out.
 * Used by stapio (start/stop, reads messages) and by transport.c (exit worker, stp_transport_send). */

/*
 * Session states.  Transitions happen in the .cmd writer's process context
 * under stp_cmd_lock; the ones the exit worker must see are also made under
 * stp_msg_lock, so an "exit" line can never be queued before "started" or
 * after "stopped".
 */
enum stp_session_state {
	STP_SESSION_IDLE,	/* loaded, nobody said start yet */
	STP_SESSION_STARTING,	/* inside stp_session_start() */
	STP_SESSION_RUNNING,	/* "started" queued, probes armed */
	STP_SESSION_STOPPING,	/* inside stp_session_stop() */
	STP_SESSION_STOPPED,	/* stopped (or never started); final */
	STP_SESSION_FAILED,	/* stp_session_start() failed; final */
};

#define STP_MSG_BUF_BYTES	4096	/* queued, unread message lines */
#define STP_MSG_LINE_MAX	256	/* longer lines are truncated */
#define STP_CMD_MAX		16	/* longest command write accepted */

static DEFINE_MUTEX(stp_cmd_lock);	/* serializes commands and release */
static DEFINE_MUTEX(stp_msg_lock);	/* message queue, stp_session_state */
static DECLARE_WAIT_QUEUE_HEAD(stp_msg_wait);
static char stp_msg_buf[STP_MSG_BUF_BYTES];
static size_t stp_msg_len;
static enum stp_session_state stp_session_state = STP_SESSION_IDLE;
static bool stp_exit_sent;		/* "exit" queued already */
static bool stp_error_sent;		/* an "error" line queued while starting */
static atomic_t stp_ctl_users = ATOMIC_INIT(0);

/* Append one line (newline added, embedded newlines flattened).  msg_lock held. */
static void stp_msg_append_locked(const char *line)
{
	size_t len = strnlen(line, STP_MSG_LINE_MAX - 1);
	char *p;

	if (stp_msg_len + len + 1 > sizeof(stp_msg_buf)) {
		pr_warn_ratelimited("%s: control queue full, dropped \"%.*s\"\n",
				    stp_transport_name, (int)len, line);
		return;
	}
	p = stp_msg_buf + stp_msg_len;
	memcpy(p, line, len);
	p[len] = '\n';
	for (; p < stp_msg_buf + stp_msg_len + len; p++)
		if (*p == '\n')
			*p = ' ';
	stp_msg_len += len + 1;
	if (stp_session_state == STP_SESSION_STARTING &&
	    !strncmp(line, STP_MSG_ERROR, strlen(STP_MSG_ERROR)))
		stp_error_sent = true;
}

void stp_transport_send(const char *line)
{
	mutex_lock(&stp_msg_lock);
	stp_msg_append_locked(line);
	mutex_unlock(&stp_msg_lock);
	wake_up_interruptible(&stp_msg_wait);
}

static void stp_session_set_state(enum stp_session_state state)
{
	mutex_lock(&stp_msg_lock);
	stp_session_state = state;
	mutex_unlock(&stp_msg_lock);
}

/* Called by the worker once an exit was requested: queue "exit" once, and
 * only while the session runs (a request made during start waits for it). */
static void stp_ctl_exit_requested(void)
{
	bool queued = false;

	mutex_lock(&stp_msg_lock);
	if (stp_session_state == STP_SESSION_RUNNING && !stp_exit_sent) {
		stp_exit_sent = true;
		stp_msg_append_locked(STP_MSG_EXIT);
		queued = true;
	}
	mutex_unlock(&stp_msg_lock);
	if (queued)
		wake_up_interruptible(&stp_msg_wait);
}

static int stp_ctl_start(void)
{
	char line[64];
	int rc;

	mutex_lock(&stp_msg_lock);
	if (stp_session_state != STP_SESSION_IDLE) {
		mutex_unlock(&stp_msg_lock);
		return -EBUSY;
	}
	stp_session_state = STP_SESSION_STARTING;
	stp_error_sent = false;
	mutex_unlock(&stp_msg_lock);

	rc = stp_session_start();

	mutex_lock(&stp_msg_lock);
	if (rc < 0) {
		stp_session_state = STP_SESSION_FAILED;
		if (!stp_error_sent) {
			snprintf(line, sizeof(line), "%s session start failed (%d)",
				 STP_MSG_ERROR, rc);
			stp_msg_append_locked(line);
		}
	} else {
		stp_msg_append_locked(STP_MSG_STARTED);
		stp_session_state = STP_SESSION_RUNNING;
	}
	mutex_unlock(&stp_msg_lock);
	wake_up_interruptible(&stp_msg_wait);
	return 0;
}

/* Stop a running session; returns true if it was running.  cmd_lock held. */
static bool stp_ctl_stop_session(void)
{
	enum stp_session_state prev;

	mutex_lock(&stp_msg_lock);
	prev = stp_session_state;
	if (prev == STP_SESSION_RUNNING)
		stp_session_state = STP_SESSION_STOPPING;
	mutex_unlock(&stp_msg_lock);
	if (prev != STP_SESSION_RUNNING)
		return false;
	stp_session_stop();
	return true;
}

static int stp_ctl_stop(void)
{
	unsigned long records, bytes;
	char line[64];

	stp_ctl_stop_session();
	stp_rings_lost(&records, &bytes);
	snprintf(line, sizeof(line), "%s %lu %lu %lu", STP_MSG_STOPPED, records, bytes,
		 stp_session_errors());

	mutex_lock(&stp_msg_lock);
	if (stp_session_state != STP_SESSION_FAILED)
		stp_session_state = STP_SESSION_STOPPED;
	stp_msg_append_locked(line);
	mutex_unlock(&stp_msg_lock);
	wake_up_interruptible(&stp_msg_wait);
	return 0;
}

/*
 * One opener at a time.  While open, the module is pinned (proc_ops has no
 * owner), so it cannot be unloaded under a running session or a sleeping
 * poller: rmmod gets EBUSY/EWOULDBLOCK until stapio closes the file.
 */
static int stp_ctl_open(struct inode *inode, struct file *file)
{
	if (atomic_cmpxchg(&stp_ctl_users, 0, 1) != 0)
		return -EBUSY;
	if (!try_module_get(THIS_MODULE)) {
		atomic_set(&stp_ctl_users, 0);
		return -ENODEV;
	}
	return nonseekable_open(inode, file);
}

/*
 * The channel is gone (stapio exited or died): disarm the probes.  Running
 * on after module_put() is safe: module exit's proc_remove() waits for
 * releases in progress.
 */
static int stp_ctl_release(struct inode *inode, struct file *file)
{
	mutex_lock(&stp_cmd_lock);
	if (stp_ctl_stop_session())
		stp_session_set_state(STP_SESSION_STOPPED);
	mutex_unlock(&stp_cmd_lock);
	atomic_set(&stp_ctl_users, 0);
	module_put(THIS_MODULE);
	return 0;
}

static ssize_t stp_ctl_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	char cmd[STP_CMD_MAX];
	int rc;

	if (count == 0 || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, buf, count))
		return -EFAULT;
	cmd[count] = '\0';
	strim(cmd);

	mutex_lock(&stp_cmd_lock);
	if (!strcmp(cmd, STP_CMD_START))
		rc = stp_ctl_start();
	else if (!strcmp(cmd, STP_CMD_STOP))
		rc = stp_ctl_stop();
	else
		rc = -EINVAL;
	mutex_unlock(&stp_cmd_lock);
	return rc ? rc : count;
}

static bool stp_ctl_readable(void)
{
	return READ_ONCE(stp_msg_len) != 0 || READ_ONCE(stp_transport_dying);
}

/* Bytes of the whole lines at the queue's front that fit in count.  msg_lock held. */
static size_t stp_msg_fit_locked(size_t count)
{
	size_t n = 0;
	char *nl;

	while (n < stp_msg_len) {
		nl = memchr(stp_msg_buf + n, '\n', stp_msg_len - n);
		if (!nl || nl - stp_msg_buf + 1 > count)
			break;
		n = nl - stp_msg_buf + 1;
	}
	return n;
}

/* Blocks until a line is queued (or -EAGAIN with O_NONBLOCK); returns whole
 * lines only, -EINVAL if count cannot hold the first one, 0 once the module
 * is being unloaded and nothing is left. */
static ssize_t stp_ctl_read(struct file *file, char __user *buf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret;
	size_t n;

	for (;;) {
		mutex_lock(&stp_msg_lock);
		if (stp_msg_len || READ_ONCE(stp_transport_dying))
			break;
		mutex_unlock(&stp_msg_lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(stp_msg_wait, stp_ctl_readable()))
			return -ERESTARTSYS;
	}
	n = stp_msg_fit_locked(count);
	if (!stp_msg_len)
		ret = 0;
	else if (!n)
		ret = -EINVAL;
	else if (copy_to_user(buf, stp_msg_buf, n))
		ret = -EFAULT;
	else {
		memmove(stp_msg_buf, stp_msg_buf + n, stp_msg_len - n);
		stp_msg_len -= n;
		ret = n;
	}
	mutex_unlock(&stp_msg_lock);
	return ret;
}

static __poll_t stp_ctl_poll(struct file *file, struct poll_table_struct *wait)
{
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &stp_msg_wait, wait);
	if (READ_ONCE(stp_msg_len))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(stp_transport_dying))
		mask |= EPOLLHUP;
	return mask;
}

static const struct proc_ops stp_ctl_ops = {
	.proc_open	= stp_ctl_open,
	.proc_release	= stp_ctl_release,
	.proc_read	= stp_ctl_read,
	.proc_write	= stp_ctl_write,
	.proc_poll	= stp_ctl_poll,
	.proc_lseek	= noop_llseek,
};
