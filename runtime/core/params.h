/* params.h - script globals as module parameters, so `staprun m.ko name=value`
 * (and stap -G) set them before the begin probes.  Used by generated code. */
#ifndef STP_PARAMS_H
#define STP_PARAMS_H

#include <linux/moduleparam.h>

static int stp_param_set_long(const char *val, const struct kernel_param *kp)
{
	return kstrtoll(val, 0, (long long *)kp->arg);
}

static int stp_param_get_long(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%lld\n", *(long long *)kp->arg);
}

static int stp_param_set_string(const char *val, const struct kernel_param *kp)
{
	strscpy(kp->arg, val, MAXSTRINGLEN);
	return 0;
}

static int stp_param_get_string(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", (const char *)kp->arg);
}

static const struct kernel_param_ops stp_param_ops_long __maybe_unused = {
	.set = stp_param_set_long,
	.get = stp_param_get_long,
};

static const struct kernel_param_ops stp_param_ops_string __maybe_unused = {
	.set = stp_param_set_string,
	.get = stp_param_get_string,
};

#endif
