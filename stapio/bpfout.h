/* bpfout.h - the output of a BPF run (bpfrun.c) through stapio's output files (outfile.c): kept apart so that
 * bpfrun.c, which includes libbpf's kernel types, needs none of stapio.h's wire format.  Written in bpfout.c. */
#ifndef STAPIO_BPFOUT_H
#define STAPIO_BPFOUT_H

#include <stddef.h>

struct bpf_output;
struct bpf_output *bpf_output_open(const char *pattern, const char *size_arg);   /* NULL after a message */
void bpf_output_text(struct bpf_output *o, const char *text, size_t len);       /* one record's text */
int bpf_output_flush(struct bpf_output *o);                                       /* -1: failed */
int bpf_output_close(struct bpf_output *o);                                       /* -1 after a message */

#endif
