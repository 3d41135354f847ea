/* runsummary, the library's part: its invariants checked (proctree/runsummary.h
 * states them). */
#ifndef PROCTREE_REPORT_RUNSUMMARY_H
#define PROCTREE_REPORT_RUNSUMMARY_H

#include <stddef.h>

#include "proctree/runsummary.h"

/* 0, or -1 with the broken invariant in why (the tests' check). */
int pt_runsummary_check(const struct pt_run_summary *s, char *why, size_t whylen);

#endif
