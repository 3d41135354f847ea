/* summaryjson: a launched command's summary as one JSON object
 * (--summary json), for a script or a CI job that keeps what each run of a
 * build cost. The figures are those of the table's summary (table.h), under
 * their metric names and in the lines' units: what a dashboard reads of the
 * same run, folded over it as runsummary.h says. */
#ifndef PROCTREE_EXECD_SUMMARYJSON_H
#define PROCTREE_EXECD_SUMMARYJSON_H

#include "proctree/buf.h"
#include "proctree/runsummary.h"
#include "proctree/lines.h"
#include "proctree/units.h"

/* Append the object and a newline to out. command is the command's argv[0]
 * (escaped as a log line quotes it); wait_status how it ended, NULL if it
 * was never reaped. Returns 0, or -1 when the object could not be made
 * (out of memory): nothing is appended then. */
int execd_summary_json(struct pt_buf *out, const char *command, const int *wait_status,
                       const struct pt_run_summary *run, const struct pt_units *units);

#endif
