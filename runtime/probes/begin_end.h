/* begin_end.h - the begin and end families need nothing beyond the core:
 * stp_run_once() in core/probe.c runs their descriptors in order. */
#ifndef STP_BEGIN_END_H
#define STP_BEGIN_END_H
#endif
