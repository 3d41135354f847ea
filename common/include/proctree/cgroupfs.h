/* cgroupfs: where the cgroup hierarchies are mounted, as a launched
 * command's cgroup holds them (launchcg.h). cgroup/cgroupfs.h, which
 * includes it, finds them and says where they are looked for. */
#ifndef PROCTREE_CGROUPFS_H
#define PROCTREE_CGROUPFS_H

#define PT_CGROUPFS_PATH_MAX 512

/* The v1 controllers whose files cgstat.h reads. */
enum pt_v1_controller { PT_V1_CPU, PT_V1_CPUACCT, PT_V1_MEMORY, PT_V1_PIDS, PT_V1_BLKIO, PT_V1_COUNT };

struct pt_cgroupfs {
    char v2[PT_CGROUPFS_PATH_MAX];              /* the cgroup2 mount, or "" */
    char systemd_v1[PT_CGROUPFS_PATH_MAX];      /* the name=systemd v1 mount, or "" */
    char v1[PT_V1_COUNT][PT_CGROUPFS_PATH_MAX]; /* each controller's v1 mount, or "" */
};

#endif
