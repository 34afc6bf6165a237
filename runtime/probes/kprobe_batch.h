/* kprobe_batch.h - registering a family's kprobes and kretprobes in batches (register_kprobes, falling back to one
 * by one for a batch the kernel refuses), unregistering them in two batches, and their hits' instruction pointer at
 * the probed address.  Included by probes/dwarf.c, kprobes.c. */
#ifndef STP_KPROBE_BATCH_H
#define STP_KPROBE_BATCH_H
#include <linux/kprobes.h>

/* Sites per register_kprobes() call: the kernel takes a batch all or nothing, so a refused site costs its
 * batch's unregistration (one RCU grace period) and a second, one-by-one registration of that batch. */
#ifndef STP_KPROBE_BATCH
#define STP_KPROBE_BATCH 64
#endif

/* A kprobe hit's run (a statement) with the probed address as the instruction pointer, as in SystemTap: the kernel
 * hands the handler the address past its breakpoint (fentry.h the same, kp->addr its call site); the address put
 * back after.  A light body (its descriptor's light) reads no registers. */
#define STP_RUN_AT_PROBED_ADDRESS(kp, regs, light, run)				\
	do {									\
		unsigned long ip_ = instruction_pointer(regs);			\
										\
		if (light) {							\
			run;							\
			break;							\
		}								\
		instruction_pointer_set((regs), (unsigned long)(kp)->addr);	\
		run;								\
		instruction_pointer_set((regs), ip_);				\
	} while (0)

/* The kprobe of table entry i if it is registered and a kretprobe's (ret) or a plain one's (!ret),
 * else NULL.  A kretprobe's is its rp.kp. */
typedef struct kprobe *(*stp_kprobe_site_fn)(void *table, unsigned int i, bool ret);

/* How a family registers its table: prepare fills entry i's kprobe or kretprobe afresh (it may have been
 * registered and unregistered by a refused batch) and returns it, *ret telling which, or NULL for a site the
 * family armed another way; armed marks it registered;
 * single prepares and registers entry i alone, skipping an optional site the kernel refuses and reporting any
 * other refusal (0 when registered or skipped, else the kernel's error). */
struct stp_kprobe_batch_ops {
	struct kprobe *(*prepare)(void *table, unsigned int i, bool *ret);
	void (*armed)(void *table, unsigned int i);
	int (*single)(void *table, unsigned int i);
};

/* The arrays of one batch: its kprobes, its kretprobes, and their table entries. */
struct stp_kprobe_batch {
	struct kprobe **kps;
	struct kretprobe **rps;
	unsigned int *kidx, *ridx;
	unsigned int nk, nr;
};

/* Registers table[lo..hi) in one register_kprobes and one register_kretprobes call; false (nothing of the batch
 * left registered) when the kernel refused one of them. */
static bool stp_kprobe_batch_try(struct stp_kprobe_batch *b, void *table, unsigned int lo, unsigned int hi,
				 const struct stp_kprobe_batch_ops *ops)
{
	unsigned int i;

	b->nk = b->nr = 0;
	for (i = lo; i < hi; i++) {
		bool ret = false;
		struct kprobe *kp = ops->prepare(table, i, &ret);

		if (!kp)
			continue;   /* armed another way (fentry.h) */
		if (ret) {
			b->ridx[b->nr] = i;
			b->rps[b->nr++] = container_of(kp, struct kretprobe, kp);
		} else {
			b->kidx[b->nk] = i;
			b->kps[b->nk++] = kp;
		}
	}
	if (b->nk && register_kprobes(b->kps, b->nk))
		return false;
	if (b->nr && register_kretprobes(b->rps, b->nr)) {
		if (b->nk)
			unregister_kprobes(b->kps, b->nk);
		return false;
	}
	for (i = 0; i < b->nk; i++)
		ops->armed(table, b->kidx[i]);
	for (i = 0; i < b->nr; i++)
		ops->armed(table, b->ridx[i]);
	return true;
}

/* Registers table[0..n) batch by batch; a batch the kernel refuses is registered again one by one, so a site it
 * refuses is skipped (optional) or reported (the error returned, the caller unregistering what is registered)
 * exactly as when every site is registered alone.  One by one throughout if the arrays cannot be had. */
static int stp_kprobe_batch_register(void *table, unsigned int n, const struct stp_kprobe_batch_ops *ops)
{
	unsigned int size = min_t(unsigned int, n ? n : 1, STP_KPROBE_BATCH), lo, i;
	struct stp_kprobe_batch b = {
		.kps = kvmalloc_array(size, sizeof(*b.kps), GFP_KERNEL),
		.rps = kvmalloc_array(size, sizeof(*b.rps), GFP_KERNEL),
		.kidx = kvmalloc_array(size, sizeof(*b.kidx), GFP_KERNEL),
		.ridx = kvmalloc_array(size, sizeof(*b.ridx), GFP_KERNEL),
	};
	bool batched = b.kps && b.rps && b.kidx && b.ridx;
	int rc = 0;

	for (lo = 0; lo < n && !rc; lo += size) {
		unsigned int hi = min(n, lo + size);

		if (batched && stp_kprobe_batch_try(&b, table, lo, hi, ops))
			continue;
		for (i = lo; i < hi && !rc; i++)
			rc = ops->single(table, i);
	}
	kvfree(b.kps);
	kvfree(b.rps);
	kvfree(b.kidx);
	kvfree(b.ridx);
	return rc;
}

static void stp_kprobe_batch_one(void *table, unsigned int n, stp_kprobe_site_fn site, bool ret)
{
	void **batch = kvmalloc_array(n ? n : 1, sizeof(*batch), GFP_KERNEL);
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		struct kprobe *kp = site(table, i, ret);

		if (!kp)
			continue;
		if (batch)
			batch[k++] = ret ? (void *)container_of(kp, struct kretprobe, kp) : (void *)kp;
		else if (ret)
			unregister_kretprobe(container_of(kp, struct kretprobe, kp));
		else
			unregister_kprobe(kp);
	}
	if (batch && k) {
		if (ret)
			unregister_kretprobes((struct kretprobe **)batch, k);
		else
			unregister_kprobes((struct kprobe **)batch, k);
	}
	kvfree(batch);
}

/* Unregisters every registered kprobe, then every kretprobe, of table[0..n) (one by one if the
 * batch array cannot be had); the caller clears its entries' registered flags. */
static void stp_kprobe_batch_unregister(void *table, unsigned int n, stp_kprobe_site_fn site)
{
	stp_kprobe_batch_one(table, n, site, false);
	stp_kprobe_batch_one(table, n, site, true);
}
#endif
