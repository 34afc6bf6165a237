/* errors.c - script errors, warnings and skipped probes: counted, reported
 * as stderr records with the source location, and the run stopped at limits. */

static atomic_t stp_error_count = ATOMIC_INIT(0);
static atomic_t stp_skipped_count = ATOMIC_INIT(0);
static atomic_t stp_skipped_reentrant = ATOMIC_INIT(0);
static atomic_t stp_skipped_lock = ATOMIC_INIT(0);
static atomic_t stp_exit_called = ATOMIC_INIT(0);
static atomic_t stp_suppressed_errors = ATOMIC_INIT(0);  /* --suppress-handler-errors */
static atomic_t stp_aborted = ATOMIC_INIT(0);      /* too many errors: no end probes */

/* Ends the run: no more probe hits, end probes then run when stapio stops us. */
static __maybe_unused void stp_exit(struct stp_context *c)
{
	(void)c;
	atomic_set(&stp_exit_called, 1);
	atomic_cmpxchg(&stp_run_state, STP_RUNNING, STP_STOPPING);
	stp_transport_request_exit();
}

static void stp_error(struct stp_context *c, const char *msg)
{
	if (!c->last_error)
		c->last_error = msg;
}

/* abort(): exit(), and the hit ends at once, unwinding like an error that is
 * neither reported nor counted (status 0; end probes still run). */
static const char stp_abort_marker[] = "abort()";

static __maybe_unused void stp_abort(struct stp_context *c)
{
	stp_exit(c);
	c->last_error = stp_abort_marker;
}

/* error("text") from a script: the text must outlive the hit, so copy it. */
static __maybe_unused void stp_error_str(struct stp_context *c, const char *msg)
{
	strscpy(c->error_buf, msg, sizeof(c->error_buf));
	stp_error(c, c->error_buf);
}

static __maybe_unused void stp_action_limit(struct stp_context *c)
{
	stp_error(c, "MAXACTION exceeded");
}

/* Writes a whole line to stderr through the transport. */
static void stp_report_line(const char *fmt, ...)
{
	char line[384];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	stp_transport_write(STP_REC_STDERR, line, n);
}

static __maybe_unused void stp_warn(struct stp_context *c, const char *msg)
{
	(void)c;
	stp_report_line("WARNING: %s\n", msg);
}

static void stp_abort_run(void)
{
	atomic_set(&stp_aborted, 1);
	stp_exit(NULL);
}

/* A hit's script error msg, near where (NULL: no location): reported and counted, and past
 * MAXERRORS the run ends. */
static void stp_report_error_at(const char *msg, const char *where)
{
#ifdef STP_SUPPRESS_HANDLER_ERRORS
	/* the hit ends quietly; the count is in the closing summary */
	(void)msg;
	(void)where;
	atomic_inc(&stp_suppressed_errors);
#else
	if (where)
		stp_report_line("ERROR: %s near %s\n", msg, where);
	else
		stp_report_line("ERROR: %s\n", msg);
	if (atomic_inc_return(&stp_error_count) > MAXERRORS)
		stp_abort_run();
#endif
}

/* Called at the end of a hit that set last_error. */
static void stp_report_error(struct stp_context *c)
{
	if (c->last_error == stp_abort_marker)
		return;
	stp_report_error_at(c->last_error, c->last_stmt);
}

/* A script error near where (a location literal) in a body that may run without a context:
 * with c, the hit's error as stp_error's; with c NULL (the light hit path, runtime/core/probe.c,
 * which has no context to carry it to the hit's end), reported at once, the same way.  The
 * caller's body then ends (its goto out).  Out of line and cold: the hot path only tests. */
static noinline __cold __maybe_unused void stp_error_near(struct stp_context *c, const char *msg,
							  const char *where)
{
	if (!c) {
		stp_report_error_at(msg, where);
		return;
	}
	if (!c->last_error) {
		c->last_error = msg;
		c->last_stmt = where;
	}
}

/* The overload guard tripped: an error that ends the run. */
static __maybe_unused void stp_report_overload(void)
{
	if (atomic_read(&stp_aborted))
		return;
	stp_report_line("ERROR: probe overhead exceeded threshold\n");
	atomic_inc(&stp_error_count);
	stp_abort_run();
}

/* Out of line and cold: inlined into a hit function, it made the hot path keep a register for
 * it (a push and a pop on every hit of a light probe). */
static noinline __cold void stp_probe_skipped(atomic_t *reason)
{
	atomic_inc(reason);
	if (atomic_inc_return(&stp_skipped_count) > MAXSKIPPED) {
		stp_report_line("ERROR: Skipped too many probes, check MAXSKIPPED\n");
		atomic_inc(&stp_error_count);   /* the run failed: exit status 1 */
		stp_abort_run();
	}
}

unsigned long stp_session_errors(void)
{
	return atomic_read(&stp_error_count);
}

/* The closing summary, after the end probes. */
static void stp_report_summary(void)
{
	int errors = atomic_read(&stp_error_count);
	int skipped = atomic_read(&stp_skipped_count);

	if (skipped)
		stp_report_line("WARNING: Skipped probes: %d (reentrancy %d, lock contention %d)\n", skipped,
				atomic_read(&stp_skipped_reentrant), atomic_read(&stp_skipped_lock));
	if (errors || skipped)
		stp_report_line("WARNING: Number of errors: %d, skipped probes: %d\n", errors, skipped);
	if (atomic_read(&stp_suppressed_errors))
		stp_report_line("WARNING: Suppressed handler errors: %d\n", atomic_read(&stp_suppressed_errors));
}

/* Reports a start-up failure to stapio ("error <text>"). */
static __maybe_unused void stp_startup_error(const char *fmt, ...)
{
	char line[256];
	int n;
	va_list ap;

	n = scnprintf(line, sizeof(line), "%s ", STP_MSG_ERROR);
	va_start(ap, fmt);
	vscnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	stp_transport_send(line);
	pr_err("%s: %s\n", STP_MODULE_NAME, line + n);
}
