/* transport.c - kernel side of the module <-> stapio channel (entry point; includes the rest).
 * #included once by runtime/runtime.h (and tests/kmod/transport/selftest.c); API in transport.h. */

/*
 * Pieces, one per file, all compiled in this translation unit:
 *   ring.c     per-CPU SPSC record rings (write path, read path)
 *   control.c  .cmd: commands, message queue, session states
 *   trace.c    traceN files: reads over the rings
 *   procfs.c   /proc/systemtap/<name>/ creation and removal
 * This file owns the shared state, the periodic wake worker and the API.
 * Protocol and behaviour: docs/transport.md.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/magic.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "transport.h"
#include "../core/compat.h"      /* put_unaligned (ring.c) */

#define STP_WAKE_MS		20		/* reader wakeups, exit-request latency */
#define STP_LOSS_TICKS		50		/* "lost" reports at most every 50 wakes */
#define STP_RING_MIN_BYTES	(128UL << 10)	/* holds at least one maximal record */
#define STP_RING_MAX_BYTES	(1UL << 30)

static char stp_transport_name[MODULE_NAME_LEN];
static struct stp_ring **stp_rings;		/* [nr_cpu_ids], possible CPUs only */
static bool stp_transport_dying;		/* module exit began: readers get EOF */
static atomic_t stp_exit_requested = ATOMIC_INIT(0);
static struct delayed_work stp_wake_work;

#include "ring.c"

/* Sum of the records and bytes dropped on all CPUs so far. */
static void stp_rings_lost(unsigned long *records, unsigned long *bytes)
{
	unsigned int cpu;

	*records = 0;
	*bytes = 0;
	for_each_possible_cpu(cpu) {
		*records += atomic_long_read(&stp_rings[cpu]->lost_records);
		*bytes += atomic_long_read(&stp_rings[cpu]->lost_bytes);
	}
}

/* Records the flight recorder discarded on all CPUs so far. */
static unsigned long stp_rings_overwritten(void)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		n += atomic_long_read(&stp_rings[cpu]->overwritten);
	return n;
}

/* The reader left a detached flight recorder: full rings discard their oldest. */
static void stp_rings_overwrite_on(void)
{
	unsigned int cpu;

	WRITE_ONCE(stp_rings_overwrite, true);
	for_each_possible_cpu(cpu) {	/* wait out reads in progress */
		mutex_lock(&stp_rings[cpu]->read_lock);
		mutex_unlock(&stp_rings[cpu]->read_lock);
	}
}

/* A reader attaches: back to dropping the newest.  Returns the highest seq
 * discarded so far (0: none). */
static u64 stp_rings_overwrite_off(void)
{
	unsigned int cpu;
	u64 floor = 0;

	if (READ_ONCE(stp_rings_overwrite)) {
		WRITE_ONCE(stp_rings_overwrite, false);
		synchronize_rcu();	/* writers run with preemption off */
	}
	for_each_possible_cpu(cpu)
		floor = max(floor, READ_ONCE(stp_rings[cpu]->overwritten_seq));
	return floor;
}

static bool stp_rings_any_pending(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (stp_ring_pending(stp_rings[cpu]))
			return true;
	return false;
}

static void stp_rings_free(void)
{
	unsigned int cpu;

	if (!stp_rings)
		return;
	for_each_possible_cpu(cpu)
		stp_ring_free(stp_rings[cpu]);
	kfree(stp_rings);
	stp_rings = NULL;
}

static int stp_rings_alloc(unsigned long buf_bytes)
{
	unsigned long size;
	unsigned int cpu;

	size = clamp(buf_bytes, STP_RING_MIN_BYTES, STP_RING_MAX_BYTES);
	size = roundup_pow_of_two(size);
	stp_rings = kcalloc(nr_cpu_ids, sizeof(*stp_rings), GFP_KERNEL);
	if (!stp_rings)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		stp_rings[cpu] = stp_ring_alloc(cpu, size);
		if (!stp_rings[cpu]) {
			stp_rings_free();
			return -ENOMEM;
		}
	}
	return 0;
}

#include "control.c"
#include "trace.c"
#include "procfs.c"

/*
 * Runs every STP_WAKE_MS in process context: the probe-context write path
 * may not take the waitqueue spinlocks, so this is what wakes stapio, and
 * what turns an exit request into the "exit" message.
 */
static void stp_wake_fn(struct work_struct *work)
{
	static unsigned int ticks;

	if (atomic_read(&stp_exit_requested))
		stp_ctl_exit_requested();
	if (++ticks % STP_LOSS_TICKS == 0)
		stp_ctl_report_loss();
	if (stp_rings_any_pending())
		wake_up_interruptible(&stp_msg_wait);
	if (!READ_ONCE(stp_transport_dying))
		schedule_delayed_work(&stp_wake_work, msecs_to_jiffies(STP_WAKE_MS));
}

static bool stp_name_valid(const char *name)
{
	size_t len = strnlen(name, MODULE_NAME_LEN);

	return len > 0 && len < MODULE_NAME_LEN && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

int stp_transport_init(const char *name, unsigned long buf_bytes)
{
	int rc;

	if (stp_rings)
		return -EBUSY;
	if (!stp_name_valid(name))
		return -EINVAL;
	strscpy(stp_transport_name, name, sizeof(stp_transport_name));
	stp_ctl_init();
	rc = stp_rings_alloc(buf_bytes);
	if (rc)
		return rc;
	WRITE_ONCE(stp_transport_dying, false);
	INIT_DELAYED_WORK(&stp_wake_work, stp_wake_fn);
	schedule_delayed_work(&stp_wake_work, msecs_to_jiffies(STP_WAKE_MS));
	rc = stp_proc_create(name, stp_rings);
	if (rc) {
		pr_err("%s: cannot create /proc/%s/%s (%d)\n", name,
		       STP_PROC_ROOT, name, rc);
		WRITE_ONCE(stp_transport_dying, true);
		cancel_delayed_work_sync(&stp_wake_work);
		stp_rings_free();
	}
	return rc;
}

/*
 * Order matters: end the run while the reader can still drain it
 * (stp_ctl_unload), mark dying and wake every sleeper (blocked .cmd readers
 * return 0), remove the files (waits for file operations in flight and
 * releases open files), stop the worker, and only then free the rings.
 */
void stp_transport_exit(void)
{
	if (!stp_rings)
		return;
	stp_ctl_unload();
	WRITE_ONCE(stp_transport_dying, true);
	wake_up_interruptible_all(&stp_msg_wait);
	stp_proc_remove();
	cancel_delayed_work_sync(&stp_wake_work);
	stp_rings_free();
}

int stp_transport_write(unsigned flags, const char *data, unsigned len)
{
	struct stp_ring **rings = READ_ONCE(stp_rings);
	int rc;

	if (unlikely(!rings))
		return -ENODEV;
	/* a ring has one writer, its CPU: probe handlers run with preemption off already, the
	 * process-context reports (warnings at stop) must not be preempted mid-record either
	 * (always preemptible there on PREEMPT_RT) */
	rc = stp_ring_write(rings[get_cpu()], flags, data, len);
	put_cpu();
	return rc;
}

/* This CPU's ring, where output.c formats a record in place (stp_ring_reserve); NULL outside
 * a session's transport.  Probe context. */
static __maybe_unused struct stp_ring *stp_transport_this_ring(void)
{
	struct stp_ring **rings = READ_ONCE(stp_rings);

	return likely(rings) ? rings[smp_processor_id()] : NULL;
}

void stp_transport_request_exit(void)
{
	atomic_set(&stp_exit_requested, 1);
}
