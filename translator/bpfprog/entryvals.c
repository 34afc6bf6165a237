/* entryvals.c - @entry on the BPF runtime: a .return probe with values saved at entry gets a program at the function's
 * entry that evaluates them (codegen/targetvars.c's cg_entry_body) and keeps them (runtime/bpf/targetvars.h's
 * stp_entry_save) until the return's program takes them back (stp_entry_take). */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "providers/provider.h"
#include "targets/access.h"
#include "targets/site.h"

/* the bytes dp saves at entry, 0 without @entry */
static int entry_bytes(const DerivedProbe *dp)
{
	return ((dp->site ? dp->site->entry_size : dp->entry_size) + 7) & ~7;
}

int bpf_entry_saved(const DerivedProbe *dp)
{
	return entry_bytes(dp) > 0;
}

void bpf_entry_functions(Session *s, StrBuf *settings, StrBuf *frames, StrBuf *members, StrBuf *code)
{
	int most = 0;

	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		StrBuf frame, tables, body;
		if (!bpf_entry_saved(dp))
			continue;
		sb_init(&frame);
		sb_init(&tables);
		sb_init(&body);
		if (cg_entry_body(s, dp, &frame, &tables, &body)) {
			if (entry_bytes(dp) > most)
				most = entry_bytes(dp);
			sb_puts(frames, tables.data);
			sb_printf(frames, "struct frame_dwarf_entry_%d {\n\tchar unused_;\n%s};\n", dp->index, frame.data);
			sb_printf(members, "\tstruct frame_dwarf_entry_%d dwarf_entry_%d;\n", dp->index, dp->index);
			sb_printf(code, "/* %s: its values at entry */\nstatic void stp_dwarf_entry_%d(struct stp_context *c)\n{\n"
				  "\tstruct frame_dwarf_entry_%d *f = &((union stp_frame *)c->frames)->dwarf_entry_%d;\n\n%s"
				  "\tstp_entry_save(c, %d);\n}\n\n", dp->name, dp->index, dp->index, dp->index, body.data, dp->index);
		}
		sb_free(&frame);
		sb_free(&tables);
		sb_free(&body);
	}
	if (most)
		sb_printf(settings, "#define STP_BPF_ENTRY_BYTES %d\n", most);
}
