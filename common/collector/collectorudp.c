#include "collector/collectorudp.h"

#include <stdio.h>
#include <string.h>

#include "bpf/udpcount.h"

static bool any_net(const struct pt_collector *c)
{
    for (size_t i = 0; i < c->n_targets; i++)
        if (c->targets[i].options.collect_net)
            return true;
    return false;
}

void pt_collector_udp_start(struct pt_collector *c)
{
    if (!any_net(c)) {
        pt_collector_udp_free(c); /* --no-net everywhere: nothing attached */
        return;
    }
    char why[256];
    if (!c->taskiter) {
        pt_logf(PT_LOG_INFO,
                "network: proc_net_udp_* are left out: they need the BPF source (the kernel's UDP send and receive "
                "paths counted per process), and the source is procfs");
        return;
    }
    if (!c->udpcount) {
        pt_logf(PT_LOG_INFO, "network: proc_net_udp_* are left out: the UDP counters' programs did not load (%s)",
                c->udp_why);
        return;
    }
    if (pt_udpcount_attach(c->udpcount, why, sizeof(why)) != 0) {
        pt_logf(PT_LOG_INFO, "network: proc_net_udp_* are left out: %s", why);
        pt_collector_udp_free(c);
        return;
    }
    for (size_t i = 0; i < c->n_targets; i++)
        if (c->targets[i].options.collect_net)
            pt_target_set_udp(&c->targets[i], c->udpcount);
}

static bool followed(pid_t tgid, void *arg)
{
    return pt_taskiter_follows(arg, tgid);
}

void pt_collector_udp_end(struct pt_collector *c)
{
    if (!c->udpcount)
        return;
    double cpu0 = pt_thread_cpu_seconds();
    char tail[96];
    int err = pt_udpcount_read(c->udpcount);
    if (err < 0 && pt_ratelimit_say(&c->udp_said, pt_now(), "failures", tail, sizeof(tail)))
        pt_logf(PT_LOG_WARNING, "network: a read of the UDP counters failed (%s): proc_net_udp_* left out%s",
                strerror(-err), tail);
    if (!c->said_udp_lost && pt_udpcount_lost(c->udpcount) > 0) {
        c->said_udp_lost = true;
        pt_logf(PT_LOG_WARNING,
                "network: the UDP counters' map is full (%d processes): the bytes of processes past it are not "
                "counted in proc_net_udp_* (said once)",
                PT_UDPREC_MAX);
    }
    double share = (pt_thread_cpu_seconds() - cpu0) / (double)c->n_targets;
    for (size_t i = 0; i < c->n_targets; i++) {
        pt_target_charge(&c->targets[i], share);
        if (!err)
            pt_target_udp_take(&c->targets[i]);
    }
    if (!err)
        pt_udpcount_retire(c->udpcount, followed, c->taskiter); /* after every target took its own */
}

void pt_collector_udp_free(struct pt_collector *c)
{
    pt_udpcount_close(c->udpcount);
    c->udpcount = NULL;
}
