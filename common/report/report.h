/* report: the values of one ended interval, indexed by catalog id.
 *
 * A value is either an integer or a float, decided by the metric's unit
 * (memory in bytes or kB, byte and event counts are integers; MB, GB,
 * seconds and percentages are floats), so a field keeps one type for as
 * long as the configuration does. A metric whose source could not be read
 * during the whole interval is absent, never 0. */
#ifndef PROCTREE_REPORT_H
#define PROCTREE_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "report/catalog.h"

struct pt_value {
    bool present;
    bool is_int;
    int64_t i;
    double f;
};

struct pt_report {
    struct pt_value v[PT_METRIC_COUNT];
};

/* One group's line of a breakdown: its group's name, and the name the
 * frontends write, unique among the target's lines (groupkey.h). */
struct pt_group_report {
    const char *name;
    const char *key;
    struct pt_report report;
};

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
