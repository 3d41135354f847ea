/* collectorsource: where the targets read their members' counters, chosen
 * once when the collector is built and said in one line.
 *
 * The BPF task iterator (taskiter.h) serves where it can load and its
 * pids are the proc root's: the running kernel's proc root, not one the
 * caller chose (a fixture tree, a container's view of the host's /proc),
 * in the host's pid namespace (the records carry the host's pids), with
 * CAP_BPF and CAP_PERFMON effective (or CAP_SYS_ADMIN), and the type
 * information its fields are found in. Anywhere else procfs serves alone,
 * as it does with --source procfs; with --source bpf that is an error. */
#ifndef PROCTREE_COLLECTORSOURCE_H
#define PROCTREE_COLLECTORSOURCE_H

#include <stddef.h>

#include "collector/collectorstate.h"

/* Load the task iterator into c->taskiter, or leave it NULL, and put the
 * line that says which source serves, and why, in c->source_line (said at
 * the first tick: a usage error found after this stays one line). -1 with
 * a one-line reason in err only where BPF was asked for and cannot
 * serve. */
int pt_collector_choose_source(struct pt_collector *c, char *err, size_t errlen);

#endif
