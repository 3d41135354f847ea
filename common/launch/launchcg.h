/* launchcg: the launched command's cgroup of its own, as directories:
 * where they go in each hierarchy (placed by this process's own /proc and
 * mounts), made one hierarchy at a time, and removed with what the command
 * made in them, depth first. pt_launch_cgroup_make (launch.h) decides
 * whether they are made at all (on a systemd host, launchscope.h: a
 * transient scope instead) and puts the command in them; this file only
 * touches the cgroup filesystem, so that whatever was made, used or not,
 * is removed the same way. */
#ifndef PROCTREE_LAUNCHCG_H
#define PROCTREE_LAUNCHCG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/bounds.h"
#include "cgroup/cgroupfs.h"

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

/* The proc root, the host's in a container (HOST_PROC), names our pid
 * but shows our cgroups as our own cgroup namespace does, and the sys
 * root's cgroup mounts there show the host's hierarchies from their roots:
 * joined, the command would escape the container's limits. So the
 * command's cgroup is placed by this process's own /proc and mounts alone,
 * and never through a mount below a sys root other than /sys. */
#define PT_LAUNCH_OWN_PROC "/proc"

/* Each hierarchy's mount in a pt_cgroupfs, in the order the launched
 * command's cgroup is made: v2's first, as its directory is the target's. */
static inline char *pt_launch_cgroup_hierarchy(struct pt_cgroupfs *fs, size_t h)
{
    return h == 0 ? fs->v2 : fs->v1[h - 1];
}

/* Our own cgroup's path in hierarchy h (v2's "0::PATH", a v1 controller's
 * "N:LIST:PATH" whose comma-separated LIST names it) from
 * /proc/self/cgroup's text (or /proc/PID/cgroup's), into out: 0, or -1
 * when it lists none. */
int pt_launch_cgroup_own_path(const char *text, size_t h, char *out, size_t outlen);

/* Where the cgroup goes (cg->where) and its name (the last component):
 * DEFAULT: in our own cgroup of each hierarchy; PATH: in PATH's parent of
 * each; *primary: the hierarchy whose directory is the target's. sys_root
 * is never NULL. 0, or -1 with the reason in err. */
int pt_launch_cgroup_place(struct pt_launch_cgroup *cg, enum pt_launch_cgroup_mode mode, const char *path,
                           const char *sys_root, char *name, size_t namelen, size_t *primary, char *err, size_t errlen);

/* Make name in hierarchy h and open its cgroup.procs; one hierarchy
 * reached by two mount points (cpu and cpuacct, mounted together) is made
 * once (devs and inos: those of the hierarchies made so far, zeroed
 * first). 0 (made, or another mount's), or -errno. */
int pt_launch_cgroup_make_in(struct pt_launch_cgroup *cg, size_t h, const char *name, dev_t *devs, ino_t *inos);

/* The cgroup.procs kept open for the launch, closed. */
void pt_launch_cgroup_close_procs(struct pt_launch_cgroup *cg);

/* Remove what pt_launch_cgroup_make made, once no process is left in it
 * (the tree is gone: reaped): first the sub-cgroups the command made in
 * it, depth first (at most PT_LAUNCH_SUBCGROUP_DEPTH levels, never through
 * a symlink, never out of the made one; by directory descriptors, so
 * whatever the length of their paths). One line, naming the cgroup that
 * cannot be removed (its path cut short if long) and why, for each made
 * cgroup left. */
void pt_launch_cgroup_remove(struct pt_launch_cgroup *cg);

#endif
