/* lines: a line's report as the frontends render it: InfluxDB line
 * protocol, and each value as a double.
 *
 * Its text is InfluxDB line protocol, as InfluxDB 1.x and Telegraf accept
 * it (proctree-execd's output; collectd's plugin dispatches the same report).
 * Its rules (verified against influxd 1.6.7 and Telegraf 1.39 by the integration
 * tests):
 * - tag values: ',', '=' and ' ' are escaped with '\'; a backslash cannot
 *   be written safely (a trailing one breaks the line) so it becomes '_';
 *   control characters (C0 including newline and tab, DEL, C1) become '_';
 *   each byte that does not start a well-formed UTF-8 sequence becomes
 *   '?'; an empty value is not written at all.
 * - integers are written with 'i' (never 'u'); floats always carry a '.'
 *   or an exponent and are never NaN/Inf (non-finite fields are dropped).
 * - one point per '\n'; never '\r'.
 *
 * This is the frontends' part; report/lines.h, which includes it, the
 * library's rest (the lines themselves, filled by the catalog). */
#ifndef PROCTREE_LINES_H
#define PROCTREE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proctree/buf.h"
#include "proctree/catalog.h"
#include "proctree/report.h"

/* The value as a double, whatever its representation (collectd gauges);
 * NaN when the value is absent, as collectd spells an unknown gauge. */
double pt_lines_value_as_double(const struct pt_value *value);

/* ---------------------------------------------------------------------------
 * Line protocol
 * ------------------------------------------------------------------------ */

/* Append one line:
 *   proctree[,target=NAME] field=value,... TIMESTAMP_NS\n
 * with the present fields the given scope's line carries (its own scope's
 * and every line's, pt_catalog_metric_on) in catalog order. target may
 * be NULL (the global line). Returns the number of fields written; when it
 * is 0 nothing is appended (a line without fields is invalid). */
int pt_lines_append_report(struct pt_buf *out, const char *target, enum pt_scope scope, const struct pt_report *report,
                           int64_t timestamp_ns);

/* A breakdown group's line (what pt_lines_report put in its report):
 *   proctree,KEY=GROUP[,target=NAME] field=value,... TIMESTAMP_NS\n
 * KEY is "process"; GROUP is escaped as tag values are. */
int pt_lines_append_group_report(struct pt_buf *out, const char *target, const char *key, const char *group,
                                 const struct pt_report *report, int64_t timestamp_ns);

#endif
