/* targetstate: the state of one target (struct pt_target: its members, its
 * ledger, what the interval saw) and the lookups every part of it shares.
 * The parts, bottom-up, each calling only those below it: membership.c (members join and leave), sampling.c (the reads
 * of each cadence), exits.c (what exit records settle), targetevents.c (following the process events), discovery.c
 * (finding members), targetstops.c (why it has no live process), target.c (the face: the interval's end, the life
 * cycle). Only target.c holds a target writable: it hands each of the others the parts that one writes, by their own
 * types, and the target as a pointer to const (docs/DESIGN.md, "A target's parts and who writes them"). */
#ifndef PROCTREE_TARGETSTATE_H
#define PROCTREE_TARGETSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/base.h"
#include "bpf/udpbytes.h"
#include "cgroup/cgacct.h"
#include "gpu/drmclients.h"
#include "net/netnsbytes.h"
#include "net/tcpbytes.h"
#include "netlink/eventbook.h"
#include "netlink/exitrecords.h"
#include "util/fdbudget.h"
#include "report/groupkey.h"
#include "accounting/interval.h"
#include "accounting/ledger.h"
#include "select/matcher.h"
#include "member/member.h"
#include "member/departures.h"
#include "member/memberlist.h"
#include "select/pidfile.h"
#include "util/pidmap.h"
#include "report/quantities.h"
#include "util/ratelimit.h"
#include "report/report.h"
#include "select/selector.h"
#include "select/titlegroup.h"

/* How the target finds its members (discovery.c writes it, and frees
 * it): the roots the selector named, what the last scan of its
 * cgroups saw, and the pids found by one read, waiting to join. */
struct pt_target_discovery {
    struct pt_pidfile pidfile; /* PIDFILE: what its last read found */
    pid_t root_pid;            /* identity of the selected root once seen */
    pid_t refused_pid;         /* PIDFILE: the pid last refused (1, a kernel thread, ours) */
    uint64_t root_starttime;
    pid_t named_pid;  /* PID, PIDFILE: the pid the selector names now, or 0 */
    int cgroup_error; /* CGROUP: the last scan's -errno, or 0 */
    /* CGROUP, UNIT: processes the last scan listed but could not name: a 0
     * in cgroup.procs (one outside our pid namespace), or every one where
     * the proc root is another pid namespace's (its pids are not ours) */
    size_t cgroup_unnamed;
    bool scan_fallback; /* no children files: build the tree from ppids */
    pid_t *pending;     /* child pids found by one children read */
    size_t n_pending, cap_pending;
    /* --by cgroup: the group each pending pid was found in by a scan of
     * the cgroups, an offset in scan_groups, or NO_SCAN_GROUP (found by
     * its parent); and the one of the member joining now, or NULL */
    uint32_t *pending_group;
    struct pt_buf scan_groups;
    const char *join_group;
    /* "pid file names pid N, ...; refused": a hostile file may name pid 1
     * and another pid in turn */
    struct pt_ratelimit refused_said;
};

/* The limiters of targetstops.c's lines: one shared by a followed
 * target that stops and the lines of a restart, and one per reason of
 * an empty target (each problem of a pid file one of its own). */
#define PT_EMPTY_LIMITS 18

/* Why the target has no live process, as last said or held back, and
 * the limits of the lines that say so (targetstops.c writes it). */
struct pt_target_stops {
    /* a key made of targetstops.c's enum and the pid file's outcome; 0:
     * the target had a live process at its last discovery (or no discovery yet) */
    int why;
    pid_t pid;        /* the pid it was about */
    bool followed;    /* a live process at the last discovery */
    bool said_any;    /* a line said since it was last followed: "following again" will be */
    bool holding;     /* why's line held back: said late, once its limit lets it */
    unsigned limiter; /* the one of limits why's line went to */
    struct pt_ratelimit limits[PT_EMPTY_LIMITS];
};

/* What the kernel's exit records settle (pt_exits_follow,
 * exits.c): the forks gone unseen since the last drain, and this
 * interval's counts from the records. Written by exits.c only: the
 * process events tell it of a fork gone before it could join
 * (pt_exits_unseen_gone), the interval's end resets the counts
 * (pt_exits_end_interval). */
struct pt_target_exits {
    bool follows;
    /* pid -> its parent: forked in the tree, gone before it could join,
     * since the last drain */
    struct pt_pidmap parent_of_unseen_gone;
    /* when exit records were last drained: what came then exited before */
    double drained_at;
    /* this interval's; none lost: every record came */
    int64_t failed, killed, rss_peak_kb, records, record_losses;
};

/* What the reads of each cadence keep between them (sampling.c writes
 * it). */
struct pt_target_sampling {
    struct pt_ratelimit smaps_slow_said; /* "smaps_rollup of pid N took ..." */
    double threads_read_at;              /* when --by thread last read the threads */
    uint64_t pss_samples;                /* smaps_rollup samples so far (--pss-every's turns) */
};

/* With a breakdown (options.breakdown, its groups in the ledger): their
 * lines of the last interval, limit + 1 slots allocated once (target.c
 * writes it). */
struct pt_target_group_lines {
    struct pt_group_report *reports;
    char (*keys)[PT_GROUP_KEY_MAX]; /* their keys (groupkey.h), and its scratch */
    char (*folds)[PT_GROUP_KEY_MAX];
    size_t *order;
    size_t n;
    /* ranked (--by-rank): their names, copied, since the next interval's
     * names are chosen (slots renamed) before the lines are written */
    char (*names)[PT_GROUP_NAME_MAX];
};

/* A target's GPU use in the interval (targetgpu.c writes it): the memory
 * samples' extrema, busy seconds and users, the tree's and, with a
 * breakdown that partitions the members, each group's ([groups]
 * allocated once the host's GPU is known); the DRM clients of the last
 * end with the DRM memory they held, which stands in between ends. */
struct pt_target_gpu {
    bool on; /* the host has a GPU proctree reads */
    struct pt_extrema memory;
    double busy;
    bool busy_known;
    int64_t users;
    bool users_known;
    uint64_t drm_memory;
    size_t groups; /* 0, or the breakdown's limit + 1 */
    struct pt_extrema *group_memory;
    double *group_busy;
    int64_t *group_users;
    uint64_t *group_drm_memory, *group_sum; /* group_sum: one sample's scratch */
    struct pt_drm_clients clients;
    /* the last end's DRM read stopped at PT_DRM_READS_MAX (its sums are
     * partial); how many ends in a row did; the bound said */
    bool drm_short;
    unsigned drm_cuts;
    bool said_bound;
    bool *uses; /* the last end's scratch: whether each member uses a GPU */
    size_t cap_uses;
};

/* A tree wholly in one network namespace not proctree's: that
 * namespace's interface counters (targetnetns.c writes it, handed it by
 * targetnet.c's end walk, which tells it each member's namespace): what
 * the walk found, the ledger of the readings, the lines said once. */
struct pt_target_netns {
    uint64_t ns;    /* the foreign namespace the end's walk found a member in; 0: none */
    pid_t reader;   /* that member: its net/dev is read */
    uint64_t other; /* another namespace a member is in (ours, or a second foreign one); 0: none */
    pid_t other_pid;
    pid_t unread; /* a member whose namespace could not be read; 0: none */
    int unread_err;
    struct pt_netnsbytes counters;
    char *buf; /* net/dev's text (PT_NETDEV_READ_MAX), and the reading parsed */
    struct pt_netdev_if *ifs;
    unsigned said; /* enum pt_said_netns bits (targetnetns.c) */
};

/* A target's TCP sockets and the bytes they moved (targetnet.c writes
 * it): the ledger of the sockets its members hold, the members that held
 * one at the last whole walk (walked again at a poll that finds their
 * number of descriptors changed), each group's
 * bytes since the interval began ([groups] allocated at the first walk,
 * with a breakdown that partitions the members). */
struct pt_target_net {
    bool on; /* walked once: the rest is set up */
    struct pt_tcpbytes sockets;
    struct pt_net_holder {
        pid_t pid;
        int64_t fds; /* its descriptors when last walked (fd/'s size); 0: not known */
    } * holders;
    size_t n_holders, cap_holders;
    double walked_at; /* pt_now() when the last whole walk began; 0: none yet */
    bool dumped;      /* a dump took the sockets this interval: its sums are known */
    /* the last walk was the end's and the BPF pass told every member's
     * sockets, each with its cookie: the pass is this end's dump
     * (pt_targetnet_take_pass), the kernel's is not needed */
    bool passed;
    bool said_bound;
    uint64_t own_netns; /* our network namespace (its inode; 0: not known) */
    bool foreign;       /* the last end's walk found a member in another one: sums left out */
    /* the members found there at the last end's walk, and the map for the
     * next: one whose namespace cannot be read any more (exiting: its
     * ns/net goes before its descriptors) is still there */
    struct pt_pidmap elsewhere, elsewhere_next;
    bool said_foreign;
    struct pt_target_netns netns; /* the tree's namespace's interfaces (targetnetns.h) */
    /* the end's walk of the pass: the ledger's entry each of its socket
     * records noted, by the record's place (UINT32_MAX: none), so that
     * the pass taken as the dump finds each with no lookup */
    uint32_t *noted;
    size_t cap_noted;
    size_t groups;
    uint64_t *group_sent, *group_received;
    int64_t *group_connections;
};

/* A --unit target's lines said once (targetunit.h). */
enum pt_said_unit { PT_SAID_UNIT_SYSTEMD = 1, PT_SAID_UNIT_LIMIT = 2, PT_SAID_UNIT_OUTSIDE = 4 };

/* What a --unit target keeps (targetunit.c writes it): the lines said
 * once (enum pt_said_unit bits), and the pids the last scan of its
 * cgroups listed. */
struct pt_target_unit {
    unsigned said;
    struct pt_pidmap scanned;
};

/* A cgroup target's cgroups (targetcg.h, which alone writes them: its
 * functions are handed this part, and the target only to read): the
 * kernel's accounting of the target's, and with --by cgroup of each line's;
 * the last interval's values of the target's; the lines said once. */
struct pt_target_cgroups {
    bool on; /* a cgroup target: the rest is set up */
    bool said_missing, said_unreadable, said_group_unreadable, said_blkio;
    struct pt_ratelimit gained_said; /* "the kernel offers ... now": each cgroup made again may */
    struct pt_cgacct target, groups;
    struct pt_cgvalues sum;
    /* CGROUP, a single UNIT: the cgroup's id (pt_cgroupfs_inode) when last
     * seen, 0 never; another one is the cgroup made again, a restart */
    uint64_t root_id;
    int root_where; /* the hierarchy its id was taken in: 0 not known, 1 v2, 2 v1 memory, 3 v1 cpuacct */
};

/* One target: what it was made with (target.c: pt_target_init), what
 * its interval saw (accounting/interval.h, told by every part), what
 * following the process events keeps (netlink/eventbook.h), its
 * parts (each struct pt_target_... says who writes it), the ledger
 * (changed only through ledger.h's functions), a cgroup target's cgroups
 * (targetcg.c), the denials said (targetstate.c) and a scratch buffer. */
struct pt_target {
    char *name;
    struct pt_selector selector; /* path owned */
    struct pt_target_options options;
    int proc_root_fd;
    struct pt_fd_budget *budget;  /* the collector's, shared by all targets */
    struct pt_taskiter *taskiter; /* the collector's BPF source, shared; NULL: procfs alone */
    long page_size;
    double ticks_per_second;
    double cpu_percent_max; /* 100 x the host's CPUs */

    /* the members, in tree order (member/memberlist.h): written by
     * membership.c only, through memberlist.h's functions; the other parts
     * read it, and read or sample the members in it */
    struct pt_memberlist membership;

    struct pt_target_discovery discovery;
    struct pt_matcher matcher;   /* MATCH, EXE, USER, CGROUP, UNIT */
    struct pt_titlegroup titles; /* --by title: the pattern that picks a title's group */
    bool has_matcher;
    struct pt_target_cgroups cg;
    struct pt_target_unit unit;

    struct pt_ledger ledger; /* the tree's and its breakdown groups' amounts */

    struct pt_interval interval;
    struct pt_target_sampling sampling;

    bool pss_at_end; /* smaps_rollup at every interval's end, or on its own timer */
    struct pt_target_stops stops;
    bool sys_root_default;  /* the cgroup filesystem is looked for in our own /sys */
    unsigned warned_denied; /* enum pt_denied bits already logged */
    /* the scratch buffer of one read: any part writes it, a part handed the
     * target to read too (allocated by pt_target_init) */
    struct pt_buf *buf;

    struct pt_eventbook events;

    struct pt_target_exits exits;
    /* the members gone since the last drain of exit records
     * (member/departures.h): added by membership.c as they leave, their
     * records settled by exits.c, forgotten by membership.c's
     * pt_membership_departures_settled */
    struct pt_departures departures;
    pid_t self;          /* our own pid as the proc root names it (pidns.h):
                            the subreaper in launch mode */
    bool proc_root_ours; /* self is getpid(): the proc root is our pid namespace's */
    struct pt_target_group_lines group_lines;
    struct pt_target_gpu gpu;
    struct pt_target_net net;
    /* its UDP bytes (udpbytes.h): on (udp.counts set) where the collector's
     * UDP counters are attached and the target follows the network */
    struct pt_udpbytes udp;
};

/* A breakdown whose group is a name each member has, read again as it
 * changes (membership.c's pt_membership_group_name): by process its
 * comm, by title its title's group. A member moves to its new name's
 * group; exit records settle a process in its name's. */
static inline bool pt_target_by_member_name(const struct pt_target *t)
{
    return t->options.breakdown == PT_BY_PROCESS || t->options.breakdown == PT_BY_TITLE;
}

/* A breakdown whose groups partition the members (by process name, by
 * title, by cgroup): each member is in one group, and the groups add up
 * to the tree. */
static inline bool pt_target_partitions(const struct pt_target *t)
{
    return pt_target_by_member_name(t) || t->options.breakdown == PT_BY_CGROUP;
}

/* A breakdown whose groups exit records settle (process, title, thread):
 * a record settles the group of the process or thread it names (exits.c),
 * so a zombie it names is not joined. */
static inline bool pt_target_groups_by_name(const struct pt_target *t)
{
    return pt_target_by_member_name(t) || t->options.breakdown == PT_BY_THREAD;
}

/* One log line about t: 'target "NAME": ' (escaped) and the message. */
__attribute__((format(printf, 3, 4))) void pt_targetstate_logf(const struct pt_target *t, enum pt_log_level level,
                                                               const char *fmt, ...);
/* The live member with this pid, or NULL. */
struct pt_member *pt_targetstate_live_member(const struct pt_target *t, pid_t pid);
/* Is pid a live member of the target? */
bool pt_targetstate_has_member(const struct pt_target *t, pid_t pid);
size_t pt_targetstate_live_members(const struct pt_target *t);
/* Permission denied on m's io, smaps_rollup or fd/: say so once per
 * target and kind (warned: the target's warned_denied). */
void pt_targetstate_warn_denied(const struct pt_target *t, unsigned *warned, const struct pt_member *m);
/* Built with check_invariants (PT_CHECK_INVARIANTS): the target's
 * invariants checked after a step (its members' list and departures, the
 * ledger's over the live members, the interval's), aborting with the
 * broken one's line; else nothing. */
void pt_targetstate_debug_check(const struct pt_target *t, const char *step);

#endif
