/* procscan: the processes of the host, for the matching selectors.
 *
 * --match, --exe and --user look at every process of the host, so what
 * they cost must not follow the host: one cache of verdicts, shared by
 * all such targets, decides which processes are roots. A process is
 * classified (its files read, every matcher asked) when it is first seen,
 * and kept by pid with its starttime and one verdict bit per target.
 *
 * How new and changed processes are learnt of:
 *   - with the kernel's process events (procevents.h, drained by the
 *     collector at every tick and handed over here): the processes started, exec'd, renamed or given another user since
 * the last discovery, still alive, are classified at the next one; /proc is walked only at the start and after the
 * kernel dropped events. A new or newly matching process is found at the next discovery.
 *   - without them: /proc is walked when the host's last allocated pid
 *     (<proc root>/sys/kernel/ns_last_pid) has moved since the last walk,
 *     and only pids not known yet are classified. A process that exec's
 *     into a match keeps its pid, so known processes are classified again
 *     in a slow rotation: each within PT_RECHECK_DISCOVERIES discoveries.
 * Before a cached match is handed to a target as a new root, it is
 * classified again: its pid may have been reused meanwhile.
 * Kernel threads are never roots, nor are proctree's own process and its
 * ancestors below pid 1 (the shell or `timeout` that started
 * proctree-execd, whose command line holds the very pattern; collectd's
 * parent): the tree of any of them holds proctree itself, which would
 * then measure its own work. Pid 1 is left to the selector: whoever
 * matches it asks for the whole host. */
#ifndef PROCTREE_PROCSCAN_H
#define PROCTREE_PROCSCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "util/base.h"
#include "util/bounds.h"
#include "util/pidmap.h"
#include "netlink/procevents.h"
#include "procfs/procfile.h"

struct pt_target;

/* Without process events, a known process is classified again at least
 * once every this many discoveries. */
#define PT_RECHECK_DISCOVERIES 30

struct pt_scan_entry {
    pid_t pid; /* 0: a free slot */
    uint64_t starttime;
    uint32_t seen; /* the walk that last listed it */
};

struct pt_procscan {
    int proc_root_fd;
    pid_t self;                        /* our pid as the proc root names it */
    pid_t ancestors[PT_ANCESTORS_MAX]; /* self, its parent, ... below pid 1 */
    size_t n_ancestors;
    bool started;
    int last_pid_fd; /* ns_last_pid, -1 when there is none */
    int64_t last_pid;
    bool walk_due;

    size_t n_targets; /* targets that take roots from here */
    size_t words;     /* verdict words per entry */
    struct pt_scan_entry *entries;
    uint64_t *verdicts; /* words per entry: bit i = the i-th such target */
    uint64_t *scratch;  /* words: a verdict being made */
    size_t count, cap;  /* slots in use (some free), allocated */
    size_t free_slots;
    struct pt_pidmap index; /* pid -> slot */
    uint32_t walk;          /* walk number, for the sweep */
    size_t rotation;        /* next slot to classify again */

    pid_t *pending; /* pids the events named since the last discovery */
    size_t n_pending, cap_pending;
    struct pt_buf buf;
};

/* self: our pid as the proc root names it (pidns.h), where the walk for
 * our ancestors starts. */
void pt_procscan_init(struct pt_procscan *s, int proc_root_fd, pid_t self);
void pt_procscan_free(struct pt_procscan *s);

/* Once per discovery: offer each of the targets that want it
 * (pt_discovery_wants_scan) the processes its matcher takes now. events:
 * the collector follows the kernel's process events (it hands them over
 * with pt_procscan_follow_events), so /proc is walked only when some were
 * lost. */
void pt_procscan_run(struct pt_procscan *s, struct pt_target *targets, size_t n_targets, bool events);

/* The events of one drain (procevents.h), for the next discovery;
 * complete is false when the kernel dropped some: /proc is walked then. */
void pt_procscan_follow_events(struct pt_procscan *s, const struct pt_procevent *events, size_t n, bool complete);

#endif
