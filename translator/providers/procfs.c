/* procfs.c - the "procfs" probe family: procfs("NAME").read/.write files under
 * /proc/systemtap/MODULE/ and their $value.  Plugged into the provider registry. */
#include "providers/procfs.h"
#include "providers/provider.h"

#include <string.h>

#define PROCFS_DEFAULT_NAME "command"
#define PROCFS_DEFAULT_UMASK 0077       /* 0444/0222 minus it: 0400 read, 0200 write */
#define PROCFS_MAX_MAXSIZE (1 << 20)    /* bytes of one file's read buffer, allocated at start */
#define PROCFS_MAX_DEPTH 8              /* components of a NAME with subdirectories */

/* One procfs point, as written: procfs[("NAME")][.umask(N)].read[.maxsize(N)] or .write. */
typedef struct ProcfsSpec {
	const char *path;
	int write;
	int64_t umask;
	int64_t maxsize;             /* 0: the default (STP_PROCFS_BUFSIZE - 1) */
} ProcfsSpec;

static int procfs_usage(Session *s, SrcLoc loc, int report)
{
	if (report)
		diag_at(&s->diag, loc, "semantic error", "procfs probes are written procfs(\"NAME\").read, "
			"procfs(\"NAME\").read.maxsize(N), procfs(\"NAME\").write, with .umask(N) before "
			".read/.write; procfs.read and procfs.write use the name \"" PROCFS_DEFAULT_NAME "\"");
	return 0;
}

/* NAME is relative to /proc/systemtap/MODULE: components separated by single '/', none empty,
 * "." or "..", none clashing with the transport's own files (.cmd, traceN). */
static const char *procfs_name_problem(const char *path)
{
	const char *p = path;
	int depth = 0;

	if (!*path)
		return "it is empty";
	if (*path == '/')
		return "it starts with '/' (it is relative to /proc/systemtap/MODULE)";
	for (const char *q = path; *q; q++) {
		if ((unsigned char)*q < 32 || *q == 127)
			return "it contains a control character";
	}
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 0)
			return "it has an empty component ('//' or a trailing '/')";
		if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return "it has a '.' or '..' component";
		if (n > 255)
			return "a component is longer than 255 bytes";
		if (++depth > PROCFS_MAX_DEPTH)
			return "it has more than 8 components";
		if (p == path && ((n == 4 && !strncmp(p, ".cmd", 4)) ||
				  (n > 5 && !strncmp(p, "trace", 5) && strspn(p + 5, "0123456789") == n - 5)))
			return "the transport's own files are named .cmd and traceN";
		p += n;
		if (*p == '/' && !p[1])
			return "it has an empty component ('//' or a trailing '/')";
		if (*p == '/')
			p++;
	}
	return NULL;
}

static int procfs_number(Session *s, const ProbePointComponent *c, int64_t lo, int64_t hi, int report)
{
	if (c->arg && c->arg->kind == EX_NUMBER && c->arg->num >= lo && c->arg->num <= hi)
		return 1;
	if (report && !strcmp(c->name, "umask"))
		diag_at(&s->diag, c->arg ? c->arg->loc : c->loc, "semantic error", "procfs .umask(N) takes a number from 0 to 0%llo",
			(unsigned long long)hi);
	else if (report)
		diag_at(&s->diag, c->arg ? c->arg->loc : c->loc, "semantic error", "procfs .%s(N) takes a number from %lld to %lld",
			c->name, (long long)lo, (long long)hi);
	return 0;
}

/* The first component: procfs or procfs("NAME"). */
static int procfs_parse_name(Session *s, const ProbePointComponent *c, ProcfsSpec *spec, int report)
{
	const char *why;

	if (!c->arg) {
		spec->path = PROCFS_DEFAULT_NAME;
		return 1;
	}
	if (c->arg->kind != EX_STRING) {
		if (report)
			diag_at(&s->diag, c->arg->loc, "semantic error", "procfs takes a file name string: procfs(\"NAME\")");
		return 0;
	}
	why = procfs_name_problem(c->arg->str);
	if (why) {
		if (report)
			diag_at(&s->diag, c->arg->loc, "semantic error", "bad procfs file name \"%s\": %s", c->arg->str, why);
		return 0;
	}
	spec->path = c->arg->str;
	return 1;
}

/* Reads pp into spec; with report, a located diagnostic for what is wrong. */
static int procfs_parse(Session *s, const ProbePoint *pp, ProcfsSpec *spec, int report)
{
	const ProbePointComponent *c;
	int i = 1;

	memset(spec, 0, sizeof *spec);
	spec->umask = PROCFS_DEFAULT_UMASK;
	if (!procfs_parse_name(s, pp_component(pp, 0), spec, report))
		return 0;
	c = pp_component(pp, i);
	if (c && c->name && !strcmp(c->name, "umask")) {
		if (!procfs_number(s, c, 0, 0777, report))
			return 0;
		spec->umask = c->arg->num;
		c = pp_component(pp, ++i);
	}
	if (!c || !c->name || (strcmp(c->name, "read") && strcmp(c->name, "write")) || c->arg)
		return procfs_usage(s, c ? c->loc : pp->loc, report);
	spec->write = !strcmp(c->name, "write");
	c = pp_component(pp, ++i);
	if (c && c->name && !strcmp(c->name, "maxsize")) {
		if (spec->write) {
			if (report)
				diag_at(&s->diag, c->loc, "semantic error", "maxsize sets the read buffer: it applies to procfs "
					".read probes only (a write takes at most MAXSTRINGLEN - 1 bytes)");
			return 0;
		}
		if (!procfs_number(s, c, 1, PROCFS_MAX_MAXSIZE, report))
			return 0;
		spec->maxsize = c->arg->num;
		c = pp_component(pp, ++i);
	}
	if (c) {
		if (report)
			diag_at(&s->diag, c->loc, "semantic error", "unknown probe point component '%s' after procfs(...).%s",
				c->name ? c->name : "{...}", spec->write ? "write" : "read");
		return 0;
	}
	return 1;
}

/* Whether a is b or a directory above it ("a" and "a/b"). */
static int procfs_is_prefix(const char *a, const char *b)
{
	size_t n = strlen(a);
	return !strncmp(a, b, n) && b[n] == '/';
}

/* Checks the new point against the procfs points resolved before it: one read and one write
 * probe per file, and no name both a file and a directory. */
static int procfs_check_clash(Session *s, const ProbePoint *pp, const ProcfsSpec *spec)
{
	for (int i = 0; i < s->derived.len; i++) {
		const DerivedProbe *o = s->derived.items[i];
		if (o->provider != &procfs_provider)
			continue;
		if (!strcmp(o->symbol, spec->path) && o->is_return == spec->write) {
			diag_at(&s->diag, pp->loc, "semantic error", "procfs file \"%s\" already has a %s probe (%s:%d:%d)",
				spec->path, spec->write ? "write" : "read",
				o->point->loc.file ? o->point->loc.file->name : "?", o->point->loc.line,
				o->point->loc.col);
			return 0;
		}
		if (procfs_is_prefix(o->symbol, spec->path) || procfs_is_prefix(spec->path, o->symbol)) {
			diag_at(&s->diag, pp->loc, "semantic error", "procfs name \"%s\" clashes with \"%s\": one cannot be both "
				"a file and a directory", spec->path, o->symbol);
			return 0;
		}
	}
	return 1;
}

static int resolve_procfs(Session *s, ProbePoint *pp, DerivedProbe *dp)
{
	ProcfsSpec spec;

	if (!procfs_parse(s, pp, &spec, 1) || !procfs_check_clash(s, pp, &spec))
		return 0;
	dp->symbol = xstrdup(spec.path);
	dp->is_return = spec.write;
	dp->number = spec.maxsize;
	return 1;
}

/* $value, through the names each runtime defines: what the reader gets (.read, cut at maxsize), what was
 * written (.write).  The module's are the file's buffer, a string destination (runtime/core/context.h);
 * the BPF runtime's a map stapio fills and reads (runtime/bpf/procfs.h). */
static const ContextVar procfs_value = {
	.name = "$value",
	.type = TY_STRING,
	.read = "stp_procfs_value(c)",
	.write = "stp_procfs_set(c, %s)",
	.append = "stp_procfs_append(c, %s)",
	.bpf = 1,
};

static const ContextVar *procfs_context_var(Session *s, const DerivedProbe *dp, const char *name)
{
	(void)s;
	(void)dp;
	return !strcmp(name, "$value") ? &procfs_value : NULL;
}

/* The directories the files need, parents first, each once: "a", "a/b" for "a/b/f". */
static void emit_procfs_dirs(DerivedProbe **dps, int n, StrBuf *out)
{
	PtrVec seen = { 0 };

	sb_puts(out, "static struct stp_procfs_dir stp_procfs_dirs[] = {\n");
	for (int i = 0; i < n; i++) {
		const char *path = dps[i]->symbol;
		for (const char *sl = strchr(path, '/'); sl; sl = strchr(sl + 1, '/')) {
			char *dir = xstrndup(path, (size_t)(sl - path));
			int dup = 0;
			for (int j = 0; j < seen.len && !dup; j++)
				dup = !strcmp(seen.items[j], dir);
			if (dup) {
				free(dir);
				continue;
			}
			vec_push(&seen, dir);
			sb_puts(out, "\t{ .path = ");
			emit_c_string(out, dir);
			sb_puts(out, " },\n");
		}
	}
	sb_puts(out, "\t{ .path = NULL },\n};\n");
	for (int j = 0; j < seen.len; j++)
		free(seen.items[j]);
	free(seen.items);
}

/* One entry of stp_procfs_files[] for the file of dps[first] and its other probe, if any. */
static void emit_procfs_file(Session *s, DerivedProbe **dps, int n, int first, StrBuf *out)
{
	const DerivedProbe *rd = NULL, *wr = NULL;
	unsigned mode = 0;
	int64_t maxsize = 0;

	for (int i = first; i < n; i++) {
		ProcfsSpec spec;
		if (strcmp(dps[i]->symbol, dps[first]->symbol) || !procfs_parse(s, dps[i]->point, &spec, 0))
			continue;
		if (spec.write) {
			wr = dps[i];
			mode |= 0222 & ~(unsigned)spec.umask;
		} else {
			rd = dps[i];
			mode |= 0444 & ~(unsigned)spec.umask;
			maxsize = spec.maxsize;
		}
	}
	sb_puts(out, "\t{ .path = ");
	emit_c_string(out, dps[first]->symbol);
	if (rd)
		sb_printf(out, ", .read = &stp_descs[%d]", rd->index);
	if (wr)
		sb_printf(out, ", .write = &stp_descs[%d]", wr->index);
	sb_printf(out, ", .mode = 0%o, .maxsize = ", mode);
	if (maxsize)
		sb_printf(out, "%lld", (long long)maxsize);
	else
		sb_puts(out, "STP_PROCFS_BUFSIZE - 1");
	sb_puts(out, " },\n");
}

static void emit_procfs(Session *s, DerivedProbe **dps, int n, StrBuf *out)
{
	(void)s;
	emit_procfs_dirs(dps, n, out);
	sb_puts(out, "static struct stp_procfs_file stp_procfs_files[] = {\n");
	for (int i = 0; i < n; i++) {
		int earlier = 0;
		for (int j = 0; j < i && !earlier; j++)
			earlier = !strcmp(dps[j]->symbol, dps[i]->symbol);
		if (!earlier)
			emit_procfs_file(s, dps, n, i, out);
	}
	sb_puts(out, "};\n");
	sb_puts(out, "STP_PROCFS_FAMILY(stp_procfs_files, stp_procfs_dirs)\n\n");
}

int procfs_point(Session *s, const DerivedProbe *dp, unsigned *mode, int64_t *maxsize)
{
	ProcfsSpec spec;

	procfs_parse(s, dp->point, &spec, 0);   /* resolve_procfs checked it */
	*mode = (spec.write ? 0222 : 0444) & ~(unsigned)spec.umask;
	*maxsize = spec.maxsize;
	return spec.write;
}

static const char *const procfs_context_vars[] = { "$value", NULL };

static const char *const procfs_forms[] = {
	"procfs(string).read", "procfs(string).read.maxsize(number)", "procfs(string).umask(number).read",
	"procfs(string).umask(number).read.maxsize(number)", "procfs(string).write",
	"procfs(string).umask(number).write", "procfs.read", "procfs.read.maxsize(number)", "procfs.umask(number).read",
	"procfs.umask(number).read.maxsize(number)", "procfs.write", "procfs.umask(number).write", NULL,
};

const ProbeProvider procfs_provider = {
	.family = "procfs",
	.resolve = resolve_procfs,
	.runtime = "probes/procfs.c",
	.emit = emit_procfs,
	.forms = procfs_forms,
	.context_var = procfs_context_var,
	.context_vars = procfs_context_vars,
};
