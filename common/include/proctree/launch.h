/* launch: start a command to follow, with this process as its subreaper.
 *
 * PR_SET_CHILD_SUBREAPER makes orphans of the launched tree (daemonised
 * grandchildren whose parent exited) come back to us instead of init, so
 * we can read their final usage from the zombie before reaping them, and
 * know when the whole tree is gone (waitid reports ECHILD).
 *
 * The command's cgroup of its own is launchcg.h's (on a systemd host,
 * launchscope.h's scope, asked for by launch.c), the signalling of its
 * tree launchtree.h's; this header includes those two, so that a frontend
 * includes only it. */
#ifndef PROCTREE_LAUNCH_H
#define PROCTREE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proctree/launchcg.h"
#include "proctree/launchtree.h"

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

/* Our own cgroup put back as it was before pt_launch_cgroup_make, where
 * it was given up to the command's (launchleaf.h: our processes moved to
 * a leaf, controllers enabled for its children): by proctree's last
 * process, once the command's cgroup is removed, so that nothing of ours
 * is left in the leaf. Nothing to do elsewhere. */
void pt_launch_cgroup_give_back(struct pt_launch_cgroup *cg);

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

#endif
