/* lock.h - reader/writer locks for script globals, taken only with bounded
 * trylock so a probe never spins; safe in any context, also on PREEMPT_RT. */
#ifndef STP_LOCK_H
#define STP_LOCK_H

#include <linux/atomic.h>

typedef struct {
	atomic_t v;             /* >0 readers, -1 writer, 0 free */
} stp_rwlock_t;

static inline void stp_rwlock_init(stp_rwlock_t *l)
{
	atomic_set(&l->v, 0);
}

static inline bool stp_read_trylock(stp_rwlock_t *l)
{
	int v = atomic_read(&l->v);

	while (v >= 0) {
		if (atomic_try_cmpxchg_acquire(&l->v, &v, v + 1))
			return true;
	}
	return false;
}

static inline bool stp_write_trylock(stp_rwlock_t *l)
{
	int v = 0;

	return atomic_try_cmpxchg_acquire(&l->v, &v, -1);
}

static inline void stp_read_unlock(stp_rwlock_t *l)
{
	atomic_dec_return_release(&l->v);
}

static inline void stp_write_unlock(stp_rwlock_t *l)
{
	atomic_set_release(&l->v, 0);
}

struct stp_lock_req {
	stp_rwlock_t *lock;
	int write;
};

#endif
