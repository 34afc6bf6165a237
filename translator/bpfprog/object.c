/* object.c - the BPF object's C (--runtime=bpf): the parts pass 3's lowering generated, the globals as
 * BPF global data, and one BPF program per probe point around its handler, for runtime/bpf/; bpf_backend. */
#include "bpfprog/bpfprog.h"
#include "codegen/gen.h"
#include "providers/perf.h"
#include "providers/provider.h"
#include "../../runtime/bpf/records.h"

#include <stdlib.h>
#include <string.h>

/* Scalars as the object's global data (.data, .bss), which stapio reads at the end of the run. */
static void bpf_globals(Session *s, CgParts *parts)
{
	Program *prog = &s->prog;

	for (int i = 0; i < prog->globals.len; i++) {
		Symbol *g = prog->globals.items[i];
		if (g->type == TY_STATS) {
			/* its map and beside it its shape (runtime/bpf/stats.h), fixed by the uses (codegen/stats.c) */
			CgStatShape sh = cg_stats_shape(s->cg, g);
			int buckets = sh.htype == CG_HIST_LOG ? 128 :
				      sh.htype == CG_HIST_LINEAR && sh.width > 0 ? (int)((sh.high - sh.low) / sh.width + 3) : 0;
			if (g->is_array == 1)
				bpf_map_decl(s, g, sh.htype != CG_HIST_NONE, &parts->globals);
			else
				sb_printf(&parts->globals, "STP_BPF_STAT(g_%s, %d);\n", g->name, sh.htype != CG_HIST_NONE);
			sb_printf(&parts->globals, "static const struct stp_stat_shape g_%s__shape = { .htype = %s, .buckets = %d, "
				  ".start = %lldLL, .interval = %lldLL, .shift = %d, .variance = %d };\n", g->name,
				  sh.htype == CG_HIST_LOG ? "STP_HIST_LOG" : sh.htype == CG_HIST_LINEAR ? "STP_HIST_LINEAR" : "STP_HIST_NONE",
				  buckets, (long long)sh.low, (long long)sh.width, sh.shift, sh.variance);
		} else if (g->is_array == 1) {
			bpf_map_decl(s, g, 0, &parts->globals);
		} else if (g->type == TY_STRING) {
			sb_printf(&parts->globals, "char g_%s[MAXSTRINGLEN]", g->name);
			if (g->init) {
				sb_puts(&parts->globals, " = ");
				emit_c_string(&parts->globals, g->init->str);
			}
			sb_puts(&parts->globals, ";\n");
		} else {
			sb_printf(&parts->globals, "int64_t g_%s = %s;\n", g->name,
				  g->init ? cg_long_literal(g->init->num) : "0");
		}
	}
}

/* A function in embedded C written for both runtimes (marked so, refuse.c): the module's convention; its
 * STAP_ERROR's format is bpf_snprintf's (runtime/bpf/context.h's stp_error_fmt).  One not marked
 * is called from nowhere the program can reach (refuse.c reports the calls): a body that only fails. */
static void bpf_embedded_function(Session *s, Function *f, StrBuf *frames, StrBuf *code)
{
	(void)s;
	if (!bpf_embedded_ok(f)) {
		cg_embedded_frame(f, frames);
		sb_printf(code, "static void fn_%s(struct stp_context *c, struct frame_fn_%s *f)\n{\n\t(void)f;\n"
			  "\tstp_error(c, \"function %s has no BPF body\");\n}\n\n", f->cname, f->cname, f->name);
		return;
	}
	cg_embedded_function(f, frames, code,
			     "#define STAP_ERROR(fmt, ...) do { static const char stp_f_[] = fmt; u64 stp_a_[] = { 0, ##__VA_ARGS__ }; "
			     "stp_error_fmt(c, stp_f_, sizeof(stp_a_) > 8 ? stp_a_ + 1 : NULL, sizeof(stp_a_) - 8); goto stp_out; } while (0)\n");
}

/* A function called from more than one place: a global BPF function, which the verifier checks once rather than at
 * each call (its pointers, which it may be given as NULL for all it knows, checked; it returns a number) */
static void bpf_shared_function(const Function *f, int decl, StrBuf *code)
{
	sb_printf(code, "__attribute__((__noinline__)) int fn_%s(struct stp_context *c, struct frame_fn_%s *f)%s", f->cname,
		  f->cname, decl ? ";\n" : "\n{\n");
	if (!decl)
		sb_printf(code, "\tif (c && f)\n\t\tfn_%s_body(c, f);\n\treturn 0;\n}\n\n", f->cname);
}

/* none: the BPF runtime takes no locks (a global's update is one store, as stapbpf's) */
static void bpf_handler_table(Session *s, const Probe *p, const char *mode, StrBuf *out)
{
	(void)s;
	(void)p;
	(void)mode;
	(void)out;
}

/* begin and end probes in their order (priority, then place), the rest as they come */
static int dp_order(const void *a, const void *b)
{
	const DerivedProbe *x = *(const DerivedProbe *const *)a, *y = *(const DerivedProbe *const *)b;

	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return x->index - y->index;
}

/* ppfunc() of a probe point's text, as runtime/core/strfuncs.h's stp_ppfunc finds it: a C literal */
/* is_return()'s reading of a point (tapset/linux/context-return.stp): a ".return" component last, or followed by
 * .maxactive(N) */
static int pp_is_return(const char *pp)
{
	for (const char *r = strstr(pp, ".return"); r; r = strstr(r + 1, ".return")) {
		const char *after = r + strlen(".return");

		if (!*after || !strncmp(after, ".maxactive(", strlen(".maxactive(")))
			return 1;
	}
	return 0;
}

static char *pp_function(const char *pp)
{
	const char *start = strstr(pp, "function(\"");
	char *name, *lit;

	if (start)
		start += strlen("function(\"");
	else if ((start = strstr(pp, "inline(\"")) != NULL)
		start += strlen("inline(\"");
	name = start ? xstrndup(start, strcspn(start, "\"@:")) : xstrdup("");
	lit = cg_string_literal(name);
	free(name);
	return lit;
}

/* A body that does nothing (empty blocks): its program returns at once, with no context claimed, as bpftrace's
 * empty probe does; nothing of it is observable but the attach */
static int does_nothing(const Stmt *st)
{
	if (!st || st->kind == ST_EMPTY)
		return 1;
	if (st->kind != ST_BLOCK)
		return 0;
	for (int i = 0; i < st->body.len; i++)
		if (!does_nothing(st->body.items[i]))
			return 0;
	return 1;
}

/* The section naming where a kprobe or uprobe program goes (bpfprog.h), at place's entry or return: a C literal */
static char *place_section(const ProbePlace *at, int is_return)
{
	char *where, *sec;

	if (at->path)
		where = xasprintf("%sprobe/%llx/%llx/%lld/%s", is_return ? "uret" : "u", (unsigned long long)at->offset,
				  (unsigned long long)at->sem_offset, (long long)at->pid, at->path);
	else
		where = xasprintf("%sprobe/%llx/%s", is_return ? "kret" : "k", (unsigned long long)at->offset, at->symbol);
	sec = cg_string_literal(where);
	free(where);
	return sec;
}

/* Whether a kernel function's entry (is_return: its return) may be a trampoline program instead of a kprobe, as far as
 * what the object's code reads of the hit's registers goes: a trampoline has the arguments, the return value and
 * the function's address only (runtime/bpf/targetvars.h's stp_save_trampoline_regs), and a kretprobe's instruction
 * pointer is the caller's, which an fexit program does not know.  Names read alike elsewhere only cost the speed. */
static int trampoline_regs_ok(const char *code, int is_return)
{
	static const char *const unknown[] = { "sp", "bp", "bx", "r10", "r11", "r12", "r13", "r14", "r15", "flags", "ss",
					       "orig_ax", "stp_print_regs", "stp_print_backtrace", "stp_sprint_backtrace",
					       "stp_callers", "stp_backtrace_frame" };
	static const char *const caller[] = { "ip", "instruction_pointer" };

	return !cg_c_names(code, unknown, sizeof(unknown) / sizeof(unknown[0])) &&
	       !(is_return && cg_c_names(code, caller, sizeof(caller) / sizeof(caller[0])));
}

/* A kprobe's or uprobe's program i (handler h), which stapio attaches where its section says (bpfprog.h), with its
 * entry program for @entry, and its twin on a trampoline, which stapio attaches instead where the kernel has one for
 * the symbol (stp_tr_N for stp_kp_N; -D STP_BPF_KPROBES_ONLY leaves it out; tramp_ok[is_return]: whether the code
 * allows it).  save_regs: what the hit saves of its registers; names: its pp() setting. */
static void write_placed(const DerivedProbe *dp, int i, int h, const int tramp_ok[2], const char *save_regs,
			 const char *names, StrBuf *out)
{
	int empty = does_nothing(dp->probe->body) && does_nothing(dp->probe->epilogue) && !bpf_entry_saved(dp);
	ProbePlace at;
	char *sec, *save;

	dp->provider->place(dp, &at);
	if (at.is_return && bpf_entry_saved(dp)) {
		/* @entry: a program at the entry saves the values, the return's takes them (entryvals.c) */
		sec = place_section(&at, 0);
		sb_printf(out, "SEC(%s)\nint stp_%se_%04d(void *ctx)\n{\n\t(void)ctx;\n"
			  "\tSTP_RUN_SAVING(stp_dwarf_entry_%d, 0, (stp_save_regs(c, ctx), %s));\n\treturn 0;\n}\n\n",
			  sec, at.path ? "up" : "kp", i, dp->index, names);
		free(sec);
		save = xasprintf("stp_save_regs(c, ctx), stp_entry_take(c, %d)", dp->index);
	} else if (!at.path && !at.is_return && strcmp(save_regs, "(void)0")) {
		save = xasprintf("%s, stp_kprobe_at_int3(c)", save_regs);   /* the probed address, as the module's */
	} else if (!at.path && at.is_return && strcmp(save_regs, "(void)0")) {
		save = xasprintf("%s, stp_kretprobe_entry(c, stp_func_addrs[%d])", save_regs, i);   /* write_programs */
	} else {
		save = xstrdup(save_regs);
	}
	sec = place_section(&at, at.is_return);
	if (empty)
		sb_printf(out, "SEC(%s)\nint stp_%s_%04d(void *ctx)\n{\n\t(void)ctx;\n\treturn 0;\n}\n\n", sec,
			  at.path ? "up" : "kp", i);
	else
		sb_printf(out, "SEC(%s)\nint stp_%s_%04d(void *ctx)\n{\n\t(void)ctx;\n"
			  "\tSTP_RUN_SAVING(probe_%d, 0, (%s, %s));\n\treturn 0;\n}\n\n", sec,
			  at.path ? "up" : "kp", i, h, save, names);
	if (at.trampoline && !at.path && !bpf_entry_saved(dp) && tramp_ok[at.is_return]) {
		sb_printf(out, "#ifndef STP_BPF_KPROBES_ONLY\nSEC(\"%s/%s\")\nint stp_tr_%04d(u64 *ctx)\n{\n\t(void)ctx;\n",
			  at.is_return ? "fexit" : "fentry", at.symbol, i);
		if (!empty)
			sb_printf(out, "\tSTP_RUN_SAVING(probe_%d, 0, (%s, %s));\n", h,
				  strcmp(save, "(void)0") ? (at.is_return ? "stp_save_trampoline_regs(c, ctx, 1)"
									  : "stp_save_trampoline_regs(c, ctx, 0)") : "(void)0",
				  names);
		sb_puts(out, "\treturn 0;\n}\n#endif\n\n");
	}
	free(sec);
	free(save);
}

/* The kretprobes' function entries (write_placed's stp_kretprobe_entry), by program, which stapio fills in from
 * /proc/kallsyms (runtime/bpf/records.h's STP_BPF_FUNCS_SECTION): when the programs read their registers */
static void write_return_entries(DerivedProbe **dps, int n, StrBuf *out)
{
	int returns = 0;

	for (int i = 0; i < n; i++) {
		ProbePlace at;

		if (bpf_prog_kind(dps[i]) == BPF_PROG_KPROBE) {
			dps[i]->provider->place(dps[i], &at);
			returns |= at.is_return && !at.path;
		}
	}
	if (returns)
		sb_printf(out, "/* the returns' function entries, by program (stapio fills them in) */\n"
			  "volatile u64 stp_func_addrs[%d] SEC(STP_BPF_FUNCS_SECTION);\n\n", n);
}

/* A BTF tracepoint's program; a raw tracepoint's where the kernel has no BTF for it (stapio changes its type) or -D asks:
 * the same arguments, u64 each, which the handlers read fault-safely either way */
static void write_tracepoint(const DerivedProbe *dp, int i, int h, const char *save_args, const char *names, StrBuf *out)
{
	sb_printf(out, "#ifdef STP_BPF_RAW_TRACEPOINTS\nSEC(\"raw_tp/%s\")\n#else\nSEC(\"tp_btf/%s\")\n#endif\n"
		  "int stp_tp_%04d(u64 *ctx)\n{\n\t(void)ctx;\n\tSTP_RUN_SAVING(probe_%d, 0, (%s, %s));\n\treturn 0;\n}\n\n",
		  dp->symbol, dp->symbol, i, h, save_args, names);
}

/* A perf counter on each CPU: no program, a perf event array stapio fills (STP_BPF_COUNTER_MAP), and its case of
 * @perf's reader (k its position among the perf probes: codegen/expr.c) into cases */
static void write_counter(Session *s, const DerivedProbe *dp, StrBuf *cases, StrBuf *out)
{
	int64_t type, config;
	int k;

	perf_cpu_counter(s, dp, &type, &config, &k);
	sb_printf(out, "/* %s: the event on each CPU (stapio opens them), read by @perf */\nstruct {\n"
		  "\t__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);\n\t__uint(key_size, 4);\n\t__uint(value_size, 4);\n"
		  "\t__uint(max_entries, 1);\n} " STP_BPF_COUNTER_MAP "%d_%lld_%lld SEC(\".maps\");\n\n", dp->name, k,
		  (long long)type, (long long)config);
	sb_printf(cases, "\tcase %d:\n\t\treturn stp_perf_read(c, &" STP_BPF_COUNTER_MAP "%d_%lld_%lld);\n", k, k,
		  (long long)type, (long long)config);
}

/* @perf("NAME")'s reader, when the object has counters: write_counter's cases (then freed) */
static void write_counter_reader(StrBuf *cases, StrBuf *out)
{
	if (cases->len)
		sb_printf(out, "static int64_t stp_perf_counter_read(struct stp_context *c, unsigned int k)\n{\n\tswitch (k) {\n"
			  "%s\t}\n\tstp_error(c, \"@perf: the counter is not running (on this CPU)\");\n\treturn 0;\n}\n\n",
			  cases->data);
	sb_free(cases);
}

/* pp() and pn(), when a handler names them (uses_pp): the point's texts set, else nothing */
static char *point_names(const DerivedProbe *dp, int uses_pp)
{
	char *pp, *pn, *fn, *names;

	if (!uses_pp)
		return xstrdup("(void)0");
	pp = cg_string_literal(dp->name);
	pn = cg_string_literal(dp->written ? dp->written : dp->name);
	fn = pp_function(dp->name);
	names = xasprintf("stp_set_pp(c, %s, %s, %s, %d)", pp, pn, fn, pp_is_return(dp->name));
	free(pp);
	free(pn);
	free(fn);
	return names;
}

/* One program per probe point: begin, end, error and timer ones are run by stapio (BPF_PROG_TEST_RUN of a
 * syscall program: begin and end in the order of their names, timers every period), the others
 * attached where they fire. */
static void write_programs(Session *s, const CgParts *m, StrBuf *out)
{
	static const char *const regs_users[] = { "stp_func_arg", "stp_return_value", "stp_syscall_arg", "stp_kernel_regs",
						  "stp_register" };
	static const char *const kstack_users[] = { "stp_print_backtrace", "stp_sprint_backtrace", "stp_callers",
						    "stp_backtrace_frame" };
	DerivedProbe **dps = xcalloc((size_t)s->derived.len + 1, sizeof *dps);
	StrBuf counters;   /* @perf's reader's cases */
	int n = 0;
	/* the hit's registers or arguments copied for the target variables, when a handler reads them; its kernel stack
	 * when one names a backtrace (a tracepoint's from its caller: the program's own frame left out) */
	const char *code = m->code.data ? m->code.data : "";
	int kstack = cg_c_names(code, kstack_users, sizeof(kstack_users) / sizeof(kstack_users[0]));
	int regs = cg_c_names(code, regs_users, sizeof(regs_users) / sizeof(regs_users[0])) || strstr(code, "c->regs") ||
		   strstr(code, "CONTEXT->regs");
	const char *save_regs = regs && kstack ? "stp_save_regs(c, ctx), stp_save_kstack(c, ctx, 0, 0)" :
				regs ? "stp_save_regs(c, ctx)" : kstack ? "stp_save_kstack(c, ctx, 0, 0)" : "(void)0";
	const char *save_perf = regs && kstack ? "stp_save_perf_regs(c, ctx), stp_save_kstack(c, ctx, 0, 0)" :
				regs ? "stp_save_perf_regs(c, ctx)" : kstack ? "stp_save_kstack(c, ctx, 0, 0)" : "(void)0";
	int args = strstr(code, "c->entry_data") != NULL;
	const char *save_args = args && kstack ? "stp_save_args(c, ctx), stp_save_kstack(c, ctx, 1, 1)" :
				args ? "stp_save_args(c, ctx)" : kstack ? "stp_save_kstack(c, ctx, 1, 1)" : "(void)0";
	static const char *const pp_users[] = { "stp_ppfunc", "stp_is_return" };
	int uses_pp = strstr(code, "c->probe->") != NULL || cg_c_names(code, pp_users, 2);
	/* an entry's and a return's trampoline allowed by what the code reads (a scan of it each, not one per program) */
	const int tramp_ok[2] = { trampoline_regs_ok(code, 0), trampoline_regs_ok(code, 1) };

	for (int i = 0; i < s->derived.len; i++)
		dps[n++] = s->derived.items[i];
	qsort(dps, (size_t)n, sizeof *dps, dp_order);
	if (strcmp(save_regs, "(void)0"))
		write_return_entries(dps, n, out);
	sb_init(&counters);
	sb_puts(out, "/* programs: one per probe point */\n");
	for (int i = 0; i < n; i++) {
		DerivedProbe *dp = dps[i];
		int h = m->shared[dp->probe->index];
		char *names = point_names(dp, uses_pp);

		switch (bpf_prog_kind(dp)) {
		case BPF_PROG_BEGIN:
		case BPF_PROG_END:
		case BPF_PROG_ERROR:
			sb_printf(out, "SEC(\"syscall\")\nint stp_%s_%04d(void *ctx)\n{\n\t(void)ctx;\n"
				  "\tSTP_RUN_SAVING(probe_%d, 1, %s);\n\treturn 0;\n}\n\n",
				  bpf_prog_kind(dp) == BPF_PROG_BEGIN ? "begin" : bpf_prog_kind(dp) == BPF_PROG_END ? "end" : "error",
				  i, h, names);
			break;
		case BPF_PROG_TIMER:
			/* stapio runs it every period (its name's last number, in ns) */
			sb_printf(out, "SEC(\"syscall\")\nint stp_timer_%04d_%lld(void *ctx)\n{\n\t(void)ctx;\n"
				  "\tSTP_RUN_SAVING(probe_%d, 0, %s);\n\treturn 0;\n}\n\n", i, (long long)dp->number, h, names);
			break;
		case BPF_PROG_PROFILE:
			/* stapio opens a cpu-clock perf event on each CPU for it, of its name's period (ns; 0: the tick) */
			sb_printf(out, "SEC(\"perf_event\")\nint stp_profile_%04d_%lld(void *ctx)\n{\n\t(void)ctx;\n"
				  "\tSTP_RUN_SAVING(probe_%d, 0, (%s, %s));\n\treturn 0;\n}\n\n", i, (long long)dp->number, h,
				  save_perf, names);
			break;
		case BPF_PROG_PERF: {
			/* stapio opens a perf event of its name's type, config and rate on each CPU (rate: events per hit,
			 * or with a last number 1, hits per second) */
			int64_t type, config, period;
			int freq;

			perf_cpu_event(dp, &type, &config, &period, &freq);
			sb_printf(out, "SEC(\"perf_event\")\nint stp_perf_%04d_%lld_%lld_%lld_%d(void *ctx)\n{\n\t(void)ctx;\n"
				  "\tSTP_RUN_SAVING(probe_%d, 0, (%s, %s));\n\treturn 0;\n}\n\n", i, (long long)type,
				  (long long)config, (long long)period, freq, h, save_perf, names);
			break;
		}
		case BPF_PROG_TP_BTF:
			write_tracepoint(dp, i, h, save_args, names, out);
			break;
		case BPF_PROG_KPROBE:
		case BPF_PROG_UPROBE:
			write_placed(dp, i, h, tramp_ok, save_regs, names, out);
			break;
		case BPF_PROG_PROCFS:
			/* stapio runs it for a read or write of its file (bpf_procfs_files' table): 1 when it ran, 0 when
			 * the hit was skipped */
			sb_printf(out, "SEC(\"syscall\")\nint stp_procfs_%04d(void *ctx)\n{\n\tint ran = 0;\n\n\t(void)ctx;\n"
				  "\tSTP_RUN_SAVING(probe_%d, 1, (ran = 1, %s));\n\treturn ran;\n}\n\n", dp->index, h, names);
			break;
		case BPF_PROG_PERF_COUNTER:
			write_counter(s, dp, &counters, out);
			break;
		case BPF_PROG_NONE:
		case BPF_PROG_NEVER:
			break;
		}
		free(names);
	}
	write_counter_reader(&counters, out);
	free(dps);
}

/* Whether the object's handlers read the kernel at offsets its types had for the release translated for (a member
 * no relocation reaches, a location computed from DWARF: CgState.layout.fixed), or a probe is placed inside a
 * function.  Such an object records the release (STP_BPF_KVER_SECTION), which stapio checks as staprun checks a
 * module's; the others read by the calling convention, tracepoints' arguments and relocated offsets. */
static int release_bound(Session *s)
{
	for (int i = 0; i < s->derived.len; i++) {
		const DerivedProbe *dp = s->derived.items[i];
		ProbePlace at;

		if (bpf_prog_kind(dp) == BPF_PROG_KPROBE) {
			dp->provider->place(dp, &at);
			if (at.offset)
				return 1;
		}
	}
	return s->cg->layout.fixed;
}

/* The object's C, in order: the settings and runtime/bpf/runtime.h, the handlers' static data, the
 * globals, the frames and the context, the bodies, the programs. */
static void write_object(Session *s, const CgParts *m, StrBuf *out)
{
	StrBuf settings, frames, members, entries;

	sb_init(&settings);
	sb_init(&frames);
	sb_init(&members);
	sb_init(&entries);
	bpf_entry_functions(s, &settings, &frames, &members, &entries);
	cg_write_settings(s, out);
	sb_puts(out, settings.data);
	sb_puts(out, "#include \"bpf/runtime.h\"\n\n");
	if (release_bound(s)) {
		sb_puts(out, "/* the kernel release whose types the handlers read by offset (stapio checks it) */\n");
		sb_printf(out, "const char stp_kernel_release[] SEC(%s) = ", "STP_BPF_KVER_SECTION");
		emit_c_string(out, s->kver);
		sb_puts(out, ";\n\n");
	}
	bpf_write_core_copies(s, out);
	if (m->data.len) {
		sb_puts(out, "/* static data of the handlers */\n");
		sb_puts(out, m->data.data);
		sb_puts(out, "\n");
	}
	sb_puts(out, "/* globals */\n");
	sb_puts(out, m->globals.data ? m->globals.data : "");
	bpf_write_formats(s, out);
	sb_puts(out, frames.data);
	cg_write_frames(s, m, members.data, out);
	sb_puts(out, "#include \"bpf/context.h\"\n\n");
	for (int i = 0; i < s->prog.globals.len; i++)
		if (((Symbol *)s->prog.globals.items[i])->is_array == 1)
			bpf_map_functions(s->prog.globals.items[i], out);
	cg_calls_defines(s, out);
	bpf_procfs_files(s, out);
	sb_puts(out, "/* probe bodies and functions */\n");
	sb_puts(out, m->code.data ? m->code.data : "");
	sb_puts(out, entries.data);
	write_programs(s, m, out);
	sb_free(&settings);
	sb_free(&frames);
	sb_free(&members);
	sb_free(&entries);
}

const CgBackend bpf_backend = {
	.name = "bpf",
	.refuse = bpf_refuse,
	.globals = bpf_globals,
	.embedded_function = bpf_embedded_function,
	.shared_function = bpf_shared_function,
	.handler_table = bpf_handler_table,
	.loop_open = bpf_loop_open,
	.loop_close = bpf_loop_close,
	.foreach_open = bpf_foreach_open,
	.foreach_close = bpf_foreach_close,
	.printf = bpf_printf,
	.regex_match = bpf_regex_match,
	.member_offset = bpf_member_offset,
	.symbol_address = bpf_symbol_address,
	.display = cg_display_as_script,
	.write = write_object,
};
