/* perf.h - @perf("NAME") on the BPF runtime: a perf.type(T).config(C).counter("NAME") probe is a perf event array that
 * stapio fills with the event it opens on each CPU (translator/bpfprog/object.c names it stp_pc_K_T_C), read here on
 * the CPU the probe runs on, as the module reads its per-CPU events (runtime/probes/perf.c). */
#ifndef STP_BPF_PERF_H
#define STP_BPF_PERF_H

static __always_inline int64_t stp_perf_read(struct stp_context *c, void *events)
{
	struct bpf_perf_event_value v;

	if (bpf_perf_event_read_value(events, BPF_F_CURRENT_CPU, &v, sizeof(v)) < 0) {
		stp_error(c, "@perf: the counter is not running (on this CPU)");
		return 0;
	}
	return (int64_t)v.counter;
}

#endif
