/* lines, the library's part: a target's line, the tree's or a group's:
 * what it reports, put into a pt_report by the catalog, each value in its
 * unit (pt_lines_value_set, which sysmem.c's global line uses too).
 *
 * The accounting hands a line its amounts by the names of quantities.h
 * (gauges, counters' deltas already computed, other amounts); each
 * metric's value is then set from what its catalog entry names (the from
 * column), on the lines its entry says carry it. Nothing here knows a
 * metric by its id.
 *
 * proctree/lines.h, which this includes, writes the reports made here. */
#ifndef PROCTREE_REPORT_LINES_H
#define PROCTREE_REPORT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proctree/lines.h"
#include "report/catalog.h"
#include "report/quantities.h"
#include "report/report.h"
#include "report/units.h"
#include "util/buf.h"

struct pt_line {
    enum pt_lines of;                /* PT_LINES_ONE: the tree's line; else the breakdown a group's is of */
    const struct pt_extrema *gauges; /* [PT_G_COUNT]: min/max of the polls' sums */
    int64_t delta[PT_CTR_COUNT];     /* this interval's deltas, never negative */
    bool io_seen, stat_seen;         /* the io, the stat counters were read */
    double interval;                 /* wall time the line's interval covers: the batch's */
    /* wall time the counters' deltas were done in (CPU percent): longer
     * than interval when the intervals before were short of descriptors
     * and left theirs to this line (pt_interval_lasted) */
    double seconds;
    double ticks_per_second;
    double cpu_percent_max; /* what no tree can pass: 100 x the host's CPUs */
    double amount[PT_A_COUNT];
    uint64_t has_amount;              /* bits 1 << enum pt_amount: the amounts known */
    const struct pt_cgvalues *cgroup; /* a cgroup target's, or a --by cgroup line's, or NULL */
};
_Static_assert(PT_A_COUNT <= PT_MASK_BITS(struct pt_line, has_amount), "enum pt_amount outgrows has_amount");

/* An empty line of the given kind, of an interval of interval seconds
 * whose counters' deltas span seconds: no amount known, no gauge (gauges
 * must be set before pt_lines_report when the line carries them). */
void pt_lines_init(struct pt_line *line, enum pt_lines of, double interval, double seconds, double ticks_per_second,
                   double cpu_percent_max);
/* Amount a of the line is v (in the unit of the metric it sets). */
void pt_lines_put(struct pt_line *line, enum pt_amount a, double v);
/* The line's report: every metric of a target's line that this line
 * carries and whose source is known; the others absent. */
void pt_lines_report(const struct pt_line *line, const struct pt_units *units, struct pt_report *report);
/* The global line's share of what every line carries (scope ALL), for an
 * interval of seconds, into report (whose global_* sysmem.c sets). */
void pt_lines_report_global(double seconds, const struct pt_units *units, struct pt_report *report);

/* Short of descriptors for the reads short (enum pt_short bits): leave
 * out of report every metric that needs one of them. */
void pt_lines_drop_unknown(struct pt_report *report, unsigned short_reads);
/* What those are, for the log: " memory", " PSS", ... one after the
 * other (" membership (every proc_* metric)" first). */
void pt_lines_short_describe(unsigned short_reads, char *out, size_t len);

/* Fill a report value for metric id from a raw amount: bytes for memory
 * and byte metrics, seconds for seconds, percent for percent, plain counts
 * otherwise. Integers are rounded half up and saturate at INT64_MAX (so
 * 1536 bytes is 2 kB). Floats are always finite. A non-finite or negative
 * raw amount leaves the value absent (no catalog metric can be negative). */
void pt_lines_value_set(struct pt_value *out, enum pt_metric_id id, double raw, const struct pt_units *units);
/* Append tag-value-escaped text (proctree/lines.h's rules). Returns bytes appended;
 * 0 means the value was empty after sanitising and the tag must be left out. */
size_t pt_lines_append_tag_value(struct pt_buf *out, const char *value, size_t len);

#endif
