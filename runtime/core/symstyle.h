/* symstyle.h - how an address is written (symname, symdata, the backtraces' lines): the styles of stp_sym_format, the
 * module's (core/symbols.h) and the BPF runtime's (bpf/symbols.h). */
#ifndef STP_SYMSTYLE_H
#define STP_SYMSTYLE_H

#define STP_SYM_KERNEL "kernel"        /* the kernel image's "module" */

enum stp_sym_style {
	STP_SYM_NAME,           /* symname(): "vfs_read", else the address */
	STP_SYM_DATA,           /* symdata(): "vfs_read+0x0/0x1a0 [kernel]", else the address */
	STP_SYM_FULL,           /* a print_backtrace() line: " 0xADDR : " + symdata + "\n" */
	STP_SYM_SIMPLE,         /* a sprint_backtrace() line: "vfs_read+0x0 [kernel]\n", else "0xADDR\n" */
	STP_SYM_HEX,            /* a backtrace() entry: "0xADDR " */
	STP_SYM_CALLER,         /* callers()' first entry: "0xaddr" (the BPF runtime's; the module writes its own) */
	STP_SYM_CALLER_MORE,    /* callers()' next ones: " 0xaddr" */
};

#endif
