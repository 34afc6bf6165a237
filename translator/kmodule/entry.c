/* entry.c - the module's entry functions of .return probes with @entry values: each runs at the
 * function's entry with a per-CPU frame of its own (body: codegen/targetvars.c's cg_entry_body). */
#include "kmodule/kmodule.h"
#include "codegen/gen.h"
#include "providers/provider.h"

/* dp's entry function into out, its heading first when it is the first (*any); none without @entry */
static void emit_entry_function(Session *s, DerivedProbe *dp, int *any, StrBuf *out)
{
	StrBuf frame, tables, code;

	sb_init(&frame);
	sb_init(&tables);
	sb_init(&code);
	if (cg_entry_body(s, dp, &frame, &tables, &code)) {
		if (!*any)
			sb_puts(out, "/* .return probes: values saved at function entry (@entry, $param) */\n");
		*any = 1;
		sb_puts(out, tables.data);
		sb_printf(out, "struct frame_dwarf_entry_%d {\n\tchar unused_;\n%s};\n", dp->index, frame.data);
		sb_printf(out, "static DEFINE_PER_CPU(struct frame_dwarf_entry_%d, stp_dwarf_entry_frame_%d);\n\n",
			  dp->index, dp->index);
		sb_printf(out, "static void stp_dwarf_entry_%d(struct stp_context *c)\n{\n", dp->index);
		sb_printf(out, "\tstruct frame_dwarf_entry_%d *f = this_cpu_ptr(&stp_dwarf_entry_frame_%d);\n",
			  dp->index, dp->index);
		sb_puts(out, code.data);
		sb_puts(out, "}\n\n");
	}
	sb_free(&frame);
	sb_free(&tables);
	sb_free(&code);
}

void km_entry_functions(Session *s, StrBuf *out)
{
	int any = 0;

	for (int i = 0; i < s->derived.len; i++) {
		emit_entry_function(s, s->derived.items[i], &any, out);
	}
}
