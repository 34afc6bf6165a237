/* kprobe_batch.h - unregistering the kprobes and kretprobes of a family's table in two batches,
 * one wait for running handlers each instead of one per probe.  Included by probes/dwarf.c and probes/kprobes.c. */
#ifndef STP_KPROBE_BATCH_H
#define STP_KPROBE_BATCH_H
#include <linux/kprobes.h>

/* The kprobe of table entry i if it is registered and a kretprobe's (ret) or a plain one's (!ret),
 * else NULL.  A kretprobe's is its rp.kp. */
typedef struct kprobe *(*stp_kprobe_site_fn)(void *table, unsigned int i, bool ret);

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
