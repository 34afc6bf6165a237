/* procfsfiles.c - the procfs probes of a BPF object: runtime/bpf/procfs.h (their $value) and the table of their files
 * (STP_BPF_PROCFS_SECTION), from which stapio serves them; their programs are object.c's (stp_procfs_N). */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "providers/procfs.h"
#include "providers/provider.h"

void bpf_procfs_files(Session *s, StrBuf *out)
{
	StrBuf table;

	sb_init(&table);
	for (int i = 0; i < s->derived.len; i++) {
		const DerivedProbe *dp = s->derived.items[i];
		unsigned mode;
		int64_t maxsize;
		int write;

		if (bpf_prog_kind(dp) != BPF_PROG_PROCFS)
			continue;
		write = procfs_point(s, dp, &mode, &maxsize);
		sb_printf(&table, "%c %o %lld stp_procfs_%04d %s\n", write ? 'w' : 'r', mode, (long long)maxsize, dp->index,
			  dp->symbol);
	}
	if (table.len) {
		sb_puts(out, "#include \"bpf/procfs.h\"\n\n/* the procfs files stapio serves: kind, mode, maxsize, program, path */\n");
		sb_puts(out, "const char stp_procfs_files[] SEC(STP_BPF_PROCFS_SECTION) = ");
		emit_c_string(out, table.data);
		sb_puts(out, ";\n\n");
	}
	sb_free(&table);
}
