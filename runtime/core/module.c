/* module.c - module load/unload and the session: start (begin probes, arm
 * the probe families) and stop (disarm, end probes, summary).  Included last
 * by generated code, after its tables: stp_providers[], stp_globals_init(). */


static DEFINE_MUTEX(stp_session_mutex);
static int stp_started;     /* providers armed, in order, so far */

static void stp_stop_providers(void)
{
	while (stp_started > 0)
		stp_providers[--stp_started].stop();
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
			stp_stop_providers();
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

void stp_session_stop(void)
{
	mutex_lock(&stp_session_mutex);
	if (atomic_read(&stp_run_state) == STP_STOPPED) {
		mutex_unlock(&stp_session_mutex);
		return;
	}
	atomic_set(&stp_run_state, STP_STOPPING);
	stp_stop_providers();
	preempt_disable();
	stp_report_summary();
	preempt_enable();
	atomic_set(&stp_run_state, STP_STOPPED);
	mutex_unlock(&stp_session_mutex);
}

static int __init stp_module_init(void)
{
	int rc;

	rc = stp_contexts_alloc(STP_FRAME_SIZE);
	if (!rc)
		rc = stp_globals_init();
	if (!rc)
		rc = stp_transport_init(STP_MODULE_NAME, STP_TRANSPORT_BYTES);
	if (rc) {
		pr_err("%s: cannot load: error %d\n", STP_MODULE_NAME, rc);
		stp_globals_free();
		stp_contexts_free();
	}
	return rc;
}

static void __exit stp_module_exit(void)
{
	stp_session_stop();
	stp_transport_exit();
	stp_globals_free();
	stp_contexts_free();
}

module_init(stp_module_init);
module_exit(stp_module_exit);
