/* launchcg: the launched command's cgroup of its own, as directories:
 * where they go in each hierarchy (placed by this process's own /proc and
 * mounts), made one hierarchy at a time, and removed with what the command
 * made in them, depth first. pt_launch_cgroup_make (launch.h) decides
 * whether they are made at all (on a systemd host, launchscope.h: a
 * transient scope instead) and puts the command in them; this file only
 * touches the cgroup filesystem, so that whatever was made, used or not,
 * is removed the same way. */
#ifndef PROCTREE_LAUNCH_LAUNCHCG_H
#define PROCTREE_LAUNCH_LAUNCHCG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgroup/cgroupfs.h"
#include "proctree/launchcg.h"
#include "util/bounds.h"

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

#endif
