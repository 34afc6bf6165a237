/* hist.c - print(@hist_log(x)) and print(@hist_linear(x, L, H, W)): the
 * histogram as an ASCII bar chart.  Used by generated code through stp_hist_print. */

/* The layout, as SystemTap draws it:
 *  - rows run from the first to the last non-empty bucket, widened by up to
 *    HIST_MARGIN empty buckets on each side; a log histogram is not widened
 *    below its zero bucket (no negative rows unless there are negative
 *    values); a linear one shows its under/overflow rows only when non-empty;
 *  - header: "value" right-aligned in the value column, " |", HIST_WIDTH
 *    dashes, " count";
 *  - value column width: the widest of 5 and, for a log histogram, the digits
 *    (with '-') of the first and last row's value; for a linear one, of L
 *    (plus 1 when the underflow row shows) and of L + W * last row's bucket
 *    number (plus 1 when the overflow row shows);
 *  - each row: its value right-aligned in the column, the underflow row as
 *    "<L", the overflow row as ">" followed by the value of the bucket before
 *    it; " |"; count / scale '@' (scale 1 when the largest count is at most
 *    HIST_WIDTH, else the largest count / HIST_WIDTH rounded up); the count
 *    right-aligned so that it ends HIST_WIDTH + 1 + (digits of the largest
 *    count) columns after the '|';
 *  - a row is left out when it and its HIST_ELISION neighbours on each side
 *    (within the rows shown) are all empty; a run of left-out rows is shown
 *    as one line of the column's width in spaces, then " ~"; HIST_ELISION < 0
 *    leaves out nothing;
 *  - an empty line after the last row.
 * The caller checks that the histogram is not empty. */

/* HIST_WIDTH, HIST_ELISION: core/limits.h */
#define HIST_MARGIN 2

/* Characters of v printed in decimal, with its '-'. */
static int stp_hist_digits(int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	int n = v < 0 ? 1 : 0;

	do {
		n++;
		u /= 10;
	} while (u);
	return n;
}

/* The low end of linear bucket b (1 is the first after the underflow), wrapping. */
static int64_t stp_hist_linear_value(const struct stp_stat_shape *sh, int b)
{
	return (int64_t)((uint64_t)sh->start + (uint64_t)(b - 1) * (uint64_t)sh->interval);
}

static void stp_hist_long(struct stp_out *o, int width, int64_t v)
{
	struct stp_fmt f = { 0, 'd', width, -1 };

	stp_out_fmt_long(o, &f, v);
}

static __maybe_unused void stp_hist_print(struct stp_out *o, const struct stp_stat_shape *sh,
					  const struct stp_stat_data *sd)
{
	int low = -1, high = 0, i, k, scale, val_space, cnt_space, under = 0, over = 0;
	int last = sh->buckets - 1;
	int64_t valmax = 0;
	bool eliding = false;

	for (i = 0; i < sh->buckets; i++) {
		if (sd->hist[i] > 0) {
			if (low < 0)
				low = i;
			high = i;
		}
		if (sd->hist[i] > valmax)
			valmax = sd->hist[i];
	}
	if (low < 0)
		return;
	for (i = 0; i < HIST_MARGIN; i++) {
		if (low > 0 && (sh->htype != STP_HIST_LOG || low != STP_HIST_LOG_ZERO))
			low--;
		if (high < last)
			high++;
	}
	if (sh->htype == STP_HIST_LINEAR) {
		if (low == 0 && sd->hist[0] == 0)
			low++;
		if (high == last && sd->hist[last] == 0)
			high--;
		under = low == 0;
		over = high == last;
	}
	scale = valmax <= HIST_WIDTH ? 1 : (int)div64_s64(valmax + HIST_WIDTH - 1, HIST_WIDTH);
	cnt_space = stp_hist_digits(valmax);
	if (sh->htype == STP_HIST_LINEAR)
		val_space = max(stp_hist_digits(sh->start) + under,
				stp_hist_digits(stp_hist_linear_value(sh, high + 1)) + over);
	else
		val_space = max(stp_hist_digits(stp_hist_log_value(high)), stp_hist_digits(stp_hist_log_value(low)));
	val_space = max(val_space, 5);

	stp_out_pad(o, ' ', val_space - 5);
	stp_out_bytes(o, "value |", 7);
	for (i = 0; i < HIST_WIDTH; i += 10)
		stp_out_bytes(o, "----------", min(10, HIST_WIDTH - i));
	stp_out_bytes(o, " count\n", 7);

	for (i = low; i <= high; i++) {
		const char *prefix = "";
		int64_t val, bar;
		int pad;

		if (HIST_ELISION >= 0) {
			int from = max(low, i - (int)min(HIST_ELISION, sh->buckets));
			int to = min(high, i + (int)min(HIST_ELISION, sh->buckets));
			bool empty = true;

			for (k = from; k <= to; k++)
				if (sd->hist[k])
					empty = false;
			if (empty) {
				eliding = true;
				continue;
			}
			if (eliding) {
				stp_out_pad(o, ' ', val_space);
				stp_out_bytes(o, " ~\n", 3);
				eliding = false;
			}
		}
		if (sh->htype == STP_HIST_LINEAR) {
			if (i == 0) {
				val = sh->start;
				prefix = "<";
			} else if (i == last) {
				val = stp_hist_linear_value(sh, i - 1);
				prefix = ">";
			} else {
				val = stp_hist_linear_value(sh, i);
			}
		} else {
			val = stp_hist_log_value(i);
		}
		pad = val_space - stp_hist_digits(val) - (int)strlen(prefix);
		stp_out_pad(o, ' ', pad);
		stp_out_str(o, prefix);
		stp_hist_long(o, 0, val);
		stp_out_bytes(o, " |", 2);
		bar = div64_s64(sd->hist[i], scale);
		for (k = 0; k < bar; k += 10)
			stp_out_bytes(o, "@@@@@@@@@@", min_t(int64_t, 10, bar - k));
		stp_hist_long(o, (int)(HIST_WIDTH - bar + 1 + cnt_space), sd->hist[i]);
		stp_out_bytes(o, "\n", 1);
	}
	stp_out_bytes(o, "\n", 1);
}
