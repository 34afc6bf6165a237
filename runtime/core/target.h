/* target.h - whether the current task is the run's target process (stap -c CMD / -x PID) or one of its descendants.
 * Used by the process families (probes/uprobes.c, probes/process.c), which SystemTap scopes to that tree. */
#ifndef STP_CORE_TARGET_H
#define STP_CORE_TARGET_H

#include <linux/rcupdate.h>
#include <linux/sched.h>

/* True without a target; else whether current's process, or an ancestor up the real_parent chain
 * (at most 4096 steps, stopping at init), is the target. */
static inline bool stp_in_target_tree(void)
{
	struct task_struct *t;
	bool in = false;
	int depth;

	if (stp_target <= 0)
		return true;
	rcu_read_lock();
	for (t = current, depth = 0; t && depth < 4096; depth++) {
		struct task_struct *parent;

		if (task_tgid_nr(t) == stp_target) {
			in = true;
			break;
		}
		parent = rcu_dereference(t->real_parent);
		if (!parent || parent == t || task_pid_nr(t) <= 1)
			break;
		t = parent;
	}
	rcu_read_unlock();
	return in;
}

#endif
