/* module.c - module load/unload and the session: start (begin probes, arm
 * the probe families) and stop (disarm, end probes, summary).  Included last
 * by generated code, after its tables: stp_providers[], stp_globals_init(). */


/* What staprun and stapio learn about the module before running it:
 * stap_transport marks a module built by stap and the control protocol it
 * speaks (docs/transport.md); _stp_bufsize (MB per CPU) is set by staprun -b,
 * its default (stap -s) is stap_bufsize, which staprun counts in the caller's
 * budget when there is no -b; _stp_bulkmode (stap -b) tells stapio to write one
 * file per CPU. */
MODULE_INFO(stap_transport, STP_TRANSPORT_VERSION);
MODULE_INFO(stap_bufsize, __stringify(STP_BUFSIZE_MB));
#ifdef STP_BULKMODE
MODULE_INFO(stap_bulkmode, "1");
static bool stp_bulkmode = true;
#else
static bool stp_bulkmode;
#endif
module_param_named(_stp_bulkmode, stp_bulkmode, bool, 0444);
static unsigned int stp_bufsize_mb = STP_BUFSIZE_MB;
module_param_named(_stp_bufsize, stp_bufsize_mb, uint, 0444);
MODULE_PARM_DESC(_stp_bufsize, "per-CPU trace buffer in MB (1-1024)");

static DEFINE_MUTEX(stp_session_mutex);
static int stp_started;     /* providers armed, in order, so far */

/* Stops the armed providers in reverse order; with keep_end, stops short of
 * the end family (first in stp_providers[], so armed first). */
static void stp_stop_providers(bool keep_end)
{
	while (stp_started > 0) {
		if (keep_end && !strcmp(stp_providers[stp_started - 1].family, "end"))
			break;
		stp_providers[--stp_started].stop();
	}
}

int stp_session_start(void)
{
	int i, rc = 0;

	mutex_lock(&stp_session_mutex);
	if (stp_started || atomic_read(&stp_run_state) != STP_STARTING) {
		mutex_unlock(&stp_session_mutex);
		return -EBUSY;
	}
	for (i = 0; i < ARRAY_SIZE(stp_providers); i++) {
		rc = stp_providers[i].start();
		if (rc) {
			/* no end probes after a failed start */
			atomic_set(&stp_aborted, 1);
			stp_stop_providers(false);
			atomic_set(&stp_run_state, STP_STOPPED);
			break;
		}
		stp_started++;
	}
	if (!rc)
		atomic_cmpxchg(&stp_run_state, STP_STARTING,
			       atomic_read(&stp_exit_called) ? STP_STOPPING : STP_RUNNING);
	mutex_unlock(&stp_session_mutex);
	return rc;
}

/* No probe runs once this returns (unregistering waits for handlers in
 * flight), so the transport can let stapio empty the rings before the end
 * probes write theirs. */
void stp_session_disarm(void)
{
	mutex_lock(&stp_session_mutex);
	if (atomic_read(&stp_run_state) != STP_STOPPED) {
		atomic_set(&stp_run_state, STP_STOPPING);
		stp_stop_providers(true);
	}
	mutex_unlock(&stp_session_mutex);
}

void stp_session_end(void)
{
	mutex_lock(&stp_session_mutex);
	if (atomic_read(&stp_run_state) == STP_STOPPED) {
		mutex_unlock(&stp_session_mutex);
		return;
	}
	atomic_set(&stp_run_state, STP_STOPPING);
	stp_stop_providers(false);
	preempt_disable();
	stp_report_summary();
	preempt_enable();
	atomic_set(&stp_run_state, STP_STOPPED);
	mutex_unlock(&stp_session_mutex);
}

void stp_session_set_target(long pid)
{
	stp_target = pid;
}

void stp_session_set_tz(long gmtoff, const char *name)
{
	stp_tz_gmtoff = gmtoff;
	strscpy(stp_tz_name, name, sizeof(stp_tz_name));
}

static int __init stp_module_init(void)
{
	int rc;

	if (stp_bufsize_mb < STP_BUFSIZE_MB_MIN || stp_bufsize_mb > STP_BUFSIZE_MB_MAX) {
		pr_err("%s: _stp_bufsize=%u: the buffer size must be %d to %d MB\n",
		       STP_MODULE_NAME, stp_bufsize_mb, STP_BUFSIZE_MB_MIN, STP_BUFSIZE_MB_MAX);
		return -EINVAL;
	}
	rc = stp_contexts_alloc(STP_FRAME_SIZE);
	if (!rc)
		rc = stp_globals_init();
	if (!rc)
		rc = stp_transport_init(STP_MODULE_NAME, (unsigned long)stp_bufsize_mb << 20);
	if (rc) {
		pr_err("%s: cannot load: error %d\n", STP_MODULE_NAME, rc);
		stp_globals_free();
		stp_contexts_free();
	}
	return rc;
}

static void __exit stp_module_exit(void)
{
	stp_transport_exit();	/* ends a running session first */
	stp_session_end();	/* no-op unless the transport never ran one */
	stp_globals_free();
	stp_contexts_free();
}

module_init(stp_module_init);
module_exit(stp_module_exit);
