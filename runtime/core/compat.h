/* compat.h - every kernel API difference the runtime meets (Debian 6.1, 6.12 and their -rt flavours),
 * decided here once, by kernel version or by the translator's cached feature tests; included by runtime.h. */
#ifndef STP_COMPAT_H
#define STP_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/irqflags.h>
#include <linux/uprobes.h>

/*
 * Feature tests (translator/compile/kfeatures.c) compile a tiny file per kernel build tree and pass
 * -DSTP_HAVE_NAME=0|1 to the module build: used where a distribution's backports make the version
 * lie.  A module built without them (by hand) falls back to the mainline version the API came in.
 */

/* uprobe_register() returns the struct uprobe * that uprobe_unregister_nosync() takes, and
 * unregistering ends with one uprobe_unregister_sync() (mainline 6.12). */
#ifndef STP_HAVE_UPROBE_REGISTER_PTR
#define STP_HAVE_UPROBE_REGISTER_PTR (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))
#endif

/* get_unaligned() and friends: <linux/unaligned.h> from 6.12 on, <asm/unaligned.h> before. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* A handler's temporary that its code always sets before use (a print buffer's struct stp_out),
 * left out of the stack zeroing of CONFIG_INIT_STACK_ALL_ZERO: a function declares all of its
 * temporaries at its top, and each was stores on every call whatever branch ran. */
#if defined(__has_attribute) && __has_attribute(__uninitialized__)
#define STP_NOINIT __attribute__((__uninitialized__))
#else
#define STP_NOINIT
#endif

/* A uprobe consumer's handlers take the consumer's session data (6.13 on). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define STP_UPROBE_HANDLER(name, fn)							\
	static int name(struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data)	\
	{ fn(self, regs, instruction_pointer(regs)); return 0; }
#define STP_URETPROBE_HANDLER(name, fn)							\
	static int name(struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs, __u64 *data) \
	{ fn(self, regs, func); return 0; }
#else
#define STP_UPROBE_HANDLER(name, fn)							\
	static int name(struct uprobe_consumer *self, struct pt_regs *regs)		\
	{ fn(self, regs, instruction_pointer(regs)); return 0; }
#define STP_URETPROBE_HANDLER(name, fn)							\
	static int name(struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs) \
	{ fn(self, regs, func); return 0; }
#endif

/* A registered uprobe: what unregistering it needs besides its consumer. */
struct stp_compat_uprobe {
#if STP_HAVE_UPROBE_REGISTER_PTR
	struct uprobe *up;
#endif
	struct inode *inode;
	loff_t offset;
};

/* Registers uc at inode+offset (ref_ctr_offset: an SDT semaphore, 0 for none); 0 or -errno. */
static inline int stp_compat_uprobe_register(struct stp_compat_uprobe *h, struct inode *inode, loff_t offset,
					     loff_t ref_ctr_offset, struct uprobe_consumer *uc)
{
	h->inode = inode;
	h->offset = offset;
#if STP_HAVE_UPROBE_REGISTER_PTR
	h->up = uprobe_register(inode, offset, ref_ctr_offset, uc);
	return IS_ERR(h->up) ? PTR_ERR(h->up) : 0;
#else
	if (ref_ctr_offset)
		return uprobe_register_refctr(inode, offset, ref_ctr_offset, uc);
	return uprobe_register(inode, offset, uc);
#endif
}

/* Unregisters uc; its handlers may still run until stp_compat_uprobe_sync() returns (before 6.12:
 * none runs once this returns, the uprobe's register_rwsem being taken). */
static inline void stp_compat_uprobe_unregister(struct stp_compat_uprobe *h, struct uprobe_consumer *uc)
{
#if STP_HAVE_UPROBE_REGISTER_PTR
	uprobe_unregister_nosync(h->up, uc);
#else
	uprobe_unregister(h->inode, h->offset, uc);
#endif
}

/* After a batch of stp_compat_uprobe_unregister(): no handler of theirs runs any more. */
static inline void stp_compat_uprobe_sync(void)
{
#if STP_HAVE_UPROBE_REGISTER_PTR
	uprobe_unregister_sync();
#endif
}

/* Iterating a memory map's VMAs: the maple-tree iterator (6.1 on), the mm->mmap list before. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define STP_VMA_ITERATOR(it, mm) VMA_ITERATOR(it, mm, 0)
#define stp_for_each_vma(it, vma) for_each_vma(it, vma)
#else
#define STP_VMA_ITERATOR(it, mm) struct mm_struct *it = (mm)
#define stp_for_each_vma(it, vma) for (vma = (it)->mmap; vma; vma = vma->vm_next)
#endif

/*
 * mmap_read_trylock() from a probe.  On PREEMPT_RT, mmap_lock is an rtmutex-based rwsem whose read
 * unlock, when a writer waits, takes its wait_lock with raw_spin_lock_irq() and so re-enables
 * interrupts: never from a probe that runs with interrupts off (kprobes, hard irq timers); such a
 * probe goes without the lock (the callers' "no lock" path: addresses in hex, no VMA lookup).
 */
static inline bool stp_compat_mmap_trylock(struct mm_struct *mm)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && irqs_disabled())
		return false;
	return mmap_read_trylock(mm);
}

/*
 * Whether the current task holds mm's mmap_lock for writing (a probe inside mmap or brk): then the VMAs
 * cannot change under it and are read without the lock.  A writer records itself as the owner: the
 * rwsem's owner (flag bits below 8) with bit 0 of the count set, or on PREEMPT_RT the owner of the
 * rwsem's rt_mutex (bit 0: it has waiters).
 */
static inline bool stp_compat_mmap_write_locked_by_current(struct mm_struct *mm)
{
#ifdef CONFIG_PREEMPT_RT
	return ((unsigned long)READ_ONCE(mm->mmap_lock.rwbase.rtmutex.owner) & ~1UL) == (unsigned long)current;
#else
	return (atomic_long_read(&mm->mmap_lock.count) & 1) &&
	       (atomic_long_read(&mm->mmap_lock.owner) & ~7L) == (long)current;
#endif
}

/* The pid namespace "the current task's" ids are seen from: the current task's own, or the initial
 * one when it has none. An exiting task past detach_pid() has none, and an interrupt (a timer's
 * wakeup, say) may find one there as current: find_vpid() and the *_vnr() helpers dereference that
 * NULL namespace (seen as an oops in idr_find under a sched_wakeup probe calling pid2execname()). */
#include <linux/pid_namespace.h>
static inline struct pid_namespace *stp_current_pid_ns(void)
{
	struct pid_namespace *ns = task_active_pid_ns(current);

	return ns ? ns : &init_pid_ns;
}

/* sid(), pgrp() (tapset/linux/context-ids.stp): the current process's session and process group ids as its pid
 * namespace sees them; runtime/bpf/tasks.h has the BPF runtime's */
#define stp_current_sid() ((int64_t)task_session_nr_ns(current, stp_current_pid_ns()))
#define stp_current_pgrp() ((int64_t)task_pgrp_nr_ns(current, stp_current_pid_ns()))

#endif
