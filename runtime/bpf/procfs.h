/* procfs.h - procfs("NAME").read/.write probes' $value on the BPF runtime: the one string of the map stp_procfs, which
 * stapio (stapio/bpfprocfs.c, serving the files) empties or fills before it runs the probe and reads after. */
#ifndef STP_BPF_PROCFS_H
#define STP_BPF_PROCFS_H

struct stp_procfs_value {
	char s[MAXSTRINGLEN];
};

/* stapio runs one procfs probe at a time: one entry serves them all */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct stp_procfs_value);
} stp_procfs SEC(".maps");

static __always_inline char *stp_procfs_buf(void)
{
	u32 zero = 0;
	struct stp_procfs_value *v = bpf_map_lookup_elem(&stp_procfs, &zero);

	return v ? v->s : NULL;
}

/* the names translator/providers/procfs.c's $value uses (a NULL source copies as "") */
#define stp_procfs_value(c) ((void)(c), (const char *)stp_procfs_buf())
#define stp_procfs_set(c, v) stp_procfs_put(c, v, stp_strlcpy)
#define stp_procfs_append(c, v) stp_procfs_put(c, v, stp_strlcat)
/* v into the value by copy (stp_strlcpy) or after it (stp_strlcat) */
#define stp_procfs_put(c, v, how)                            \
	do {                                                 \
		char *stp_pv_ = stp_procfs_buf();            \
		(void)(c);                                   \
		if (stp_pv_)                                 \
			how(stp_pv_, (v), MAXSTRINGLEN);     \
	} while (0)

#endif
