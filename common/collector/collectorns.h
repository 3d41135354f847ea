/* collectorns: what it means when the proc root is another pid
 * namespace's (a container reading the host's /proc, or the host reading
 * a container's): the launched command's pid translated, and the lines
 * that tell a user their pids, cgroups and units are not what they expect
 * there. */
#ifndef PROCTREE_COLLECTORNS_H
#define PROCTREE_COLLECTORNS_H

#include <stddef.h>

#include "collector/collectorstate.h"
#include "select/selector.h"

/* The launched command as the proc root names it: fork() gave its pid in
 * our namespace, which in a container's view of the host's /proc is
 * another process's. 0, or -1 with a one-line reason in err. */
int pt_collector_launched_in_root(struct pt_collector *c, struct pt_selector *selector, char *err, size_t errlen);

/* In a container reading the host's /proc, a pid means the host's, which
 * a user may not expect: say it when the pid given is one of our
 * namespace's and the proc root's process of that pid is another. And
 * cgroup.procs lists pids in our namespace (0 for those we cannot see),
 * which the proc root's pids are not: say that --cgroup and --unit
 * cannot work. */
void pt_collector_check_namespace(struct pt_collector *c, const char *name, const struct pt_selector *selector);

/* Where the proc root is another pid namespace's (a container reading the
 * host's /proc, or the host reading a container's), pids given to us are
 * its: said once, at start. */
void pt_collector_say_namespace(const struct pt_collector *c);

#endif
