/* totals: every DELTA metric of a line as a running total, for
 * --counters total (CounterMode "total" in collectd).
 *
 * A delta is the amount done in one interval; a scraper that reads at its
 * own period (Prometheus) loses or counts twice what it does not read at
 * the batch's own times, and wants a counter it takes rate() of. So a
 * struct pt_totals keeps, for one target, the sum of every DELTA value its
 * lines have reported: its own line's and each breakdown group's, a group
 * known by its key (groupkey.h), the name the frontends write, so one
 * series of a time-series database is one sum here. The global line is a
 * pt_totals of its own with no groups. The sums start at 0 when proctree
 * starts (a counter reset to a scraper) and go on whatever the target's
 * processes do: a tree that ends and comes back, a pid file rewritten, a
 * group that empties and comes back (while it is kept, below).
 *
 * Invariants, held after every pt_totals_line and pt_totals_groups
 * (pt_totals_check; the unit tests check them after every step):
 *   - every sum is finite and >= 0;
 *   - a sum never decreases: a value handed in adds itself (a value that
 *     is not a number >= 0, which pt_lines_value_set never makes, adds nothing),
 *     an integer sum saturating at INT64_MAX;
 *   - a sum is present from the first value handed in for it on, and the
 *     line then carries the sum in the value's place; a value absent from
 *     a line stays absent there (unknown in that interval, as in delta
 *     mode), its sum kept for the next line that has it;
 *   - a sum is an integer while every value added to it was (the units of
 *     a run do not change, so a field keeps its type);
 *   - at most `kept` groups are held; a group handed in to the latest
 *     pt_totals_groups is never the one let go.
 *
 * Memory: a target's groups are its breakdown's lines, at most its limit
 * plus "other" in any one interval (groups.h), but over a long run the
 * names come and go (titles, short-lived commands) without end. So a
 * pt_totals holds `kept` groups at most (the collector gives it twice the
 * lines an interval can have) and, to take a new key when full, lets go of
 * the one not reported for the longest (the first by key among those as
 * old): that group's total starts again
 * from 0 should it come back, a counter reset to a scraper, which rate()
 * and increase() take in their stride. A group is ~650 bytes: with the
 * largest --by-limit, 1000, some 1.3 MB per target.
 *
 * Ownership: pt_totals_init allocates, pt_totals_free frees; no I/O. */
#ifndef PROCTREE_REPORT_TOTALS_H
#define PROCTREE_REPORT_TOTALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proctree/totals.h"
#include "report/groupkey.h"
#include "report/report.h"

/* "delta" or "total"; -1 for anything else (*out left alone). */
int pt_totals_counters_parse(const char *text, enum pt_counters *out);

/* The DELTA metrics of the catalog: one sum each, in a series. */
#define PT_X_TOTALS_COUNT(id, name, scope, kind, ...) +(PT_KIND_##kind == PT_KIND_DELTA)
enum { PT_TOTALS_SLOTS = 0 PT_CATALOG(PT_X_TOTALS_COUNT) };
#undef PT_X_TOTALS_COUNT

/* One series' sums, by slot: the bits say which are present, and which of
 * those are integers (else doubles). */
struct pt_total_series {
    uint64_t present, is_int;
    union {
        int64_t i;
        double f;
    } sum[PT_TOTALS_SLOTS];
};

struct pt_total_group {
    char key[PT_GROUP_KEY_MAX];
    uint64_t seen; /* the call of pt_totals_groups that last handed it in */
    struct pt_total_series series;
};

struct pt_totals {
    int8_t slot[PT_METRIC_COUNT]; /* a metric's slot, -1 where it is no DELTA */
    struct pt_total_series line;  /* the target's (or the global) line */
    struct pt_total_group *groups;
    size_t n_groups, kept;
    /* groups by key: open addressing, linear probing; an entry is a
     * group's index + 1, 0 empty; size a power of two > 2 x kept */
    uint32_t *index;
    size_t index_size;
    uint64_t calls; /* of pt_totals_groups */
};

/* kept: breakdown groups held at most (0: a line without a breakdown). */
void pt_totals_init(struct pt_totals *t, size_t kept);
void pt_totals_free(struct pt_totals *t);

/* The target's own line (or the global one): add its DELTA values to
 * their sums, and put each sum in its value's place. */
void pt_totals_line(struct pt_totals *t, struct pt_report *report);

/* One interval's breakdown lines (keys unique, as groupkey.h makes them):
 * the same, each to its group's sums. n above kept raises kept to n. */
void pt_totals_groups(struct pt_totals *t, struct pt_group_report *groups, size_t n);

/* 0, or -1 with the broken invariant in why (the tests' check; the
 * never-decreasing one is theirs, across calls). */
int pt_totals_check(const struct pt_totals *t, char *why, size_t whylen);

#endif
