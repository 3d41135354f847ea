/* cgacct: the kernel's own accounting of a target's cgroups (cgstat.h),
 * turned into what one interval reports.
 *
 * A target that is a cgroup (--cgroup, --unit, a launched command in a
 * cgroup of its own) has one or more (a glob of units); a breakdown by
 * cgroup has one more set, one per line (but a glob's lines are its
 * units, read from the target's set: targetcg.c). Each cgroup's cumulative
 * quantities are reported as their growth in the interval, summed over
 * the cgroups; its memory in use is read at every poll (one read per
 * cgroup, whatever the number of members), its min and max are those of
 * the sum. A cgroup made again at the same path (a unit's restart: its
 * id, the directory's inode, changes) counts from its start, as one that
 * appears after the first discovery does; those there at the first
 * discovery count from then (their past is not the interval's). A
 * cgroup no longer named is read one last time and its growth until then
 * is in the interval it left in; a cgroup removed cannot be (its files
 * read ENODEV): what it did since the last end is lost, as a cgroup's
 * made again is.
 *
 * What the kernel does not offer for a cgroup is left out of the line
 * (pt_cgacct_missing says what, for the start line), never given as 0.
 * With several cgroups a quantity is reported only when every one of them
 * offers it, and the peak is the sum of their peaks (at least the peak of
 * the sum).
 *
 * Where v1 blkio counts no block I/O at all (blkiocount.h: no disk has
 * the throttle policy on, since Linux 6.10 the default), its files are
 * not read: a cgroup's blkio.throttle.io_service_bytes is set aside as
 * if it had none, and cgroup_io_* are left out, not reported as 0
 * (pt_cgacct_blkio_uncounted says so). That is looked at again with what
 * is missing (PT_CGACCT_REPROBE_SETS): once the kernel counts, the files
 * are read from that look on. */
#ifndef PROCTREE_CGACCT_H
#define PROCTREE_CGACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup/cgroupfs.h"
#include "cgroup/cgstat.h"
#include "report/report.h"

struct pt_cgentry {
    char *dir; /* as the target names it (its key), in any hierarchy */
    struct pt_cgstat stat;
    bool open;
    int error;                             /* why its files cannot be had (pt_cgroupfs_dirs_of), or 0 */
    uint64_t ino;                          /* its directory's inode when opened */
    uint64_t base[PT_CGQ_CUMULATIVE_END];  /* the cumulative values at the last interval's end */
    bool named;                            /* by the last pt_cgacct_set */
    bool leaving;                          /* no longer named: read a last time and closed (cgacct.c's leave) */
    bool reported;                         /* leaving, and its last values reported: forgotten next */
    uint64_t carry[PT_CGQ_CUMULATIVE_END]; /* growth in this interval before the last open, or until it left */
    uint32_t carried;                      /* bits of carry known */
    bool told_unreset;                     /* its peak's refused reset was told (pt_cgacct_next_unreset) */
    struct pt_extrema current;             /* this interval's polls */
    struct pt_cgvalues last;               /* the last interval's */
    /* growth of a time quantity past what its interval could hold
     * (pt_cgacct_bound), reported in the next; each full's at most its
     * some's, as the kernel's own totals are */
    uint64_t deferred[PT_CGQ_CUMULATIVE_END];
};

struct pt_cgacct {
    struct pt_cgroupfs fs;
    struct pt_fd_budget *budget; /* the kept descriptors' (cgstat.h), or NULL */
    struct pt_cgentry *entries;
    size_t n, cap;
    bool started;              /* a set was made: cgroups that appear later count whole */
    unsigned sets;             /* sets made, for the looks again at what is missing */
    uint32_t gained;           /* quantities offered since last told (pt_cgacct_gained) */
    struct pt_extrema current; /* this interval's polls: the sum of memory in use */
    struct pt_buf buf;
    double bound_seconds; /* pt_cgacct_bound's, for the next end; 0: none */
    unsigned bound_cpus;
    bool blkio_none;                       /* v1 blkio counts nothing (blkiocount.h) */
    bool blkio_set_aside;                  /* ... and a cgroup's blkio files were not read for it */
    char blkio_root[PT_CGROUPFS_PATH_MAX]; /* that hierarchy's root */
};

/* Each mask is wide enough for what it indexes (and its all-ones, one
 * bit more: cgacct.c). */
_Static_assert(PT_CGQ_COUNT < PT_MASK_BITS(struct pt_cgvalues, known), "enum pt_cgq outgrows known");
_Static_assert(PT_CGQ_CUMULATIVE_END <= PT_MASK_BITS(struct pt_cgentry, carried),
               "the cumulative ones outgrow carried");
_Static_assert(PT_CGQ_COUNT < PT_MASK_BITS(struct pt_cgacct, gained), "enum pt_cgq outgrows gained");

/* budget: where the cgroups' kept descriptors come from (NULL: none). */
void pt_cgacct_init(struct pt_cgacct *a, const struct pt_cgroupfs *fs, struct pt_fd_budget *budget);
void pt_cgacct_free(struct pt_cgacct *a);

/* Every PT_CGACCT_REPROBE_SETS sets (a minute at the default discovery
 * interval), the open cgroups' files are looked for again: a v1
 * directory or a controller's files that appear later are then read. */
#define PT_CGACCT_REPROBE_SETS 60

/* The cgroups now (each a directory in any hierarchy of fs): new ones
 * are opened, those no longer named are closed; now and then, what the
 * open ones lack is looked for again (PT_CGACCT_REPROBE_SETS). */
void pt_cgacct_set(struct pt_cgacct *a, const char *const *dirs, size_t n);

/* The same, named one by one between a begin and an end, for a caller
 * that has no array of them: pt_cgacct_name is true when dir was not
 * named yet since the begin (a set's cgroups, counted). */
void pt_cgacct_begin_set(struct pt_cgacct *a);
bool pt_cgacct_name(struct pt_cgacct *a, const char *dir);
void pt_cgacct_end_set(struct pt_cgacct *a);

/* The poll: each cgroup's memory in use, and their sum, into this
 * interval's min and max (the sum only when each cgroup gives it). */
void pt_cgacct_poll(struct pt_cgacct *a);

/* The next pt_cgacct_end_interval's interval lasted seconds, on a host
 * of cpus CPUs. A cgroup's time quantities grow over the time between two
 * reads of its files, which follow the interval's end by as long as the
 * reads before them took: on a loaded host that window outgrows the
 * interval (a stall's "some" of 0.614 s was read for an interval of
 * 0.493 s). So each cgroup's growth of the interval is reported at most
 * what the interval can hold: its CPU time (user and system together) and
 * throttling at most seconds x cpus, each stall's some and full at most
 * seconds (a share of wall time); the rest is deferred to the next
 * interval. The total stays the kernel's; only when it is reported moves,
 * by the reads' lag. A cgroup read for the last time (it left) reports
 * all it deferred. Without a call, nothing is bounded. */
void pt_cgacct_bound(struct pt_cgacct *a, double seconds, unsigned cpus);

/* Read every cgroup now: each one's values of the interval (in its
 * entry's last), and their sum into sum; starts the next interval. */
void pt_cgacct_end_interval(struct pt_cgacct *a, struct pt_cgvalues *sum);

/* The last interval's values of the cgroup named dir, or NULL. */
const struct pt_cgvalues *pt_cgacct_values_of(const struct pt_cgacct *a, const char *dir);

/* A cgroup whose files cannot be had by their path (pt_cgroupfs_dirs_of:
 * below no cgroup mount, or a path too long), its error in *error; NULL
 * when there is none. */
const char *pt_cgacct_unreadable(const struct pt_cgacct *a, int *error);

/* A cgroup whose memory.peak reset was refused after one was taken
 * (cgstat.h: its peak is the lifetime's from then), each returned once,
 * its errno in *error; NULL when none is left untold. */
const char *pt_cgacct_next_unreset(struct pt_cgacct *a, int *error);

/* What the kernel offers for none of the cgroups open, as the metrics'
 * files ("cpu.pressure, memory.current, ...") for the start line, ""
 * when nothing is missing. False (and nothing said) when no cgroup is
 * open. */
bool pt_cgacct_missing(const struct pt_cgacct *a, char *out, size_t len);

/* What the looks again found since the last call, as the metrics'
 * files into out; false when nothing was. */
bool pt_cgacct_gained(struct pt_cgacct *a, char *out, size_t len);

/* The root of the v1 blkio hierarchy that counts no block I/O, when a
 * cgroup open now has blkio files that were set aside for it
 * (cgroup_io_* left out); NULL otherwise. What pt_cgacct_missing says
 * leaves those quantities to this. */
const char *pt_cgacct_blkio_uncounted(const struct pt_cgacct *a);

#endif
