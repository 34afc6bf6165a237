/* builtins.c - the table of built-in functions: printing, exit/error and the
 * process-context queries.  Used by elaboration and code generation. */
#include "elaborate/builtins.h"

#include <string.h>

static const Builtin builtins[] = {
	{ "printf", BI_PRINTF, TY_UNKNOWN, -1, {TY_STRING}, NULL, 0, 0 },
	{ "sprintf", BI_SPRINTF, TY_STRING, -1, {TY_STRING}, NULL, 0, 0 },
	{ "print", BI_PRINT, TY_UNKNOWN, -1, {0}, NULL, 0, 0 },
	{ "println", BI_PRINT, TY_UNKNOWN, -1, {0}, NULL, 0, PRINT_NEWLINE },
	{ "printd", BI_PRINT, TY_UNKNOWN, -1, {0}, NULL, 0, PRINT_DELIMITED },
	{ "printdln", BI_PRINT, TY_UNKNOWN, -1, {0}, NULL, 0, PRINT_DELIMITED | PRINT_NEWLINE },
	{ "sprint", BI_PRINT, TY_STRING, -1, {0}, NULL, 0, PRINT_TO_STRING },
	{ "sprintln", BI_PRINT, TY_STRING, -1, {0}, NULL, 0, PRINT_TO_STRING | PRINT_NEWLINE },
	{ "sprintd", BI_PRINT, TY_STRING, -1, {0}, NULL, 0, PRINT_TO_STRING | PRINT_DELIMITED },
	{ "exit", BI_TEMPLATE, TY_UNKNOWN, 0, {0}, "stp_exit(c)", 0, 0 },
	{ "switch_file", BI_TEMPLATE, TY_UNKNOWN, 0, {0}, "stp_switch_file(c)", 0, 0 },
	{ "error", BI_TEMPLATE, TY_UNKNOWN, 1, {TY_STRING}, "stp_error_str(c, $1)", 1, 0 },
	{ "warn", BI_TEMPLATE, TY_UNKNOWN, 1, {TY_STRING}, "stp_warn(c, $1)", 0, 0 },
	{ "execname", BI_TEMPLATE, TY_STRING, 0, {0}, "stp_execname($0)", 0, 0 },
	{ "pid", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)current->tgid)", 0, 0 },
	{ "tid", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)current->pid)", 0, 0 },
	{ "target", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)stp_target)", 0, 0 },
	{ "ppid", BI_TEMPLATE, TY_LONG, 0, {0}, "stp_ppid()", 0, 0 },
	{ "uid", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)from_kuid_munged(current_user_ns(), current_uid()))", 0, 0 },
	{ "cpu", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)smp_processor_id())", 0, 0 },
	{ "pp", BI_TEMPLATE, TY_STRING, 0, {0}, "c->probe->pp", 0, 0 },
	{ "pn", BI_TEMPLATE, TY_STRING, 0, {0}, "(c->probe->pn ? c->probe->pn : c->probe->pp)", 0, 0 },
	/* the wall clock through the accessor that is safe in any context, an NMI's too (a probe can
	 * interrupt the timekeeping update, whose seqcount ktime_get_real_ns() would spin on) */
	{ "gettimeofday_ns", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)ktime_get_real_fast_ns())", 0, 0 },
	{ "gettimeofday_us", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)(ktime_get_real_fast_ns() / 1000))", 0, 0 },
	{ "gettimeofday_ms", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)(ktime_get_real_fast_ns() / 1000000))", 0, 0 },
	{ "gettimeofday_s", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)ktime_get_real_seconds())", 0, 0 },
	{ "local_clock_ns", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)local_clock())", 0, 0 },
	{ "jiffies", BI_TEMPLATE, TY_LONG, 0, {0}, "((int64_t)jiffies)", 0, 0 },
	{ "strlen", BI_TEMPLATE, TY_LONG, 1, {TY_STRING}, "((int64_t)strlen($1))", 0, 0 },
	{ "matched", BI_TEMPLATE, TY_STRING, 1, {TY_LONG}, "stp_regex_matched(c, $1, $0)", 1, 0 },
	{ "ngroups", BI_TEMPLATE, TY_LONG, 0, {0}, "stp_regex_ngroups(c)", 1, 0 },
};

const Builtin *builtin_find(const char *name)
{
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	}
	return NULL;
}
