/* pace.c - how long stapio waits between trace rounds: 10 ms, less when a ring fills so fast that
 * it would overflow in between (a round then finds it a quarter full).  Used by main.c. */
#include "core/limits.h"   /* STP_BUFSIZE_MB: the ring size when the module does not say */
#include "stapio.h"

#define PACE_MIN_MS      1      /* a ring filling fast: rounds this often at most */
#define PACE_MAX_MS     10      /* records coming slowly: they wait this long at most (a longer
				 * wait saved no measurable time, and a burst after a lull filled
				 * the ring before the round came) */
#define PACE_SHARE       4      /* a round aims to find a ring 1/PACE_SHARE full */

void pace_init(struct pace *p, size_t ring_bytes)
{
	p->wait_ms = PACE_MAX_MS;
	p->target = (ring_bytes ? ring_bytes : (size_t)STP_BUFSIZE_MB << 20) / PACE_SHARE;
	p->last_ms = -1;
}

/*
 * After a round that started at now and read at most `most` bytes from one trace file: the wait
 * that would have let the busiest ring fill to its target at the rate of the round before,
 * shortened at once, lengthened at most twofold per round (a burst seen in one round is believed,
 * a lull only gradually), within [PACE_MIN_MS, PACE_MAX_MS].  The first round waits the most.
 */
void pace_round(struct pace *p, long now, size_t most)
{
	long since = p->last_ms < 0 ? p->wait_ms : now - p->last_ms;
	long want = 2 * p->wait_ms;
	double fill_ms;         /* how long the busiest ring takes to reach the target */

	p->last_ms = now;
	if (since < 1)
		since = 1;
	fill_ms = most > 0 ? (double)since * (double)p->target / (double)most : (double)want;
	if (fill_ms < (double)want)
		want = (long)fill_ms;
	if (want < PACE_MIN_MS)
		want = PACE_MIN_MS;
	if (want > PACE_MAX_MS)
		want = PACE_MAX_MS;
	p->wait_ms = want;
}

long pace_due_in(const struct pace *p, long now)
{
	return p->last_ms < 0 ? 0 : p->last_ms + p->wait_ms - now;
}
