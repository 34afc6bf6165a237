/* bpfglue.c - a BPF run's text records into stapio's output (stdout, -o FILE with strftime names, -S rotation)
 * as outfile.c writes a module's, and its -c command as target.c runs a module's; used by bpfrun.c. */
#include <stdlib.h>

#include "bpfglue.h"
#include "stapio.h"

struct bpf_output {
	struct outfile out;
	unsigned long long seq;     /* records given, for their headers */
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
	return o;
}

void bpf_output_text(struct bpf_output *o, const char *text, size_t len)
{
	struct stp_record_header h = { .len = (__u32)len, .flags = STP_REC_STDOUT, .seq = ++o->seq };

	outfile_write(&o->out, &h, text);
}

int bpf_output_flush(struct bpf_output *o)
{
	return outfile_flush(&o->out);
}

int bpf_output_close(struct bpf_output *o)
{
	int rc = 0;

	if (outfile_close(&o->out) < 0) {
		err("%s", outfile_error(&o->out));
		rc = -1;
	}
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
