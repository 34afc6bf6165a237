/* bpfcost.c - what a BPF object's load cost the kernel, shown with -v: per program (a probe point's, or a helper's) the
 * instructions the verifier processed and its code's size, per map the memory it locks; used by bpfrun.c after the load. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

#include "bpfglue.h"
#include "../common/fileline.h"

/* the "memlock:" line of the kernel's fdinfo of fd (bytes), 0 when it has none */
static unsigned long long memlock(int fd)
{
	char path[64];
	unsigned long long bytes = 0;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	file_line_number(path, "memlock: %llu", &bytes);
	return bytes;
}

void bpf_report_cost(struct bpf_object *obj)
{
	struct bpf_program *p;
	struct bpf_map *m;
	unsigned long long total_insns = 0, total_maps = 0;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(p);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
			continue;
		total_insns += info.verified_insns;
		fprintf(stderr, "stapio: %s (%s): %u instructions verified, %u translated (%u bytes), %u bytes of machine code\n",
			bpf_program__name(p), bpf_program__section_name(p), info.verified_insns,
			info.xlated_prog_len / 8, info.xlated_prog_len, info.jited_prog_len);
	}
	bpf_object__for_each_map(m, obj) {
		int fd = bpf_map__fd(m);
		unsigned long long bytes = fd < 0 ? 0 : memlock(fd);

		if (fd < 0)
			continue;
		total_maps += bytes;
		if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF)
			fprintf(stderr, "stapio: map %s: a ring of %u KiB, %llu KiB locked\n", bpf_map__name(m),
				bpf_map__max_entries(m) / 1024, (bytes + 1023) / 1024);
		else
			fprintf(stderr, "stapio: map %s: %u entries of %u bytes, %llu KiB locked\n", bpf_map__name(m),
				bpf_map__max_entries(m), bpf_map__value_size(m), (bytes + 1023) / 1024);
	}
	fprintf(stderr, "stapio: the load: %llu instructions verified, %llu KiB of maps\n", total_insns,
		(total_maps + 1023) / 1024);
}
