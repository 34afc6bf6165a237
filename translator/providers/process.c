/* process.c - the process life-cycle probes: process[(PATH|PID)].begin/.end and .thread.begin/.end,
 * validated in pass 2 and written as a C table in pass 3 (runtime/probes/process.c). */
#include "providers/provider.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The kinds, as runtime/probes/process.c numbers them (STP_PROC_*). */
enum { PROC_BEGIN, PROC_END, PROC_THREAD_BEGIN, PROC_THREAD_END };
static const char *const kind_names[] = { "begin", "end", "thread.begin", "thread.end" };

/* dp->number holds pid * 4 + kind; dp->symbol the resolved executable (NULL: any). */
static int resolve_lifecycle(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	const ProbePointComponent *c0 = pp_component(pp, 0), *c1 = pp_component(pp, 1), *c2 = pp_component(pp, 2);
	int kind, ncomp = 2;
	int64_t pid = 0;
	char *path = NULL;
	StrBuf name;

	(void)s;
	if (c1->arg) {
		diag_at(&s->diag, c1->loc, "semantic error", "process(...).%s takes no argument", c1->name);
		return 0;
	}
	if (!strcmp(c1->name, "begin")) {
		kind = PROC_BEGIN;
	} else if (!strcmp(c1->name, "end")) {
		kind = PROC_END;
	} else {
		/* thread */
		if (!c2 || !c2->name || c2->arg || (strcmp(c2->name, "begin") && strcmp(c2->name, "end"))) {
			diag_at(&s->diag, c2 ? c2->loc : c1->loc, "semantic error", "process(...).thread is followed by .begin or .end");
			return 0;
		}
		kind = strcmp(c2->name, "begin") ? PROC_THREAD_END : PROC_THREAD_BEGIN;
		ncomp = 3;
	}
	if (pp->components.len > ncomp) {
		const ProbePointComponent *extra = pp_component(pp, ncomp);
		diag_at(&s->diag, extra->loc, "semantic error", "unknown probe point component '%s' after process(...).%s",
			extra->name ? extra->name : "{...}", kind_names[kind]);
		return 0;
	}
	if (c0->arg && c0->arg->kind == EX_NUMBER) {
		pid = c0->arg->num;
		if (pid <= 0 || pid > 4194304) {
			diag_at(&s->diag, c0->arg->loc, "semantic error", "process(%" PRId64 "): not a process id", pid);
			return 0;
		}
	} else if (c0->arg) {
		path = process_point_path(s, c0);
		if (!path)
			return 0;
	}
	sb_init(&name);
	if (path)
		sb_printf(&name, "process(\"%s\").%s", path, kind_names[kind]);
	else if (pid)
		sb_printf(&name, "process(%" PRId64 ").%s", pid, kind_names[kind]);
	else
		sb_printf(&name, "process.%s", kind_names[kind]);
	dp->name = sb_steal(&name);
	dp->symbol = path;
	dp->number = pid * 4 + kind;
	return 1;
}

static void emit_lifecycle(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	PtrVec files = { 0 };

	(void)s;
	for (int i = 0; i < n; i++) {
		const char *p = dps[i]->symbol;
		int k;
		if (!p)
			continue;
		for (k = 0; k < files.len && strcmp(files.items[k], p); k++)
			;
		if (k == files.len)
			vec_push(&files, (void *)p);
	}
	sb_puts(out, "static struct stp_proc_file stp_proc_files[] = {\n");
	for (int k = 0; k < files.len; k++) {
		sb_puts(out, "\t{ .path = ");
		emit_c_string(out, files.items[k]);
		sb_puts(out, " },\n");
	}
	if (!files.len)
		sb_puts(out, "\t{ .path = NULL },\n");
	sb_puts(out, "};\n");
	sb_puts(out, "static struct stp_proc_probe stp_proc_probes[] = {\n");
	for (int i = 0; i < n; i++) {
		const DerivedProbe *dp = dps[i];
		int k = -1;
		for (int j = 0; dp->symbol && j < files.len; j++)
			if (!strcmp(files.items[j], dp->symbol))
				k = j;
		sb_printf(out, "\t{ .desc = &stp_descs[%d], .kind = %d, .file = %d, .pid = %" PRId64 " },\n", dp->index,
			  (int)(dp->number % 4), k, dp->number / 4);
	}
	sb_puts(out, "};\n");
	sb_printf(out, "STP_PROC_FAMILY(stp_proc_probes, stp_proc_files, %d)\n\n", files.len);
	free(files.items);
}

static const char *const lifecycle_forms[] = {
	"process.begin", "process.end", "process.thread.begin", "process.thread.end",
	"process(string).begin", "process(string).end", "process(string).thread.begin", "process(string).thread.end",
	"process(number).begin", "process(number).end", "process(number).thread.begin", "process(number).thread.end",
	NULL,
};

/* Registered for process.begin; the registry sends process.end and process.thread here too. */
const ProbeProvider process_lifecycle_provider = { .family = "process", .member = "begin", .cname = "proclife",
						   .resolve = resolve_lifecycle, .runtime = "probes/process.c",
						   .emit = emit_lifecycle, .forms = lifecycle_forms };
