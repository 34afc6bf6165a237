/* stap_tpmod_trace.h - the tracepoint of stap_tpmod: stap_tpmod:stap_tpmod_event(seq, tag, info).
 * Used by stap_tpmod.c, which creates it (CREATE_TRACE_POINTS) and fires it. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM stap_tpmod

#if !defined(STAP_TPMOD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define STAP_TPMOD_TRACE_H

#include <linux/tracepoint.h>

#ifndef STAP_TPMOD_INFO_DEFINED
#define STAP_TPMOD_INFO_DEFINED
struct stap_tpmod_info {
	int value;
	char label[8];
};
#endif

TRACE_EVENT(stap_tpmod_event,
	TP_PROTO(int seq, const char *tag, struct stap_tpmod_info *info),
	TP_ARGS(seq, tag, info),
	TP_STRUCT__entry(
		__field(int, seq)
		__field(int, value)
	),
	TP_fast_assign(
		__entry->seq = seq;
		__entry->value = info->value;
	),
	TP_printk("seq=%d value=%d", __entry->seq, __entry->value)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE stap_tpmod_trace
#include <trace/define_trace.h>
