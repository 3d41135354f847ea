/* selector, the library's part: a breakdown's keywords (proctree/selector.h:
 * what a target is). */
#ifndef PROCTREE_SELECT_SELECTOR_H
#define PROCTREE_SELECT_SELECTOR_H

#include "accounting/rank.h"
#include "proctree/selector.h"
#include "util/bounds.h"

/* A breakdown as both frontends spell it (--by, BreakDown): "process",
 * "thread", "cgroup" or "title", exactly. Returns 0, or -1 for anything else, "none" included
 * (*out is then left alone). */
int pt_selector_breakdown_parse(const char *text, enum pt_breakdown *out);
/* Its keyword, which is also its lines' tag key; NULL for PT_BY_NONE. */
const char *pt_selector_breakdown_name(enum pt_breakdown by);

#endif
