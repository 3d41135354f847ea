/* units, the library's part: memory units and durations as the options
 * spell them (proctree/units.h: the units). */
#ifndef PROCTREE_REPORT_UNITS_H
#define PROCTREE_REPORT_UNITS_H

#include "proctree/units.h"

/* "bytes", "kB", "MB", "GB", or their IEC names "KiB", "MiB", "GiB" (exact
 * spelling; all binary: kB = KiB = 1024 bytes). Returns 0, or -1 for
 * anything else (*out is then left alone). */
int pt_units_mem_parse(const char *text, enum pt_mem_unit *out);

/* A duration: "250ms", "2s", "1.5" (seconds), "1m" (minutes), "100us".
 * Syntax: [0-9]+(\.[0-9]+)? then one of "", "ns", "us", "ms", "s", "m",
 * "h"; no sign, exponent or spaces. Must be between 1 ns and one year
 * (365 days), and at most 64 bytes long. Returns 0 and sets *seconds, or
 * -1 (*seconds left alone). */
int pt_units_duration_parse(const char *text, double *seconds);

#endif
