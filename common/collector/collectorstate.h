/* collectorstate: the collector's state (struct pt_collector), shared by
 * the files that each do one of its jobs: collectornames.c (naming
 * targets), collectorns.c (what a foreign pid namespace means, said),
 * listeners.c (process events and exit records), collectortick.c (what
 * is due when, and the interval's end), collectorreap.c (launch mode's
 * children) and collector.c (building it, adding targets). */
#ifndef PROCTREE_COLLECTORSTATE_H
#define PROCTREE_COLLECTORSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proctree/batch.h"
#include "collector/collectorconfig.h"
#include "netlink/delayacct.h"
#include "netlink/exitrecords.h"
#include "util/fdbudget.h"
#include "procfs/sysmem.h"
#include "gpu/gpu.h"
#include "net/sockdiag.h"
#include "netlink/procevents.h"
#include "collector/procscan.h"
#include "util/ratelimit.h"
#include "tree/target.h"
#include "bpf/taskiter.h"
#include "bpf/udpcount.h"

struct pt_collector {
    struct pt_collector_config config;
    char *proc_root;
    char *sys_root;
    int proc_root_fd;
    bool proc_root_chosen; /* by an option or the environment, not the default /proc */
    /* Our pid as the proc root names it (pidns.h), used wherever a pid is
     * compared with or looked up in the proc root; getpid() unless the
     * proc root is another pid namespace's (a container's view of the host) */
    pid_t self;
    struct pt_target *targets;
    size_t n_targets;
    struct pt_target_result *results;
    /* --counters total: each target's sums (parallel to targets) and the
     * global line's; NULL and unused in delta mode */
    struct pt_totals *totals;
    struct pt_totals global_totals;
    struct pt_sysmem global;
    bool have_global;
    struct pt_taskiter *taskiter; /* the BPF source (collectorsource.h); NULL: procfs alone */
    char source_line[512];        /* which source serves, and why: said at the first tick */
    /* the UDP counters (collectorudp.h): loaded with the task iterator,
     * attached at the first tick where a target follows the network; NULL:
     * none (udp_why says why, when the task iterator serves) */
    struct pt_udpcount *udpcount;
    char udp_why[256];
    bool said_udp_lost;
    struct pt_ratelimit udp_said;
    struct pt_batch batch;
    struct pt_fd_budget fd_budget;
    bool said_budget; /* the budget-reached line is written once */
    struct pt_delayacct delayacct;
    struct pt_gpu gpu;           /* probed at the first tick */
    struct pt_sockdiag sockdiag; /* opened at the first tick where a target follows TCP sockets */
    bool net_on;                 /* the dump socket is open */
    struct pt_ratelimit net_loss_said;
    struct pt_procscan scan;     /* the host's processes, for the matching selectors */
    struct pt_procevents events; /* the kernel's process events, for scan and targets */
    bool events_tried;
    const char *events_refused_here; /* why, outside the host's namespaces; else NULL */
    struct pt_exitrecords exits;     /* the kernel's exit records, for every target */
    /* the loss lines, said at most once a period (a fork storm is every drain) */
    struct pt_ratelimit exit_loss_said, event_loss_said;
    bool started;
    double next_poll, next_discovery, next_pss;
    double interval_start;

    /* launch mode */
    struct pt_target *launched;
    pid_t launched_ours; /* its pid in our namespace, as fork() gave it */
    bool launched_exited;
    int launched_wait_status; /* as waitpid gave it */
};

#endif
