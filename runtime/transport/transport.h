/* transport.h - kernel side of the module <-> stapio channel.
 * Used by runtime/core (probe output, exit requests); implemented in runtime/transport/. */
#ifndef STP_TRANSPORT_H
#define STP_TRANSPORT_H

#include "protocol.h"

/* Create /proc/systemtap/<name>/ with the control file and one trace file per
 * possible CPU, each backed by a ring of buf_bytes.  Called from module init. */
int stp_transport_init(const char *name, unsigned long buf_bytes);

/* End a running session (disarm, let the reader drain, end probes, "stopped"),
 * wait a bounded time for the reader to finish, remove the files and free the
 * rings.  Called from module exit; may sleep for seconds. */
void stp_transport_exit(void);

/* Append one whole record to the current CPU's ring.  Probe context: preemption
 * disabled, the caller owns the CPU's probe context (no other writer on this CPU),
 * may be hard irq; never sleeps, never allocates.  Returns 0, or -ENOSPC when the
 * ring is full (-EMSGSIZE when len > STP_REC_MAX_LEN): the record is dropped and
 * counted (reported in "stopped"); a dropped record takes no seq. */
int stp_transport_write(unsigned flags, const char *data, unsigned len);

/* Ask stapio to end the run (it answers with the stop command).  Any context,
 * idempotent: sets a flag that a deferred worker turns into an "exit" message. */
void stp_transport_request_exit(void);

/* Queue a control message line (e.g. "error <text>").  Process context only. */
void stp_transport_send(const char *line);

/* Implemented by runtime/core, called by the transport in process context: */
int stp_session_start(void);   /* begin probes, arm probes; <0 = failed (msg sent) */
void stp_session_disarm(void); /* disarm probes: no probe output once it returns; idempotent */
void stp_session_end(void);    /* after disarm: end probes and the summary, once */
unsigned long stp_session_errors(void);   /* script errors so far, reported in "stopped" */
void stp_session_set_target(long pid);    /* "target <pid>", before start */
void stp_session_set_tz(long gmtoff, const char *name);   /* "tz <secs west> <name>", before start */

#endif /* STP_TRANSPORT_H */
