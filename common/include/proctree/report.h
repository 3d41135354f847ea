/* report: the values of one ended interval, indexed by catalog id.
 *
 * A value is either an integer or a float, decided by the metric's unit
 * (memory in bytes or kB, byte and event counts are integers; MB, GB,
 * seconds and percentages are floats), so a field keeps one type for as
 * long as the configuration does. A metric whose source could not be read
 * during the whole interval is absent, never 0.
 *
 * This is the frontends' part; report/report.h, which includes it, the
 * library's rest (what a gauge and a cgroup's interval are summed in). */
#ifndef PROCTREE_REPORT_H
#define PROCTREE_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "proctree/catalog.h"

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

#endif
