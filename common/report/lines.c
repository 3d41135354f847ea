/* lines: a target's line, from the amounts the accounting hands it to its
 * values in the catalog's units and its text in InfluxDB line protocol
 * (proctree/lines.h, whose rules this file follows). One concept, one
 * file: what a line carries, each value in its unit, and how
 * proctree-execd writes it (collectd's plugin dispatches the same report). */
#include "report/lines.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"
#include "util/escape.h"
#include "util/saturate.h"

void pt_lines_init(struct pt_line *line, enum pt_lines of, double interval, double seconds, double ticks_per_second,
                   double cpu_percent_max)
{
    memset(line, 0, sizeof(*line));
    line->of = of;
    line->interval = interval;
    line->seconds = seconds;
    line->ticks_per_second = ticks_per_second;
    line->cpu_percent_max = cpu_percent_max;
}

void pt_lines_put(struct pt_line *line, enum pt_amount a, double v)
{
    line->amount[a] = v;
    line->has_amount |= (uint64_t)1 << a;
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
        return (l->has_amount >> m->quantity) & 1;
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
    case PT_FROM_INTERVAL:
        /* a line of no length has no rate to give: said by its absence */
        *raw = l->interval;
        return l->interval > 0;
    }
    return false;
}

void pt_lines_report(const struct pt_line *line, const struct pt_units *units, struct pt_report *report)
{
    memset(report, 0, sizeof(*report));
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        const struct pt_metric_def *m = &pt_catalog[id];
        double raw;
        if (!pt_catalog_metric_on((enum pt_metric_id)id, PT_SCOPE_PROC) ||
            (line->of != PT_LINES_ONE && !(m->lines & line->of)))
            continue;
        if (value_of(line, m, &raw))
            pt_lines_value_set(&report->v[id], (enum pt_metric_id)id, raw, units);
    }
}

void pt_lines_report_global(double seconds, const struct pt_units *units, struct pt_report *report)
{
    struct pt_line line;
    pt_lines_init(&line, PT_LINES_ONE, seconds, seconds, 0, 0);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        const struct pt_metric_def *m = &pt_catalog[id];
        double raw;
        if (m->scope == PT_SCOPE_ALL && value_of(&line, m, &raw))
            pt_lines_value_set(&report->v[id], (enum pt_metric_id)id, raw, units);
    }
}

void pt_lines_drop_unknown(struct pt_report *report, unsigned short_reads)
{
    for (int id = 0; id < PT_METRIC_COUNT; id++)
        if (pt_catalog[id].reads & short_reads)
            report->v[id].present = false;
}

void pt_lines_short_describe(unsigned short_reads, char *out, size_t len)
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

void pt_lines_value_set(struct pt_value *out, enum pt_metric_id id, double raw, const struct pt_units *units)
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
double pt_lines_value_as_double(const struct pt_value *value)
{
    if (!value->present)
        return NAN;
    return value->is_int ? (double)value->i : value->f;
}

/* ---------------------------------------------------------------------------
 * Line protocol: tag values
 * ------------------------------------------------------------------------ */

/* One ASCII byte of a tag value. */
static void append_tag_ascii(struct pt_buf *out, unsigned char c)
{
    if (c == ',' || c == '=' || c == ' ') {
        pt_buf_putc(out, '\\');
        pt_buf_putc(out, (char)c);
    } else if (c == '\\' || c < 0x20 || c == 0x7f) {
        /* A backslash is stored literally by InfluxDB 1.6 but breaks the
         * line when it is the last byte; control characters (newline above
         * all) cannot be escaped at all. Both become '_'. */
        pt_buf_putc(out, '_');
    } else {
        pt_buf_putc(out, (char)c);
    }
}

/* Each byte that does not start a well-formed sequence becomes one '?',
 * as Go (InfluxDB, Telegraf) decodes it to one U+FFFD; replacing it here
 * keeps the value we send equal to the value that gets stored. The C1
 * controls U+0080..U+009F are control characters like their ASCII
 * cousins and become '_'. Nothing is ever dropped, so the result is empty
 * only when the input is. */
size_t pt_lines_append_tag_value(struct pt_buf *out, const char *value, size_t len)
{
    const unsigned char *s = (const unsigned char *)value;
    size_t start = out->len;
    size_t i = 0;

    while (i < len) {
        size_t n = pt_escape_utf8_sequence_length(s + i, len - i);
        if (n == 0) {
            pt_buf_putc(out, '?');
            i++;
        } else if (n == 1) {
            append_tag_ascii(out, s[i]);
            i++;
        } else if (s[i] == 0xc2 && s[i + 1] <= 0x9f) {
            pt_buf_putc(out, '_');
            i += n;
        } else {
            pt_buf_append(out, value + i, n);
            i += n;
        }
    }
    return out->len - start;
}

/* ---------------------------------------------------------------------------
 * Line protocol: lines
 * ------------------------------------------------------------------------ */

/* A tag whose value sanitises to empty is left out: InfluxDB rejects an
 * empty tag value, and a target line without its tag is still a valid
 * point (it merges with other untagged ones, which only happens if
 * someone names a target ""). */

/* An integer field: InfluxDB 1.6 wants the 'i' suffix and rejects 'u'. */
static void append_int(struct pt_buf *out, int64_t v)
{
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%" PRId64 "i", v);
    pt_buf_append(out, buf, (size_t)n);
}

/* A float field: "%.15g" is short and never shows binary noise such as
 * 0.30000000000000004. But below 1e-4 it writes an exponent, and a person
 * (or a regular expression) reads cgroup_pressure_cpu_some_seconds=7.5e-05,
 * 75 us, as 7.5 seconds in a 1 s interval: such a value is written in
 * fixed point with the same digits, 0.000075 (to a double's least, 324
 * places: the buffer holds them). A bare "3" would be read as a float too,
 * but as text it looks like an integer to people and to other parsers, so
 * a ".0" is added when there is neither '.' nor exponent. snprintf uses
 * LC_NUMERIC for the decimal point: proctree never calls setlocale(), so
 * it is the "C" locale's '.'; a caller that sets a locale must keep
 * LC_NUMERIC at "C". The caller has already ruled out NaN and Inf. */
static void append_float(struct pt_buf *out, double v)
{
    char buf[352]; /* "-0.", 324 places and 14 more digits, the NUL */
    int n = snprintf(buf, sizeof(buf), "%.15g", v);
    const char *e = strchr(buf, 'e');
    if (e && e[1] == '-') {
        /* d.ddde-X: the digits after the point, then X places to the left */
        const char *point = strchr(buf, '.');
        int fraction = point ? (int)(e - point - 1) : 0, places = atoi(e + 2) + fraction;
        n = snprintf(buf, sizeof(buf), "%.*f", places, v);
        assert(n > 0 && (size_t)n < sizeof(buf));
    }
    pt_buf_append(out, buf, (size_t)n);
    if (strpbrk(buf, ".e") == NULL)
        pt_buf_puts(out, ".0");
}

/* Write ",name=value" (or " name=value" for the first field). Returns
 * false for a value that cannot be written: absent, or a non-finite float,
 * which InfluxDB rejects and which would cost the whole line. */
static bool append_field(struct pt_buf *out, char separator, const char *name, const struct pt_value *v)
{
    if (!v->present || (!v->is_int && !isfinite(v->f)))
        return false;
    pt_buf_putc(out, separator);
    pt_buf_puts(out, name); /* catalog names are [a-z0-9_]: nothing to escape */
    pt_buf_putc(out, '=');
    if (v->is_int)
        append_int(out, v->i);
    else
        append_float(out, v->f);
    return true;
}

/* ",KEY=VALUE", or nothing when VALUE sanitises to empty. */
static void append_tag(struct pt_buf *out, const char *key, const char *value)
{
    size_t start = out->len;

    pt_buf_putc(out, ',');
    pt_buf_puts(out, key); /* our own keys: [a-z] */
    pt_buf_putc(out, '=');
    if (pt_lines_append_tag_value(out, value, strlen(value)) == 0)
        pt_buf_truncate(out, start);
}

static int append_line(struct pt_buf *out, const char *target, const char *key, const char *group, enum pt_scope scope,
                       const struct pt_report *report, int64_t timestamp_ns)
{
    size_t start = out->len;
    int fields = 0;

    pt_buf_puts(out, "proctree");
    if (key != NULL)
        append_tag(out, key, group);
    if (target != NULL)
        append_tag(out, "target", target);
    for (int id = 0; id < PT_METRIC_COUNT; id++) {
        if (!pt_catalog_metric_on((enum pt_metric_id)id, scope))
            continue;
        if (append_field(out, fields ? ',' : ' ', pt_catalog[id].name, &report->v[id]))
            fields++;
    }
    if (fields == 0) {
        pt_buf_truncate(out, start); /* a point without fields is invalid: drop it all */
        return 0;
    }
    pt_buf_putc(out, ' ');
    char ts[24];
    int n = snprintf(ts, sizeof(ts), "%" PRId64 "\n", timestamp_ns);
    pt_buf_append(out, ts, (size_t)n);
    return fields;
}

int pt_lines_append_report(struct pt_buf *out, const char *target, enum pt_scope scope, const struct pt_report *report,
                           int64_t timestamp_ns)
{
    return append_line(out, target, NULL, NULL, scope, report, timestamp_ns);
}

int pt_lines_append_group_report(struct pt_buf *out, const char *target, const char *key, const char *group,
                                 const struct pt_report *report, int64_t timestamp_ns)
{
    return append_line(out, target, key, group, PT_SCOPE_PROC, report, timestamp_ns);
}
