/* table: proctree-execd's output for a person at a terminal (--format
 * table): one aligned row per target and interval with the figures a
 * person reads first, in human units, and at the end of a launched
 * command the summary of its whole tree (what /usr/bin/time -v says of one
 * process, said of every process the command started). It only renders:
 * the numbers are the batch's and the run summary's (runsummary.h). */
#ifndef PROCTREE_EXECD_TABLE_H
#define PROCTREE_EXECD_TABLE_H

#include <stdbool.h>

#include "proctree/buf.h"
#include "proctree/collector.h"
#include "proctree/runsummary.h"

/* The rows of one batch; with header, the columns' names first. Memory
 * values are in units' units (the options'), shown in binary multiples. */
void execd_table_batch(struct pt_buf *out, const struct pt_batch *b, const struct pt_units *units, bool header);

/* The summary of a launched command's run: command is its argv[0],
 * wait_status how it ended as waitpid gave it (NULL: it was never reaped).
 * The wait status, not the exit code proctree-execd exits with: 128 + N
 * is also an exit status of its own. */
void execd_table_summary(struct pt_buf *out, const char *command, const int *wait_status,
                         const struct pt_run_summary *run, const struct pt_units *units);

#endif
