/* target: one selected process tree, its members and their sampling;
 * what the numbers add up to is the ledger's (ledger.h), how members are
 * found discovery.c's, what exit records settle exits.c's. */
#ifndef PROCTREE_TARGET_H
#define PROCTREE_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "tree/discovery.h"
#include "tree/exits.h"
#include "report/report.h"
#include "tree/sampling.h"
#include "select/selector.h"
#include "tree/targetevents.h"
#include "tree/targetstate.h"
#include "report/units.h"

/* sys_root: where the cgroup filesystem is looked for (cgroupfs.h).
 * Returns 0, or -1 with a one-line reason in err. */
int pt_target_init(struct pt_target *t, const char *name, const struct pt_selector *selector,
                   const struct pt_target_options *options, bool pss_at_end, int proc_root_fd, const char *sys_root,
                   struct pt_fd_budget *budget, char *err, size_t errlen);

/* The name the target reports under (its tag, its plugin instance). */
const char *pt_target_name(const struct pt_target *t);
/* The launched command's pid for a target of one (PT_SELECT_CHILD), else 0. */
pid_t pt_target_launched_pid(const struct pt_target *t);

/* Our pid as the proc root names it (pidns.h; getpid() until told): the
 * pid a pid file may not name, whose children launch mode adopts. */
void pt_target_set_self(struct pt_target *t, pid_t self);

/* CPU the collector spent for this target outside its calls (its share of
 * a listener's drain), counted in this interval's collector_cpu_seconds. */
void pt_target_charge(struct pt_target *t, double cpu_seconds);
void pt_target_free(struct pt_target *t);

/* Close the interval, which lasted seconds, into report (and the
 * breakdown's lines, pt_target_group_reports()); reads first, unless
 * pt_target_end_reads() did. */
void pt_target_end_interval(struct pt_target *t, double seconds, const struct pt_units *units,
                            struct pt_report *report);

/* Launch mode: pid has exited and is about to be reaped by us. Read its
 * final counters from the zombie (joining it to the tree first if
 * discovery never saw it: it can only be an orphan of the tree). */
void pt_target_final_read(struct pt_target *t, pid_t pid);
/* ... and it has been reaped. */
void pt_target_reaped(struct pt_target *t, pid_t pid);

/* The breakdown's tag key ("process"), or NULL without a breakdown. */
const char *pt_target_breakdown_key(const struct pt_target *t);
/* The breakdown's lines of the last ended interval. */
const struct pt_group_report *pt_target_group_reports(const struct pt_target *t, size_t *n);

#endif
