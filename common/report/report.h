/* report, the library's part: what an interval's values are summed in
 * before they are reported (proctree/report.h: the report). */
#ifndef PROCTREE_REPORT_REPORT_H
#define PROCTREE_REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "proctree/report.h"
#include "report/catalog.h"

/* min/max of a sum over the polls of one interval: what a gauge reports. */
struct pt_extrema {
    int64_t min, max;
    bool any; /* a poll has been added since the interval began */
};

static inline void pt_extrema_add(struct pt_extrema *e, int64_t value)
{
    if (!e->any || value < e->min)
        e->min = value;
    if (!e->any || value > e->max)
        e->max = value;
    e->any = true;
}

/* One interval's values of a cgroup, or of their sum: by enum pt_cgq
 * (cumulative ones as their growth), those known (bits 1u << q), and the
 * polls' min and max of memory in use. */
struct pt_cgvalues {
    uint64_t value[PT_CGQ_COUNT];
    uint32_t known;
    struct pt_extrema current;
};

#endif
