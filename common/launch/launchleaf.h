/* launchleaf: the launched command's controllers on a pure cgroup v2 host
 * that no systemd manages (a container's entrypoint, a CI runner's job
 * cgroup).
 *
 * cgroup v2 enables a controller for a cgroup's children only while the
 * cgroup itself holds no process (its no-internal-process rule; the root
 * is excepted), and the command's cgroup is made below proctree's own,
 * which holds proctree. So where proctree's processes are the only ones in
 * its cgroup, they move to a leaf of their own (proctree-self-PID, a
 * sibling of the command's proctree-launch-PID) and the controllers the
 * cgroup offers (cpu, io, memory, pids) are enabled for its children: the
 * command's cgroup then has them. All of it is put back at the end as it
 * was, by whichever of proctree's processes is the last (supervise.h).
 *
 * Where another process shares the cgroup, nothing is touched: the
 * command's cgroup has none of those controllers, and cannot get them
 * while proctree is in its parent; cg->never says so for the start line
 * (targetcg.c). Never on a systemd host (launchscope.h's scope instead). */
#ifndef PROCTREE_LAUNCHLEAF_H
#define PROCTREE_LAUNCHLEAF_H

#include "launch/launchcg.h"

/* DEFAULT, cgroup v2 alone, no systemd, after pt_launch_cgroup_place
 * (cg->where.v2: our own cgroup) and before the command's cgroup is
 * made: move into the leaf and enable the controllers where only our
 * process is in our cgroup (one line says it), else set cg->never when
 * the command's cgroup can have no controller at all. Before the split
 * (supervise.h): our process is proctree's one. */
void pt_launch_leaf_take(struct pt_launch_cgroup *cg);

/* Put back what pt_launch_leaf_take changed (nothing when it took no
 * leaf): the controllers it enabled disabled, the caller moved back into
 * its cgroup, the leaf removed; one line for what cannot be. Called by
 * proctree's last process, after the command's cgroup is removed. */
void pt_launch_leaf_restore(struct pt_launch_cgroup *cg);

#endif
