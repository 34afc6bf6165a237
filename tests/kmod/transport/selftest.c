/* selftest.c - transport self-test module: numbered records from per-CPU hrtimers.
 * Used by tests/guest/transport.t through staprun/stapio; stands in for runtime/core. */

/*
 * On "start" it writes "begin" (and a line to stderr), then every period_us
 * each online CPU's pinned hrtimer (hard irq, the real write path) writes
 * burst records "record N cpu C", N = 1, 2, ... global.  N and the record's
 * seq are taken under one lock, so the merged output must be in N order.
 * After count records it calls stp_transport_request_exit() (count=0: never,
 * the run ends on a signal).  session_end writes "end", always last.
 * pad adds bytes per record, bufsize sets the ring size (loss tests);
 * fail_start makes start fail with an error message.
 */

#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "transport.c"	/* runtime/transport, via -I in Kbuild */

static unsigned int count = 20;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "records before requesting exit (0: never)");
static unsigned int period_us = 2000;
module_param(period_us, uint, 0444);
MODULE_PARM_DESC(period_us, "timer period per CPU in microseconds");
static unsigned int burst = 1;
module_param(burst, uint, 0444);
MODULE_PARM_DESC(burst, "records per timer tick");
static unsigned int pad;
module_param(pad, uint, 0444);
MODULE_PARM_DESC(pad, "padding bytes added to each record");
static unsigned long bufsize = 256 << 10;
module_param(bufsize, ulong, 0444);
MODULE_PARM_DESC(bufsize, "per-CPU ring bytes");
/* what a stap module publishes of its buffer size, MB per CPU (staprun counts a user's loaded runs by it) */
static unsigned int stp_bufsize_mb = 1;
module_param_named(_stp_bufsize, stp_bufsize_mb, uint, 0444);
MODULE_PARM_DESC(_stp_bufsize, "per-CPU trace buffer in MB, bufsize rounded up (read-only here)");
static bool fail_start;
module_param(fail_start, bool, 0444);
MODULE_PARM_DESC(fail_start, "make session start fail");

#define ST_PAD_MAX 4000

static DEFINE_PER_CPU(struct hrtimer, st_timer);
static DEFINE_RAW_SPINLOCK(st_lock);	/* st_next and the write that uses it */
static unsigned int st_next;
static bool st_running;			/* process context only */
static bool st_stopping;
static long st_target;			/* "target <pid>" */

/* Caller excludes this CPU's other writers (irqs off). */
static void st_write(unsigned int flags, const char *text)
{
	stp_transport_write(flags, text, strlen(text));
}

static void st_emit_locked(unsigned int n)
{
	static char line[64 + ST_PAD_MAX];	/* under st_lock */
	unsigned int len, p = min_t(unsigned int, pad, ST_PAD_MAX);

	len = scnprintf(line, 64, "record %u cpu %u", n, smp_processor_id());
	if (p) {
		line[len++] = ' ';
		memset(line + len, 'x', p);
		len += p;
	}
	line[len++] = '\n';
	stp_transport_write(STP_REC_STDOUT, line, len);
}

/* Returns true once count records were produced. */
static bool st_produce(void)
{
	unsigned long flags;
	bool done = false;
	unsigned int i;

	raw_spin_lock_irqsave(&st_lock, flags);
	for (i = 0; i < burst; i++) {
		if (count && st_next >= count)
			break;
		st_emit_locked(++st_next);
	}
	done = count && st_next >= count;
	raw_spin_unlock_irqrestore(&st_lock, flags);
	return done;
}

static enum hrtimer_restart st_tick(struct hrtimer *t)
{
	if (READ_ONCE(st_stopping))
		return HRTIMER_NORESTART;
	if (st_produce()) {
		stp_transport_request_exit();
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(t, ns_to_ktime((u64)period_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void st_arm_this_cpu(void *unused)
{
	hrtimer_start(this_cpu_ptr(&st_timer),
		      ns_to_ktime((u64)period_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED);
}

static void st_cancel_timers(void)
{
	unsigned int cpu;

	WRITE_ONCE(st_stopping, true);
	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&st_timer, cpu));
}

/* Process-context write: irqs off so this CPU's hrtimer cannot interleave. */
static void st_write_irqsafe(unsigned int flags, const char *text)
{
	unsigned long irqflags;

	local_irq_save(irqflags);
	st_write(flags, text);
	local_irq_restore(irqflags);
}

int stp_session_start(void)
{
	if (fail_start) {
		stp_transport_send(STP_MSG_ERROR " selftest: start refused (fail_start=1)");
		return -EINVAL;
	}
	st_write_irqsafe(STP_REC_STDERR, "selftest: started\n");
	if (st_target) {
		char line[32];

		snprintf(line, sizeof(line), "target %ld\n", st_target);
		st_write_irqsafe(STP_REC_STDOUT, line);
	}
	st_write_irqsafe(STP_REC_STDOUT, "begin\n");
	st_running = true;
	on_each_cpu(st_arm_this_cpu, NULL, 1);
	return 0;
}

unsigned long stp_session_errors(void)
{
	return 0;
}

void stp_session_disarm(void)
{
	st_cancel_timers();
}

void stp_session_end(void)
{
	if (!st_running)
		return;
	st_running = false;
	st_cancel_timers();
	st_write_irqsafe(STP_REC_STDOUT, "end\n");
}

void stp_session_set_target(long pid)
{
	st_target = pid;
}

/* "tz": stapio's time zone; the selftest has no script to give it to. */
void stp_session_set_tz(long gmtoff, const char *name)
{
	(void)gmtoff;
	(void)name;
}

static int __init st_init(void)
{
	unsigned int cpu;

	if (period_us < 100)
		period_us = 100;
	for_each_possible_cpu(cpu) {
		hrtimer_init(per_cpu_ptr(&st_timer, cpu), CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED);
		per_cpu_ptr(&st_timer, cpu)->function = st_tick;
	}
	stp_bufsize_mb = DIV_ROUND_UP(bufsize, 1UL << 20);
	return stp_transport_init(KBUILD_MODNAME, bufsize);
}

static void __exit st_exit(void)
{
	st_cancel_timers();
	stp_transport_exit();
}

module_init(st_init);
module_exit(st_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("systemtap transport self-test");
MODULE_INFO(stap_transport, STP_TRANSPORT_VERSION);
