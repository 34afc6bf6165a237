/* tracepoint.c - the "kernel.trace" family: kernel.trace("SYSTEM:NAME") and kernel.trace("NAME")
 * with wildcards, on the kernel's and modules' tracepoints, typed by their DWARF prototypes (from
 * their BTF when they have no DWARF). */
#include "providers/provider.h"
#include "kmodule/usyms.h"
#include "dwarf/dwvars.h"
#include "btf/btf.h"

#include <stdio.h>
#include <string.h>

/* Each argument is passed as one 8-byte register or stack slot (the probe function declares them
 * all unsigned long), as long as none is larger than 8 bytes or a floating point value. */
#define TP_MAX_ARGS 16

static int tp_has_wildcard(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Where tracepoints are looked for: a debuginfo file, or (mod NULL) the kernel's or a module's BTF. */
typedef struct TpSource {
	DwarfModule *mod;
	Btf *btf;
} TpSource;

/* The BTF side of tp_args_supported. */
static int tp_btf_args_supported(const Btf *btf, const Tracepoint *tp, char **why)
{
	uint32_t proto = btf_func_proto(btf, tp->btf_id), type;
	const char *name;

	for (int i = 1; btf_param(btf, proto, i, &name, &type) == 0; i++) {
		if (btf_size(btf, type) > 8 || btf_kind(btf, btf_strip(btf, type)) == BTF_K_FLOAT) {
			char *tn = btf_type_name(btf, type);
			*why = xasprintf("its argument '%s' is passed by value as %s", name[0] ? name : "?", tn);
			free(tn);
			return 0;
		}
	}
	return 1;
}

/* Whether every argument of tp is passed as one register-sized value; *why names one that is not. */
static int tp_args_supported(const TpSource *src, const Tracepoint *tp, char **why)
{
	Dwarf_Die fn, param;
	int i = 0;

	if (tp->nargs > TP_MAX_ARGS) {
		*why = xasprintf("it has %d arguments (at most %d are supported)", tp->nargs, TP_MAX_ARGS);
		return 0;
	}
	if (!tp->mod)
		return tp_btf_args_supported(src->btf, tp, why);
	if (!dwarf_offdie(tp->mod->dw, tp->die, &fn) || dwarf_child(&fn, &param) != 0)
		return 1;
	do {
		Dwarf_Attribute a;
		Dwarf_Die type, stripped;
		int tag;
		if (dwarf_tag(&param) != DW_TAG_formal_parameter || i++ == 0)
			continue;
		if (!dwarf_formref_die(dwarf_attr_integrate(&param, DW_AT_type, &a), &type))
			continue;
		tag = dwt_strip(&type, &stripped);
		if (dwt_size(&type) > 8 || (tag == DW_TAG_base_type && dwt_is_float(&stripped))) {
			*why = xasprintf("its argument '%s' is passed by value as %s", dwarf_diename(&param) ?
					 dwarf_diename(&param) : "?", dwarf_type_name(&type));
			return 0;
		}
	} while (dwarf_siblingof(&param, &param) == 0);
	return 1;
}

static void tp_derive(const DerivedProbe *tmpl, const TpSource *src, const Tracepoint *tp, PtrVec *out)
{
	TgSite *site = xcalloc(1, sizeof *site);
	/* a tracepoint BTF has but no header declares has no system: its point names it alone */
	char *name = tp->system[0] ? xasprintf("kernel.trace(\"%s:%s\")", tp->system, tp->name) :
		     xasprintf("kernel.trace(\"%s\")", tp->name);
	DerivedProbe *dp = provider_derive(tmpl, name, site, out);
	Dwarf_Die fn;

	dp->symbol = xstrdup(tp->name);
	dp->number = tp->nargs;
	site->mod = tp->mod;
	site->cu = tp->cu;
	site->scope = tp->die;
	site->function = xasprintf("__traceiter_%s", tp->name);
	site->is_tracepoint = 1;
	site->btf_func = tp->btf_id;
	if (!tp->mod) {
		if (src->btf->module)
			site->btf = src->btf;
		site->decl_file = xstrdup("");
	} else if (dwarf_offdie(tp->mod->dw, tp->die, &fn)) {
		Dwarf_Addr pc;
		if (dwarf_entrypc(&fn, &pc) == 0)
			site->pc = pc;
		site->decl_file = xstrdup(dwarf_decl_file(&fn) ? dwarf_decl_file(&fn) : "");
		dwarf_decl_line(&fn, &site->decl_line);
	}
}

/* The tracepoints of src matching the pattern onto out; -1 after an error. */
static int tp_collect(Session *s, const TpSource *src, const char *sys, const char *name, const DerivedProbe *tmpl,
		      SrcLoc loc, PtrVec *out)
{
	PtrVec found = { 0 };
	int n = src->mod ? dwarf_tracepoints(s, src->mod, sys, name, &found) :
		btf_tracepoints(s, src->btf, sys, name, &found), errors = 0;

	for (int i = 0; i < n; i++) {
		const Tracepoint *tp = found.items[i];
		char *why = NULL;
		if (!tp_args_supported(src, tp, &why)) {
			if (!tp_has_wildcard(name) && !(sys && tp_has_wildcard(sys))) {
				diag_at(&s->diag, loc, "semantic error", "tracepoint %s%s%s cannot be probed: %s", tp->system,
					tp->system[0] ? ":" : "", tp->name, why);
				errors++;
			}
			free(why);
			continue;
		}
		tp_derive(tmpl, src, tp, out);
	}
	free(found.items);
	return errors ? -1 : 0;
}

/* The kernel's tracepoints: its DWARF, else its BTF; -1 after an error (no DWARF nor BTF). */
static int tp_kernel_source(Session *s, SrcLoc loc, TpSource *src)
{
	const char *why = NULL;

	if ((src->mod = dwarf_kernel_quiet(s)))
		return 0;
	if ((src->btf = btf_kernel(s, &why)))
		return 0;
	dwarf_kernel(s, loc);   /* the DWARF error, naming the package */
	diag_at(&s->diag, loc, "note", "%s", why);
	return -1;
}

/* A module's tracepoints: its DWARF, else its BTF; 0 when it has neither (*why says why not from BTF). */
static int tp_module_source(Session *s, const char *module, TpSource *src, const char **why)
{
	if ((src->mod = dwarf_module_quiet(s, module)))
		return 1;
	return (src->btf = btf_module(s, module, why)) != NULL;
}

static void tp_say_btf(Session *s, const char *arg, const TpSource *src, int n)
{
	if (!src->mod && s->verbose && n > 0)
		fprintf(stderr, "kernel.trace(\"%s\"): %d tracepoint%s typed from BTF (%s)\n", arg, n, n > 1 ? "s" : "",
			src->btf->origin);
}

static int resolve_tracepoint(Session *s, ProbePoint *pp, const DerivedProbe *tmpl, PtrVec *out)
{
	const ProbePointComponent *c0 = pp_component(pp, 0), *c1 = pp_component(pp, 1);
	const char *arg, *colon;
	char *sys = NULL, *name;
	TpSource kernel = { 0 };
	int before = out->len, rc;

	if (c0->arg) {
		diag_at(&s->diag, c0->loc, "semantic error", "'kernel' takes no argument");
		return -1;
	}
	if (!c1->arg || c1->arg->kind != EX_STRING || !c1->arg->str[0]) {
		diag_at(&s->diag, c1->loc, "semantic error", "tracepoint probes are written kernel.trace(\"SYSTEM:NAME\") or "
			"kernel.trace(\"NAME\")");
		return -1;
	}
	if (pp->components.len > 2) {
		const ProbePointComponent *extra = pp_component(pp, 2);
		diag_at(&s->diag, extra->loc, "semantic error", "unknown probe point component '%s' after kernel.trace(...)",
			extra->name ? extra->name : "{...}");
		return -1;
	}
	arg = c1->arg->str;
	colon = strchr(arg, ':');
	name = xstrdup(colon ? colon + 1 : arg);
	if (colon)
		sys = xstrndup(arg, (size_t)(colon - arg));
	if ((sys && !sys[0]) || !name[0] || strchr(name, ':')) {
		diag_at(&s->diag, c1->arg->loc, "semantic error", "'%s' is not a tracepoint: write \"SYSTEM:NAME\" or \"NAME\"", arg);
		return -1;
	}
	if (tp_kernel_source(s, c1->arg->loc, &kernel) != 0)
		return -1;
	rc = tp_collect(s, &kernel, sys, name, tmpl, c1->arg->loc, out);
	tp_say_btf(s, arg, &kernel, out->len - before);
	/* the modules named with -d, then a module named as a system the kernel lacks ("xfs:*") */
	for (int i = 0; rc == 0 && i < s->debug_modules.len; i++) {
		TpSource m = { 0 };
		const char *why = NULL;
		int had = out->len;
		if (usyms_is_user_path(s->debug_modules.items[i]))
			continue;       /* a user-space file: its symbols only (usyms.c) */
		if (!tp_module_source(s, s->debug_modules.items[i], &m, &why)) {
			dwarf_module(s, s->debug_modules.items[i], c1->arg->loc);   /* the DWARF error */
			if (why)
				diag_at(&s->diag, c1->arg->loc, "note", "%s", why);
			return -1;
		}
		rc = tp_collect(s, &m, sys, name, tmpl, c1->arg->loc, out);
		tp_say_btf(s, arg, &m, out->len - had);
	}
	if (rc == 0 && out->len == before && sys && !tp_has_wildcard(sys) &&
	    !(kernel.mod ? dwarf_tracepoint_system_known(s, kernel.mod, sys) :
	      btf_tracepoint_system_known(s, kernel.btf, sys))) {
		TpSource m = { 0 };
		const char *why = NULL;
		/* the module named: any of its tracepoints so named, whatever their system ("scsi_mod:NAME"
		 * finds scsi_mod's tracepoint of system scsi) */
		if (tp_module_source(s, sys, &m, &why)) {
			rc = tp_collect(s, &m, NULL, name, tmpl, c1->arg->loc, out);
			tp_say_btf(s, arg, &m, out->len - before);
		}
	}
	if (rc < 0)
		return -1;
	if (out->len == before && !tp_has_wildcard(name) && !(sys && tp_has_wildcard(sys))) {
		diag_at(&s->diag, c1->arg->loc, "semantic error", "no tracepoint '%s' in kernel %s%s%s", arg, s->kver,
			sys ? " or in a module named " : "", sys ? sys : "");
		if (!kernel.mod && sys)
			diag_at(&s->diag, c1->arg->loc, "note", "without the kernel's DWARF a tracepoint's system comes from the "
				"kernel's trace headers (linux-headers-%s) or, for the running kernel, its tracefs "
				"(/sys/kernel/tracing, when mounted), a module's from its name; kernel.trace(\"%s\") "
				"finds it by its name alone (with -d MODULE for a module's)", s->kver, name);
		return -1;
	}
	return out->len - before;
}

static void emit_tracepoint(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	for (int i = 0; i < n; i++) {
		int k = dps[i]->index, nargs = (int)dps[i]->number;
		/* the arguments are copied to the stack: no stack protector for that (6 instructions a hit) */
		sb_printf(out, "static STP_TRACEPOINT_HIT_ATTRS void stp_tracepoint_hit_%d(void *data", k);
		for (int a = 0; a < nargs; a++)
			sb_printf(out, ", unsigned long a%d", a);
		sb_printf(out, ")\n{\n\tunsigned long args[%d] = { ", nargs ? nargs : 1);
		for (int a = 0; a < nargs; a++)
			sb_printf(out, "%sa%d", a ? ", " : "", a);
		sb_printf(out, "%s };\n\n\tstp_tracepoint_hit(&stp_descs[%d], args);\n}\n", nargs ? "" : "0", k);
	}
	sb_puts(out, "static struct stp_tracepoint stp_tracepoint_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		const DerivedProbe *dp = dps[i];
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .probe = (void *)stp_tracepoint_hit_%d, .name = ", dp->index,
			  dp->index);
		emit_c_string(out, dp->symbol);
		if (dp->site->mod && !dp->site->mod->is_kernel) {
			sb_puts(out, ", .module = ");
			emit_c_string(out, dp->site->mod->name);
		} else if (!dp->site->mod && dp->site->btf && dp->site->btf->module) {
			sb_puts(out, ", .module = ");
			emit_c_string(out, dp->site->btf->module);
		}
		sb_puts(out, dp->optional ? ", .optional = 1 },\n" : " },\n");
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_TRACEPOINT_FAMILY(stp_tracepoint_probes)\n\n");
}

static const char *const tracepoint_forms[] = { "kernel.trace(string)", NULL };

const ProbeProvider tracepoint_provider = { .family = "kernel", .member = "trace", .cname = "tracepoint",
					    .resolve_many = resolve_tracepoint, .runtime = "probes/tracepoints.c",
					    .emit = emit_tracepoint, .forms = tracepoint_forms };
