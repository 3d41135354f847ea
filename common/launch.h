/* launch: start a command to follow, with this process as its subreaper.
 *
 * PR_SET_CHILD_SUBREAPER makes orphans of the launched tree (daemonised
 * grandchildren whose parent exited) come back to us instead of init, so
 * we can read their final usage from the zombie before reaping them, and
 * know when the whole tree is gone (waitid reports ECHILD). */
#ifndef PROCTREE_LAUNCH_H
#define PROCTREE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgroupfs.h"

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
    char not_below[PT_CGROUPFS_PATH_MAX];   /* place()'s: the scope's directory is found as ours are */
    char fallback[640];                     /* what the command gets without the scope, said if it must */
    pid_t keeper;                           /* pt_launch_cgroup_keeper's, 0 when none */
};

/* Make the cgroup as mode says; path: PATH's, a cgroup as /proc/PID/cgroup
 * shows it (below the cgroup2 mount) or a cgroupfs directory, whose parent
 * exists and which does not. Either is placed by this process's own /proc
 * and mounts (its cgroup and mount namespaces, a container's), never by
 * the proc root nor through a mount below sys_root (the collector's: the
 * host's /sys in a container; NULL or "/sys": our own), so that the command
 * stays within the limits this process runs under. Returns 0 (cg->dir ""
 * when none was made: NONE, or DEFAULT where the cgroup filesystem refuses,
 * said in one line), or -1 with a one-line reason in err (PATH: refused,
 * nothing made). */
int pt_launch_cgroup_make(struct pt_launch_cgroup *cg, enum pt_launch_cgroup_mode mode, const char *path,
                          const char *sys_root, char *err, size_t errlen);

/* systemd removes a scope as soon as it holds no process, which the
 * kernel says as the last one exits, before we reap it: the last reads of
 * the command's cgroup would find it gone, and the last interval's CPU
 * time be lost. So with cg->scope a keeper goes into the scope with the
 * command: a process that only waits for SIGKILL, forked by the caller
 * (the supervisor: not of the worker's tree, and it kills every process
 * of its own once the worker has exited, that is after the last read).
 * Its memory was charged where it was forked, and it runs nothing in the
 * scope: it adds no CPU time, no memory and no I/O there. */
void pt_launch_cgroup_keeper(struct pt_launch_cgroup *cg);
/* SIGKILL to the keeper, reaped here (it only waits: it dies at once, but
 * on a loaded host not always within the time given to what is left of
 * the tree, which it is not part of). */
void pt_launch_cgroup_keeper_end(struct pt_launch_cgroup *cg);
#define PT_LAUNCH_KEEPER_NAME "proctree-keeper" /* its comm */

/* Remove what pt_launch_cgroup_make made, once no process is left in it
 * (the tree is gone: reaped): first the sub-cgroups the command made in
 * it, depth first (at most PT_LAUNCH_SUBCGROUP_DEPTH levels, never through
 * a symlink, never out of the made one). One line, naming the cgroup that
 * cannot be removed and why, for each made cgroup left. */
#define PT_LAUNCH_SUBCGROUP_DEPTH 32
void pt_launch_cgroup_remove(struct pt_launch_cgroup *cg);

/* Fork and exec argv[0] (PATH search). The child gets default signal
 * dispositions, an empty signal mask, a process group of its own (whose id
 * is its pid: pt_launch_signal_tree reaches the whole job through it),
 * stdin_fd / stdout_fd / stderr_fd as its standard streams (-1 = inherit
 * ours), and with cg (NULL or none made: no cgroup of its own) joins each of
 * cg's cgroups before exec. Returns the pid, or -1 with a one-line reason
 * in err when the command cannot be executed or, cg->required, cannot join
 * its cgroup (the child's error is passed back through a close-on-exec
 * pipe, and the child reaped). When it cannot join a DEFAULT cgroup it is
 * launched again without one (one line says so; cg is then removed and
 * left with none). With cg->scope, the child waits before exec while
 * systemd is asked for its scope, and the scope it is then in is cg->dir
 * (as /proc/PID/cgroup shows it, the kernel's word); when systemd gives
 * none, one line says why and what the command gets instead. */
pid_t pt_launch(char *const argv[], int stdin_fd, int stdout_fd, int stderr_fd, struct pt_launch_cgroup *cg, char *err,
                size_t errlen);

/* Send sig to the process group `group` and to every descendant of this
 * process, wherever it is (a job may move a child to another group or
 * session; as the subreaper we still find it below us). Returns how many
 * descendants were found, zombies included; 0 means the tree is gone. */
size_t pt_launch_signal_tree(pid_t group, int sig);

#endif
