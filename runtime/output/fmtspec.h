/* fmtspec.h - a printf conversion as the translator parsed it (struct stp_fmt, STP_FMT) and one completed
 * at run time from '*' arguments; shared by the module's output.c and runtime/bpf/output.h. */
#ifndef STP_FMTSPEC_H
#define STP_FMTSPEC_H

#include "fmtflags.h"

struct stp_fmt {
	unsigned char flags;    /* STP_FMT_LEFT ... (fmtflags.h, shared with the translator) */
	char conv;              /* d i u x X o c s p */
	short width;            /* -1 = none */
	short prec;             /* -1 = none */
};

#define STP_FMT(flags, width, prec, conv) \
	(&(const struct stp_fmt){ (flags), (conv), (width), (prec) })

static const struct stp_fmt stp_fmt_d __maybe_unused = { 0, 'd', -1, -1 };

/* the widest a '*' makes a field (a runtime may pad less: runtime/bpf/output.h) */
#ifndef STP_FMT_WIDTH_MAX
#define STP_FMT_WIDTH_MAX 1024
#endif

/* A spec whose width or precision is '*': the argument's value, as C does
 * it (a negative width left-justifies, a negative precision is none),
 * bounded like the translator bounds literal ones. */
static __always_inline __maybe_unused void stp_fmt_dynamic(struct stp_fmt *f, int flags, int64_t width, int width_star, int64_t prec,
					   int prec_star, char conv)
{
	f->flags = flags;
	f->conv = conv;
	f->width = width;
	f->prec = prec;
	if (width_star) {
		if (width < 0) {
			f->flags |= STP_FMT_LEFT;
			width = width < -STP_FMT_WIDTH_MAX ? STP_FMT_WIDTH_MAX : -width;
		}
		f->width = width > STP_FMT_WIDTH_MAX ? STP_FMT_WIDTH_MAX : width;
	}
	if (prec_star)
		f->prec = prec < 0 ? -1 : prec > 1024 ? 1024 : prec;
}

#endif
