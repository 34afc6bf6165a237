/* dwarf_vars.h - run-time side of target variables ($var, @cast, $var$, $$vars): fault-safe reads
 * and writes of any size, bit fields, and the pieces of pretty-printed values.  Included by deref.h;
 * used by the C that translator/codegen/targetvars.c generates. */
#ifndef STP_DWARF_VARS_H
#define STP_DWARF_VARS_H

#include "dwbits.h"

/* Reads size (1..8) bytes at addr (of the current process's memory when user) as a little-endian
 * number, sign- or zero-extended; true when the memory could not be read (no error is set). */
static __always_inline bool stp_dw_peek_raw(unsigned long addr, int size, bool is_signed, int64_t *out, bool user)
{
	union { u8 b[8]; u16 h; u32 w; u64 q; s8 sb; s16 sh; s32 sw; } v;

	if (!user && STP_KERNEL_READ_SMALL(size))
		return stp_kernel_read_small(addr, size, is_signed, out);
	v.q = 0;
	if (unlikely(size < 1 || size > 8 || stp_copy_nofault(&v, addr, size, user)))
		return true;
	switch (size) {
	case 1: *out = is_signed ? (int64_t)v.sb : (int64_t)v.b[0]; break;
	case 2: *out = is_signed ? (int64_t)v.sh : (int64_t)v.h; break;
	case 4: *out = is_signed ? (int64_t)v.sw : (int64_t)v.w; break;
	case 8: *out = (int64_t)v.q; break;
	default:
		*out = (int64_t)v.q;
		if (is_signed && (v.q >> (size * 8 - 1)) & 1)
			*out = (int64_t)(v.q | (~0ULL << (size * 8)));
		break;
	}
	return false;
}

/* A target-variable read of kernel memory (or, user, of user memory: a syscall parameter's __user
 * pointer, `$statbuf->st_size`): on a fault, "read fault at 0x..." ("user read fault") becomes this
 * hit's error (reported near the operator the generated code names: c->last_stmt), the value 0. */
static __always_inline int64_t stp_dw_read_mem(struct stp_context *c, unsigned long addr, int size, bool is_signed,
					       bool user)
{
	int64_t v;

	if (unlikely(stp_dw_peek_raw(addr, size, is_signed, &v, user))) {
		stp_deref_fault(c, user ? "user read fault" : "read fault", addr);
		return 0;
	}
	return v;
}

static noinline __maybe_unused int64_t stp_dw_read_any(struct stp_context *c, unsigned long addr, int size,
							 bool is_signed)
{
	return stp_dw_read_mem(c, addr, size, is_signed, false);
}

/* Inlined where the generated code reads (size is then a constant): a read of the current task's
 * own task_struct or stack ($regs of a tracepoint or syscall probe, task_current()'s fields) is one
 * load there; any other address goes through the fault-safe read. */
static __always_inline __maybe_unused int64_t stp_dw_read(struct stp_context *c, unsigned long addr, int size,
							  bool is_signed)
{
	if (STP_KERNEL_READ_SMALL(size) && stp_kernel_own(addr, size))
		return stp_kernel_own_load(addr, size, is_signed);
	return stp_dw_read_any(c, addr, size, is_signed);
}

/* stp_dw_read into t as the generated code does it, leaving by label on a fault with where (a
 * location literal) as the error's place: the error's test, and where, are on the fault-safe path
 * only (the current task's own memory is one load, which cannot fault). */
#define STP_DW_READ(t, c, addr, size, is_signed, where, label)				\
	do {										\
		unsigned long stp_addr_ = (addr);					\
											\
		if (STP_KERNEL_READ_SMALL(size) && stp_kernel_own(stp_addr_, (size))) {	\
			(t) = stp_kernel_own_load(stp_addr_, (size), (is_signed));		\
		} else {								\
			(t) = stp_dw_read_any((c), stp_addr_, (size), (is_signed));	\
			if (unlikely((c)->last_error)) {				\
				(c)->last_stmt = (where);				\
				goto label;						\
			}								\
		}									\
	} while (0)

static __maybe_unused int64_t stp_dw_uread(struct stp_context *c, unsigned long addr, int size, bool is_signed)
{
	return stp_dw_read_mem(c, addr, size, is_signed, true);
}

/* The load bias of the user file (executable or library) whose uprobe is running on this CPU: the
 * run-time address of the breakpoint minus its link-time address, set by probes/uprobes.c around
 * the handler. Globals of a position-independent file are at their DW_OP_addr plus it. */
struct stp_ubias_state {
	const char *path;                   /* the probed file; NULL: no uprobe handler is running */
	unsigned long bias;
};
static DEFINE_PER_CPU(struct stp_ubias_state, stp_ubias_state);

#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/dcache.h>

/* Where the current process mapped the file at path from its start (offset 0), which for a
 * position-independent file linked at 0 is its bias; false when it has no such mapping or its
 * memory map is busy (never waited for: a handler does not sleep). */
static bool stp_ubias_mapped(const char *path, unsigned long *bias)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	char buf[256];
	bool found = false;

	if (!mm || !in_task() || (current->flags & PF_KTHREAD) || !stp_compat_mmap_trylock(mm))
		return false;
	{
		STP_VMA_ITERATOR(vmi, mm);
		stp_for_each_vma(vmi, vma) {
			char *p;

			if (!vma->vm_file || vma->vm_pgoff)
				continue;
			p = d_path(&vma->vm_file->f_path, buf, sizeof(buf));
			if (!IS_ERR(p) && !strcmp(p, path)) {
				*bias = vma->vm_start;
				found = true;
				break;
			}
		}
	}
	mmap_read_unlock(mm);
	return found;
}

/* The bias of the file at path in the current process: the probed file's from the hit, another
 * one's (@var("x@f.c", "PATH") in a probe elsewhere) from the process's memory map. */
static __maybe_unused unsigned long stp_ubias(struct stp_context *c, const char *path)
{
	struct stp_ubias_state *u = this_cpu_ptr(&stp_ubias_state);
	unsigned long bias;

	if (likely(u->path && (u->path == path || !strcmp(u->path, path))))
		return u->bias;
	if (stp_ubias_mapped(path, &bias))
		return bias;
	if (!c->last_error) {
		scnprintf(c->error_buf, sizeof(c->error_buf), "%s is not mapped in the current process (or its memory "
			  "map is busy): its globals cannot be located", path);
		stp_error(c, c->error_buf);
	}
	return 0;
}

/* The same read for pretty printers: *bad set on a fault, no error. */
static __maybe_unused int64_t stp_dw_peek(unsigned long addr, int size, bool is_signed, bool *bad)
{
	int64_t v = 0;

	if (unlikely(stp_dw_peek_raw(addr, size, is_signed, &v, false)))
		*bad = true;
	return v;
}

static __maybe_unused int64_t stp_dw_upeek(unsigned long addr, int size, bool is_signed, bool *bad)
{
	int64_t v = 0;

	if (unlikely(stp_dw_peek_raw(addr, size, is_signed, &v, true)))
		*bad = true;
	return v;
}

/* Writes size bytes of v (little-endian) at kernel address addr without oopsing (the kernel does not
 * export copy_to_kernel_nofault: its exception-table store, inlined here); true on a fault. */
static __maybe_unused bool stp_dw_put_nofault(unsigned long addr, u64 v, int size)
{
	int i;

	if (addr < TASK_SIZE_MAX || size < 1 || size > 8)
		return true;
	pagefault_disable();
	switch (size) {
	case 1: __put_kernel_nofault((void *)addr, &v, u8, fault); break;
	case 2: __put_kernel_nofault((void *)addr, &v, u16, fault); break;
	case 4: __put_kernel_nofault((void *)addr, &v, u32, fault); break;
	case 8: __put_kernel_nofault((void *)addr, &v, u64, fault); break;
	default:
		for (i = 0; i < size; i++) {
			u8 byte = (u8)(v >> (8 * i));

			__put_kernel_nofault((void *)(addr + i), &byte, u8, fault);
		}
		break;
	}
	pagefault_enable();
	return false;
fault:
	pagefault_enable();
	return true;
}

/* A guru-mode write of size bytes (little-endian) at addr; "write fault at 0x..." on a fault. */
static __maybe_unused void stp_dw_write(struct stp_context *c, unsigned long addr, int size, int64_t value)
{
	if (unlikely(stp_dw_put_nofault(addr, (u64)value, size)))
		stp_deref_fault(c, "write fault", addr);
}

/* The loaded module called modname, found on the kernel's module list from our own entry (the
 * list's head, the kernel's own variable, is outside the module area and skipped). The caller
 * holds rcu_read_lock_sched(). NULL when it is not loaded. */
static struct module *stp_dw_find_module(const char *modname)
{
	struct list_head *p = READ_ONCE(THIS_MODULE->list.next);
	int guard;

	for (guard = 0; p != &THIS_MODULE->list && guard < 65536; guard++, p = READ_ONCE(p->next)) {
		struct module *m;

		if ((unsigned long)p < MODULES_VADDR || (unsigned long)p >= MODULES_END)
			continue;
		m = list_entry(p, struct module, list);
		if (m->state != MODULE_STATE_UNFORMED && !strcmp(m->name, modname))
			return m;
	}
	return NULL;
}

/* The run-time address of symbol `name` of module modname (a module global named by a location
 * expression); cache[] keeps the module and the address found.  0 with an error when the module
 * is not loaded or lacks the symbol. */
static __maybe_unused unsigned long stp_dw_module_symbol(struct stp_context *c, const char *modname,
							 const char *name, unsigned long cache[2])
{
	struct module *mod;
	struct mod_kallsyms *ks;
	unsigned long addr = 0;
	unsigned int i;

	rcu_read_lock_sched();
	mod = stp_dw_find_module(modname);
	if (mod && READ_ONCE(cache[0]) == (unsigned long)mod) {
		smp_rmb();
		addr = READ_ONCE(cache[1]);
	} else if (mod) {
		ks = rcu_dereference_sched(mod->kallsyms);
		for (i = 0; ks && i < ks->num_symtab; i++) {
			if (strcmp(ks->strtab + ks->symtab[i].st_name, name))
				continue;
			addr = ks->symtab[i].st_value;
			WRITE_ONCE(cache[1], addr);
			smp_wmb();
			WRITE_ONCE(cache[0], (unsigned long)mod);
			break;
		}
	}
	rcu_read_unlock_sched();
	if (!addr && !c->last_error) {
		scnprintf(c->error_buf, sizeof(c->error_buf), mod ? "module %s has no symbol %s" :
			  "module %s is not loaded (reading its global %s)", modname, name);
		stp_error(c, c->error_buf);
	}
	return addr;
}

/* ---- pretty printing into a string value ---- */

static __maybe_unused void stp_dw_put_dec(struct stp_out *o, int64_t v)
{
	stp_out_fmt_long(o, &stp_fmt_d, v);
}

static __maybe_unused void stp_dw_put_udec(struct stp_out *o, int64_t v)
{
	stp_out_fmt_long(o, STP_FMT(0, -1, -1, 'u'), v);
}

/* $$vars style: 0x prefix, no padding ("0x0" for zero). */
static __maybe_unused void stp_dw_put_hex(struct stp_out *o, int64_t v)
{
	stp_out_str(o, "0x");
	stp_out_fmt_long(o, STP_FMT(0, -1, -1, 'x'), v);
}

/* A pointer as %p prints it: 0x and 16 digits. */
static __maybe_unused void stp_dw_put_ptr(struct stp_out *o, int64_t v)
{
	stp_out_fmt_long(o, STP_FMT(0, -1, -1, 'p'), v);
}

/* A character in single quotes, escaped like a C literal. */
static __maybe_unused void stp_dw_put_char(struct stp_out *o, int64_t v)
{
	char esc[8];
	int n = stp_escape_char(esc, (unsigned char)v);

	if ((unsigned char)v == '\'') {
		esc[0] = '\\';
		esc[1] = '\'';
		n = 2;
	} else if ((unsigned char)v == '"') {
		esc[0] = '"';
		n = 1;
	}
	stp_out_bytes(o, "'", 1);
	stp_out_bytes(o, esc, n);
	stp_out_bytes(o, "'", 1);
}

/* The string at addr, quoted (at most maxlen bytes; "NULL" for 0, the address when it cannot be
 * read), written straight into what is left of the output. */
static __maybe_unused void stp_dw_put_string(struct stp_out *o, unsigned long addr, int64_t maxlen)
{
	unsigned int room = o->cap - o->len;

	if (room < 8)
		return;
	o->len += stp_quote_mem(o->buf + o->len, room + 1, addr, maxlen, false);
	if (o->len > o->cap)
		o->len = o->cap;
}

#endif
