/* actions.h - MAXACTION: the charges the bodies make (STP_ACTIONS, one per statement of a block and per loop
 * iteration) and when a body needs none; shared by the module's runtime (core/probe.c) and runtime/bpf/context.h. */
#ifndef STP_ACTIONS_H
#define STP_ACTIONS_H

/* Whether a body whose actions, all of them summed (every statement of every path, and of the
 * functions it calls), are this many can reach neither limit: then it charges none. */
#define STP_ACTIONS_WITHIN(actions) ((actions) <= (MAXACTION) && (actions) <= (MAXACTION_INTERRUPTIBLE))
/* A handler's statements charge their actions with STP_ACTIONS (one per statement of a block,
 * charged at its start, and one per loop iteration): past the limit, the run ends with the
 * MAXACTION error near stmt (a "keyword at FILE:LINE:COL" literal) and the handler leaves by
 * label (its end, or the innermost catch). */
#define STP_ACTIONS(n, stmt, label)						\
	do {									\
		if (unlikely((c->actioncount += (n)) > c->maxaction)) {		\
			c->last_stmt = (stmt);					\
			stp_action_limit(c);					\
			goto label;						\
		}								\
	} while (0)
/* The charges of a body that may need none: none when bounded, a compile-time constant, is
 * nonzero (STP_LIGHT_PROBE_n, or STP_UNCOUNTED_x of translator/codegen/callgraph.c: a loop-free
 * probe body, with the functions it calls, whose sum of actions is STP_ACTIONS_WITHIN). */
#define STP_ACTIONS_UNLESS(bounded, n, stmt, label)				\
	do {									\
		if (!(bounded))							\
			STP_ACTIONS(n, stmt, label);				\
	} while (0)

#endif
