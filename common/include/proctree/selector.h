/* selector: what a target is, as a frontend asks for it: how its roots
 * are chosen, and which of the dearer files its members are read for.
 *
 * This is the frontends' part; select/selector.h, which includes it, the
 * library's rest (the breakdown's keywords). */
#ifndef PROCTREE_SELECTOR_H
#define PROCTREE_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proctree/rank.h"

enum pt_selector_kind {
    PT_SELECT_PID,     /* one process, pinned by (pid, starttime) */
    PT_SELECT_PIDFILE, /* re-read at every discovery tick */
    PT_SELECT_CHILD,   /* a command this process launched (pt_launch) */
    /* every matching process is a root (matcher.h), scanned at each tick */
    PT_SELECT_MATCH,  /* POSIX ERE on the command line */
    PT_SELECT_EXE,    /* comm or executable base name */
    PT_SELECT_USER,   /* effective user, name or uid */
    PT_SELECT_CGROUP, /* a cgroup and its sub-cgroups */
    PT_SELECT_UNIT,   /* a systemd unit's cgroup, or a glob of units' (sdunit.h) */
};

struct pt_cgroupfs;

struct pt_selector {
    enum pt_selector_kind kind;
    pid_t pid;        /* PID, CHILD */
    const char *path; /* PIDFILE, CGROUP; CHILD: its cgroup of its own (launch.h), or NULL (copied) */
    /* CHILD with a cgroup: the hierarchies path's name is looked for in
     * (pt_launch_cgroup's where), read at the target's start */
    const struct pt_cgroupfs *cgroupfs;
    /* CHILD with a cgroup: why it lacks its controllers for good (launch.h's
     * cg->never), said in the start line; NULL when they may come. Read at
     * the target's start, as cgroupfs is */
    const char *cgroup_never;
    const char *value; /* MATCH regex, EXE name, USER name or uid, UNIT name or glob (copied) */
};

/* --by cgroup: the group of the processes directly in a --cgroup's or
 * --unit's own cgroup, not in one below it. */
#define PT_CGROUP_OWN "."

/* Lines besides the tree's total (groups.h). PT_BY_TITLE: by process
 * title (titlegroup.h). */
enum pt_breakdown { PT_BY_NONE, PT_BY_PROCESS, PT_BY_THREAD, PT_BY_CGROUP, PT_BY_TITLE };

#define PT_BREAKDOWN_LIMIT_DEFAULT 20
#define PT_BREAKDOWN_LIMIT_MAX 1000
/* A member's smaps_rollup is read at least at every Nth PSS sample
 * (--pss-every, PssEvery); between, only when its tree's memory may have
 * moved (tree/sampling.c). 1: at every sample. */
#define PT_PSS_EVERY_DEFAULT 6
#define PT_PSS_EVERY_MAX 3600

struct pt_target_options {
    bool collect_pss;          /* smaps_rollup: pss, shared, uss, swap */
    double pss_budget;         /* seconds; a slower smaps_rollup read makes that
                                  member's reads rarer, its PSS carried meanwhile
                                  (default 0: no guard) */
    unsigned pss_every;        /* smaps_rollup read at least at every Nth PSS sample,
                                  between only when the tree's memory moved (1..3600) */
    bool collect_ctx_switches; /* every thread's status, once per interval */
    bool collect_fds;          /* fd/ of every member, once per interval */
    bool collect_net;          /* the members' TCP sockets (targetnet.h) */
    bool collect_cgroup;       /* a cgroup target's cgroup_* metrics (cgacct.h) */
    enum pt_breakdown breakdown;
    unsigned breakdown_limit;  /* named groups at most; the rest are "other" */
    const char *title_pattern; /* --by title: the POSIX ERE that picks a title's group
                                  (titlegroup.h), or NULL; the caller's, compiled
                                  at the target's start */
    size_t line_name_max;      /* bytes of "TARGET-GROUP" the frontend writes (collectd's
                                  plugin instance: 127); 0: no limit (groupkey.h) */
    /* which names the breakdown's limited lines have (rank.h) */
    enum pt_rank_by breakdown_rank;
};

/* All on; no PSS budget; PSS read again at least every 6th sample; no
 * breakdown. */
static inline void pt_target_options_init(struct pt_target_options *options)
{
    options->collect_pss = true;
    options->pss_budget = 0;
    options->pss_every = PT_PSS_EVERY_DEFAULT;
    options->collect_ctx_switches = true;
    options->collect_fds = true;
    options->collect_net = true;
    options->collect_cgroup = true;
    options->breakdown = PT_BY_NONE;
    options->breakdown_limit = PT_BREAKDOWN_LIMIT_DEFAULT;
    options->title_pattern = NULL;
    options->line_name_max = 0;
    options->breakdown_rank = PT_RANK_SEEN;
}

#endif
