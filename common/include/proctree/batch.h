/* batch: what ending an interval gives a frontend, one result per target
 * and the global line, all sharing one timestamp. Apart from collector.h
 * so that the collector's state (collectorstate.h), which holds the batch
 * it hands out, sits below the collector's parts. */
#ifndef PROCTREE_BATCH_H
#define PROCTREE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proctree/report.h"

/* One target's result in a batch. A target with no live process still
 * has its line (proc_processes = 0), so an alert can fire on it. */
struct pt_target_result {
    const char *name;
    struct pt_report report; /* its line: with --counters total, DELTAs as totals */
    /* The same line with every DELTA as the interval's own amount,
     * whatever the mode: what a run's summary folds (runsummary.h). */
    struct pt_report deltas;
    /* With a breakdown: its tag key ("process") and n_groups lines, one
     * per group, valid as the report is; else NULL and 0. */
    const char *breakdown_key;
    const struct pt_group_report *groups;
    size_t n_groups;
};

struct pt_batch {
    int64_t timestamp_ns; /* CLOCK_REALTIME at the interval's end, shared by all lines */
    double seconds;       /* the interval's length (CLOCK_MONOTONIC), what its rates are over */
    bool totals;          /* DELTA metrics are totals (totals.h), not this interval's amounts */
    size_t n_targets;
    struct pt_target_result *targets; /* owned by the collector, valid until the next interval ends */
    bool has_global;
    struct pt_report global;
};

#endif
