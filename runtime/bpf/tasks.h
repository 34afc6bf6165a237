/* tasks.h - a task by its id on the BPF runtime (pid2task(), tapset/linux/task.stp): the current pid namespace's IDR
 * walked as the kernel's find_pid_ns walks it (xa_load over an xarray of struct pid), then the pid's first task, each
 * read fault-safe and relocated by name (CO-RE); a tracing program runs under RCU, which keeps what it reads. */
#ifndef STP_BPF_TASKS_H
#define STP_BPF_TASKS_H

struct upid {
	int nr;
	struct pid_namespace *ns;
} __attribute__((preserve_access_index));
struct hlist_head {
	struct hlist_node *first;
} __attribute__((preserve_access_index));
struct pid {
	unsigned int level;
	struct hlist_head tasks[4];     /* PIDTYPE_PID's first */
	struct upid numbers[1];         /* one per namespace level, the task's own last */
} __attribute__((preserve_access_index));
struct signal_struct {
	struct pid *pids[4];            /* PIDTYPE_TGID, _PGID, _SID's */
} __attribute__((preserve_access_index));
struct xarray {
	void *xa_head;
} __attribute__((preserve_access_index));
struct idr {
	struct xarray idr_rt;           /* the kernel's radix_tree_root, an xarray since 4.20 */
	unsigned int idr_base;
} __attribute__((preserve_access_index));
struct pid_namespace {
	struct idr idr;
} __attribute__((preserve_access_index));
struct xa_node {
	unsigned char shift;
	void *slots[64];
} __attribute__((preserve_access_index));

/* a user namespace's id maps, as tapset/linux/task2.stp's __task_ns_cred_id reads them (linux/user_namespace.h) */
#define UID_GID_MAP_MAX_BASE_EXTENTS 5
#define UID_GID_MAP_MAX_EXTENTS 340
struct uid_gid_extent {
	u32 first;
	u32 lower_first;
	u32 count;
} __attribute__((preserve_access_index));
struct uid_gid_map {
	u32 nr_extents;
	union {
		struct uid_gid_extent extent[UID_GID_MAP_MAX_BASE_EXTENTS];
		struct {
			struct uid_gid_extent *forward;
			struct uid_gid_extent *reverse;
		};
	};
} __attribute__((preserve_access_index));
struct user_namespace {
	struct uid_gid_map uid_map;
	struct uid_gid_map gid_map;
} __attribute__((preserve_access_index));

#define STP_XA_CHUNK_MASK 63            /* XA_CHUNK_SHIFT 6: 64 slots a node */
#define STP_PID_NS_LEVELS 32            /* MAX_PID_NS_LEVEL */
/* xa_is_node(): an internal entry (its low bits 10) above the small internal values */
#define stp_xa_is_node(e) (((u64)(e) & 3) == 2 && (u64)(e) > 4096)

/* The current task's pid namespace (task_active_pid_ns: its struct pid's namespace at the pid's own level) and that
 * level; NULL when it has none (an exiting task past detach_pid) */
static __always_inline struct pid_namespace *stp_current_pid_ns_at(unsigned int *level)
{
	struct task_struct *cur = current;
	struct pid *tp = BPF_CORE_READ(cur, thread_pid);
	struct pid_namespace *ns = NULL;

	if (!tp)
		return NULL;
	*level = BPF_CORE_READ(tp, level) & (STP_PID_NS_LEVELS - 1);
	if (bpf_probe_read_kernel(&ns, sizeof(ns), &tp->numbers[*level].ns) < 0)
		return NULL;
	return ns;
}

/* The task_struct of the thread whose id, as the current task's pid namespace sees it, is nr; 0 when there is none */
static __always_inline int64_t stp_pid2task(int64_t nr)
{
	struct pid_namespace *ns;
	struct hlist_node *first;
	struct pid *p;
	unsigned int level;
	void *entry;
	u64 index;

	if (nr <= 0 || nr > 0x3fffffff || !(ns = stp_current_pid_ns_at(&level)))
		return 0;
	index = (u64)nr - BPF_CORE_READ(ns, idr.idr_base);
	entry = BPF_CORE_READ(ns, idr.idr_rt.xa_head);
	/* xa_load: a head that is no node holds index 0 alone; an index past the top node's reach is none; a 32-bit index
	 * is at most 6 nodes deep */
	if (!stp_xa_is_node(entry) && index)
		return 0;
	for (int depth = 0; depth < 7 && stp_xa_is_node(entry); depth++) {
		struct xa_node *node = (struct xa_node *)((u64)entry - 2);
		unsigned char shift = BPF_CORE_READ(node, shift);
		u64 slot = index >> (shift & 63);

		if (!depth && slot > STP_XA_CHUNK_MASK)
			return 0;
		if (bpf_probe_read_kernel(&entry, sizeof(entry), &node->slots[slot & STP_XA_CHUNK_MASK]) < 0)
			return 0;
	}
	if (!entry || ((u64)entry & 3) == 2)    /* none, or an internal entry (a reserved id's zero entry) */
		return 0;
	p = entry;
	first = BPF_CORE_READ(p, tasks[0].first);
	return first ? (int64_t)((u64)first - bpf_core_field_offset(struct task_struct, pid_links)) : 0;
}

/* The id the current task's pid namespace gives the current process's pid of a type (2: its process group, 3: its
 * session: PIDTYPE_PGID, PIDTYPE_SID), as pid_nr_ns does; 0 when it has none (an exiting task) */
static __always_inline int64_t stp_current_pid_nr(int type)
{
	struct task_struct *cur = current;
	struct pid_namespace *ns, *in = NULL;
	struct pid *p = NULL;
	unsigned int level;
	int nr = 0;

	if (!(ns = stp_current_pid_ns_at(&level)) ||
	    bpf_probe_read_kernel(&p, sizeof(p), &BPF_CORE_READ(cur, signal)->pids[type & 3]) < 0 || !p ||
	    BPF_CORE_READ(p, level) < level || bpf_probe_read_kernel(&in, sizeof(in), &p->numbers[level].ns) < 0 || in != ns ||
	    bpf_probe_read_kernel(&nr, sizeof(nr), &p->numbers[level].nr) < 0)
		return 0;
	return nr;
}

/* One extent of the map c->ns_scan scans: the id's value there when the extent holds it (tapset/linux/task2.stp's
 * __task_ns_cred_id, as the module reads it); a fault ends the scan as the script error it is */
static long stp_ns_extent(u64 i, void *r)
{
	struct stp_context *c = *(struct stp_context **)r;
	const struct uid_gid_extent *e = (const struct uid_gid_extent *)c->ns_scan.ext + i;
	u32 lower = stp_kernel_u32(c, (unsigned long)&e->lower_first), count = stp_kernel_u32(c, (unsigned long)&e->count);

	if (c->last_error)
		return 1;
	if (c->ns_scan.id >= lower && c->ns_scan.id - lower < count) {
		c->ns_scan.found = (int64_t)stp_kernel_u32(c, (unsigned long)&e->first) + (c->ns_scan.id - lower);
		return 1;
	}
	return 0;
}

/* Credential id which (0 uid, 1 euid, 2 gid, 3 egid) of the task at task as its own user namespace maps it: the
 * namespace's uid_map or gid_map, its extents in the map or (more than 5) the sorted array it points to; 65534 (the
 * overflow id) when none holds the id */
static __always_inline int64_t stp_task_ns_cred_id(struct stp_context *c, u64 task, int64_t which)
{
	const struct task_struct *t = (const struct task_struct *)task;
	const struct cred *cred = (const struct cred *)stp_kernel_s64(c, (unsigned long)&t->cred);
	const struct user_namespace *ns;
	const struct uid_gid_map *map;
	struct stp_context *r = c;
	unsigned long field;
	u32 nr;

	if (c->last_error)
		return 0;
	field = which == 0 ? (unsigned long)&cred->uid.val : which == 1 ? (unsigned long)&cred->euid.val :
		which == 2 ? (unsigned long)&cred->gid.val : (unsigned long)&cred->egid.val;
	c->ns_scan.id = stp_kernel_u32(c, field);
	ns = (const struct user_namespace *)stp_kernel_s64(c, (unsigned long)&cred->user_ns);
	if (c->last_error)
		return 0;
	map = which < 2 ? &ns->uid_map : &ns->gid_map;
	nr = stp_kernel_u32(c, (unsigned long)&map->nr_extents);
	c->ns_scan.ext = nr > UID_GID_MAP_MAX_BASE_EXTENTS ? (u64)stp_kernel_s64(c, (unsigned long)&map->forward) :
							     (u64)(unsigned long)map->extent;
	c->ns_scan.found = -1;
	if (c->last_error)
		return 0;
	bpf_loop(nr < UID_GID_MAP_MAX_EXTENTS ? nr : UID_GID_MAP_MAX_EXTENTS, stp_ns_extent, &r, 0);
	if (c->last_error)
		return 0;
	return c->ns_scan.found >= 0 ? c->ns_scan.found : 65534;
}

#define stp_current_pgrp() stp_current_pid_nr(2)
#define stp_current_sid() stp_current_pid_nr(3)

/* The fields older kernels had where the task's own are now (each read where the running kernel has it: CO-RE's
 * field-exists relocation picks the branch, the other never runs) */
struct task_struct___pre514 {
	long state;                      /* __state (unsigned int) since 5.14 */
} __attribute__((preserve_access_index));
struct task_struct___pre516 {
	unsigned int cpu;                /* thread_info.cpu since 5.16 (x86-64) */
} __attribute__((preserve_access_index));

/* task_state(): the task's state bits */
static __always_inline int64_t stp_task_state(struct stp_context *c, u64 task)
{
	struct task_struct *t = (struct task_struct *)task;

	if (bpf_core_field_exists(t->__state))
		return stp_kernel_u32(c, (unsigned long)&t->__state);
	return stp_kernel_s64(c, (unsigned long)&((struct task_struct___pre514 *)t)->state);
}

/* task_cpu(): the CPU the task last ran on */
static __always_inline int64_t stp_task_cpu(struct stp_context *c, u64 task)
{
	struct task_struct *t = (struct task_struct *)task;

	if (bpf_core_field_exists(t->thread_info.cpu))
		return stp_kernel_u32(c, (unsigned long)&t->thread_info.cpu);
	return stp_kernel_u32(c, (unsigned long)&((struct task_struct___pre516 *)t)->cpu);
}

/* The current process's argument (env 0) or environment (env 1) area: its start (end 0) or end (end 1) in its
 * memory, 0 for a kernel thread or a process without one yet (tapset/linux/context-cmdline.stp) */
#define PF_KTHREAD 0x00200000
struct mm_struct {
	unsigned long arg_start, arg_end, env_start, env_end;
} __attribute__((preserve_access_index));
static __always_inline int64_t stp_proc_area(struct stp_context *c, int64_t env, int end)
{
	const struct task_struct *t = (const struct task_struct *)bpf_get_current_task();
	const struct mm_struct *mm = (const struct mm_struct *)stp_kernel_s64(c, (unsigned long)&t->mm);
	unsigned int flags = stp_kernel_u32(c, (unsigned long)&t->flags);

	if (!mm || (flags & PF_KTHREAD) || c->last_error)
		return 0;
	if (env)
		return stp_kernel_s64(c, end ? (unsigned long)&mm->env_end : (unsigned long)&mm->env_start);
	return stp_kernel_s64(c, end ? (unsigned long)&mm->arg_end : (unsigned long)&mm->arg_start);
}

/* is_idle_task(current): the current task is its CPU's idle task (PF_IDLE) */
#define PF_IDLE 0x00000002
#define stp_current_is_idle(c)											\
	((stp_kernel_u32((c), (unsigned long)&((struct task_struct *)bpf_get_current_task())->flags) & PF_IDLE) != 0)

#endif
