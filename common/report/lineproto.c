/* lineproto: InfluxDB line protocol, as InfluxDB 1.x and Telegraf accept it.
 * The rules are in lineproto.h; this file only follows them. */
#include "proctree/lineproto.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proctree/escape.h"

/* ---------------------------------------------------------------------------
 * Tag values
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
size_t pt_lp_append_tag_value(struct pt_buf *out, const char *value, size_t len)
{
    const unsigned char *s = (const unsigned char *)value;
    size_t start = out->len;
    size_t i = 0;

    while (i < len) {
        size_t n = pt_utf8_sequence_length(s + i, len - i);
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
 * Lines
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
    if (pt_lp_append_tag_value(out, value, strlen(value)) == 0)
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
        if (pt_catalog[id].scope != scope)
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

int pt_lp_append_report(struct pt_buf *out, const char *target, enum pt_scope scope, const struct pt_report *report,
                        int64_t timestamp_ns)
{
    return append_line(out, target, NULL, NULL, scope, report, timestamp_ns);
}

int pt_lp_append_group_report(struct pt_buf *out, const char *target, const char *key, const char *group,
                              const struct pt_report *report, int64_t timestamp_ns)
{
    return append_line(out, target, key, group, PT_SCOPE_PROC, report, timestamp_ns);
}
