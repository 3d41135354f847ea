/* sysmem: system-wide memory from /proc/meminfo, sampled with the tree.
 *
 * The same min/max-between-reports model as the tree's gauges, with the
 * definitions free(1) (procps-ng 4) and Telegraf >= 1.36.2 use, so the
 * numbers line up with what operators already look at. */
#ifndef PROCTREE_SYSMEM_H
#define PROCTREE_SYSMEM_H

#include <stdbool.h>

#include "procfs/procfile.h"
#include "report/report.h"
#include "report/lines.h"

struct pt_sysmem {
    int fd; /* <proc root>/meminfo, kept open */
    struct pt_buf buf;
    struct pt_extrema used, cached, anon, swap_free;
};

/* Returns 0, or -errno when meminfo cannot be opened. */
int pt_sysmem_init(struct pt_sysmem *g, int proc_root_fd);
void pt_sysmem_free(struct pt_sysmem *g);
void pt_sysmem_poll(struct pt_sysmem *g);
/* Fill the global_* values seen since the interval began, and what every
 * line carries of an interval of seconds, and begin the next. Returns
 * false when no poll succeeded in the interval. */
bool pt_sysmem_end_interval(struct pt_sysmem *g, double seconds, const struct pt_units *units,
                            struct pt_report *report);

#endif
