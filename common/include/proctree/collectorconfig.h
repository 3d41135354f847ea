/* collectorconfig: what a collector is built from (its roots, cadences,
 * units and descriptor budget), its defaults, and the checks a frontend
 * runs on the roots before it builds one. Apart from collector.h so that
 * the collector's state (collectorstate.h), which holds a copy, sits below
 * the collector's parts. A cadence below PT_DURATION_MIN_MS (units.h),
 * which no frontend takes, is kept as that by the tick.
 *
 * This is the frontends' part; collector/collectorconfig.h, which includes
 * it, the library's rest (the source's keywords, the proc root opened and
 * confined). */
#ifndef PROCTREE_COLLECTORCONFIG_H
#define PROCTREE_COLLECTORCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "proctree/totals.h"
#include "proctree/units.h"

/* Where the members' counters are read (collectorsource.h). */
enum pt_source { PT_SOURCE_AUTO, PT_SOURCE_PROCFS, PT_SOURCE_BPF };

struct pt_collector_config {
    const char *proc_root;     /* NULL = "/proc"; may be another pid namespace's
                                  (a container's view of the host's /proc):
                                  pids of targets are then its pids */
    const char *sys_root;      /* NULL = "/sys": the cgroup filesystem is looked
                                  for below <sys_root>/fs/cgroup first */
    double poll_interval;      /* seconds, > 0; default 0.1 */
    double discovery_interval; /* seconds, > 0; default 1 */
    double pss_interval;       /* seconds between smaps_rollup samples; 0 (the
                                  default) = one sample at each interval's end */
    struct pt_units units;
    bool collect_global; /* the global_* line */
    size_t fd_budget;    /* /proc descriptors kept open, all targets together
                            (fdbudget.h); default: half the soft RLIMIT_NOFILE */
    enum pt_source source;
    /* DELTA metrics as the interval's amounts (the default) or as totals
     * since proctree first measured the series (totals.h) */
    enum pt_counters counters;
    /* The BPF type information the program's fields are found in, in
     * place of the running kernel's (a test's: a missing one must leave
     * the reads to procfs); NULL: the kernel's own. */
    const char *btf_path;
};

/* Defaults: /proc, 100 ms poll, 1 s discovery, bytes, global on, half
 * the soft open-files limit for kept descriptors. */
void pt_collector_config_init(struct pt_collector_config *config);

/* Does root look like a proc filesystem (it has a meminfo)? 0, or -1
 * with a one-line reason in err: a wrong directory would otherwise show
 * only as a missing file later, or as a tree that never appears. */
int pt_collector_check_proc_root(const char *root, char *err, size_t errlen);
/* Is root a directory, for the sys root? 0, or -1 with a one-line reason
 * in err: the cgroup filesystem is looked for below it, and a typo would
 * show only as a cgroup never found. */
int pt_collector_check_sys_root(const char *root, char *err, size_t errlen);

#endif
