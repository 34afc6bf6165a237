/* bpfhist.c - a BPF run's histogram records (runtime/bpf/records.h) drawn as the module draws them: the
 * module's own runtime/stats/hist.c, compiled here over a user-space output; used by bpfrun.c. */
#include <stdio.h>

#include "bpfglue.h"
#include "../runtime/bpf/records.h"

/* the object's settings, from the record: the module's compile-time ones */
static int hist_width = 50, hist_elision = 2;
#define HIST_WIDTH_MAX 1000
#define HIST_WIDTH hist_width
#define HIST_ELISION hist_elision
#include "bpfout.h"
#include "../runtime/stats/statdata.h"

#include "../runtime/stats/hist.c"

void bpf_hist_draw(struct bpf_output *out, const void *rec, size_t size)
{
	const struct stp_bpf_hist_rec *h = rec;
	struct stp_stat_shape sh = { 0 };
	struct {
		struct stp_stat_data d;
		int64_t hist[STP_BPF_HIST_BUCKETS];
	} *data = calloc(1, sizeof(*data));
	struct stp_out o = { 0 };

	if (data && size >= sizeof(*h) && h->buckets > 0 && h->buckets <= STP_BPF_HIST_BUCKETS &&
	    h->width > 0 && h->width <= HIST_WIDTH_MAX &&
	    (h->htype == STP_HIST_LOG || (h->htype == STP_HIST_LINEAR && h->interval > 0))) {
		hist_width = h->width;
		hist_elision = h->elision;
		sh.htype = h->htype;
		sh.buckets = h->buckets;
		sh.start = h->start;
		sh.interval = h->interval;
		memcpy(data->d.hist, h->counts, sizeof(h->counts));
		stp_hist_print(&o, &sh, &data->d);
		bpf_output_text(out, o.buf, o.len);
	}
	free(data);
	free(o.buf);
}
