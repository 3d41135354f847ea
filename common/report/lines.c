#include "report/lines.h"

#include <math.h>
#include <string.h>

#include "proctree/base.h"
#include "util/saturate.h"

void pt_line_init(struct pt_line *line, enum pt_lines of, double seconds, double ticks_per_second,
                  double cpu_percent_max)
{
    memset(line, 0, sizeof(*line));
    line->of = of;
    line->seconds = seconds;
    line->ticks_per_second = ticks_per_second;
    line->cpu_percent_max = cpu_percent_max;
}

void pt_line_put(struct pt_line *line, enum pt_amount a, double v)
{
    line->amount[a] = v;
    line->has_amount |= 1u << a;
}

/* The raw value of metric m on line l; false when its source is unknown.
 * For instance PT_M_PROC_RSS_MAX, PT_GAUGE(PT_G_RSS) in the catalog, is
 * gauges[PT_G_RSS].max, known once a poll read some statm. */
static bool value_of(const struct pt_line *l, const struct pt_metric_def *m, double *raw)
{
    switch (m->from) {
    case PT_FROM_GAUGE: {
        const struct pt_extrema *e = &l->gauges[m->quantity];
        *raw = (double)(m->kind == PT_KIND_GAUGE_MIN ? e->min : e->max);
        return e->any;
    }
    case PT_FROM_COUNTER: {
        int k = m->quantity;
        *raw = pt_ctr_is_cpu(k) ? (double)l->delta[k] / l->ticks_per_second : (double)l->delta[k];
        return k < PT_CTR_IO_END ? l->io_seen : l->stat_seen;
    }
    case PT_FROM_CPU_PERCENT: {
        if (!l->stat_seen || !(l->seconds > 0))
            return false;
        double cpu =
            (double)pt_sat_add(l->delta[PT_CTR_USER_TICKS], l->delta[PT_CTR_SYSTEM_TICKS]) / l->ticks_per_second;
        /* A rate no tree can pass: the ledger bounds the CPU by the
         * interval's length x the CPUs online (ledger.h); the configured
         * CPUs bound it here too, for a line of no known length. */
        double percent = 100.0 * cpu / l->seconds;
        *raw = percent < l->cpu_percent_max ? percent : l->cpu_percent_max;
        return true;
    }
    case PT_FROM_AMOUNT:
        *raw = l->amount[m->quantity];
        return (l->has_amount >> m->quantity) & 1u;
    case PT_FROM_CGROUP: {
        const struct pt_cgvalues *cg = l->cgroup;
        if (!cg || !((cg->known >> m->quantity) & 1u))
            return false;
        if (m->quantity == PT_CGQ_MEMORY_CURRENT) /* the polls' */
            *raw = (double)(m->kind == PT_KIND_GAUGE_MIN ? cg->current.min : cg->current.max);
        else /* microseconds as seconds */
            *raw = (double)cg->value[m->quantity] / (m->unit == PT_UNIT_SECONDS ? 1e6 : 1.0);
        return true;
    }
    case PT_FROM_MEMINFO:
        return false; /* the global line's (sysmem.c) */
    }
    return false;
}

void pt_line_report(const struct pt_line *line, const struct pt_units *units, struct pt_report *report)
{
    memset(report, 0, sizeof(*report));
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        const struct pt_metric_def *m = &pt_catalog[id];
        double raw;
        if (m->scope != PT_SCOPE_PROC || (line->of != PT_LINES_ONE && !(m->lines & line->of)))
            continue;
        if (value_of(line, m, &raw))
            pt_value_set(&report->v[id], (enum pt_metric_id)id, raw, units);
    }
}

void pt_line_drop_unknown(struct pt_report *report, unsigned short_reads)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++)
        if (pt_catalog[id].reads & short_reads)
            report->v[id].present = false;
}

void pt_short_describe(unsigned short_reads, char *out, size_t len)
{
    static const struct {
        unsigned bit;
        const char *what;
    } parts[] = {
        {PT_SHORT_MEMBERS, " membership (every proc_* metric)"},
        {PT_SHORT_STATM, " memory"},
        {PT_SHORT_COUNTERS, " CPU, faults, threads and I/O"},
        {PT_SHORT_SMAPS, " PSS"},
        {PT_SHORT_CTX, " context switches"},
        {PT_SHORT_FDS, " descriptors"},
    };
    if (len == 0)
        return;
    out[0] = '\0';
    for (size_t i = 0; i < PT_ARRAY_LEN(parts); i++)
        if (short_reads & parts[i].bit)
            strncat(out, parts[i].what, len - strlen(out) - 1);
}

/* ---------------------------------------------------------------------------
 * Report values
 * ------------------------------------------------------------------------ */

/* Round half up to int64, saturating at INT64_MAX; x must be >= 0 and
 * finite. Same result as llround() there, without needing libm. The
 * subtraction is exact: below 2^52 the fraction fits the mantissa, above
 * it every double is an integer and the difference is 0. */
static int64_t round_to_int64(double x)
{
    if (x >= 0x1p63)
        return INT64_MAX;
    int64_t whole = (int64_t)x;
    return x - (double)whole >= 0.5 ? whole + 1 : whole;
}

static void set_int(struct pt_value *out, double x)
{
    *out = (struct pt_value){.present = true, .is_int = true, .i = round_to_int64(x)};
}

static void set_float(struct pt_value *out, double x)
{
    *out = (struct pt_value){.present = true, .is_int = false, .f = x};
}

/* Memory arrives in bytes. bytes and kB are integers (kB rounds half up,
 * so 1536 bytes is 2 kB); MB and GB are floats, since a process of a few
 * hundred kB would otherwise read as 0. */
static void set_memory(struct pt_value *out, double bytes, enum pt_mem_unit unit)
{
    switch (unit) {
    case PT_MEM_BYTES:
        set_int(out, bytes);
        return;
    case PT_MEM_KB:
        set_int(out, bytes / 1024);
        return;
    case PT_MEM_MB:
        set_float(out, bytes / (1024.0 * 1024));
        return;
    case PT_MEM_GB:
        set_float(out, bytes / (1024.0 * 1024 * 1024));
        return;
    }
}

void pt_value_set(struct pt_value *out, enum pt_metric_id id, double raw, const struct pt_units *units)
{
    *out = (struct pt_value){0};
    /* Every catalog metric is a size, a count, a time or a share of time:
     * none can be negative, so a negative raw amount is a bug or a counter
     * that went backwards, and reporting nothing beats reporting garbage. */
    if (!isfinite(raw) || raw < 0)
        return;
    if (raw == 0)
        raw = 0; /* -0.0 passed the test above; never write a float "-0.0" */

    switch (pt_catalog[id].unit) {
    case PT_UNIT_PROC_MEMORY:
        set_memory(out, raw, units->proc_memory);
        return;
    case PT_UNIT_GLOBAL_MEMORY:
        set_memory(out, raw, units->global_memory);
        return;
    case PT_UNIT_BYTES:
    case PT_UNIT_NUMBER:
        set_int(out, raw);
        return;
    case PT_UNIT_SECONDS:
    case PT_UNIT_PERCENT:
        set_float(out, raw);
        return;
    }
}

/* An absent value is NaN, which is what collectd means by an unknown
 * gauge. */
double pt_value_as_double(const struct pt_value *value)
{
    if (!value->present)
        return NAN;
    return value->is_int ? (double)value->i : value->f;
}
