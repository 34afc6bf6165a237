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

#endif
