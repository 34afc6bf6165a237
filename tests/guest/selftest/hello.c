// hello.c - a minimal kernel module that logs one line when loaded and one when removed.
// Used only by tests/guest/harness-selftest.t to prove the guest test harness end to end.
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

static int __init hello_init(void)
{
	pr_info("stap-harness-selftest: hello from the guest kernel\n");
	return 0;
}

static void __exit hello_exit(void)
{
	pr_info("stap-harness-selftest: goodbye\n");
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test harness self-test module");
