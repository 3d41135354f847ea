/* collectornames: the names targets report under, derived when none is
 * given and refused when two would be written as one tag: names are the
 * series' identity, and two targets merged into one series would add up
 * numbers that are not one tree's. */
#ifndef PROCTREE_COLLECTORNAMES_H
#define PROCTREE_COLLECTORNAMES_H

#include <stddef.h>

#include "collector/collectorstate.h"
#include "select/selector.h"

/* The name a target of selector gets when none is given (see
 * pt_collector_add_target), written into out: 0, or -1 when there is
 * none (an empty base name or value). */
int pt_collector_default_name(const struct pt_collector *c, const struct pt_selector *selector, char *out,
                              size_t outlen);

/* Is name free among c's targets? 0, or -1 with a one-line reason in err.
 * Names are compared as written, not as given, and both are named: the
 * second may be a default name nobody typed. */
int pt_collector_check_unique_name(const struct pt_collector *c, const char *name, char *err, size_t errlen);

#endif
