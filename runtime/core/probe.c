/* probe.c - what every probe hit does around the script's handler: claim
 * this CPU's context, take the globals' locks, then flush output and errors
 * (or, for a handler proven simple, the light path: no context).  Also the
 * macros the generated handlers use for it. */

#include "core/actions.h"

/* A body generated for the light path says STP_LIGHT_PROBE_n = STP_LIGHT_OK(all its actions):
 * 0 when -DSTP_NO_LIGHT is given or a limit is below them, and then it runs on the full path and
 * charges its actions as any handler does.  Otherwise nothing is charged, on either path (a
 * begin/end hit of the same body takes the full one): it cannot reach either limit. */
#ifdef STP_NO_LIGHT
#define STP_LIGHT_OK(actions) 0
#else
#define STP_LIGHT_OK(actions) STP_ACTIONS_WITHIN(actions)
#endif

/* r's lock, after a first attempt failed: MAXTRYLOCK attempts in all, TRYLOCKDELAY ns apart.
 * Out of line and cold, so that the hit function's fast path (the first attempt) keeps no
 * registers for the loop. */
static noinline __cold bool stp_lock_retry(const struct stp_lock_req *r)
{
	int tries;

	for (tries = MAXTRYLOCK - 1; tries > 0; tries--) {
		ndelay(TRYLOCKDELAY);
		if (r->write ? stp_write_trylock(r->lock) : stp_read_trylock(r->lock))
			return true;
	}
	return false;
}

static __always_inline bool stp_lock_all(const struct stp_probe_desc *d)
{
	unsigned int i;

	for (i = 0; i < d->nlocks; i++) {
		const struct stp_lock_req *r = &d->locks[i];

		if (unlikely(!(r->write ? stp_write_trylock(r->lock) : stp_read_trylock(r->lock))) &&
		    !stp_lock_retry(r))
			goto fail;
	}
	return true;
fail:
	while (i-- > 0) {
		if (d->locks[i].write)
			stp_write_unlock(d->locks[i].lock);
		else
			stp_read_unlock(d->locks[i].lock);
	}
	return false;
}

static __always_inline void stp_unlock_all(const struct stp_probe_desc *d)
{
	unsigned int i = d->nlocks;

	while (i-- > 0) {
		if (d->locks[i].write)
			stp_write_unlock(d->locks[i].lock);
		else
			stp_read_unlock(d->locks[i].lock);
	}
}

static void stp_flush(struct stp_context *c)
{
	if (c->out.ring) {
		stp_out_direct_end(&c->out);      /* formatted in place: published */
		return;
	}
	if (c->out.len) {
		stp_transport_write(STP_REC_STDOUT, c->out.buf, c->out.len);
		c->out.len = 0;
	}
}

/* switch_file(): what the handler printed so far goes to the current file;
 * the STP_REC_SWITCH record, in seq order with the output, tells stapio to
 * go on in the next one. */
static __maybe_unused void stp_switch_file(struct stp_context *c)
{
	stp_flush(c);
	stp_transport_write(STP_REC_SWITCH, "", 0);
}

/* system(cmd): what the handler printed so far, then an STP_REC_SYSTEM record holding the
 * command, in seq order with the output: stapio runs it (as the user who ran stap) once it
 * has written everything before it.  Commands longer than MAXSTRINGLEN - 1 are cut. */
static __maybe_unused void stp_system(struct stp_context *c, const char *cmd)
{
	stp_flush(c);
	stp_transport_write(STP_REC_SYSTEM, cmd, strnlen(cmd, MAXSTRINGLEN - 1));
}

#ifndef STP_NO_OVERLOAD
/* Charges a hit's cycles to this CPU; past the threshold, the run ends. */
static __always_inline void stp_overload_charge(struct stp_context *c, cycles_t start)
{
	cycles_t now = get_cycles();

	/* the fast path only adds; the interval is looked at when the sum
	 * passes the threshold: over it within one interval is an overload,
	 * otherwise a new interval starts (so a burst is caught within two) */
	c->overload_used += (now - start) * STP_OVERLOAD_SAMPLE;
	if (unlikely(c->overload_used > STP_OVERLOAD_THRESHOLD)) {
		if (now - c->overload_window <= STP_OVERLOAD_INTERVAL)
			stp_report_overload();
		c->overload_window = now;
		c->overload_used = 0;
	}
}
#endif

/* What became of one hit (__stp_run): its handler ran to its end (STP_HIT_RAN) or ran into a
 * script error (STP_HIT_FAILED, reported); or it did not run: skipped and counted, for another
 * handler on this CPU or a global's lock not had in MAXTRYLOCK attempts (STP_HIT_SKIPPED), or the
 * session was not RUNNING (STP_HIT_IDLE).  A caller that answers someone for the hit (a procfs
 * file's read or write) tells them which. */
enum stp_hit {
	STP_HIT_RAN,
	STP_HIT_FAILED,
	STP_HIT_SKIPPED,
	STP_HIT_IDLE,
};

/* The start of every hit: only in the RUNNING state (begin/end probes: once), and not while
 * another handler runs on this CPU (a counted reentrancy skip); then this CPU is marked busy
 * until the caller clears stp_busy.  Returns STP_HIT_RAN when the hit may run, else why not. */
static __always_inline enum stp_hit __stp_claim_cpu(bool once)
{
	if (unlikely(!once && atomic_read(&stp_run_state) != STP_RUNNING))
		return STP_HIT_IDLE;
	if (unlikely(this_cpu_read(stp_busy))) {
		stp_probe_skipped(&stp_skipped_reentrant);
		return STP_HIT_SKIPPED;
	}
	this_cpu_write(stp_busy, 1);
	barrier();
	return STP_HIT_RAN;
}

/* The light hit path, for a handler the translator proved simple (its STP_LIGHT_PROBE_n, the
 * descriptor's light): a bounded straight-line body (if/else at most, 16 statements and 64
 * expression nodes: translator/codegen/light.c) of arithmetic on script globals, statistics and
 * array elements, with no locals, no calls but those reading the task or a clock (pid() ...), no
 * context variables, no output, and nothing that can fail but an array found full.
 * Such a handler needs none of the per-CPU context, and is run with c = NULL.  What stays is what every hit owes the session:
 *   - the state check: it runs only while the session is RUNNING;
 *   - the reentrancy guard: stp_busy claims the CPU as for any handler (a heavy handler
 *     interrupted on this CPU skips it, counted as reentrancy, and it skips them alike);
 *   - the globals' locks, taken and released as for any handler (lock contention counted);
 *     a statistic that only @count reads and that is never deleted takes none (stats/stat.c).
 * What it leaves out, and why that is safe:
 *   - the context reset (action count, nesting, error, stack top, probe, registers, the hit's
 *     data): nothing in the body reads them.  The body charges its actions with
 *     STP_ACTIONS_UNLESS, which is nothing at all when the translator's sum of all of them is
 *     within MAXACTION (STP_LIGHT_OK above; otherwise the probe is not light);
 *   - the error report and the output flush: the body prints nothing, and its one possible
 *     error, a full array (MAXMAPENTRIES), is reported by the slot function itself, out of line
 *     (stp_error_near with no context: reported and counted at once, MAXERRORS ending the run as
 *     any hit's error would), and the body then ends;
 *   - the overload sample: the guard limits the time spent in handlers, and this handler has
 *     no loop and no call but a map's bucket walk and insertion: a few hundred instructions at
 *     most, of the order of the probe machinery's own cost per hit (which the guard never
 *     counted).
 *     Build with -DSTP_NO_LIGHT to run every probe on the full path (and under the guard).
 * Preemption must be disabled.  Returns what became of the hit (its errors are reported at once:
 * STP_HIT_RAN when the handler ran). */
static __always_inline enum stp_hit __stp_run_light(const struct stp_probe_desc *d,
						    void (*handler)(struct stp_context *), bool once)
{
	enum stp_hit hit = __stp_claim_cpu(once);

	if (hit != STP_HIT_RAN)
		return hit;
	if (unlikely(!stp_lock_all(d))) {
		stp_probe_skipped(&stp_skipped_lock);
		hit = STP_HIT_SKIPPED;
		goto out;
	}
	handler(NULL);
	stp_unlock_all(d);
out:
	barrier();
	this_cpu_write(stp_busy, 0);
	return hit;
}

/* Runs one hit of handler (d's, or the entry half of a .return probe) on this CPU with d's locks.
 * Preemption must be disabled.  once = a begin/end probe, which runs outside the RUNNING state;
 * data = the hit's saved @entry values (kretprobe instance data), NULL for most probes; light =
 * handler is d's own and d->light (see __stp_run_light); site = the probe point hit, d itself or
 * another site of the same handler (whose pp() the hit reports).  Always inlined into a per-probe
 * trampoline with d, handler and data's nullness known at compile time, so the compiler unrolls
 * the lock loops, calls the handler directly, takes one of the two paths and drops what is
 * unused.  Returns what became of the hit. */
static __always_inline enum stp_hit __stp_run(const struct stp_probe_desc *d, const struct stp_probe_desc *site,
					      void (*handler)(struct stp_context *), struct pt_regs *regs, bool once,
					      void *data, bool light)
{
	struct stp_context *c;
	enum stp_hit hit;

	if (light)
		return __stp_run_light(d, handler, once);
	hit = __stp_claim_cpu(once);
	if (hit != STP_HIT_RAN)
		return hit;
	c = stp_contexts[smp_processor_id()];
	if (unlikely(!stp_lock_all(d))) {
		stp_probe_skipped(&stp_skipped_lock);
		hit = STP_HIT_SKIPPED;
		goto out;
	}
	c->probe = site;
	c->regs = regs;
	if (data)
		c->entry_data = data;
	if (!(d->uncounted && handler == d->handler)) {   /* its code charges actions */
		c->actioncount = 0;
		c->maxaction = once ? MAXACTION_INTERRUPTIBLE : MAXACTION;
	}
	c->nesting = 0;
	c->stack_top = (unsigned long)__builtin_frame_address(0);
	c->last_error = NULL;
	c->last_stmt = NULL;
#ifndef STP_NO_OVERLOAD
	/* one hit in STP_OVERLOAD_SAMPLE is timed and charged for all of them:
	 * reading the cycle counter twice on every hit would cost more than
	 * the rest of the wrapper */
	if (!once && unlikely(++c->overload_tick >= STP_OVERLOAD_SAMPLE)) {
		cycles_t start = get_cycles();

		c->overload_tick = 0;
		handler(c);
		stp_overload_charge(c, start);
	} else
#endif
		handler(c);
	stp_unlock_all(d);
	if (unlikely(c->last_error)) {
		hit = STP_HIT_FAILED;
		stp_report_error(c);
	}
	stp_flush(c);
out:
	barrier();
	this_cpu_write(stp_busy, 0);
	return hit;
}

/* One hit of d's handler (see __stp_run): inlined into each caller (a site's trampoline), with d known at
 * compile time, unless the module has more than STP_INLINE_SITES probe points. */
#if defined(STP_NSITES) && STP_NSITES > STP_INLINE_SITES
static noinline void stp_run_probe(
#else
static __always_inline void stp_run_probe(
#endif
			  const struct stp_probe_desc *d, struct pt_regs *regs, bool once)
{
	__stp_run(d, d, d->handler, regs, once, NULL, d->light && !once);
}

/* One hit of site, a probe point whose handler, locks and path are d's (a shared handler: d is
 * known at compile time, site only at the hit). */
static __always_inline __maybe_unused void stp_run_probe_site(const struct stp_probe_desc *d,
							      const struct stp_probe_desc *site, struct pt_regs *regs)
{
	__stp_run(d, site, d->handler, regs, false, NULL, d->light);
}

/* One hit of d's handler with the hit's own data in c->entry_data: the @entry values saved at the
 * call, a tracepoint's arguments, the state a family's context variables read ($value, $skb).
 * Returns what became of it (most callers have no one to tell). */
static __always_inline __maybe_unused enum stp_hit stp_run_probe_data(const struct stp_probe_desc *d,
								      struct pt_regs *regs, void *data)
{
	return __stp_run(d, d, d->handler, regs, false, data, d->light);
}

/* The call side of a .return probe with @entry values: entry (generated) reads c->regs and fills
 * c->entry_data = data, under the same per-CPU guard and locks as d's handler.  Returns whether it
 * ran: when it did not (reentrant, stopping, an error), the return must not be probed. */
static __always_inline __maybe_unused bool stp_run_entry(const struct stp_probe_desc *d,
							 void (*entry)(struct stp_context *), struct pt_regs *regs,
							 void *data)
{
	return __stp_run(d, d, entry, regs, false, data, false) == STP_HIT_RAN;
}

/* begin and end probes: process context, in order. */
static __maybe_unused int stp_run_once(const struct stp_probe_desc *const *descs, unsigned int n, bool begin)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* exit() in a begin probe: the later begin probes do not run */
		if (atomic_read(&stp_aborted) || (begin && atomic_read(&stp_exit_called)))
			break;
		preempt_disable();
		stp_run_probe(descs[i], NULL, true);
		preempt_enable();
	}
	return 0;
}

/* error probes: when the session ends after script errors, in order. */
static __maybe_unused int stp_run_on_error(const struct stp_probe_desc *const *descs, unsigned int n)
{
	unsigned int i;

	if (!atomic_read(&stp_error_count))
		return 0;
	for (i = 0; i < n; i++) {
		preempt_disable();
		stp_run_probe(descs[i], NULL, true);
		preempt_enable();
	}
	return 0;
}

static int stp_contexts_alloc(size_t frame_bytes)
{
	int cpu;

	if (frame_bytes * (STP_FRAME_SLOTS) > STP_FRAMES_MAX_BYTES) {
		pr_err("%s: %zu bytes of function frames per CPU (MAXNESTING %d) exceed STP_FRAMES_MAX_BYTES %lu\n",
		       STP_MODULE_NAME, frame_bytes * (STP_FRAME_SLOTS), (int)(MAXNESTING),
		       (unsigned long)(STP_FRAMES_MAX_BYTES));
		return -E2BIG;
	}
	stp_contexts = kcalloc(nr_cpu_ids, sizeof(*stp_contexts), GFP_KERNEL);
	if (!stp_contexts)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct stp_context *c = vzalloc(sizeof(*c));

		if (!c)
			return -ENOMEM;
		c->frames = vzalloc(frame_bytes * (STP_FRAME_SLOTS));
		stp_contexts[cpu] = c;
		if (!c->frames)
			return -ENOMEM;
		c->out.buf = c->print_buf;
		c->out.cap = STP_BUFSIZE;
		c->out.ctx = c;
	}
	return 0;
}

static void stp_contexts_free(void)
{
	int cpu;

	if (!stp_contexts)
		return;
	for_each_possible_cpu(cpu) {
		if (stp_contexts[cpu]) {
			vfree(stp_contexts[cpu]->frames);
			vfree(stp_contexts[cpu]);
		}
	}
	kfree(stp_contexts);
	stp_contexts = NULL;
}
