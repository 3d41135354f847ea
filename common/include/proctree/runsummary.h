/* runsummary: a whole run of one target, folded from its interval
 * reports, for the summary proctree-execd prints when a launched command
 * ends (what /usr/bin/time -v says of one process, said of the tree).
 *
 * Invariants, after every pt_runsummary_add (pt_runsummary_check):
 *   - seconds is the sum of the intervals' lengths, never negative;
 *   - a GAUGE_MIN is the lowest of the intervals' and its GAUGE_MAX twin
 *     the highest, so min <= max wherever both are present;
 *   - a DELTA is the sum of the intervals' (each never negative), an
 *     integer as long as every one added was; the intervals' length
 *     (collector_interval_seconds, from the interval) sums so to the
 *     run's seconds, the time its other DELTAs were done in;
 *   - a COUNT is the last interval's that had it;
 *   - a RATIO is carried as the sum of ratio x seconds, so that
 *     pt_runsummary_report gives its average over the run, weighted by
 *     each interval's length (a CPU percent over the whole run).
 * A metric no interval had stays absent, never 0.
 *
 * Ownership: the caller's struct, no allocation; no I/O.
 *
 * This is the frontends' part; report/runsummary.h, which includes it,
 * the library's rest (the check of the invariants). */
#ifndef PROCTREE_RUNSUMMARY_H
#define PROCTREE_RUNSUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "proctree/report.h"

struct pt_run_summary {
    struct pt_report folded; /* RATIOs as ratio x seconds */
    double seconds;
    size_t intervals;
};

/* An empty run. */
void pt_runsummary_init(struct pt_run_summary *s);

/* Fold one ended interval of `seconds` (>= 0) into the run. */
void pt_runsummary_add(struct pt_run_summary *s, const struct pt_report *r, double seconds);

/* The run as one report: every metric folded, RATIOs averaged. */
void pt_runsummary_report(const struct pt_run_summary *s, struct pt_report *out);

#endif
