/* lineproto: InfluxDB line protocol, as InfluxDB 1.x and Telegraf accept it.
 *
 * Rules (verified against influxd 1.6.7 and Telegraf 1.39 by the integration
 * tests):
 * - tag values: ',', '=' and ' ' are escaped with '\'; a backslash cannot
 *   be written safely (a trailing one breaks the line) so it becomes '_';
 *   control characters (C0 including newline and tab, DEL, C1) become '_';
 *   each byte that does not start a well-formed UTF-8 sequence becomes
 *   '?'; an empty value is not written at all.
 * - integers are written with 'i' (never 'u'); floats always carry a '.'
 *   or an exponent and are never NaN/Inf (non-finite fields are dropped).
 * - one point per '\n'; never '\r'. */
#ifndef PROCTREE_LINEPROTO_H
#define PROCTREE_LINEPROTO_H

#include <stddef.h>
#include <stdint.h>

#include "proctree/buf.h"
#include "report/catalog.h"
#include "report/report.h"

/* Append tag-value-escaped text (rules above). Returns bytes appended;
 * 0 means the value was empty after sanitising and the tag must be left out. */
size_t pt_lp_append_tag_value(struct pt_buf *out, const char *value, size_t len);

/* Append one line:
 *   proctree[,target=NAME] field=value,... TIMESTAMP_NS\n
 * with the present fields of the given scope in catalog order. target may
 * be NULL (the global line). Returns the number of fields written; when it
 * is 0 nothing is appended (a line without fields is invalid). */
int pt_lp_append_report(struct pt_buf *out, const char *target, enum pt_scope scope, const struct pt_report *report,
                        int64_t timestamp_ns);

/* A breakdown group's line (proc_* fields):
 *   proctree,KEY=GROUP[,target=NAME] field=value,... TIMESTAMP_NS\n
 * KEY is "process"; GROUP is escaped as tag values are. */
int pt_lp_append_group_report(struct pt_buf *out, const char *target, const char *key, const char *group,
                              const struct pt_report *report, int64_t timestamp_ns);

#endif
