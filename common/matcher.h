/* matcher: the selectors that name roots by a property rather than a pid.
 *
 * --match (POSIX ERE on the cmdline, NULs read as spaces), --exe (comm or
 * the base name of /proc/PID/exe), --user (effective uid) and --cgroup
 * (every process of a cgroup v2 directory and its sub-cgroups). Every
 * process that matches is a root; their trees form one target. The scan
 * runs at each discovery tick, so processes that start later are found.
 * proctree's own process never matches (its command line names the
 * pattern). */
#ifndef PROCTREE_MATCHER_H
#define PROCTREE_MATCHER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "collector.h"
#include "procfile.h"

struct pt_matcher {
    enum pt_selector_kind kind;
    regex_t regex;   /* MATCH */
    char *exe;       /* EXE */
    uid_t uid;       /* USER */
    char *cgroup;    /* CGROUP: the directory in the cgroup2 filesystem */
    bool has_regex;
};

/* Prepare the matcher; -1 with a one-line reason in err for a bad regex,
 * an unknown user, or no cgroup2 mount. */
int pt_matcher_init(struct pt_matcher *m, const struct pt_selector *selector, int proc_root_fd, char *err,
                    size_t errlen);
void pt_matcher_free(struct pt_matcher *m);

/* Call fn(pid, arg) for every process that matches now. */
void pt_matcher_scan(struct pt_matcher *m, int proc_root_fd, struct pt_buf *buf, int (*fn)(pid_t pid, void *arg),
                     void *arg);

/* Where the cgroup2 filesystem is mounted, from <proc root>/self/mountinfo
 * ("/sys/fs/cgroup" on unified hosts, "/sys/fs/cgroup/unified" on hybrid
 * ones). Returns 0 or -1. */
int pt_cgroup2_mount(int proc_root_fd, struct pt_buf *buf, char *out, size_t outlen);

#endif
