#include "collector/collectorsource.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bpf/taskiter.h"
#include "bpf/udpcount.h"
#include "util/base.h"
#include "procfs/caps.h"
#include "util/escape.h"
#include "procfs/callerfiles.h"
#include "procfs/pidns.h"

/* The program, its maps and link hold about ten descriptors for good; a
 * run whose open-files limit is below this keeps them for its /proc
 * files and its own pipes and sockets. */
#define PT_SOURCE_FDS_MIN 256

/* Why the task iterator cannot serve here before it is tried; NULL when
 * nothing stands in its way. */
static const char *ruled_out(const struct pt_collector *c, char *why, size_t whylen)
{
    struct rlimit nofile;
    if (c->config.source == PT_SOURCE_AUTO && getrlimit(RLIMIT_NOFILE, &nofile) == 0 &&
        nofile.rlim_max < PT_SOURCE_FDS_MIN) {
        snprintf(why, whylen,
                 "the open-files limit (%llu) is below %d: its ten descriptors are left to the /proc files "
                 "(--source bpf takes them all the same)",
                 (unsigned long long)nofile.rlim_max, PT_SOURCE_FDS_MIN);
        return why;
    }
    if (!pt_taskiter_built())
        return "this build has no BPF source (built without libbpf, clang or bpftool)";
    if (c->proc_root_chosen)
        return "the proc root was chosen (--proc-root, ProcRoot, HOST_PROC): its pids are its own";
    if (pt_pidns_events_fit(c->proc_root_fd) != PT_EVENTS_APPLY)
        return "this process is not in the host's pid and user namespaces, whose pids the task iterator gives";
    return NULL;
}

/* Load it, a chosen type information file opened with the caller's own
 * permissions (the load runs with whatever capabilities are raised), and
 * the UDP counters with it (collectorudp.h), on its members map, in the
 * same window: attached later, or never. */
static struct pt_taskiter *load(struct pt_collector *c, char *why, size_t whylen)
{
    int btf_fd = -1;
    if (c->config.btf_path) {
        btf_fd = pt_callerfiles_open(c->config.btf_path, O_RDONLY);
        if (btf_fd < 0) {
            char q[PT_QUOTED_MAX];
            snprintf(why, whylen, "its type information \"%s\": %s", pt_escape(c->config.btf_path, q, sizeof(q)),
                     strerror(-btf_fd));
            return NULL;
        }
    }
    uint32_t raised = pt_caps_raise_bpf();
    struct pt_taskiter *it = pt_taskiter_open(btf_fd, why, whylen);
    if (it)
        c->udpcount = pt_udpcount_open(pt_taskiter_members_fd(it), btf_fd, c->udp_why, sizeof(c->udp_why));
    pt_caps_drop_bpf(raised);
    if (btf_fd >= 0)
        close(btf_fd);
    return it;
}

int pt_collector_choose_source(struct pt_collector *c, char *err, size_t errlen)
{
    c->taskiter = NULL;
    if (c->config.source == PT_SOURCE_PROCFS) {
        snprintf(c->source_line, sizeof(c->source_line), "source: procfs, as asked (--source procfs)");
        return 0;
    }
    char why[256];
    const char *no = ruled_out(c, why, sizeof(why));
    if (no)
        pt_caps_drop_bpf(pt_caps_raise_bpf()); /* lent for a load that will not come: given up */
    if (!no) {
        c->taskiter = load(c, why, sizeof(why));
        no = c->taskiter ? NULL : why;
    }
    if (!no) {
        snprintf(
            c->source_line, sizeof(c->source_line),
            "source: bpf, the task iterator reads the members' memory at each poll%s, their children at "
            "each discovery and their stat, io, threads' counts and open descriptors at the interval's end, one pass "
            "each "
            "(a small tree on a crowded host reads its children files where that costs less); smaps_rollup, limits "
            "and each member's first count of fd/ from procfs",
            pt_taskiter_statm_sums(c->taskiter) ? "" : " (statm from procfs: this kernel's sums no per-CPU counts)");
        return 0;
    }
    if (c->config.source == PT_SOURCE_BPF) {
        snprintf(err, errlen, "--source bpf: the BPF task iterator cannot serve: %s", no);
        return -1;
    }
    snprintf(c->source_line, sizeof(c->source_line), "source: procfs, the BPF task iterator cannot serve: %s", no);
    return 0;
}
