/* launchcg: the launched command's cgroup of its own, as the frontend
 * holds it: what pt_launch_cgroup_make (launch.h) made, and its removal.
 * launch/launchcg.h, which includes it, places and makes the directories,
 * and touches only the cgroup filesystem, so that whatever was made, used
 * or not, is removed the same way. */
#ifndef PROCTREE_LAUNCHCG_H
#define PROCTREE_LAUNCHCG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proctree/cgroupfs.h"

/* A cgroup of the launched command's own, so that the kernel's accounting
 * of it (cgacct.h: exact CPU time, memory peak, OOM kills, pressure stalls)
 * is the command's alone. It is made in cgroup v2's hierarchy and in each
 * v1 controller's whose files cgstat.h reads (a hybrid host's memory
 * controller is v1 only), the command joins every one between fork and
 * exec, and they are removed once its tree is gone. */
enum pt_launch_cgroup_mode {
    PT_LAUNCH_CGROUP_DEFAULT, /* proctree-launch-<our pid> in our own cgroup of each hierarchy,
                                 when the cgroup filesystem lets us; else none, said in one line */
    PT_LAUNCH_CGROUP_PATH,    /* at a path given: made, or refused */
    PT_LAUNCH_CGROUP_NONE,
};

#define PT_LAUNCH_HIERARCHIES (1 + PT_V1_COUNT)

struct pt_launch_cgroup {
    bool required; /* PATH: a failure to make or join it is an error */
    /* its directory, the target's (selector.path): v2's, else a v1
     * controller's; "" when there is none */
    char dir[PT_CGROUPFS_PATH_MAX];
    /* the directory it was made in, in each hierarchy ("" where it was
     * not): dir's path below where.v2 (or the v1 one dir is in) names it
     * in every hierarchy, as pt_cgroupfs_dirs_of reads it */
    struct pt_cgroupfs where;
    char made[PT_LAUNCH_HIERARCHIES][PT_CGROUPFS_PATH_MAX]; /* removed at the end */
    int procs_fd[PT_LAUNCH_HIERARCHIES];                    /* their cgroup.procs, open until the launch */
    size_t n_made;
    /* DEFAULT on a systemd host with cgroup v2 alone (sdscope.h): a
     * transient scope of systemd's is asked for at launch, and what was
     * made above is only the fallback, removed unused when the scope is
     * had. systemd removes the scope once it empties. */
    bool scope;
    char scope_name[64];
    char scope_slice[PT_CGROUPFS_PATH_MAX]; /* "" : the manager's default */
    char not_below[PT_CGROUPFS_PATH_MAX];   /* pt_launch_cgroup_place's: the scope's is found as ours are */
    char fallback[640];                     /* what the command gets without the scope, said if it must */
    pid_t keeper;                           /* pt_launch_cgroup_keeper's, 0 when none */
    /* launchleaf.h: where proctree's processes were the only ones in its
     * own v2 cgroup (leaf_parent), they moved to leaf, and the
     * controllers of leaf_enabled (bits of launchleaf.c's list) were
     * enabled for its children, all put back at the end */
    char leaf[PT_CGROUPFS_PATH_MAX]; /* "" when none was taken */
    char leaf_parent[PT_CGROUPFS_PATH_MAX];
    unsigned leaf_enabled;
    /* why the command's cgroup has none of the controllers and never will
     * while it runs (launchleaf.h), for the start line; "" when it may */
    char never[512];
};

/* Remove what pt_launch_cgroup_make made, once no process is left in it
 * (the tree is gone: reaped): first the sub-cgroups the command made in
 * it, depth first (at most PT_LAUNCH_SUBCGROUP_DEPTH levels, never through
 * a symlink, never out of the made one; by directory descriptors, so
 * whatever the length of their paths). One line, naming the cgroup that
 * cannot be removed (its path cut short if long) and why, for each made
 * cgroup left. */
void pt_launch_cgroup_remove(struct pt_launch_cgroup *cg);

#endif
