/* matcher: the selectors that name roots by a property rather than a pid.
 *
 * --match (POSIX ERE on the command line, NULs read as spaces), --exe
 * (comm or the base name of /proc/PID/exe), --user (effective uid) and
 * --cgroup (every process of a cgroup directory and its sub-cgroups) and
 * --unit (those of a systemd unit's cgroups, sdunit.h).
 * Every process that matches is a root; their trees form one target.
 * Processes that start later are found at the next discovery tick.
 *
 * The first three look at every process of the host, so the collector
 * walks the proc root once per discovery for all of them and hands each
 * process to every such matcher as a pt_candidate, whose files are read
 * at most once, and only when a matcher asks. Kernel threads,
 * proctree's own process and its ancestors are never roots (procscan.h).
 * A command line is matched on its first PT_MATCH_TEXT_MAX bytes: another
 * user's process chooses its length, and must not choose what a
 * discovery costs. */
#ifndef PROCTREE_MATCHER_H
#define PROCTREE_MATCHER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/bounds.h"
#include "cgroup/cgscan.h"
#include "select/selector.h"
#include "procfs/procfile.h"
#include "procfs/proctitle.h"
#include "cgroup/sdunit.h"

/* Bytes of a command line --match looks at: what a title is made of. */
#define PT_MATCH_TEXT_MAX PT_TITLE_READ_MAX

struct pt_matcher {
    enum pt_selector_kind kind;
    regex_t regex;                 /* MATCH */
    char *exe;                     /* EXE */
    uid_t uid;                     /* USER */
    char *cgroup;                  /* CGROUP: the directory in the cgroup2 filesystem */
    struct pt_sdunit unit;         /* UNIT */
    struct pt_cgroupfs fs;         /* CGROUP, UNIT: the hierarchies, found once */
    struct pt_cgscan_notes notes;  /* CGROUP, UNIT */
    struct pt_cgscan_kept kept;    /* CGROUP, a UNIT of one directory: kept open between scans */
    struct pt_fd_budget *budget;   /* for the kept sub-cgroups (cgscan.h); NULL: none kept */
    dev_t fs_dev[2 + PT_V1_COUNT]; /* CGROUP, UNIT: the devices of the hierarchies found */
    size_t n_fs_devs;
    bool has_regex, has_unit;
};

/* Prepare the matcher; -1 with a one-line reason in err for a bad regex,
 * an unknown user, no cgroup2 mount, or a --cgroup directory that is on
 * no cgroup filesystem (statfs type cgroup2 or cgroup, or the filesystem
 * of a hierarchy found in fs; a symbolic link is resolved once, here,
 * and must lead into one). sys_root: where the cgroup
 * filesystem is looked for first (cgroupfs.h). */
int pt_matcher_init(struct pt_matcher *m, const struct pt_selector *selector, int proc_root_fd, const char *sys_root,
                    char *err, size_t errlen);
void pt_matcher_free(struct pt_matcher *m);

/* One process of the walk. Start it with pt_matcher_candidate_init; what the
 * matchers need is read on first use and kept for the others. */
struct pt_candidate {
    pid_t pid;
    int proc_root_fd;
    struct pt_buf *buf; /* scratch, shared with the caller */
    unsigned have;      /* which of the reads below were tried */
    bool stat_ok, status_ok, cmdline_ok, exe_ok;
    struct pt_stat stat;
    uid_t effective_uid;
    size_t cmdline_len;
    char cmdline[PT_MATCH_TEXT_MAX + 1]; /* NULs as spaces, NUL-terminated */
    char exe[256];                       /* base name of /proc/PID/exe */
};

void pt_matcher_candidate_init(struct pt_candidate *c, pid_t pid, int proc_root_fd, struct pt_buf *buf);
/* False for what is never a candidate: a kernel thread, or a process
 * whose stat cannot be read (gone). */
bool pt_matcher_candidate_is_user_process(struct pt_candidate *c);

/* Does the process match a --match, --exe or --user matcher? */
bool pt_matcher_test(const struct pt_matcher *m, struct pt_candidate *c);

/* --cgroup, --unit: call fn(pid, group, arg) for every process of the
 * target's cgroups now (a --unit's are found again first, sdunit.h).
 * group names the cgroup directly below the target's that holds it
 * (PT_CGROUP_OWN when none does), or for a glob of units the unit; valid
 * during the call. 0, or -errno when there is no such cgroup now
 * (-ENOENT), or it cannot be opened (-EXDEV: it is on no cgroup
 * filesystem). What it could not use is added to the matcher's notes. */
int pt_matcher_scan_cgroup(struct pt_matcher *m, struct pt_buf *buf, int (*fn)(pid_t pid, const char *group, void *arg),
                           void *arg);
/* The cgroup hierarchies, for --cgroup and --unit. */
/* The descriptor budget of the sub-cgroups a scan keeps open (cgscan.h);
 * without one (NULL, as after init) they are opened at each scan. */
void pt_matcher_set_budget(struct pt_matcher *m, struct pt_fd_budget *budget);

const struct pt_cgroupfs *pt_matcher_cgroupfs(const struct pt_matcher *m);
/* The unit, for --unit. */
const struct pt_sdunit *pt_matcher_unit(const struct pt_matcher *m);
/* The cgroup's directory, for --cgroup. */
const char *pt_matcher_cgroup(const struct pt_matcher *m);
/* What the scans met and could not use, for the target to say once. */
struct pt_cgscan_notes *pt_matcher_notes(struct pt_matcher *m);

#endif
