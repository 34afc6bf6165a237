/* staprun.h - declarations shared by staprun's source files.
 * Used by the staprun sources only (main.c, log.c, module.c, removal.c, child.c, modinfo.c, verify.c, permissions.c, loadlock.c, setuid.c, secureboot.c). */
#ifndef STAPRUN_H
#define STAPRUN_H

#include "core/limits.h"   /* STP_BUFSIZE_MB_MAX (-b), STP_REMOTE_URI_MAX (-r) */

#include <stddef.h>

#include "../common/log.h"       /* say, err, verbose */
#include "../common/modparam.h"  /* module_param_read */

#define MODULE_NAME_MAX 55       /* the kernel's MODULE_NAME_LEN is 56 */

/* module.c: module names; loading and finding modules. */
int module_name_valid(const char *name);                             /* [A-Za-z0-9_]{1,55} */
int module_name_from_path(const char *path, char *name, size_t size); /* -1: not NAME.ko */
char *module_params_join(char **argv, int argc);
int module_loaded(const char *name);
int module_load(int fd, const char *path, const char *name, const char *params);

/* secureboot.c: modules refused for their signature (lockdown, module.sig_enforce, Secure Boot), said in one
 * line with the key and the MOK enrollment step. */
int secureboot_check_before_load(int fd, const char *path, const char *name);         /* -1 after the message */
int secureboot_explain_load_error(int fd, const char *path, const char *name, int e);  /* 1: said */

/* removal.c: one load of a module (its name, the uid that loaded it and the random _stp_load_id
 * its runtime drew), and removing the module only while it is still that load. */
struct run_id {
	char name[MODULE_NAME_MAX + 1];
	long owner;                     /* uid that loaded it */
	unsigned long long load_id;     /* its _stp_load_id, never 0 */
};
int run_identify(const char *name, struct run_id *id);   /* 0, or -1: owner or id unreadable */
int run_remove(const struct run_id *id);                 /* 0: removed or gone; -1 after a message */

/* modinfo.c: the "key=value" strings of a module file's .modinfo section. */
struct modinfo {
	char *data;             /* size bytes, then a NUL */
	size_t size;
};
int modinfo_read(int fd, struct modinfo *mi, const char **why);   /* -1: why says why */
const char *modinfo_get(const struct modinfo *mi, const char *key);
void modinfo_free(struct modinfo *mi);

/* verify.c: built by stap, speaking our transport protocol, for this kernel. */
/* the script a module was built from, as its modinfo says (stap_script, stap_script_sha256): for
 * stapio's self-describing headers; "" when not said */
struct script_info {
	char name[128];
	char sha256[65];
	unsigned long bufsize_mb;       /* its own buffer size (stap -s), as stap_bufsize says */
};
int module_verify(int fd, const char *path, const char *name, struct script_info *si); /* 0, or -1 after a message */
int kernel_release(char *buf, size_t size);  /* /proc/sys/kernel/osrelease (not uname()); -1: unreadable */
int module_ours(const char *name);          /* loaded, with /proc/systemtap/NAME/.cmd */
void module_proc_dir(const char *name, char *buf, size_t size);   /* /proc/systemtap/NAME */

/* permissions.c: the privilege model (man/staprun.8, SAFETY AND SECURITY). */
enum privilege { PRIV_NONE, PRIV_USR, PRIV_DEV, PRIV_ROOT };
enum privilege privilege_of_caller(void);
const char *privilege_name(enum privilege p);
void privilege_refuse(void);
void systemtap_dir(char *buf, size_t size);
int module_locate(const char *arg, char *path, size_t size);
int module_open(const char *path, enum privilege p, const char *what);   /* fd, or -1 after a message */
int params_allowed(enum privilege p, char **params, int n);
long module_owner(const char *name);        /* uid that loaded it, -1: cannot tell */
int loaded_module_allowed(const char *arg, struct run_id *id, const char *what);
#define REMOTE_ID_MAX   1000000 /* -r N:URI: the index of a host in stap --remote's list */
#define BUFSIZE_STAPUSR_MB 64   /* -b: stapusr */
int bufsize_allowed(enum privilege p, unsigned long mb);          /* 0 after a message: over the cap */
int buffers_fit(unsigned long mb, int given);                      /* 0 after a message: over budget */

/* loadlock.c: one load at a time for each user (the budget's check and the load it allows). */
int load_lock(enum privilege p, int *fd);   /* 0 (*fd -1: no lock needed), or -1 after a message */
void load_unlock(int fd);

/* setuid.c: when installed setuid root. */
int running_setuid(void);
void setuid_init(void);
int open_as_caller(const char *path, int flags);
int stapio_open(const char *path, char *why, size_t size); /* O_PATH fd, or -1 and why */
int become_caller(void);                    /* 0, or -1 after a message */
int become_caller_loading(void);            /* the same, root's effective and saved uid kept (stapio -B) */
char **stapio_environment(void);            /* NULL: inherit ours */

/* child.c: running stapio and relaying signals to it. */
struct stapio_args {
	const char *path;       /* from find_stapio() (for messages) */
	int fd;                 /* the stapio file find_stapio() opened and checked */
	const char *name;
	const char *outfile;    /* -o FILE */
	const char *size_arg;   /* -S SIZE_MB[,N] */
	const char *command;    /* -c CMD */
	const char *target_pid; /* -x PID */
	int attach;             /* -A */
	int detach;             /* -L */
	int flight;             /* -F */
	int verbose;
	const char *script, *script_sha256;     /* stapio -s, -H (NULL: not known) */
	const char *clock_offset;               /* -O OFFSET_US,ERR_US, checked: stapio -C */
	const char *bpf_object;                 /* a BPF object's path: stapio -B (bpfobj.c) */
	const char *remote;                     /* -r N:URI, checked: a BPF object's stapio -r (a module's: parameters) */
	int bpf_fd;                             /* the object, opened and checked (bpf_object: /proc/self/fd/N) */
	char **globals;                         /* a BPF object's NAME=VALUE settings of globals (checked): stapio -G */
	int nglobals;
};
int find_stapio(char *path, size_t size);      /* O_PATH fd, or -1 after a message */
void signals_hold(void);   /* ^C, TERM, HUP wait (blocked) until run_stapio() has started stapio */
int run_stapio(const struct stapio_args *a);
/* bpfobj.c: NAME.bo, a BPF object of stap --runtime=bpf, run by stapio -B */
int bpf_object_path(const char *arg);                          /* arg names a .bo */
int bpf_object_allowed(const char *arg, int unsupported_option);   /* 0, or -1 after a message */
int bpf_object_run(const char *arg, enum privilege p, struct stapio_args *a, char *name, size_t name_size);   /* exit status */   /* stapio's exit status (128+sig if killed), or STAPIO_LOST */
/* stapio -A's exit status when it never attached (stapio/stapio.h): the run is left alone */
#define STAPIO_NOT_ATTACHED 3
/* run_stapio(): stapio's status could not be had (waitpid failed): with -A, the run is left alone */
#define STAPIO_LOST (-1)

#endif /* STAPRUN_H */
