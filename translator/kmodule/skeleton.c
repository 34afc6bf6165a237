/* skeleton.c - the kernel module's file: the parts pass 3's lowering generated (codegen/bodies.c),
 * written in the module's fixed order around its runtime, descriptors and provider tables; km_backend. */
#include "kmodule/kmodule.h"
#include "kmodule/usyms.h"
#include "codegen/gen.h"
#include "providers/provider.h"
#include "targets/kernelid.h"

#include <ctype.h>
#include <string.h>

/* The script's name (the file's base name, "-e" for -e; bytes other than letters, digits and
 * "._+-" as '_') and its text's SHA-256 in the modinfo (stap_script, stap_script_sha256), for
 * staprun to put into self-describing output files' headers. */
static void emit_script_info(const Session *s, StrBuf *out)
{
	const char *name = s->script_file ? s->script_file : "-e", *base = strrchr(name, '/');
	char *clean = xstrdup(base && base[1] ? base + 1 : name);

	for (char *p = clean; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._+-", *p))
			*p = '_';
	sb_printf(out, "MODULE_INFO(stap_script, \"%s\");\n", clean);
	if (s->script_sha256)
		sb_printf(out, "MODULE_INFO(stap_script_sha256, \"%s\");\n", s->script_sha256);
	sb_puts(out, "\n");
	free(clean);
}

/* The runtime: the settings it reads (-D, the call depth), runtime.h, the script's modinfo, the user
 * modules' tables (core/umods.h, core/ustack.h) and the embedded C of the script and the tapsets. */
static void write_runtime(Session *s, StrBuf *out)
{
	Program *prog = &s->prog;

	cg_write_settings(s, out);
	sb_puts(out, "#include \"runtime.h\"\n\n");
	emit_script_info(s, out);
	if (usyms_needed(s)) {
		sb_puts(out, "/* user-space modules: symbols and unwind tables (translator/kmodule/usyms.c) */\n");
		sb_puts(out, "#include \"core/umods.h\"\n");
		usyms_emit(s, out);
		sb_puts(out, "#include \"core/ustack.h\"\n\n");
	}
	if (prog->embedded.len) {
		sb_puts(out, "/* embedded C of the script (guru mode) and the tapset library */\n");
		for (int i = 0; i < prog->embedded.len; i++)
			sb_printf(out, "%s\n", ((Expr *)prog->embedded.items[i])->str);
		sb_puts(out, "\n");
	}
}

/* The frames of the handlers and functions, and their union: one context's frame stack
 * (core/frames.h) holds the largest. */
static void write_frames(Session *s, const CgParts *m, StrBuf *out)
{
	cg_write_frames(s, m, NULL, out);
	sb_puts(out, "#include \"core/frames.h\"\n\n");
}

/* stp_descs[]: per derived probe, its handler, lock table, names and light hit path. */
static void write_descriptors(Session *s, const CgParts *m, StrBuf *out)
{
	sb_puts(out, "/* probe descriptors */\n");
	sb_printf(out, "static const struct stp_probe_desc stp_descs[%d] = {\n", s->derived.len);
	for (int i = 0; i < s->derived.len; i++) {
		DerivedProbe *dp = s->derived.items[i];
		int h = m->shared[dp->probe->index];
		sb_printf(out, "\t{ .handler = probe_%d, .locks = locks_probe_%d, .nlocks = NLOCKS_probe_%d, .pp = ",
			  h, h, h);
		emit_c_string(out, dp->name);
		if (dp->written && strcmp(dp->written, dp->name)) {
			sb_puts(out, ", .pn = ");
			emit_c_string(out, dp->written);
		}
		if (m->light[h])
			sb_printf(out, ", .light = STP_LIGHT_PROBE_%d", h);
		sb_printf(out, ", .uncounted = STP_CHARGES_NONE_probe_%d", h);
		sb_puts(out, " },\n");
	}
	sb_puts(out, "};\n\n");
}

/* The tables of the families with probes, each after its runtime file and the settings it reads
 * (ProbeProvider's settings, runtime, emit), and the list of families armed at start. */
static void write_provider_tables(Session *s, StrBuf *out)
{
	StrBuf reg;

	sb_puts(out, "/* probe families */\n");
	sb_init(&reg);
	/* user modules' files are looked up before any probe can fire */
	if (usyms_needed(s))
		sb_puts(&reg, "\t{ \"umods\", stp_umods_start, stp_umods_stop },\n");
	/* armed in the registry's order, disarmed in reverse */
	for (int f = 0; provider_at(f); f++) {
		const ProbeProvider *prov = provider_at(f);
		DerivedProbe **dps = xcalloc((size_t)s->derived.len + 1, sizeof *dps);
		int n = 0;
		for (int i = 0; i < s->derived.len; i++) {
			DerivedProbe *dp = s->derived.items[i];
			if (dp->provider == prov)
				dps[n++] = dp;
		}
		if (n) {
			const char *cname = provider_cname(prov);
			if (prov->settings)
				prov->settings(s, dps, n, out);
			if (prov->runtime)
				sb_printf(out, "#include \"%s\"\n", prov->runtime);
			prov->emit(s, dps, n, out);
			sb_printf(&reg, "\t{ \"%s\", stp_%s_register, stp_%s_unregister },\n", cname, cname, cname);
		}
		free(dps);
	}
	sb_puts(out, "static const struct stp_provider stp_providers[] = {\n");
	sb_puts(out, reg.data);
	sb_puts(out, "};\n\n");
	sb_free(&reg);
}

/* stp_globals_init() and stp_globals_free(), then core/module.c: the module's init and exit. */
static void write_module_init(Session *s, const CgParts *m, StrBuf *out)
{
	Program *prog = &s->prog;

	sb_puts(out, "static int stp_globals_init(void)\n{\n");
	for (int i = 0; i < prog->globals.len; i++)
		sb_printf(out, "\tstp_rwlock_init(&lock_%s);\n", ((Symbol *)prog->globals.items[i])->name);
	sb_puts(out, m->globals_init.data);
	sb_puts(out, "\treturn 0;\n}\n\n");
	sb_puts(out, "static void stp_globals_free(void)\n{\n");
	sb_puts(out, m->globals_free.data);
	sb_puts(out, "}\n\n");
	sb_puts(out, "#include \"core/module.c\"\n");
}

/* The module's fixed skeleton, in order: the runtime, the handlers' static data, the globals, the
 * frames, the bodies (functions and handlers) and their lock tables, the probe descriptors, the
 * .return probes' entry functions (entry.c), the provider tables, the module's init. */
static void write_module(Session *s, const CgParts *m, StrBuf *out)
{
	write_runtime(s, out);
	if (m->data.len) {
		sb_puts(out, "/* static data of the handlers (compiled regular expressions ...) */\n");
		sb_puts(out, m->data.data);
		sb_puts(out, "\n");
	}
	sb_puts(out, "/* globals */\n");
	sb_puts(out, m->globals.data);
	write_frames(s, m, out);
	cg_calls_defines(s, out);
	sb_puts(out, "/* probe bodies and functions */\n");
	sb_puts(out, m->code.data);
	sb_puts(out, "/* globals each probe locks */\n");
	sb_puts(out, m->tables.data);
	write_descriptors(s, m, out);
	if (tg_kernel_build_id(s)[0])   /* staprun checks the running kernel is the one probes were typed for */
		sb_printf(out, "MODULE_INFO(stap_kernel_build_id, \"%s\");\n\n", tg_kernel_build_id(s));
	km_entry_functions(s, out);
	write_provider_tables(s, out);
	write_module_init(s, m, out);
}

/* 1 unless -DSTP_NO_LIGHT, or MAXACTION below its statements (runtime/core/probe.c) */
static void light_handler(StrBuf *code, int probe, int actions)
{
	sb_printf(code, "#define STP_LIGHT_PROBE_%d STP_LIGHT_OK(%d)   /* the light hit path */\n", probe, actions);
}

const CgBackend km_backend = {
	.name = "kernel",
	.globals = km_globals,
	.embedded_function = km_embedded_function,
	.light_handler = light_handler,
	.handler_table = km_lock_table,
	.loop_open = cg_loop_inline_open,
	.loop_close = cg_loop_inline_close,
	.foreach_open = cg_foreach_inline_open,
	.foreach_close = cg_foreach_inline_close,
	.printf = cg_printf_in_c,
	.regex_match = cg_regex_match,
	.display = cg_display_in_c,
	.write = write_module,
};
