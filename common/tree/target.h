/* target: one selected process tree, its members and their sampling;
 * what the numbers add up to is the ledger's (ledger.h), how members are
 * found discovery.c's, what exit records settle exits.c's. */
#ifndef PROCTREE_TARGET_H
#define PROCTREE_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "net/sockdiag.h"
#include "tree/discovery.h"
#include "tree/exits.h"
#include "report/report.h"
#include "tree/membership.h"
#include "select/selector.h"
#include "tree/targetevents.h"
#include "tree/targetstate.h"
#include "report/units.h"

/* sys_root: where the cgroup filesystem is looked for (cgroupfs.h).
 * Returns 0, or -1 with a one-line reason in err. */
int pt_target_init(struct pt_target *t, const char *name, const struct pt_selector *selector,
                   const struct pt_target_options *options, bool pss_at_end, int proc_root_fd, const char *sys_root,
                   struct pt_fd_budget *budget, char *err, size_t errlen);

/* The name the target reports under (its tag, its plugin instance). */
const char *pt_target_name(const struct pt_target *t);
/* The launched command's pid for a target of one (PT_SELECT_CHILD), else 0. */
pid_t pt_target_launched_pid(const struct pt_target *t);

/* Our pid as the proc root names it (pidns.h; getpid() until told): the
 * pid a pid file may not name, whose children launch mode adopts. */
/* Read the members' counters through the collector's task iterator
 * (taskiter.h; NULL: their files alone). Before any member joins. */
void pt_target_set_taskiter(struct pt_target *t, struct pt_taskiter *it);
void pt_target_set_self(struct pt_target *t, pid_t self);
/* The collector's UDP counters, attached, for a target that follows the
 * network (targetudp.h): its members' bytes from now. */
void pt_target_set_udp(struct pt_target *t, const struct pt_udpcount *counts);

/* The target's face: the one place that holds a target writable. Each call
 * hands the module below it the parts that module writes (membership.h's
 * struct pt_membership_parts, discovery.h's struct pt_discovery_parts, a
 * part by its own type) and the target to read; what each does is said
 * in that module's header. */

/* CPU the collector spent for this target outside its calls (its share of
 * a listener's drain), counted in this interval's collector_cpu_seconds. */
void pt_target_charge(struct pt_target *t, double cpu_seconds);
/* The interval's wall time ends now: our CPU from here (the end's reads)
 * is charged to the next line (interval.h's pt_interval_close_cpu). */
void pt_target_close_cpu(struct pt_target *t);
/* The collector's walk found a process the matcher takes: a root for the
 * next pt_target_discover() (pt_discovery_offer_root). */
void pt_target_offer_root(struct pt_target *t, pid_t pid);
/* Resolve the selector and walk the tree for new descendants
 * (pt_discovery_run). */
void pt_target_discover(struct pt_target *t, double now);
/* The process events are listened to from now on (pt_eventbook_listened):
 * what joins and leaves before the first drain is noted, so its fork
 * event in that drain is not counted again. */
void pt_target_events_listened(struct pt_target *t);
/* The process events of one drain (pt_targetevents_follow). */
void pt_target_follow_events(struct pt_target *t, const struct pt_procevent *events, size_t n, bool complete);
/* The exit records of one drain (pt_exits_follow). */
void pt_target_follow_exits(struct pt_target *t, const struct pt_exitrecord *records, size_t n, bool complete);
/* No more exit records (pt_exits_stop). */
void pt_target_stop_exits(struct pt_target *t);
/* The fast poll, a PSS sample, the interval's last reads (membership.h). */
void pt_target_poll(struct pt_target *t);
void pt_target_sample_pss(struct pt_target *t);
void pt_target_end_reads(struct pt_target *t, double now, double boottime, double blkio_since);
/* The GPU's memory at the discovery's cadence, and its reads at the
 * interval's end (targetgpu.h), their CPU counted. */
void pt_target_gpu_sample(struct pt_target *t, const struct pt_gpu *g);
void pt_target_gpu_end_reads(struct pt_target *t, const struct pt_gpu *g);
/* The TCP sockets (targetnet.h), for a target that follows them
 * (collect_net): a walk of the members' descriptors, its CPU counted
 * (whether a dump is due); a dump's start, its sockets, a destroy
 * notification; the end's sweep. */
bool pt_target_net_walk(struct pt_target *t, bool whole);
void pt_target_net_dump(struct pt_target *t);
/* Does it hold a TCP socket a kernel dump would take, not taken from the
 * BPF pass (targetnet.h)? */
bool pt_target_net_holds(const struct pt_target *t);
/* At the end, after its walk: the pass's records as its dump, where they
 * tell every member's sockets; whether they did (then no kernel dump is
 * its). */
bool pt_target_net_take_pass(struct pt_target *t);
void pt_target_net_take(struct pt_target *t, const struct pt_tcpsock *s);
void pt_target_net_destroyed(struct pt_target *t, const struct pt_tcpsock *s);
void pt_target_net_sweep(struct pt_target *t);
/* The UDP bytes of the interval (targetudp.h), once the collector read
 * the counters' snapshot: its CPU counted as the target's. */
void pt_target_udp_take(struct pt_target *t);
void pt_target_free(struct pt_target *t);

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

/* The breakdown's tag key ("process"), or NULL without a breakdown. */
const char *pt_target_breakdown_key(const struct pt_target *t);
/* The breakdown's lines of the last ended interval; writable, for the
 * collector to put totals in them (--counters total, totals.h). */
struct pt_group_report *pt_target_group_reports(struct pt_target *t, size_t *n);

#endif
