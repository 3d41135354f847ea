#include "accounting/lines.h"

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
