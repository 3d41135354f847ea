/* target: one selected process tree, its members and their sampling;
 * what the numbers add up to is the ledger's (ledger.h), how members are
 * found discovery.c's, what exit records settle exits.c's. */
#ifndef PROCTREE_TARGET_H
#define PROCTREE_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "base.h"
#include "breakdown.h"
#include "exitrecords.h"
#include "fdbudget.h"
#include "ledger.h"
#include "matcher.h"
#include "member.h"
#include "pidfile.h"
#include "pidmap.h"
#include "procevents.h"
#include "quantities.h"
#include "report.h"
#include "selector.h"
#include "units.h"

/* A member gone since the last drain of exit records, with what settling
 * it from the records still to come needs (exits.c). */
struct pt_departure {
    pid_t pid;
    pid_t reaper;           /* the member that reaped it; 0: reaped outside the tree */
    char comm[PT_COMM_MAX]; /* its name at its end: its group's (a slot may be
                               freed and taken by another name meanwhile) */
    bool has_stat, has_io;
    bool whole;                                       /* recorded will hold all of its own usage */
    int64_t own[PT_CTR_COUNT];                        /* its own usage at its last read */
    int64_t recorded[PT_CTR_COUNT];                   /* its exited threads' (CPU in microseconds) */
    double read_at;                                   /* its last read (pt_now's clock) */
    double exited_at;                                 /* its exit, same clock; 0: not known yet */
    double start;                                     /* its start, same clock (its fork event's, or
                                                         its starttime's, to a clock tick) */
    int64_t life_us;                                  /* start to exit, once its main thread's record came */
    bool ctx_counts;                                  /* its switches count (see credit_exited_threads) */
    int64_t ctx_base_voluntary, ctx_base_involuntary; /* what its last status read
                                                         counted of the threads whose
                                                         records are still to come */
};

struct pt_target {
    char *name;
    struct pt_selector selector; /* path owned */
    struct pt_target_options options;
    int proc_root_fd;
    struct pt_fd_budget *budget; /* the collector's, shared by all targets */
    long page_size;
    double ticks_per_second;
    double cpu_percent_max; /* 100 x the host's CPUs */

    struct pt_member *members; /* parents before their children */
    size_t n_members, cap_members;
    struct pt_pidmap index; /* pid -> position in members */
    bool need_compaction;

    struct pt_pidfile pidfile; /* PIDFILE: what its last read found */
    pid_t root_pid;            /* identity of the selected root once seen */
    pid_t refused_pid;         /* PIDFILE: the pid last refused (1, a kernel thread, ours) */
    uint64_t root_starttime;
    struct pt_matcher matcher; /* MATCH, EXE, USER, CGROUP */
    bool has_matcher;

    struct pt_ledger ledger; /* the tree's and its breakdown groups' amounts */

    /* this interval */
    struct pt_extrema gauges[PT_G_COUNT];
    int64_t samples, vanished, started, exited, pss_stale;
    double cpu_seconds;
    unsigned short_of_fds;  /* enum pt_short bits of this interval */
    double counter_seconds; /* since the counters were last reported */
    bool end_read;          /* pt_target_end_reads() done for this interval: */
    int64_t end_threads, end_fds;

    bool pss_at_end;       /* smaps_rollup at every interval's end, or on its own timer */
    bool membership_moved; /* a member joined or left since the last smaps_rollup sample */
    /* Why the target has no live process, as last said (a key made of
     * discovery.c's enum and the pid file's outcome; 0: not said), and the
     * pid it was about. */
    int empty_why;
    pid_t empty_pid;
    pid_t named_pid;        /* PID, PIDFILE: the pid the selector names now, or 0 */
    int cgroup_error;       /* CGROUP: the last scan's -errno, or 0 */
    unsigned warned_denied; /* enum pt_denied bits already logged */
    bool scan_fallback;     /* no children files: build the tree from ppids */
    struct pt_buf buf;
    pid_t *pending; /* child pids found by one children read */
    size_t n_pending, cap_pending;

    /* With the kernel's process events (pt_target_follow_events): */
    bool follows_events;
    struct pt_pidmap forked;         /* forked in the tree, never joined (gone
                                        first): counted started, exit awaited;
                                        pid -> its parent */
    struct pt_pidmap lately;         /* members that joined or left since the
                                        last drain: 1 when their forks are the
                                        tree's, 0 joined as a new root */
    struct pt_pidmap unjoined_exits; /* forked in the tree and exited, never joined,
                                        since the last discovery: counted started and
                                        exited; a zombie of them may still join */

    /* With the kernel's exit records (pt_target_follow_exits, exits.c): */
    bool follows_exits;
    bool exits_complete;             /* no record was lost this interval */
    struct pt_departure *departures; /* members that left since the last drain */
    size_t n_departures, cap_departures;
    struct pt_pidmap left;        /* pid -> its departure */
    struct pt_pidmap unseen_gone; /* forked in the tree, gone before they could join,
                                     since the last drain: pid -> its parent */
    pid_t self;                   /* our own pid: the subreaper in launch mode */
    double drained_at;            /* when exit records were last drained: what
                                     came then exited before */
    double threads_read_at;       /* when --by thread last read the threads */
    int64_t failed, killed, rss_peak_kb, exit_records, exit_record_losses; /* this interval */
    /* With a breakdown (options.breakdown, its groups in the ledger):
     * their lines of the last interval (limit + 1 slots, allocated once). */
    struct pt_group_report *group_reports;
    size_t n_group_reports;
};

/* Returns 0, or -1 with a one-line reason in err. */
int pt_target_init(struct pt_target *t, const char *name, const struct pt_selector *selector,
                   const struct pt_target_options *options, bool pss_at_end, int proc_root_fd,
                   struct pt_fd_budget *budget, char *err, size_t errlen);

/* The name the target reports under (its tag, its plugin instance). */
const char *pt_target_name(const struct pt_target *t);
/* The launched command's pid for a target of one (PT_SELECT_CHILD), else 0. */
pid_t pt_target_launched_pid(const struct pt_target *t);

/* Does the target take its roots from the collector's shared walk of the
 * proc root (--match, --exe, --user)? */
bool pt_target_wants_scan(const struct pt_target *t);
/* Its matcher, for that walk. */
const struct pt_matcher *pt_target_matcher(const struct pt_target *t);
/* Is pid a live member of the target? */
bool pt_target_has_member(const struct pt_target *t, pid_t pid);
/* The walk found a process the matcher takes: a root for the next
 * pt_target_discover(). */
void pt_target_offer_root(struct pt_target *t, pid_t pid);
/* The kernel's process events of one drain (procevents.h), in order;
 * complete is false when the kernel dropped some. A process forked by a
 * member (or by a process so forked) joins at once, however soon it is
 * orphaned; one gone before it could join is still counted started and,
 * at its exit event, exited. Discovery stays the fallback. */
void pt_target_follow_events(struct pt_target *t, const struct pt_procevent *events, size_t n, bool complete);
/* The kernel's exit records of one drain (exitrecords.h); complete is
 * false when the kernel dropped some. A record counts for the tree when
 * its process is a member (live, or left since the last drain) or a child
 * of one (a process that lived less than a poll). It brings the exited
 * thread's context switches (docs/METRICS.md, Accounting) and, for a
 * process's main thread, its exit status and peak RSS. */
void pt_target_follow_exits(struct pt_target *t, const struct pt_exitrecord *records, size_t n, bool complete);
/* The collector stopped listening for exit records: the target works as
 * if it never had them (no exit metrics, no last moments from records),
 * dropping what waited for records to come. */
void pt_target_stop_exits(struct pt_target *t);
/* CPU the collector spent for this target outside its calls (its share of
 * a listener's drain), counted in this interval's collector_cpu_seconds. */
void pt_target_charge(struct pt_target *t, double cpu_seconds);
void pt_target_free(struct pt_target *t);

/* Resolve the selector (joining the roots offered since the last call)
 * and walk the tree for new descendants. */
void pt_target_discover(struct pt_target *t);
/* The fast poll: memory gauges of every member, counters of the members
 * nobody in the tree would absorb. */
void pt_target_poll(struct pt_target *t);
/* One smaps_rollup sample of every member (PSS on its own cadence). */
void pt_target_sample_pss(struct pt_target *t);
/* The interval's last reads: every member's counters, memory, switches
 * and descriptors; the exit records that follow them are drained before
 * pt_target_end_interval (their CPU is shared out of the folds these
 * reads show: exits.c). */
void pt_target_end_reads(struct pt_target *t);
/* Close the interval, which lasted seconds, into report (and the
 * breakdown's lines, pt_target_group_reports()); reads first, unless
 * pt_target_end_reads() did. */
void pt_target_end_interval(struct pt_target *t, double seconds, const struct pt_units *units,
                            struct pt_report *report);

/* Launch mode: pid has exited and is about to be reaped by us. Read its
 * final counters from the zombie (joining it to the tree first if
 * discovery never saw it: it can only be an orphan of the tree). */
void pt_target_final_read(struct pt_target *t, pid_t pid);
/* ... and it has been reaped. */
void pt_target_reaped(struct pt_target *t, pid_t pid);

size_t pt_target_live_members(const struct pt_target *t);

/* The breakdown's tag key ("process"), or NULL without a breakdown. */
const char *pt_target_breakdown_key(const struct pt_target *t);
/* The breakdown's lines of the last ended interval. */
const struct pt_group_report *pt_target_group_reports(const struct pt_target *t, size_t *n);

/* ---- between target.c (membership, accounting) and discovery.c ----- */

/* One log line about t: 'target "NAME": ' (escaped) and the message. */
__attribute__((format(printf, 3, 4))) void pt_target_logf(const struct pt_target *t, enum pt_log_level level,
                                                          const char *fmt, ...);
/* The live member with this pid, or NULL. */
struct pt_member *pt_target_live_member(const struct pt_target *t, pid_t pid);
/* Open pid as a new member. baseline: it joins as part of a new root's
 * tree (its past is not counted); otherwise it was born in the tree.
 * NULL when it cannot join (gone, a kernel thread for a matching
 * selector, no descriptors). The members array may move. */
struct pt_member *pt_target_join(struct pt_target *t, pid_t pid, uint64_t expected_starttime, bool baseline);
/* pid exec'd or changed its credentials: if it is a member, its files
 * are opened again under the permissions it has now (pt_member_reopen). */
void pt_target_member_changed(struct pt_target *t, pid_t pid);
/* A member found gone, in tree order (see target.c). */
void pt_target_member_gone(struct pt_target *t, struct pt_member *m);
/* The selector names another root (a rewritten pid file): every member
 * leaves, as one reaped outside the tree does (its last values stay
 * counted, it counts as exited), and its later forks are not the tree's. */
void pt_target_leave_all(struct pt_target *t);
/* Drop the members that are gone, if any. */
void pt_target_compact(struct pt_target *t);

/* ---- between target.c and exits.c --------------------------------- */

static inline bool pt_target_by_process(const struct pt_target *t)
{
    return t->options.breakdown == PT_BY_PROCESS;
}
/* The kernel's process events say pid exited at when (pt_now's clock):
 * a member's, or a departed one's, last moments end there. */
void pt_target_note_exit(struct pt_target *t, pid_t pid, double when);
/* m has left, reaped by reaper (a live member) or outside the tree (NULL):
 * keep what settling it from its exit records needs. */
void pt_target_depart(struct pt_target *t, const struct pt_member *m, const struct pt_member *reaper);
/* The breakdown by thread name: a thread's usage u, read now (cpu_now,
 * ctx_now), credited to its name's group since its last read; a thread
 * first seen brings its whole past when count_past (target.c). */
void pt_target_credit_thread(struct pt_target *t, struct pt_thread_usage *u, bool count_past);

#endif
