/* cgroupfs: where the cgroup hierarchies are mounted.
 *
 * Two hierarchies hold the processes of a cgroup path as
 * /proc/PID/cgroup and systemd name it: cgroup v2's (the whole tree on a
 * unified host; "unified", beside the v1 controllers, on a hybrid one)
 * and systemd's own v1 hierarchy "name=systemd" (legacy and hybrid
 * hosts). systemd lays a unit out the same way in each it manages.
 *
 * They are looked for first where systemd mounts them, below
 * <sys_root>/fs/cgroup (sys_root is "/sys", or HOST_SYS in a container
 * that mounts the host's /sys elsewhere), then in the proc root's
 * self/mountinfo (any other mount point). */
#ifndef PROCTREE_CGROUP_CGROUPFS_H
#define PROCTREE_CGROUP_CGROUPFS_H

#include <stdbool.h>
#include <stdint.h>

#include "proctree/cgroupfs.h"
#include "util/buf.h"

/* Fill fs; a hierarchy that is not found stays "". */
void pt_cgroupfs_find(struct pt_cgroupfs *fs, int proc_root_fd, const char *sys_root, struct pt_buf *buf);

/* The controller's name, as mountinfo and /proc/PID/cgroup spell it. */
const char *pt_cgroupfs_v1_controller_name(enum pt_v1_controller c);

/* Where one cgroup's files are: its directory in the v2 hierarchy and in
 * each v1 controller's; "" where it has none. */
struct pt_cgroup_dirs {
    char v2[PT_CGROUPFS_PATH_MAX];
    char v1[PT_V1_COUNT][PT_CGROUPFS_PATH_MAX];
};

/* Where a cgroup's files are, given its directory in any hierarchy: the
 * same path below the v2 mount and below each v1 controller's, where
 * that directory exists (systemd and container runtimes make a cgroup at
 * the same path in every hierarchy they manage). dirs gets "" for each
 * hierarchy without it. 0, or -EXDEV when dir is under no hierarchy of
 * fs (a symbolic link made elsewhere), -ENAMETOOLONG when it is
 * PT_CGROUPFS_PATH_MAX bytes or longer: its files are then not read. */
int pt_cgroupfs_dirs_of(const struct pt_cgroupfs *fs, const char *dir, struct pt_cgroup_dirs *dirs);

/* The same paths whether their directories exist or not (no syscall):
 * where a cgroup's files would be, for the looks again at what it lacks
 * (cgstat.h). The same errors. */
int pt_cgroupfs_paths_of(const struct pt_cgroupfs *fs, const char *dir, struct pt_cgroup_dirs *paths);

/* The cgroup's id: the inode of its directory (v2's, else v1 memory's or
 * cpuacct's). A cgroup made again at its path (a unit's restart) has
 * another. 0 when it has none. */
uint64_t pt_cgroupfs_inode(const struct pt_cgroup_dirs *dirs);

/* Is dir a cgroup (does it hold cgroup.procs)? */
bool pt_cgroupfs_is_cgroup(const char *dir);

/* The path of dir below mount ("" for mount itself), or NULL when dir is
 * not below it (or mount is ""). */
const char *pt_cgroupfs_below(const char *mount, const char *dir);

/* Do the cgroup mounts of mountinfo (a process's own) show any
 * hierarchy from below its root: a container's own cgroup, mounted where
 * the whole tree would be? Then a cgroup of the host is not found there. */
bool pt_cgroupfs_shows_part(const char *mountinfo);

/* The directory of the cgroup path (as /proc/self/cgroup shows it: below
 * our cgroup namespace's root) in one hierarchy (controller: a v1
 * controller's name, or NULL for cgroup v2), as the mounts of mountinfo
 * (our own /proc/self/mountinfo's text) show it: the mount whose root is
 * the longest that holds path, none whose root lies above our namespace's
 * ("/.."), none below not_below (a directory of another's mounts, such as
 * the host's /sys mounted in a container; NULL: any). 0 and the directory
 * in out, or -1 when no mount shows path. */
int pt_cgroupfs_own_dir(const char *mountinfo, const char *controller, const char *path, const char *not_below,
                        char *out, size_t outlen);

#endif
