/* netfilter.c - netfilter.hook(...).pf(...) probes: a netfilter hook per probe point in every network
 * namespace, the hook's verdict the script's $verdict.  Included by generated code using the family. */
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

/* The hit's state as the handler sees it in c->entry_data: int64_t slots, read and written by the C
 * that translator/providers/netfilter.c gives $hooknum, $skb, $in, $out, $okfn and $verdict (keep both
 * in step: the handlers are compiled before this file, so they cannot name a struct of it). */
enum { STP_NF_HOOKNUM, STP_NF_SKB, STP_NF_IN, STP_NF_OUT, STP_NF_OKFN, STP_NF_VERDICT, STP_NF_NSLOTS };

struct stp_nf_probe {
	const struct stp_probe_desc *desc;
	int optional;                       /* '?': a hook the kernel refuses is skipped */
	struct nf_hook_ops ops;
};

static unsigned int stp_nf_net_id;          /* per namespace: the bitmap of the hooks armed in it */
static bool stp_nf_starting;                /* register_pernet_subsys() is arming the existing namespaces */
static bool stp_nf_armed;
static atomic_t stp_nf_unarmed = ATOMIC_INIT(0);   /* hooks a namespace made during the run lacks */

/* One hit: softirq context for received packets, process context for locally sent ones (then the
 * softirqs of this CPU wait until the handler is done: a packet received meanwhile is not a skipped
 * reentrant hit). NF_ACCEPT unless the handler wrote $verdict. */
static __always_inline unsigned int stp_nf_fire(const struct stp_probe_desc *d, struct sk_buff *skb,
						const struct nf_hook_state *st)
{
	int64_t hit[STP_NF_NSLOTS];
	bool task = !in_interrupt() && !irqs_disabled();

	hit[STP_NF_HOOKNUM] = st->hook;
	hit[STP_NF_SKB] = (long)skb;
	hit[STP_NF_IN] = (long)st->in;
	hit[STP_NF_OUT] = (long)st->out;
	hit[STP_NF_OKFN] = (long)st->okfn;
	hit[STP_NF_VERDICT] = NF_ACCEPT;
	if (task)
		local_bh_disable();
	preempt_disable();
	stp_run_probe_data(d, NULL, hit);
	preempt_enable();
	if (task)
		local_bh_enable();
	return (unsigned int)hit[STP_NF_VERDICT];
}

/* One hook function per probe point (n = its index in stp_descs[]). */
#define STP_NF_TRAMPOLINE(n)								\
	static unsigned int stp_nf_hit_##n(void *priv, struct sk_buff *skb,		\
					   const struct nf_hook_state *st)		\
	{										\
		return stp_nf_fire(&stp_descs[n], skb, st);				\
	}

static void stp_nf_net_exit(struct net *net, struct stp_nf_probe *probes, unsigned int n)
{
	unsigned long *armed = net_generic(net, stp_nf_net_id);
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (test_and_clear_bit(i, armed))
			nf_unregister_net_hook(net, &probes[i].ops);
	}
}

/* Arms every hook in net: the namespaces that exist when the run starts (a failure fails the start),
 * and those made during the run (a failure there must not fail the namespace: counted, reported at
 * the end). */
static int stp_nf_net_init(struct net *net, struct stp_nf_probe *probes, unsigned int n)
{
	unsigned long *armed = net_generic(net, stp_nf_net_id);
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = nf_register_net_hook(net, &probes[i].ops);
		if (!rc) {
			set_bit(i, armed);
			continue;
		}
		if (probes[i].optional)
			continue;
		if (!stp_nf_starting) {
			atomic_inc(&stp_nf_unarmed);
			continue;
		}
		stp_startup_error("probe point %s: netfilter hook registration failed (%d)", probes[i].desc->pp, rc);
		stp_nf_net_exit(net, probes, n);
		return rc;
	}
	return 0;
}

static int stp_nf_start(struct pernet_operations *ops)
{
	int rc;

	/* init runs under pernet_ops_rwsem, written by register_pernet_subsys: the flag is seen right */
	stp_nf_starting = true;
	rc = register_pernet_subsys(ops);
	stp_nf_starting = false;
	stp_nf_armed = !rc;
	if (rc)
		synchronize_net();   /* the hooks armed before the failure were unregistered: see stp_nf_stop */
	return rc;
}

/* Disarms every namespace's hooks, then waits until no CPU is still in one: the kernel calls hooks
 * under rcu_read_lock() and frees its tables after a grace period, but does not wait for the callers
 * itself, and the contexts a running handler uses are freed when the run ends. */
static void stp_nf_stop(struct pernet_operations *ops)
{
	int unarmed;

	if (!stp_nf_armed)
		return;
	unregister_pernet_subsys(ops);
	synchronize_net();
	stp_nf_armed = false;
	unarmed = atomic_read(&stp_nf_unarmed);
	if (unarmed)
		stp_report_line("WARNING: %d netfilter hook(s) could not be armed in network namespaces made "
				"during the run\n", unarmed);
}

#define STP_NETFILTER_FAMILY(table)							\
	static int stp_nf_pernet_init(struct net *net)					\
	{										\
		return stp_nf_net_init(net, table, ARRAY_SIZE(table));			\
	}										\
	static void stp_nf_pernet_exit(struct net *net)					\
	{										\
		stp_nf_net_exit(net, table, ARRAY_SIZE(table));				\
	}										\
	static struct pernet_operations stp_nf_pernet = {				\
		.init = stp_nf_pernet_init,						\
		.exit = stp_nf_pernet_exit,						\
		.id = &stp_nf_net_id,							\
		.size = BITS_TO_LONGS(ARRAY_SIZE(table)) * sizeof(long),		\
	};										\
	static int stp_netfilter_register(void)						\
	{										\
		return stp_nf_start(&stp_nf_pernet);					\
	}										\
	static void stp_netfilter_unregister(void)					\
	{										\
		stp_nf_stop(&stp_nf_pernet);						\
	}
