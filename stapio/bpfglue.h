/* bpfglue.h - what a BPF run (bpfrun.c) uses of stapio: its output files (outfile.c) and the -c command
 * (target.c), kept apart so that bpfrun.c, which includes libbpf's kernel types, needs none of stapio.h's. */
#ifndef STAPIO_BPFGLUE_H
#define STAPIO_BPFGLUE_H

#include <stddef.h>

struct bpf_object;
struct bpf_output;
struct bpf_output *bpf_output_open(const char *pattern, const char *size_arg);   /* NULL after a message */
/* what main.c gives a BPF run besides its files: staprun's -s, -H and -C for the output files' headers, and the
 * globals' settings NAME=VALUE (stapio -G) */
struct bpf_run_args {
	const char *script, *script_sha256;
	long long clock_offset_us, clock_offset_err_us;
	char **globals;
	int nglobals;
};
/* self-describing -o files (header.c) of the run name, whose procfs("header") file's text read_script gives */
void bpf_output_headers(struct bpf_output *o, const char *name, const struct bpf_run_args *args,
			long (*read_script)(void *ctx, char *buf, size_t size), void *ctx);
/* bpfglobals.c: the settings NAME=VALUE of the script's globals written into obj before it loads: 0, or -1 after a
 * message (no such global, a number that is not one, a string too long) */
int bpf_globals_set(struct bpf_object *obj, char *const *settings, int n);
/* bpfcost.c: per program of the loaded obj its verified instructions and code's size, per map its locked memory (stderr) */
void bpf_report_cost(struct bpf_object *obj);
void bpf_output_text(struct bpf_output *o, const char *text, size_t len);       /* a ring record's text, in pieces */
void bpf_output_record_begin(struct bpf_output *o, int pieces);                  /* a ring record of pieces sub-records */
void bpf_output_record_end(struct bpf_output *o);                                 /* ...then one output record */
void bpf_output_switch(struct bpf_output *o);                                     /* switch_file(): here */
int bpf_output_flush(struct bpf_output *o);                                       /* -1: failed */
int bpf_output_close(struct bpf_output *o);                                       /* -1 after a message */
/* bpffuncs.c: the entry addresses of the functions whose returns obj (a struct bpf_object) probes, written into it
 * before it loads: 0, or -1 for an object of another layout */
int bpf_funcs_set(struct bpf_object *obj);
/* bpffuncs.c: the first of the kernel's globals obj reads by name (__ksym: libbpf resolves them at load) that
 * /proc/kallsyms does not list, into missing (size bytes); 0 when it lists every one */
int bpf_ksyms_missing(struct bpf_object *obj, char *missing, size_t size);
/* bpfhist.c: a histogram record drawn into the output */
void bpf_hist_draw(struct bpf_output *out, const void *rec, size_t size);
/* bpfformat.c: the object's printf formats (its section's bytes; NULL after a message), and a printf record's
 * values formatted into the output */
struct bpf_formats;
struct bpf_formats *bpf_formats_read(const void *blob, size_t size);
void bpf_formats_free(struct bpf_formats *fm);
void bpf_format_record(struct bpf_output *out, struct bpf_formats *fm, const char *body, size_t len);

/* bpfprocfs.c: the object's procfs files served under /run/systemtap/NAME while the run goes on (mounted as root):
 * NULL when it has none (*failed 0) or after a message (*failed 1); the descriptor readable when a request waits (-1
 * for none, or once unmounted), the answer to it; the files unmounted (gone on return: no more requests); the files unmounted if need be and
 * everything freed */
struct bpf_procfs;
struct bpf_procfs *bpf_procfs_start(struct bpf_object *obj, const char *name, int *failed);
int bpf_procfs_fd(const struct bpf_procfs *pf);
void bpf_procfs_serve(struct bpf_procfs *pf);
void bpf_procfs_unmount(struct bpf_procfs *pf);
void bpf_procfs_stop(struct bpf_procfs *pf);
/* whether it has a read probe for the file name (pf NULL: none); that file's text as a read gives it, its probe
 * run now (unmounted too, until stop): its length, or -1 (the probe skipped or failed) */
int bpf_procfs_readable(const struct bpf_procfs *pf, const char *name);
long bpf_procfs_read(struct bpf_procfs *pf, const char *name, char *buf, size_t size);

/* the -c command: started held back (0, or -1 after a message), released once the probes are armed,
 * reaped when it exits (1 once, then), ended with the run */
struct target;
struct target *bpf_target_spawn(const char *command);        /* NULL after a message */
void bpf_target_release(struct target *t);
long bpf_target_pid(const struct target *t);
int bpf_target_exited(struct target *t);
void bpf_target_finish(struct target *t);
/* the script's system() commands (system.c): run one (cmd of len bytes), reap those that ended, wait (bounded) for the
 * rest and free them at the end; *sc made at the first command */
struct system_cmds;
/* the local time zone for tz_gmtoff() and tz_name() (main.c's time_zone_now): left as they are when it has none */
void bpf_time_zone(long long *west, char *name, size_t size);
void bpf_system_run(struct system_cmds **sc, const char *cmd, size_t len);
void bpf_system_poll(struct system_cmds *sc);
void bpf_system_finish(struct system_cmds *sc);

#endif
