/* control.c - the control file /proc/systemtap/<name>/.cmd: commands in, message lines out.
 * Used by stapio (start/stop/attach..., reads messages) and by transport.c (worker, module exit). */

/*
 * Session states.  Transitions happen under stp_msg_lock, so the worker's
 * "exit" and "lost" lines can never be queued before "started" or after
 * "stopped".  Commands are serialized by stp_cmd_lock.  Whoever moves the
 * session from RUNNING to STOPPING owns the end of the run (stp_ctl_finish):
 * the stop worker (after "stop"), the release of the control file (channel
 * gone), or module exit (rmmod).
 */
enum stp_session_state {
	STP_SESSION_IDLE,	/* loaded, nobody said start yet */
	STP_SESSION_STARTING,	/* inside stp_session_start() */
	STP_SESSION_RUNNING,	/* "started" queued, probes armed */
	STP_SESSION_STOPPING,	/* disarming, draining, end probes */
	STP_SESSION_STOPPED,	/* stopped (or never started); final */
	STP_SESSION_FAILED,	/* stp_session_start() failed; final */
};

#define STP_MSG_BUF_BYTES	4096	/* queued, unread message lines */
#define STP_MSG_LINE_MAX	256	/* longer lines are truncated */
#define STP_CMD_MAX		32	/* longest command write accepted */
#define STP_CMD_WAIT_MS		100	/* longest sleep in a .cmd read */
#define STP_DRAIN_MS		2000	/* wait for the reader to empty the rings */
#define STP_UNLOAD_WAIT_MS	5000	/* rmmod: wait for the reader to finish */

static DEFINE_MUTEX(stp_cmd_lock);	/* serializes commands and release */
static DEFINE_MUTEX(stp_msg_lock);	/* message queue, stp_session_state */
static DECLARE_WAIT_QUEUE_HEAD(stp_msg_wait);
static char stp_msg_buf[STP_MSG_BUF_BYTES];
static size_t stp_msg_len;
static enum stp_session_state stp_session_state = STP_SESSION_IDLE;
static bool stp_exit_sent;		/* "exit" queued already */
static bool stp_error_sent;		/* an "error" line queued while starting */
static bool stp_detached;		/* "detach": closing the file keeps the run going */
static bool stp_detach_flight;		/* ... in flight recorder mode */
static bool stp_unloading;		/* module exit began: no more commands */
static atomic_t stp_ctl_users = ATOMIC_INIT(0);
static struct work_struct stp_stop_work;

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

/* A reader is attached and will empty the rings. */
static bool stp_ctl_reader_attached(void)
{
	return atomic_read(&stp_ctl_users) && !READ_ONCE(stp_detached);
}

/* Queue line only while the session runs (worker messages).  Returns true if queued. */
static bool stp_ctl_send_if_running(const char *line)
{
	bool queued = false;

	mutex_lock(&stp_msg_lock);
	if (stp_session_state == STP_SESSION_RUNNING) {
		stp_msg_append_locked(line);
		queued = true;
	}
	mutex_unlock(&stp_msg_lock);
	if (queued)
		wake_up_interruptible(&stp_msg_wait);
	return queued;
}

/* Called by the worker once an exit was requested: queue "exit" once, and
 * only while the session runs (a request made during start waits for it). */
static void stp_ctl_exit_requested(void)
{
	if (!READ_ONCE(stp_exit_sent) && stp_ctl_send_if_running(STP_MSG_EXIT))
		WRITE_ONCE(stp_exit_sent, true);
}

/* Called by the worker about once a second: "lost L B" when more was dropped. */
static void stp_ctl_report_loss(void)
{
	static unsigned long reported;
	unsigned long records, bytes;
	char line[64];

	stp_rings_lost(&records, &bytes);
	if (records == reported || !stp_ctl_reader_attached())
		return;
	snprintf(line, sizeof(line), "%s %lu %lu", STP_MSG_LOST, records, bytes);
	if (stp_ctl_send_if_running(line))
		reported = records;
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

/* "stopped L B E O": all output is in the rings.  Final state. */
static void stp_ctl_send_stopped(void)
{
	unsigned long records, bytes;
	char line[96];

	stp_rings_lost(&records, &bytes);
	snprintf(line, sizeof(line), "%s %lu %lu %lu %lu", STP_MSG_STOPPED, records,
		 bytes, stp_session_errors(), stp_rings_overwritten());
	mutex_lock(&stp_msg_lock);
	if (stp_session_state != STP_SESSION_FAILED)
		stp_session_state = STP_SESSION_STOPPED;
	stp_msg_append_locked(line);
	mutex_unlock(&stp_msg_lock);
	wake_up_interruptible(&stp_msg_wait);
}

/* RUNNING -> STOPPING; true if the caller now owns the end of the run. */
static bool stp_ctl_claim_stop(void)
{
	bool claimed;

	mutex_lock(&stp_msg_lock);
	claimed = stp_session_state == STP_SESSION_RUNNING;
	if (claimed)
		stp_session_state = STP_SESSION_STOPPING;
	mutex_unlock(&stp_msg_lock);
	return claimed;
}

/* Wait (bounded) until an attached reader has emptied every ring. */
static void stp_ctl_wait_drained(void)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(STP_DRAIN_MS);

	while (stp_ctl_reader_attached() && stp_rings_any_pending() &&
	       time_before(jiffies, deadline)) {
		wake_up_interruptible(&stp_msg_wait);
		msleep(10);
	}
}

/*
 * The end of a run: disarm the probes, let the reader empty the rings (so
 * the end probes find room however full a flood left them), run the end
 * probes, then say "stopped".  Process context; the caller claimed the stop.
 */
static void stp_ctl_finish(void)
{
	stp_session_disarm();
	stp_ctl_wait_drained();
	stp_session_end();
	stp_ctl_send_stopped();
}

static void stp_stop_fn(struct work_struct *work)
{
	stp_ctl_finish();
}

/* "stop": answered by "stopped" once the worker has ended the run (at once
 * if no session runs); stapio keeps reading the rings meanwhile. */
static int stp_ctl_stop(void)
{
	enum stp_session_state state;

	if (stp_ctl_claim_stop()) {
		queue_work(system_long_wq, &stp_stop_work);
		return 0;
	}
	mutex_lock(&stp_msg_lock);
	state = stp_session_state;
	mutex_unlock(&stp_msg_lock);
	if (state != STP_SESSION_STOPPING)
		stp_ctl_send_stopped();
	return 0;
}

static int stp_ctl_target(const char *arg)
{
	long pid;

	if (kstrtol(arg, 10, &pid) || pid <= 0 || pid > PID_MAX_LIMIT)
		return -EINVAL;
	if (READ_ONCE(stp_session_state) != STP_SESSION_IDLE)
		return -EBUSY;
	stp_session_set_target(pid);
	return 0;
}

/* "tz <seconds west of UTC> <name>": the local time zone of stapio's user, before start. */
static int stp_ctl_tz(const char *arg)
{
	char buf[STP_CMD_MAX], *name;
	long gmtoff;

	strscpy(buf, arg, sizeof(buf));
	name = strchr(buf, ' ');
	if (!name)
		return -EINVAL;
	*name++ = 0;
	if (kstrtol(buf, 10, &gmtoff) || gmtoff < -86400 || gmtoff > 86400 || !*name || strchr(name, ' '))
		return -EINVAL;
	if (READ_ONCE(stp_session_state) != STP_SESSION_IDLE)
		return -EBUSY;
	stp_session_set_tz(gmtoff, name);
	return 0;
}

/* "detach [flight]": the run goes on when the reader closes the file. */
static int stp_ctl_detach(bool flight)
{
	if (READ_ONCE(stp_session_state) != STP_SESSION_RUNNING)
		return -EINVAL;
	WRITE_ONCE(stp_detach_flight, flight);
	WRITE_ONCE(stp_detached, true);
	stp_transport_send(STP_MSG_DETACHED);
	return 0;
}

/* "attach": a new reader takes over a detached run.  "attached F": records
 * with seq <= F missing from the rings were discarded by the flight recorder. */
static int stp_ctl_attach(void)
{
	char line[64];
	u64 floor;

	if (!READ_ONCE(stp_detached))
		return -EINVAL;
	floor = stp_rings_overwrite_off();
	WRITE_ONCE(stp_detached, false);
	snprintf(line, sizeof(line), "%s %llu", STP_MSG_ATTACHED, (unsigned long long)floor);
	stp_transport_send(line);
	return 0;
}

/*
 * One opener at a time.  Open files do not pin the module: rmmod ends the
 * run (stp_ctl_unload) and procfs waits for operations in flight.
 */
static int stp_ctl_open(struct inode *inode, struct file *file)
{
	if (atomic_cmpxchg(&stp_ctl_users, 0, 1) != 0)
		return -EBUSY;
	return nonseekable_open(inode, file);
}

/*
 * The channel is gone.  Detached: the run goes on (a flight recorder starts
 * overwriting).  Otherwise (stapio exited or died) end the run now; there is
 * nobody left to read the rings.
 */
static int stp_ctl_release(struct inode *inode, struct file *file)
{
	mutex_lock(&stp_cmd_lock);
	atomic_set(&stp_ctl_users, 0);
	if (READ_ONCE(stp_detached)) {
		if (READ_ONCE(stp_detach_flight))
			stp_rings_overwrite_on();
	} else if (stp_ctl_claim_stop()) {
		stp_ctl_finish();
	}
	mutex_unlock(&stp_cmd_lock);
	return 0;
}

static int stp_ctl_command(const char *cmd)
{
	if (READ_ONCE(stp_unloading))
		return -ENODEV;
	if (!strcmp(cmd, STP_CMD_START))
		return stp_ctl_start();
	if (!strcmp(cmd, STP_CMD_STOP))
		return stp_ctl_stop();
	if (!strncmp(cmd, STP_CMD_TARGET " ", strlen(STP_CMD_TARGET " ")))
		return stp_ctl_target(cmd + strlen(STP_CMD_TARGET " "));
	if (!strncmp(cmd, STP_CMD_TZ " ", strlen(STP_CMD_TZ " ")))
		return stp_ctl_tz(cmd + strlen(STP_CMD_TZ " "));
	if (!strcmp(cmd, STP_CMD_DETACH))
		return stp_ctl_detach(false);
	if (!strcmp(cmd, STP_CMD_DETACH " " STP_CMD_FLIGHT))
		return stp_ctl_detach(true);
	if (!strcmp(cmd, STP_CMD_ATTACH))
		return stp_ctl_attach();
	return -EINVAL;
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
	rc = stp_ctl_command(strim(cmd));
	mutex_unlock(&stp_cmd_lock);
	return rc ? rc : count;
}

static bool stp_ctl_wakeup(void)
{
	return READ_ONCE(stp_msg_len) != 0 || READ_ONCE(stp_transport_dying) ||
	       stp_rings_any_pending();
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

/*
 * Returns whole queued lines (-EINVAL if count cannot hold the first), or 0
 * once the module is being removed and nothing is left.  With nothing queued
 * it sleeps until a line is queued, a ring holds data or STP_CMD_WAIT_MS
 * pass, then fails with -EAGAIN (at once under O_NONBLOCK): this read is
 * where stapio waits for anything to do.
 */
static ssize_t stp_ctl_read(struct file *file, char __user *buf,
			    size_t count, loff_t *ppos)
{
	ssize_t ret;
	size_t n;
	long left;

	mutex_lock(&stp_msg_lock);
	if (!stp_msg_len && !READ_ONCE(stp_transport_dying)) {
		mutex_unlock(&stp_msg_lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		left = wait_event_interruptible_timeout(stp_msg_wait, stp_ctl_wakeup(),
							msecs_to_jiffies(STP_CMD_WAIT_MS));
		if (left < 0)
			return -ERESTARTSYS;
		mutex_lock(&stp_msg_lock);
		if (!stp_msg_len && !READ_ONCE(stp_transport_dying)) {
			mutex_unlock(&stp_msg_lock);
			return -EAGAIN;
		}
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

static const struct proc_ops stp_ctl_ops = {
	.proc_open	= stp_ctl_open,
	.proc_release	= stp_ctl_release,
	.proc_read	= stp_ctl_read,
	.proc_write	= stp_ctl_write,
	.proc_lseek	= noop_llseek,
};

static void stp_ctl_init(void)
{
	INIT_WORK(&stp_stop_work, stp_stop_fn);
}

/*
 * Module exit (rmmod, or staprun removing the module after the run): end a
 * running session the normal way (the attached reader drains the rings and
 * gets "stopped"), then give the reader a bounded time to finish and close.
 */
static void stp_ctl_unload(void)
{
	enum stp_session_state state;
	unsigned long deadline;
	bool claimed;

	mutex_lock(&stp_cmd_lock);
	WRITE_ONCE(stp_unloading, true);
	state = READ_ONCE(stp_session_state);
	claimed = stp_ctl_claim_stop();
	mutex_unlock(&stp_cmd_lock);
	if (claimed) {
		stp_transport_send(STP_MSG_UNLOADING);
		stp_ctl_finish();
	}
	flush_work(&stp_stop_work);
	if (!claimed && state != STP_SESSION_STOPPING)
		return;		/* no run ended just now: nobody to wait for */
	deadline = jiffies + msecs_to_jiffies(STP_UNLOAD_WAIT_MS);
	while (stp_ctl_reader_attached() && time_before(jiffies, deadline)) {
		wake_up_interruptible(&stp_msg_wait);
		msleep(10);
	}
}
