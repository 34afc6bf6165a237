/* stap_tpmod.c - tracepoint test module: fires stap_tpmod:stap_tpmod_event with known values.
 * Used by tests/guest/tracepoints.t (built by tests/lib/testmod.sh): a module tracepoint probed mid-run. */

/*
 * At load it fires the tracepoint 5 times: seq 1..5, tag "init", info->value = seq * 100 and
 * info->label "tp<seq>". Writing N (1..1000) to /sys/module/stap_tpmod/parameters/fire fires
 * it N more times with seq continuing from there, tag "fire", the same value and label rule.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#define CREATE_TRACE_POINTS
#include "stap_tpmod_trace.h"

static int stap_tpmod_seq;

static void stap_tpmod_fire_one(const char *tag)
{
	struct stap_tpmod_info info;

	stap_tpmod_seq++;
	info.value = stap_tpmod_seq * 100;
	snprintf(info.label, sizeof(info.label), "tp%d", stap_tpmod_seq);
	trace_stap_tpmod_event(stap_tpmod_seq, tag, &info);
}

static int stap_tpmod_fire_set(const char *val, const struct kernel_param *kp)
{
	int n, rc = kstrtoint(val, 10, &n);

	if (rc)
		return rc;
	if (n < 1 || n > 1000)
		return -EINVAL;
	while (n-- > 0)
		stap_tpmod_fire_one("fire");
	return 0;
}

static const struct kernel_param_ops stap_tpmod_fire_ops = {
	.set = stap_tpmod_fire_set,
};
module_param_cb(fire, &stap_tpmod_fire_ops, NULL, 0200);

static int __init stap_tpmod_init(void)
{
	int i;

	for (i = 0; i < 5; i++)
		stap_tpmod_fire_one("init");
	return 0;
}

static void __exit stap_tpmod_exit(void)
{
}

module_init(stap_tpmod_init);
module_exit(stap_tpmod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stap tracepoint test module");
