/* cgscan: the processes of a cgroup directory and of its sub-cgroups,
 * from their cgroup.procs (--cgroup, --unit), at every discovery.
 *
 * The directory a target names (a --cgroup's, a single unit's) is kept
 * open with its cgroup.procs between scans, as members keep their /proc
 * files: a scan reads it again from offset 0 (a kept cgroup.procs starts
 * its walk of the cgroup's tasks again there). The kept pair is the
 * cgroup at the path while stat() of the path names the same directory;
 * a cgroup removed, or made again at its path (another directory), is
 * opened again by it. A kept cgroup.procs of a removed cgroup reads
 * ENODEV: opened again too.
 *
 * Its sub-cgroups are kept the same way, each directory and its
 * cgroup.procs, two descriptors of the budget (fdbudget.h, a file read
 * once a discovery) while it allows: a scan lists the kept directory
 * again, and a sub-cgroup it names is read through its kept pair while
 * fstatat() of that name in its parent's kept directory finds the same
 * directory (else it is opened again by its name: removed and made
 * again, or another moved there); one no longer listed is closed and
 * forgotten. Past the budget, or when it wants the seats back for
 * members' statm, a sub-cgroup is opened and closed at each scan. The
 * units of a glob are opened at each scan. Nothing is allocated while
 * the sub-cgroups stay as they are. */
#ifndef PROCTREE_CGSCAN_H
#define PROCTREE_CGSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/bounds.h"
#include "util/buf.h"
#include "cgroup/cgroupfs.h"
#include "util/fdbudget.h"

/* What scans of the cgroups met and could not use, each said once by the
 * target (targetcg.c), naming the first path met. */
enum {
    PT_CGSCAN_NOT_CGROUPFS = 1, /* a directory on no cgroup filesystem: refused */
    PT_CGSCAN_NOT_REGULAR = 2,  /* a cgroup.procs that is no regular file (a FIFO): not read */
    PT_CGSCAN_TOO_DEEP = 4,     /* sub-cgroups below PT_CGROUP_SCAN_DEPTH levels: not scanned */
    PT_CGSCAN_KINDS = 3
};
struct pt_cgscan_notes {
    unsigned met, said;                               /* bits of the above */
    char path[PT_CGSCAN_KINDS][PT_CGROUPFS_PATH_MAX]; /* by bit: the first path met (cut to fit) */
};

/* Sub-cgroups kept open between scans, below a kept directory. */
struct pt_cgscan_sub;
struct pt_cgscan_subs {
    struct pt_cgscan_sub *list;
    size_t n, cap;
    size_t next; /* where the next name is looked for first: a listing comes in the same order */
};
struct pt_cgscan_sub {
    char *name;
    int dir_fd, procs_fd; /* dir_fd -1: not kept; procs_fd as pt_cgscan_kept's */
    unsigned seats;       /* descriptors taken from the budget for them */
    dev_t dev;            /* the directory's identity when it was opened */
    ino_t ino;
    bool seen; /* listed by the scan under way */
    struct pt_cgscan_subs subs;
};

/* The directory of a target kept open between scans, with its
 * cgroup.procs (-errno when it has none, or it is no regular file), and
 * its sub-cgroups. Zeroed: nothing kept. The scanner's own: opened and
 * closed by pt_cgscan_*. */
struct pt_cgscan_kept {
    bool open;
    int dir_fd, procs_fd;
    dev_t dev; /* the directory's identity when it was opened */
    ino_t ino;
    struct pt_cgscan_subs subs;
    struct pt_fd_budget *budget; /* the sub-cgroups' descriptors' */
};

/* The filesystems a directory to scan may be on: any cgroup filesystem,
 * and those of the hierarchies found (a tree of HOST_SYS, the unit
 * tests' fixtures). A directory elsewhere may hold a "cgroup.procs"
 * anyone wrote, naming pid 1: the whole host. */
struct pt_cgscan_fs {
    const dev_t *devs;
    size_t n_devs;
};

/* Is the directory behind fd on one of them? type: its statfs type, for
 * the refusal's line. Not known (fstatfs failed): true, the reads tell. */
bool pt_cgscan_on_cgroupfs(const struct pt_cgscan_fs *fs, int fd, long *type);

/* One scan: fn(pid, group, arg) for every process of the directories
 * given to pt_cgscan_dir. group is first_group for the processes of the
 * directory itself and, when name_children, the name of the sub-cgroup
 * directly below it that holds a process (else first_group too). */
struct pt_cgscan {
    int (*fn)(pid_t pid, const char *group, void *arg);
    void *arg;
    struct pt_buf *buf; /* scratch */
    struct pt_cgscan_fs fs;
    struct pt_cgscan_notes *notes; /* what the scan met is added here */
    struct pt_fd_budget *budget;   /* kept sub-cgroups' descriptors (NULL: none kept) */
    const char *group;             /* the group being scanned */
    bool name_children;
    char path[PT_CGROUPFS_PATH_MAX]; /* the directory under scan, for the notes (cut to fit) */
};

/* Scan the cgroup at path and below, through kept when not NULL (opened
 * there if needed, and kept, with its sub-cgroups within s->budget). 0, or -errno when it cannot be opened (it
 * does not exist: -ENOENT), or -EXDEV when it is on no cgroup filesystem
 * (noted). */
int pt_cgscan_dir(struct pt_cgscan *s, const char *path, struct pt_cgscan_kept *kept);

/* Close what kept holds; it is zeroed. */
void pt_cgscan_kept_close(struct pt_cgscan_kept *kept);

#endif
