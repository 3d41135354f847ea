/* bounds: how far proctree goes where nothing else stops it, in one
 * place: how deep its walks go and how many directories one opens (trees
 * of cgroups and of processes are as deep and as wide as whoever made
 * them likes, and each level of a walk holds descriptors while the walk
 * is below it), and the one pid limit (the kernel's). Not <limits.h>:
 * the name would hide the system's from every file of common/. */
#ifndef PROCTREE_BOUNDS_H
#define PROCTREE_BOUNDS_H

/* The kernel's PID_MAX_LIMIT (64-bit), the ceiling of
 * /proc/sys/kernel/pid_max: every pid is below it. */
#define PT_PID_LIMIT 4194304

/* Levels of sub-cgroups a scan of --cgroup / --unit goes down: the
 * kernel sets no depth of its own (cgroup.max.depth is "max" by default),
 * and each level holds two descriptors while the walk is under it. A
 * deeper cgroup's processes are missed, said once (pt_cgscan_notes). */
#define PT_CGROUP_SCAN_DEPTH 32

/* Levels of slices (and user managers) a walk for a unit goes down
 * (sdunit.c), and the directories one walk may open: a delegated subtree
 * (a container's) may hold slices made by others. */
#define PT_SDUNIT_WALK_DEPTH 16
#define PT_SDUNIT_WALK_MAX 4096

/* Levels of the sub-cgroups a launched command made in its own that are
 * removed after it (launchcg.h). */
#define PT_LAUNCH_SUBCGROUP_DEPTH 32

/* How far up a chain of processes that never joined an exit record's
 * usage is followed to the member whose counters the kernel folds it
 * into (exits.c). */
#define PT_FOLD_DEPTH 16

/* How far up from proctree its ancestors are followed (procscan.h). */
#define PT_ANCESTORS_MAX 64

#endif
