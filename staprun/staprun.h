/* staprun.h - declarations shared by staprun's source files.
 * Used by the staprun sources only (main.c, module.c, child.c). */
#ifndef STAPRUN_H
#define STAPRUN_H

#include <stddef.h>

extern int verbose;
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* -v trace */
void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* "staprun: ..." */

/* module.c: loading and removing the kernel module. */
int module_name_from_path(const char *path, char *name, size_t size);
char *module_params_join(char **argv, int argc);
int module_load(const char *path, const char *name, const char *params);
int module_remove(const char *name);

/* child.c: running stapio and relaying signals to it. */
struct stapio_args {
	const char *path;       /* from find_stapio() */
	const char *name;
	const char *outfile;    /* -o FILE */
	const char *size_arg;   /* -S SIZE_MB[,N] */
	const char *command;    /* -c CMD */
	const char *target_pid; /* -x PID */
	int attach;             /* -A */
	int detach;             /* -L */
	int flight;             /* -F */
	int verbose;
};
int find_stapio(char *path, size_t size);      /* 0, or -1 after a message */
int run_stapio(const struct stapio_args *a);   /* stapio's exit status (128+sig if killed) */

#endif /* STAPRUN_H */
