/* totals: running sums of the DELTA metrics, per series (totals.h says
 * what they are, and their bounds). */
#include "report/totals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"

_Static_assert(PT_TOTALS_SLOTS <= 64, "a series' bits are one uint64_t");

int pt_totals_counters_parse(const char *text, enum pt_counters *out)
{
    if (strcmp(text, "delta") == 0)
        *out = PT_COUNTERS_DELTA;
    else if (strcmp(text, "total") == 0)
        *out = PT_COUNTERS_TOTAL;
    else
        return -1;
    return 0;
}

/* The index's size for kept groups: a power of two more than twice it,
 * so that a probe ends soon. */
static size_t index_size_for(size_t kept)
{
    size_t size = 8;
    while (size <= 2 * kept)
        size *= 2;
    return size;
}

void pt_totals_init(struct pt_totals *t, size_t kept)
{
    memset(t, 0, sizeof(*t));
    int8_t next = 0;
    for (int id = 0; id < PT_METRIC_COUNT; id++)
        t->slot[id] = pt_catalog[id].kind == PT_KIND_DELTA ? next++ : -1;
    t->kept = kept;
    if (kept > 0) {
        t->groups = pt_xrealloc_array(NULL, kept, sizeof(*t->groups));
        t->index_size = index_size_for(kept);
        t->index = pt_xrealloc_array(NULL, t->index_size, sizeof(*t->index));
        memset(t->index, 0, t->index_size * sizeof(*t->index));
    }
}

void pt_totals_free(struct pt_totals *t)
{
    free(t->groups);
    free(t->index);
    memset(t, 0, sizeof(*t));
}

/* ---------------------------------------------------------------------------
 * Sums
 * ------------------------------------------------------------------------ */

static double value_double(const struct pt_value *v)
{
    return v->is_int ? (double)v->i : v->f;
}

/* Add v to slot s of the series and put the sum in v's place. */
static void add_one(struct pt_total_series *ser, int s, struct pt_value *v)
{
    uint64_t bit = 1ull << s;
    double x = value_double(v);
    if (!(x >= 0) || !isfinite(x)) { /* nothing pt_lines_value_set makes: adds nothing */
        x = 0;
        v->i = 0;
    }
    if (!(ser->present & bit)) {
        ser->present |= bit;
        if (v->is_int) {
            ser->is_int |= bit;
            ser->sum[s].i = v->i;
        } else {
            ser->is_int &= ~bit;
            ser->sum[s].f = x;
        }
    } else if ((ser->is_int & bit) && v->is_int) {
        int64_t *sum = &ser->sum[s].i;
        *sum = v->i > INT64_MAX - *sum ? INT64_MAX : *sum + v->i; /* saturates, as units.c does */
    } else {
        /* a float added: the sum is a float from now on. Adding x >= 0
         * never makes a double smaller (rounding is monotonic) */
        double before = (ser->is_int & bit) ? (double)ser->sum[s].i : ser->sum[s].f;
        ser->is_int &= ~bit;
        ser->sum[s].f = before + x;
        if (!isfinite(ser->sum[s].f))
            ser->sum[s].f = before;
    }
    if (ser->is_int & bit)
        *v = (struct pt_value){.present = true, .is_int = true, .i = ser->sum[s].i};
    else
        *v = (struct pt_value){.present = true, .is_int = false, .f = ser->sum[s].f};
}

static void add_report(const struct pt_totals *t, struct pt_total_series *ser, struct pt_report *report)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++)
        if (t->slot[id] >= 0 && report->v[id].present)
            add_one(ser, t->slot[id], &report->v[id]);
}

void pt_totals_line(struct pt_totals *t, struct pt_report *report)
{
    add_report(t, &t->line, report);
}

/* ---------------------------------------------------------------------------
 * Groups by key
 * ------------------------------------------------------------------------ */

/* FNV-1a: keys are names of processes anyone can pick, but a collision
 * costs only a longer probe in a table of a few thousand entries. */
static size_t hash_key(const char *key)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

/* The index entry where key is, or the empty one where it would go. */
static size_t probe(const struct pt_totals *t, const char *key)
{
    size_t mask = t->index_size - 1;
    size_t at = hash_key(key) & mask;
    while (t->index[at] && strcmp(t->groups[t->index[at] - 1].key, key) != 0)
        at = (at + 1) & mask;
    return at;
}

/* Take the entry at out of the index, moving back the entries after it
 * that probed past it, so every key stays reachable without tombstones. */
static void unindex(struct pt_totals *t, size_t at)
{
    size_t mask = t->index_size - 1;
    t->index[at] = 0;
    for (size_t next = (at + 1) & mask; t->index[next]; next = (next + 1) & mask) {
        size_t home = hash_key(t->groups[t->index[next] - 1].key) & mask;
        /* the entry stays where it is when its home is cyclically in (at, next] */
        bool stays = at <= next ? (home > at && home <= next) : (home > at || home <= next);
        if (stays)
            continue;
        t->index[at] = t->index[next];
        t->index[next] = 0;
        at = next;
    }
}

/* Room for at least kept groups. */
static void grow(struct pt_totals *t, size_t kept)
{
    t->groups = pt_xrealloc_array(t->groups, kept, sizeof(*t->groups));
    t->kept = kept;
    free(t->index);
    t->index_size = index_size_for(kept);
    t->index = pt_xrealloc_array(NULL, t->index_size, sizeof(*t->index));
    memset(t->index, 0, t->index_size * sizeof(*t->index));
    for (size_t g = 0; g < t->n_groups; g++)
        t->index[probe(t, t->groups[g].key)] = (uint32_t)(g + 1);
}

/* A group for key, new: a free one, else the one not handed in for the
 * longest (never one of this call: there are more kept than handed in),
 * of those the first by key, so which goes does not hang on where each
 * happens to lie. */
static struct pt_total_group *take(struct pt_totals *t, const char *key)
{
    size_t g = t->n_groups;
    if (g < t->kept) {
        t->n_groups++;
    } else {
        g = 0;
        for (size_t i = 1; i < t->n_groups; i++)
            if (t->groups[i].seen < t->groups[g].seen ||
                (t->groups[i].seen == t->groups[g].seen && strcmp(t->groups[i].key, t->groups[g].key) < 0))
                g = i;
        unindex(t, probe(t, t->groups[g].key));
    }
    struct pt_total_group *group = &t->groups[g];
    memset(group, 0, sizeof(*group));
    snprintf(group->key, sizeof(group->key), "%s", key);
    t->index[probe(t, group->key)] = (uint32_t)(g + 1);
    return group;
}

void pt_totals_groups(struct pt_totals *t, struct pt_group_report *groups, size_t n)
{
    if (n == 0)
        return;
    if (n >= t->kept) /* kept above n: a group of this call is never let go */
        grow(t, 2 * n);
    uint64_t call = ++t->calls;
    /* first mark those known, so that taking a new one cannot let one of
     * them go; then sum */
    for (size_t i = 0; i < n; i++) {
        uint32_t at = t->index[probe(t, groups[i].key)];
        if (at)
            t->groups[at - 1].seen = call;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t at = t->index[probe(t, groups[i].key)];
        struct pt_total_group *group = at ? &t->groups[at - 1] : take(t, groups[i].key);
        group->seen = call;
        add_report(t, &group->series, &groups[i].report);
    }
}

/* ---------------------------------------------------------------------------
 * Check
 * ------------------------------------------------------------------------ */

static int check_series(const struct pt_totals *t, const struct pt_total_series *ser, const char *what, char *why,
                        size_t whylen)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        int s = t->slot[id];
        if (s < 0 || !((ser->present >> s) & 1))
            continue;
        double x = ((ser->is_int >> s) & 1) ? (double)ser->sum[s].i : ser->sum[s].f;
        if (!(x >= 0) || !isfinite(x)) {
            snprintf(why, whylen, "%s: %s total %g is not a number >= 0", what, pt_catalog[id].name, x);
            return -1;
        }
    }
    if ((ser->is_int & ~ser->present) != 0 || (PT_TOTALS_SLOTS < 64 && (ser->present >> PT_TOTALS_SLOTS) != 0)) {
        snprintf(why, whylen, "%s: bits of no present slot", what);
        return -1;
    }
    return 0;
}

int pt_totals_check(const struct pt_totals *t, char *why, size_t whylen)
{
    if (check_series(t, &t->line, "the line", why, whylen) != 0)
        return -1;
    if (t->n_groups > t->kept) {
        snprintf(why, whylen, "%zu groups held, more than the %zu kept", t->n_groups, t->kept);
        return -1;
    }
    size_t indexed = 0;
    for (size_t i = 0; i < t->index_size; i++)
        indexed += t->index[i] != 0;
    if (indexed != t->n_groups) {
        snprintf(why, whylen, "%zu groups indexed, %zu held", indexed, t->n_groups);
        return -1;
    }
    for (size_t g = 0; g < t->n_groups; g++) {
        const struct pt_total_group *group = &t->groups[g];
        if (t->index[probe(t, group->key)] != g + 1) {
            snprintf(why, whylen, "group %zu is not found by its key", g);
            return -1;
        }
        if (group->seen > t->calls) {
            snprintf(why, whylen, "group %zu seen at call %llu, after the last, %llu", g,
                     (unsigned long long)group->seen, (unsigned long long)t->calls);
            return -1;
        }
        if (check_series(t, &group->series, "a group", why, whylen) != 0)
            return -1;
    }
    return 0;
}
