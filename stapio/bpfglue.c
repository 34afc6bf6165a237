/* bpfglue.c - a BPF run's text into stapio's output (stdout, -o FILE with strftime names, -S rotation) as outfile.c
 * writes a module's, its -c command and system() commands as target.c and system.c run a module's; used by bpfrun.c. */
#include <stdlib.h>
#include <string.h>

#include "bpfglue.h"
#include "bpfout.h"
#include "stapio.h"

struct bpf_output {
	struct outfile out;
	struct header_info header;  /* self-describing files (header.c) */
	const char *pattern;        /* -o, or NULL */
	unsigned long long seq;     /* records given, for their headers */
	struct stp_out text;        /* the ring record's text so far (its sub-records'): one output record */
	int direct;                 /* a ring record of one sub-record: its text is the output record as it comes */
};

struct bpf_output *bpf_output_open(const char *pattern, const char *size_arg)
{
	struct bpf_output *o = calloc(1, sizeof(*o));

	if (!o) {
		err("out of memory");
		return NULL;
	}
	if (outfile_open(&o->out, pattern, size_arg, 0, NULL, 0) < 0) {
		free(o);
		return NULL;
	}
	o->pattern = pattern;
	return o;
}

void bpf_output_headers(struct bpf_output *o, const char *name, const struct bpf_run_args *args,
			long (*read_script)(void *ctx, char *buf, size_t size), void *ctx)
{
	if (!o->pattern)
		return;
	say("%s has a header file: each output file starts with a header", name);
	o->header.read_script = read_script;
	o->header.read_ctx = ctx;
	header_start(&o->header, "", name);
	o->header.script = args->script;
	o->header.script_sha256 = args->script_sha256;
	o->header.clock_offset_us = args->clock_offset_us;
	o->header.clock_offset_err_us = args->clock_offset_err_us;
	outfile_set_header(&o->out, header_text, &o->header);
}

void bpf_output_text(struct bpf_output *o, const char *text, size_t len)
{
	if (o->direct && !o->text.len) {
		struct stp_record_header h = { .len = (__u32)len, .flags = STP_REC_STDOUT, .seq = ++o->seq };

		outfile_write(&o->out, &h, text);
		return;
	}
	stp_out_bytes(&o->text, text, len);
}

void bpf_output_record_begin(struct bpf_output *o, int pieces)
{
	o->direct = pieces == 1;
}

void bpf_output_record_end(struct bpf_output *o)
{
	struct stp_record_header h = { .len = (__u32)o->text.len, .flags = STP_REC_STDOUT, .seq = ++o->seq };

	if (!o->text.len)
		return;
	outfile_write(&o->out, &h, o->text.buf);
	o->text.len = 0;
}

void bpf_output_switch(struct bpf_output *o)
{
	bpf_output_record_end(o);
	outfile_request_switch(&o->out);
}

int bpf_output_flush(struct bpf_output *o)
{
	bpf_output_record_end(o);
	return outfile_flush(&o->out);
}

int bpf_output_close(struct bpf_output *o)
{
	int rc = 0;

	bpf_output_record_end(o);
	if (outfile_close(&o->out) < 0) {
		err("%s", outfile_error(&o->out));
		rc = -1;
	}
	free(o->text.buf);
	free(o);
	return rc;
}

struct target *bpf_target_spawn(const char *command)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t) {
		err("out of memory");
		return NULL;
	}
	t->go_fd = -1;
	if (target_spawn(t, command) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

long bpf_target_pid(const struct target *t)
{
	return t->pid;
}

void bpf_target_release(struct target *t)
{
	if (t)
		target_release(t);
}

int bpf_target_exited(struct target *t)
{
	return t ? target_exited(t) : 0;
}

void bpf_target_finish(struct target *t)
{
	if (t) {
		target_finish(t);
		free(t);
	}
}

void bpf_system_run(struct system_cmds **sc, const char *cmd, size_t len)
{
	if (!*sc && !(*sc = calloc(1, sizeof(**sc)))) {
		err("out of memory");
		return;
	}
	system_run(*sc, cmd, len);
}

void bpf_system_poll(struct system_cmds *sc)
{
	if (sc)
		system_poll(sc);
}

void bpf_system_finish(struct system_cmds *sc)
{
	if (sc) {
		system_finish(sc);
		free(sc);
	}
}

void bpf_time_zone(long long *west, char *name, size_t size)
{
	(void)time_zone_now(west, name, size);   /* writes nothing when the zone is unusable */
}
