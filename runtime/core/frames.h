/* frames.h - the frame stack of script function calls, bounded by
 * MAXNESTING.  Included by generated code after it defines union stp_frame. */
#ifndef STP_FRAMES_H
#define STP_FRAMES_H

/* The callee's frame, or (with a script error set) the current one. */
static inline union stp_frame *stp_push_frame(struct stp_context *c)
{
	if (unlikely(c->nesting >= MAXNESTING)) {
		stp_error(c, "MAXNESTING exceeded");
		return (union stp_frame *)c->frames + c->nesting;
	}
	if (unlikely(c->stack_top - (unsigned long)__builtin_frame_address(0) > STP_STACK_BUDGET)) {
		stp_error(c, "MAXNESTING exceeded (kernel stack budget STP_STACK_BUDGET)");
		return (union stp_frame *)c->frames + c->nesting;
	}
	return (union stp_frame *)c->frames + ++c->nesting;
}

/* A call of an embedded function of longs only (translator/codegen/expr.c: its frame a local of
 * the caller's C function, not a slot), or of one the C compiler inlines: the nesting limit as
 * stp_push_frame holds it, a test that compiles to nothing when no call chain can reach MAXNESTING
 * (no recursion, the deepest chain within it), the call's location (where) stored for its error
 * only.  Its frame is a few words of the kernel stack, or the caller's own, under any budget. */
#define STP_LEAF_NESTING(c, where, label)						\
	do {										\
		if ((STP_RECURSIVE || STP_CALL_DEPTH > MAXNESTING) &&			\
		    unlikely((c)->nesting >= MAXNESTING)) {				\
			(c)->last_stmt = (where);					\
			stp_error((c), "MAXNESTING exceeded");				\
			goto label;							\
		}									\
	} while (0)

/* The frame of a call the C compiler inlines (a function called once, translator/codegen/expr.c):
 * its C locals are its caller's, on the stack the caller's own frame was counted on, so only the
 * nesting limit is tested (STP_LEAF_NESTING). */
#define STP_PUSH_INLINED(c, nf, member, where, label)					\
	do {										\
		STP_LEAF_NESTING(c, where, label);					\
		(nf) = &((union stp_frame *)(c)->frames + ++(c)->nesting)->member;	\
	} while (0)

#endif
