/* collector: the one object both frontends drive.
 *
 * A frontend builds a collector from its configuration, adds targets, then
 * calls pt_collector_tick() whenever the deadline it returned has passed
 * (that runs the fast memory polls and the discovery walks that are due),
 * and pt_collector_end_interval() whenever its agent asks for values (a
 * collectd read, a Telegraf newline or timer). Ending an interval takes
 * one last sample, turns the interval's extrema and counter movements into
 * a pt_batch and starts the next interval. Nothing here is thread-safe:
 * the collectd plugin, which samples on its own thread, serialises calls
 * with a mutex. The library logs through pt_logf (base.h): a frontend
 * installs its sink before it builds a collector.
 *
 * Times are CLOCK_MONOTONIC seconds (pt_now(), base.h). */
#ifndef PROCTREE_COLLECTOR_H
#define PROCTREE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proctree/base.h"
#include "proctree/batch.h"
#include "proctree/collectorconfig.h"
#include "proctree/collectorreap.h"
#include "proctree/collectortick.h"
#include "proctree/lines.h"
#include "proctree/report.h"
#include "proctree/selector.h"

struct pt_collector;

/* Returns NULL and writes a one-line reason into err on failure (proc root
 * not a directory, bad interval). */
struct pt_collector *pt_collector_new(const struct pt_collector_config *config, char *err, size_t errlen);
void pt_collector_free(struct pt_collector *c);

/* Add a target. name NULL means the default name: the comm of the pid,
 * the pidfile's base name without ".pid", the cgroup's base name, the
 * pattern, exe or user as given. The name is copied. Returns 0, or -1 with
 * a one-line reason in err (a name written as the same line-protocol tag
 * as another's, empty name, a second launched command, a bad regex, an
 * unknown user, no cgroup2 mount). */
int pt_collector_add_target(struct pt_collector *c, const char *name, const struct pt_selector *selector,
                            const struct pt_target_options *options, char *err, size_t errlen);

#endif
