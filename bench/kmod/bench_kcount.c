/* bench_kcount.c - a minimal hand-written kprobe: its pre_handler increments a per-CPU counter.
 * Used by bench/run as the per-hit floor (insmod bench_kcount.ko sym=SYMBOL [count=0]). */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>

static char *sym = "__x64_sys_getppid";
module_param(sym, charp, 0444);
MODULE_PARM_DESC(sym, "kernel function to probe");

static bool count = true;
module_param(count, bool, 0444);
MODULE_PARM_DESC(count, "count hits (0: the pre_handler only returns)");

static DEFINE_PER_CPU(unsigned long, bench_hits);

static int bench_pre(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(bench_hits);
	return 0;
}

static int bench_pre_empty(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

static struct kprobe bench_kp;

static int __init bench_init(void)
{
	int rc;

	bench_kp.symbol_name = sym;
	bench_kp.pre_handler = count ? bench_pre : bench_pre_empty;
	rc = register_kprobe(&bench_kp);
	if (rc)
		pr_err("bench_kcount: register_kprobe(%s): %d\n", sym, rc);
	return rc;
}

static void __exit bench_exit(void)
{
	unsigned long total = 0;
	int cpu;

	unregister_kprobe(&bench_kp);
	for_each_possible_cpu(cpu)
		total += per_cpu(bench_hits, cpu);
	if (count)
		pr_info("bench_kcount: %s hits %lu\n", sym, total);
}

module_init(bench_init);
module_exit(bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("per-hit floor for bench/run: a kprobe counting per CPU");
